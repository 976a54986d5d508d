"""Exercise ``sgt-logistic-gradient``: Gradient and Hessian of the logistic loss.

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

import math
import random

from reference.exercises.catalog import (
    EXACT,
    Case,
    Exercise,
    Mistake,
    Plug,
    folder_file,
    folder_hints,
)
from reference.exercises.sgt._shared import (
    _LOGISTIC_GH,
    BINARY_STREAM,
    SECOND_ORDER,
    _loss_method,
    _sigmoid,
)
from reference.sgt import losses as _losses

LOGISTIC_SKELETON = folder_file(__file__, "skeleton.py")


def logistic_gradient_hessian(y: float, raw: float) -> tuple[float, float]:
    """The reference: :meth:`reference.sgt.losses.BinaryCrossEntropy.gradient_hessian`."""
    return _LOGISTIC_GH(_losses.BinaryCrossEntropy(), y, raw)


def _logistic_cases() -> list[Case]:
    rng = random.Random(202)
    cases = [
        Case((1.0, 0.0), "raw score 0 (the docstring example)"),
        Case((0.0, 0.0), "raw score 0, class 0"),
        Case((1.0, -3.0), "negative score"),
        Case((1.0, 40.0), "saturated sigmoid (h underflows towards 0)"),
        Case((0.0, -40.0), "saturated sigmoid, negative side"),
        Case((1.0, -745.0), "exp(f) is subnormal"),
        Case((0.0, -1000.0), "very negative score: exp(-f) would overflow"),
        Case((1.0, 1000.0), "very positive score"),
        Case((0.0, 1e-300), "tiny positive score"),
        Case((1.0, -1e-300), "tiny negative score"),
    ]
    for i in range(60):
        cases.append(Case((float(rng.randint(0, 1)), rng.gauss(0.0, 4.0)), f"random {i}"))
    return cases


def _logistic_plugs() -> tuple[Plug, ...]:
    return (Plug("reference.sgt.losses.BinaryCrossEntropy.gradient_hessian", _loss_method),)


def _logistic_sign(y: float, raw: float) -> tuple[float, float]:
    p = _sigmoid(raw)
    return y - p, p * (1.0 - p)


def _logistic_hessian_p(y: float, raw: float) -> tuple[float, float]:
    p = _sigmoid(raw)
    return p - y, p


def _logistic_negative_branch(y: float, raw: float) -> tuple[float, float]:
    if raw >= 0.0:
        p = 1.0 / (1.0 + math.exp(-raw))
    else:
        p = 1.0 / (1.0 + math.exp(raw))
    return p - y, p * (1.0 - p)


def _logistic_naive(y: float, raw: float) -> tuple[float, float]:
    p = 1.0 / (1.0 + math.exp(-raw))     # overflows for raw < -709.78
    return p - y, p * (1.0 - p)


def _logistic_twice(y: float, raw: float) -> tuple[float, float]:
    p = _sigmoid(_sigmoid(raw))
    return p - y, p * (1.0 - p)


LOGISTIC = Exercise(
    name="sgt-logistic-gradient",
    title="Gradient and Hessian of the logistic loss",
    family="sgt",
    tag="[GPF19, Eq. 26-29]; [SGT-SPEC §3.2]",
    anchor=SECOND_ORDER,
    function_name="logistic_gradient_hessian",
    skeleton=LOGISTIC_SKELETON,
    reference=logistic_gradient_hessian,
    cases=_logistic_cases,
    tolerance=EXACT,
    plugs=_logistic_plugs(),
    stream=BINARY_STREAM,
    mistakes=(
        Mistake(
            "logistic-gradient-sign",
            "Your gradient has the wrong sign: ∂l/∂f = σ(f) - y, the predicted probability "
            "minus the label.",
            SECOND_ORDER,
            _logistic_sign,
            mutant="sgt-bce-gradient-sign",
        ),
        Mistake(
            "logistic-hessian-p",
            "Your Hessian is σ(f): the derivative of σ is σ(1 - σ), so h = σ(f)(1 - σ(f)).",
            SECOND_ORDER,
            _logistic_hessian_p,
            mutant="sgt-bce-hessian",
        ),
        Mistake(
            "logistic-negative-branch",
            "For f < 0 your sigmoid is 1/(1 + e^f), which is σ(-f); the overflow-free form is "
            "e^f/(1 + e^f).",
            SECOND_ORDER,
            _logistic_negative_branch,
            mutant="sgt-sigmoid-negative-branch",
        ),
        Mistake(
            "logistic-sigmoid-twice",
            "You apply the sigmoid twice (σ(σ(f)), the River quirk R1): σ is applied once, "
            "to the raw score.",
            SECOND_ORDER,
            _logistic_twice,
        ),
        Mistake(
            "logistic-naive-sigmoid",
            "Your sigmoid is 1/(1 + e^-f) for every f: for f < 0 it rounds differently from "
            "e^f/(1 + e^f) and e^-f overflows below f = -709.78; use the two branches.",
            SECOND_ORDER,
            _logistic_naive,
        ),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=15,
)



EXERCISE = LOGISTIC

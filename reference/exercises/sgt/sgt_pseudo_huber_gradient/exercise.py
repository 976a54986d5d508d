"""Exercise ``sgt-pseudo-huber-gradient``: Gradient and Hessian of the pseudo-Huber loss.

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
    Stream,
    folder_file,
    folder_hints,
)
from reference.exercises.sgt._shared import (
    _PSEUDO_HUBER_GH,
    SECOND_ORDER,
    SGT_PARAMS,
    Fn,
    _loss_method,
    _regression_data,
)
from reference.sgt import losses as _losses

PSEUDO_HUBER_SKELETON = folder_file(__file__, "skeleton.py")


def pseudo_huber_gradient_hessian(y: float, raw: float) -> tuple[float, float]:
    """The reference: :meth:`reference.sgt.losses.PseudoHuber.gradient_hessian`."""
    return _PSEUDO_HUBER_GH(_losses.PseudoHuber(), y, raw)


def _pseudo_huber_cases() -> list[Case]:
    rng = random.Random(1111)
    cases = [
        Case((0.0, 0.0), "zero residual"),
        Case((0.0, 10.0), "the docstring example: a far target"),
        Case((5.0, -95.0), "an outlier: the gradient saturates near -1"),
        Case((1e-300, -1e-300), "tiny residual"),
        Case((0.0, 1e200), "huge residual: r² overflows"),
        Case((1.0, 1.0 + 1e-8), "residual 1e-8"),
    ]
    for i in range(60):
        scale = 10.0 ** rng.randint(-2, 3)
        cases.append(Case((rng.gauss(0.0, scale), rng.gauss(0.0, scale)), f"random {i}"))
    return cases


def _pseudo_huber_mistake(kind: str) -> Fn:
    def wrong(y: float, raw: float) -> tuple[float, float]:
        r = raw - y
        q = 1.0 + r * r
        root = math.sqrt(q)
        if kind == "hessian-q":
            return r / root, 1.0 / q
        if kind == "gradient-r":
            return r, 1.0 / (q * root)
        if kind == "hessian-root":
            return r / root, 1.0 / root
        return r / root, q ** -1.5          # kind == "power"
    return wrong


PSEUDO_HUBER = Exercise(
    name="sgt-pseudo-huber-gradient",
    title="Gradient and Hessian of the pseudo-Huber loss",
    family="sgt",
    tag="[GPF19, §3.1]; [SGT-SPEC §3.5]",
    anchor=SECOND_ORDER,
    function_name="pseudo_huber_gradient_hessian",
    skeleton=PSEUDO_HUBER_SKELETON,
    reference=pseudo_huber_gradient_hessian,
    cases=_pseudo_huber_cases,
    tolerance=EXACT,
    plugs=(Plug("reference.sgt.losses.PseudoHuber.gradient_hessian", _loss_method),),
    # ``SGT`` with the built-in pseudo-Huber loss: the fast model runs its C derivatives
    stream=Stream("SGT", {**SGT_PARAMS, "loss": _losses.PseudoHuber()}, _regression_data),
    mistakes=(
        Mistake(
            "pseudo-huber-hessian-q",
            "Your Hessian is 1/(1 + r²): differentiating r/√(1 + r²) once more gives "
            "(1 + r²)^(-3/2).",
            SECOND_ORDER,
            _pseudo_huber_mistake("hessian-q"),
            mutant="sgt-pseudo-huber-hessian",
        ),
        Mistake(
            "pseudo-huber-gradient-r",
            "Your gradient is the residual itself (the squared error's): the pseudo-Huber "
            "gradient r/√(1 + r²) never exceeds 1 in size.",
            SECOND_ORDER,
            _pseudo_huber_mistake("gradient-r"),
        ),
        Mistake(
            "pseudo-huber-hessian-root",
            "Your Hessian is 1/√(1 + r²): the quotient rule on r/√q gives 1/√q - r²/q^(3/2) "
            "= 1/(q√q).",
            SECOND_ORDER,
            _pseudo_huber_mistake("hessian-root"),
        ),
        Mistake(
            "pseudo-huber-power",
            "q ** -1.5 is the right Hessian in real arithmetic but pow rounds differently "
            "from 1/(q·√q), which both backends compute.",
            SECOND_ORDER,
            _pseudo_huber_mistake("power"),
        ),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=10,
)



EXERCISE = PSEUDO_HUBER

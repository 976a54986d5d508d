"""Exercise ``sgt-squared-error-gradient``: Gradient and Hessian of the squared error.

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

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
    REGRESSION_STREAM,
    SECOND_ORDER,
    _loss_method,
)
from reference.sgt import losses as _losses

# The reference functions, captured at import: the checker replaces the originals inside the
# ``reference.sgt`` modules while a student's function runs in the model, never here, so
# the reference answers below stay the reference even then (and never call the student).
_SQUARED_GH = _losses.SquaredError.gradient_hessian


SQUARED_SKELETON = folder_file(__file__, "skeleton.py")


def squared_error_gradient_hessian(y: float, raw: float) -> tuple[float, float]:
    """The reference: :meth:`reference.sgt.losses.SquaredError.gradient_hessian`."""
    return _SQUARED_GH(_losses.SquaredError(), y, raw)


def _squared_cases() -> list[Case]:
    rng = random.Random(101)
    cases = [
        Case((1.0, 1.0), "zero residual"),
        Case((3.0, 1.0), "the docstring example"),
        Case((0.0, -0.0), "signed zeros"),
        Case((1e300, -1e300), "huge values"),
        Case((1e-300, 3e-300), "tiny values"),
        Case((-2.5, 0.0), "raw score 0 (the warm-up step)"),
    ]
    for i in range(60):
        scale = 10.0 ** rng.randint(-3, 3)
        cases.append(Case((rng.gauss(0.0, scale), rng.gauss(0.0, scale)), f"random {i}"))
    return cases


def _squared_plugs() -> tuple[Plug, ...]:
    return (Plug("reference.sgt.losses.SquaredError.gradient_hessian", _loss_method),)


SQUARED_ERROR = Exercise(
    name="sgt-squared-error-gradient",
    title="Gradient and Hessian of the squared error",
    family="sgt",
    tag="[GPF19, Eq. 23-25]; [SGT-SPEC §3.1]",
    anchor=SECOND_ORDER,
    function_name="squared_error_gradient_hessian",
    skeleton=SQUARED_SKELETON,
    reference=squared_error_gradient_hessian,
    cases=_squared_cases,
    tolerance=EXACT,
    plugs=_squared_plugs(),
    stream=REGRESSION_STREAM,
    mistakes=(
        Mistake(
            "squared-hessian-two",
            "Your Hessian is 2: that is the curvature of (f - y)², but the loss is "
            "(f - y)²/2, whose second derivative is 1.",
            SECOND_ORDER,
            lambda y, raw: (raw - y, 2.0),
            mutant="sgt-squared-hessian",
        ),
        Mistake(
            "squared-missing-half",
            "You differentiated (f - y)² instead of (f - y)²/2: both g and h carry a "
            "spurious factor 2.",
            SECOND_ORDER,
            lambda y, raw: (2.0 * (raw - y), 2.0),
        ),
        Mistake(
            "squared-gradient-sign",
            "Your gradient has the wrong sign: ∂l/∂f = f - y (prediction minus target), "
            "not y - f.",
            SECOND_ORDER,
            lambda y, raw: (y - raw, 1.0),
        ),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=5,
)



EXERCISE = SQUARED_ERROR

"""Exercise ``sgt-newton-step``: The Newton step of a leaf value, -ḡ/(h̄ + λ).

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

import random
from typing import Any

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
    _DELTA_PREDICTION,
    EPSILON,
    OPTIMAL_VALUE,
    REGRESSION_STREAM,
    Fn,
    _means,
)
from reference.sgt import grad_hess as _grad_hess

NEWTON_SKELETON = folder_file(__file__, "skeleton.py")


def newton_step(n: int, sum_g: float, sum_h: float, lam: float) -> float:
    """The reference: :func:`reference.sgt.grad_hess.delta_prediction` of the cell."""
    cell = _grad_hess.GradHessStats()
    cell.n, cell.sum_g, cell.sum_h = int(n), float(sum_g), float(sum_h)
    return _DELTA_PREDICTION(cell, lam)


def _newton_cases() -> list[Case]:
    rng = random.Random(404)
    cases = [
        Case((0, 0.0, 0.0, 0.1), "empty child"),
        Case((0, 0.0, 0.0, 0.0), "empty child, λ = 0 (only ε in the denominator)"),
        Case((1, -2.0, 1.0, 0.1), "one instance (the tutorial's example)"),
        Case((10, 3.0, 0.0, 0.0), "zero Hessian and λ = 0: the ε guard"),
        Case((10, 3.0, 0.0, 0.5), "zero Hessian"),
        Case((5, 0.0, 5.0, 0.1), "zero gradient"),
        Case((1000, 1e300, 1e300, 0.1), "huge sums"),
        Case((3, 1e-300, 3e-300, 0.0), "tiny sums"),
    ]
    for i in range(60):
        n = rng.randint(1, 500)
        lam = rng.choice([0.0, 0.1, 1.0, rng.random()])
        cases.append(Case((n, rng.gauss(0.0, 1.0) * n, rng.random() * n, lam), f"random {i}"))
    return cases


def _cell_of(stats: Any) -> tuple[int, float, float]:
    return int(stats.n), float(stats.sum_g), float(stats.sum_h)


def _newton_plugs() -> tuple[Plug, ...]:
    def adapt(student: Fn) -> Fn:
        def delta_prediction(stats: Any, lam: float) -> float:
            n, sum_g, sum_h = _cell_of(stats)
            return float(student(n, sum_g, sum_h, float(lam)))
        return delta_prediction
    return (Plug("reference.sgt.grad_hess.delta_prediction", adapt),)


def _newton_two_lambda(n: int, sum_g: float, sum_h: float, lam: float) -> float:
    mean_g, mean_h = _means(n, sum_g, sum_h)
    return -mean_g / (mean_h + 2.0 * lam + EPSILON)


def _newton_sums(n: int, sum_g: float, sum_h: float, lam: float) -> float:
    return -sum_g / (sum_h + lam + EPSILON)


def _newton_sign(n: int, sum_g: float, sum_h: float, lam: float) -> float:
    mean_g, mean_h = _means(n, sum_g, sum_h)
    return mean_g / (mean_h + lam + EPSILON)


def _newton_no_lambda(n: int, sum_g: float, sum_h: float, lam: float) -> float:
    mean_g, mean_h = _means(n, sum_g, sum_h)
    return -mean_g / (mean_h + EPSILON)


def _newton_sums_n_lambda(n: int, sum_g: float, sum_h: float, lam: float) -> float:
    return -sum_g / (sum_h + n * lam + EPSILON)


NEWTON = Exercise(
    name="sgt-newton-step",
    title="The Newton step of a leaf value, -ḡ/(h̄ + λ)",
    family="sgt",
    tag="[GPF19, Eq. 13]; [SGT-SPEC §7.1]",
    anchor=OPTIMAL_VALUE,
    function_name="newton_step",
    skeleton=NEWTON_SKELETON,
    reference=newton_step,
    cases=_newton_cases,
    tolerance=EXACT,
    plugs=_newton_plugs(),
    stream=REGRESSION_STREAM,
    mistakes=(
        Mistake(
            "newton-sum-form",
            "You used the paper's sums, -Σg/(Σh + λ): the specification uses the means "
            "-ḡ/(h̄ + λ), so λ shrinks every step by the same factor whatever n is.",
            OPTIMAL_VALUE,
            _newton_sums,
        ),
        Mistake(
            "newton-two-lambda",
            "Your denominator has 2λ: the parabola G v + (H + λ) v²/2 has its minimum at "
            "-G/(H + λ), one λ.",
            OPTIMAL_VALUE,
            _newton_two_lambda,
            mutant="sgt-newton-lambda",
        ),
        Mistake(
            "newton-sign",
            "Your step has the wrong sign: a Newton step moves against the gradient, "
            "Δ = -ḡ/(h̄ + λ).",
            OPTIMAL_VALUE,
            _newton_sign,
        ),
        Mistake(
            "newton-sums-n-lambda",
            "-Σg/(Σh + nλ + ε) is the same step in real arithmetic but rounds differently: "
            "form the means first, then -ḡ/(h̄ + λ + ε).",
            OPTIMAL_VALUE,
            _newton_sums_n_lambda,
        ),
        Mistake(
            "newton-no-lambda",
            "You left out λ: the regulariser λ v²/2 adds λ to the curvature in the "
            "denominator.",
            OPTIMAL_VALUE,
            _newton_no_lambda,
        ),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=10,
)



EXERCISE = NEWTON

"""Exercise ``sgt-loss-change-moments``: Mean and variance of the per-instance loss change.

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

import random
from typing import Any

from reference.exercises.catalog import (
    Case,
    Exercise,
    Mistake,
    Plug,
    Tolerance,
    folder_file,
    folder_hints,
)
from reference.exercises.sgt._shared import (
    _LOSS_CHANGE_MOMENTS,
    EPSILON,
    LOSS_CHANGE,
    REGRESSION_STREAM,
    Fn,
    _cell_from_pairs,
    _means,
    _random_pairs,
)
from reference.sgt import grad_hess as _grad_hess

MOMENTS_SKELETON = folder_file(__file__, "skeleton.py")


def loss_change_moments(delta: float, n: int, sum_g: float, sum_h: float,
                        m_g: float, m_h: float, c: float) -> tuple[float, float]:
    """The reference: :func:`reference.sgt.grad_hess.loss_change_moments` of the cell."""
    cell = _grad_hess.GradHessStats.from_list([n, sum_g, sum_h, m_g, m_h, c])
    return _LOSS_CHANGE_MOMENTS(cell, delta)


def _moments_cases() -> list[Case]:
    rng = random.Random(505)
    cases = [
        Case((0.0, 0, 0.0, 0.0, 0.0, 0.0, 0.0), "empty cell"),
        Case((1.818181818181818, 1, -2.0, 1.0, 0.0, 0.0, 0.0), "one instance (n < 2)"),
        Case((0.5, 4, 2.0, 4.0, 0.0, 0.0, 0.0), "constant pairs (zero variances)"),
        Case((-0.25, 3, -0.75, 1.2, 0.5, 0.02, -0.1), "negative step"),
    ]
    for i in range(60):
        n = rng.randint(2, 200)
        loss = rng.choice(["squared", "logistic"])
        stats = _cell_from_pairs(_random_pairs(rng, n, loss))
        lam = rng.choice([0.0, 0.1, 1.0])
        mean_g = float(stats[1]) / n
        mean_h = float(stats[2]) / n
        delta = -mean_g / (mean_h + lam + EPSILON)
        cases.append(Case((delta, *stats), f"random {loss} cell {i}"))
    return cases


def _moments_plugs() -> tuple[Plug, ...]:
    def adapt(student: Fn) -> Fn:
        def moments(stats: Any, delta: float) -> tuple[float, float]:
            n, sum_g, sum_h, m_g, m_h, c = stats.as_list()
            mean, variance = student(float(delta), int(n), float(sum_g), float(sum_h),
                                     float(m_g), float(m_h), float(c))
            return float(mean), float(variance)
        return moments
    return (Plug("reference.sgt.grad_hess.loss_change_moments", adapt),)


def _moments_mistake(hessian_half: bool = False, covariance_two: bool = False,
                     full_h: bool = False, divide_by_n: bool = False) -> Fn:
    def wrong(delta: float, n: int, sum_g: float, sum_h: float, m_g: float, m_h: float,
              c: float) -> tuple[float, float]:
        mean_g, mean_h = _means(n, sum_g, sum_h)
        denominator = float(n) if divide_by_n else float(n) - 1.0
        var_g = m_g / denominator if n >= 2 else 0.0
        var_h = m_h / denominator if n >= 2 else 0.0
        cov = c / denominator if n >= 2 else 0.0
        mean = delta * mean_g + (1.0 if full_h else 0.5) * mean_h * delta * delta
        d2 = delta * delta
        variance = (d2 * var_g + (0.5 if hessian_half else 0.25) * d2 * d2 * var_h
                    + (2.0 if covariance_two else 1.0) * d2 * delta * cov)
        return mean, variance if variance > 0.0 else 0.0
    return wrong


MOMENTS = Exercise(
    name="sgt-loss-change-moments",
    title="Mean and variance of the per-instance loss change",
    family="sgt",
    tag="[GPF19, Eq. 17-18]; [SGT-SPEC §7.2]",
    anchor=LOSS_CHANGE,
    function_name="loss_change_moments",
    skeleton=MOMENTS_SKELETON,
    reference=loss_change_moments,
    cases=_moments_cases,
    tolerance=Tolerance(
        "rel", 1e-12,
        "you may group Δ², Δ³, Δ⁴ and the factors ½, ¼ in another order; the terms do not "
        "cancel on these cases, so rounding stays far below 1e-12 relative",
    ),
    plugs=_moments_plugs(),
    stream=REGRESSION_STREAM,
    mistakes=(
        Mistake(
            "moments-mean-half",
            "Your mean lacks the ½ of the Taylor term: m = Δḡ + h̄Δ²/2.",
            LOSS_CHANGE,
            _moments_mistake(full_h=True),
            mutant="sgt-loss-change-mean",
        ),
        Mistake(
            "moments-variance-n",
            "You divided the centred sums by n: the sample variances and covariance divide "
            "M_g, M_h and C by n - 1.",
            LOSS_CHANGE,
            _moments_mistake(divide_by_n=True),
        ),
        Mistake(
            "moments-hessian-term",
            "The Hessian term of Var(L) is Δ⁴ s_h²/4: the coefficient of h is Δ²/2, and it "
            "enters the variance squared.",
            LOSS_CHANGE,
            _moments_mistake(hessian_half=True),
            mutant="sgt-loss-change-hessian-term",
        ),
        Mistake(
            "moments-covariance-term",
            "The covariance term of Var(L) is Δ³ c_gh: 2ab Cov with a = Δ and b = Δ²/2 "
            "gives Δ³, the 2 cancels the ½.",
            LOSS_CHANGE,
            _moments_mistake(covariance_two=True),
            mutant="sgt-loss-change-covariance-term",
        ),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=20,
)



EXERCISE = MOMENTS

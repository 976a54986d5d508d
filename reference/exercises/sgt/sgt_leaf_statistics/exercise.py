"""Exercise ``sgt-leaf-statistics``: Welford's update of a leaf's gradient/Hessian statistics.

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
    _ADD,
    LEAF_STATISTICS,
    REGRESSION_STREAM,
    Fn,
    _cell_from_pairs,
    _means,
    _random_pairs,
)
from reference.sgt import grad_hess as _grad_hess

WELFORD_SKELETON = folder_file(__file__, "skeleton.py")


def welford_add(cell: list[float], g: float, h: float) -> list[float]:
    """The reference: :meth:`reference.sgt.grad_hess.GradHessStats.add` on a copy."""
    stats = _grad_hess.GradHessStats.from_list(list(cell))
    _ADD(stats, g, h)
    return [float(v) if i else v for i, v in enumerate(stats.as_list())]


def _welford_cases() -> list[Case]:
    rng = random.Random(909)
    cases = [
        Case(([0, 0.0, 0.0, 0.0, 0.0, 0.0], -1.5, 1.0), "empty cell: the first pair"),
        Case((_cell_from_pairs([(0.5, 1.0)]), 1.0, 1.0), "second pair"),
        Case((_cell_from_pairs([(2.0, 0.25)] * 3), 2.0, 0.25), "the same pair again"),
        Case((_cell_from_pairs([(1e150, 1.0), (-1e150, 1.0)]), 3e150, 1.0), "huge gradients"),
        Case((_cell_from_pairs([(1e-300, 0.0)]), -1e-300, 0.0), "tiny gradients, zero Hessian"),
    ]
    for i in range(60):
        loss = rng.choice(["squared", "logistic"])
        pairs = _random_pairs(rng, rng.randint(0, 60), loss)
        g, h = _random_pairs(rng, 1, loss)[0]
        cases.append(Case((_cell_from_pairs(pairs), g, h), f"random {loss} cell {i}"))
    return cases


def _welford_plugs() -> tuple[Plug, ...]:
    def adapt(student: Fn) -> Fn:
        def add(self: Any, g: float, h: float) -> None:
            new = student(self.as_list(), float(g), float(h))
            self.n = int(new[0])
            self.sum_g, self.sum_h, self.m_g, self.m_h, self.c = (float(v) for v in new[1:6])
        return add
    return (Plug("reference.sgt.grad_hess.GradHessStats.add", adapt),)


def _welford_mistake(mg_new_new: bool = False, c_old_old: bool = False,
                     mean_by_n_minus_1: bool = False) -> Fn:
    def wrong(cell: list[float], g: float, h: float) -> list[float]:
        n, sum_g, sum_h, m_g, m_h, c = cell
        mean_g_old, mean_h_old = _means(int(n), float(sum_g), float(sum_h))
        n = int(n) + 1
        sum_g = float(sum_g) + g
        sum_h = float(sum_h) + h
        divisor = float(n - 1) if mean_by_n_minus_1 and n > 1 else float(n)
        mean_g_new, mean_h_new = sum_g / divisor, sum_h / divisor
        if mg_new_new:
            m_g = float(m_g) + (g - mean_g_new) * (g - mean_g_new)
        else:
            m_g = float(m_g) + (g - mean_g_old) * (g - mean_g_new)
        m_h = float(m_h) + (h - mean_h_old) * (h - mean_h_new)
        if c_old_old:
            c = float(c) + (g - mean_g_old) * (h - mean_h_old)
        else:
            c = float(c) + (g - mean_g_old) * (h - mean_h_new)
        return [n, sum_g, sum_h, m_g, m_h, c]
    return wrong


WELFORD = Exercise(
    name="sgt-leaf-statistics",
    title="Welford's update of a leaf's gradient/Hessian statistics",
    family="sgt",
    tag="[GPF19, §3.3]; [SGT-SPEC §4.2]",
    anchor=LEAF_STATISTICS,
    function_name="welford_add",
    skeleton=WELFORD_SKELETON,
    reference=welford_add,
    cases=_welford_cases,
    tolerance=EXACT,
    plugs=_welford_plugs(),
    stream=REGRESSION_STREAM,
    mistakes=(
        Mistake(
            "welford-new-mean-squared",
            "M_g grows by (g - ḡ_old)(g - ḡ_new), one old and one new mean; "
            "(g - ḡ_new)² underestimates it.",
            LEAF_STATISTICS,
            _welford_mistake(mg_new_new=True),
            mutant="sgt-welford-mg",
        ),
        Mistake(
            "welford-covariance-old-means",
            "The co-moment grows by (g - ḡ_old)(h - h̄_new): with both old means it "
            "overestimates C.",
            LEAF_STATISTICS,
            _welford_mistake(c_old_old=True),
            mutant="sgt-welford-covariance",
        ),
        Mistake(
            "welford-mean-n-minus-1",
            "The new means divide the new sums by the new count n, not n - 1.",
            LEAF_STATISTICS,
            _welford_mistake(mean_by_n_minus_1=True),
        ),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=15,
)



EXERCISE = WELFORD

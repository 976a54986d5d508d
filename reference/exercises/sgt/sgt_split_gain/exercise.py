"""Exercise ``sgt-split-gain``: The split gain: a candidate's pooled loss change.

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

import random
from collections.abc import Sequence
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
    _DELTA_PREDICTION,
    _POOL_CHILDREN,
    EPSILON,
    LOSS_CHANGE,
    REGRESSION_STREAM,
    Fn,
    _cell_from_pairs,
    _means,
    _random_pairs,
)
from reference.sgt import grad_hess as _grad_hess

SPLIT_GAIN_SKELETON = folder_file(__file__, "skeleton.py")


def split_gain(children: list[list[float]], lam: float) -> tuple[float, float]:
    """The reference: :func:`reference.sgt.splits.pool_children` of the cells."""
    cells = [_grad_hess.GradHessStats.from_list(list(child)) for child in children]
    _, mean, variance = _POOL_CHILDREN(cells, lam)
    return mean, variance


def _split_gain_cases() -> list[Case]:
    rng = random.Random(606)
    one = _cell_from_pairs([(-1.0, 1.0)])
    two = _cell_from_pairs([(0.5, 1.0)])
    empty = _cell_from_pairs([])
    cases = [
        Case(([one, two], 0.1), "two children of one instance each"),
        Case(([one, empty], 0.1), "all instances in one child"),
        Case(([empty, _cell_from_pairs([(-1.0, 1.0), (-2.0, 1.0)])], 0.0),
             "empty first child, λ = 0"),
        Case(([one], 0.1), "a single instance: variance 0"),
    ]
    for i in range(60):
        loss = rng.choice(["squared", "logistic"])
        children = []
        for _ in range(rng.randint(2, 4)):
            size = 0 if rng.random() < 0.1 else rng.randint(1, 40)
            children.append(_cell_from_pairs(_random_pairs(rng, size, loss)))
        if all(child[0] == 0 for child in children):
            children[0] = _cell_from_pairs(_random_pairs(rng, 5, loss))
        cases.append(Case((children, rng.choice([0.0, 0.1, 1.0])), f"random {loss} split {i}"))
    return cases


def _split_gain_plugs() -> tuple[Plug, ...]:
    def adapt(student: Fn) -> Fn:
        def pool_children(children: Sequence[Any], lam: float
                          ) -> tuple[list[float], float, float]:
            deltas = [_DELTA_PREDICTION(child, lam) for child in children]
            mean, variance = student([child.as_list() for child in children], float(lam))
            return deltas, float(mean), float(variance)
        return pool_children
    return (Plug("reference.sgt.splits.pool_children", adapt),)


def _child_moments(child: Sequence[float], lam: float) -> tuple[int, float, float]:
    """``(n_j, m_j, s_j²)`` of one child cell (the formulas of [SGT-SPEC §7.1] and
    [SGT-SPEC §7.2])."""
    n = int(child[0])
    mean_g, mean_h = _means(n, float(child[1]), float(child[2]))
    delta = -mean_g / (mean_h + lam + EPSILON)
    var_g = float(child[3]) / (n - 1.0) if n >= 2 else 0.0
    var_h = float(child[4]) / (n - 1.0) if n >= 2 else 0.0
    cov = float(child[5]) / (n - 1.0) if n >= 2 else 0.0
    mean = delta * mean_g + 0.5 * mean_h * delta * delta
    d2 = delta * delta
    variance = d2 * var_g + 0.25 * d2 * d2 * var_h + d2 * delta * cov
    return n, mean, variance if variance > 0.0 else 0.0


def _pool_mistake(within_n: bool = False, between_unweighted: bool = False,
                  divide_by_n: bool = False, unweighted_mean: bool = False,
                  java_j1: bool = False) -> Fn:
    def wrong(children: list[list[float]], lam: float) -> tuple[float, float]:
        parts = [_child_moments(child, lam) for child in children]
        parts = [p for p in parts if p[0] > 0]
        n = sum(p[0] for p in parts)
        if unweighted_mean:
            mean = sum(p[1] for p in parts) / len(parts)
        else:
            mean = sum(p[0] * p[1] for p in parts) / n
        if n < 2:
            return mean, 0.0
        if java_j1:
            # the authors' Java: s² = n/(n-1) (S/n - m), S the pooled sum of squares
            squares = sum((p[0] - 1.0) * p[2] + p[0] * p[1] * p[1] for p in parts)
            return mean, n / (n - 1.0) * (squares / n - mean)
        within = sum((p[0] if within_n else p[0] - 1.0) * p[2] for p in parts)
        between = sum((1.0 if between_unweighted else p[0]) * (p[1] - mean) ** 2
                      for p in parts)
        return mean, (within + between) / (n if divide_by_n else n - 1.0)
    return wrong


SPLIT_GAIN = Exercise(
    name="sgt-split-gain",
    title="The split gain: a candidate's pooled loss change",
    family="sgt",
    tag="[GPF19, Eq. 17-18]; [SGT-SPEC §7.3]",
    anchor=LOSS_CHANGE,
    function_name="split_gain",
    skeleton=SPLIT_GAIN_SKELETON,
    reference=split_gain,
    cases=_split_gain_cases,
    tolerance=Tolerance(
        "rel", 1e-12,
        "you may sum over the children in another order, or form m as Σ (n_j/n) m_j; the "
        "pooled variance is a sum of non-negative terms, so rounding stays below 1e-12",
    ),
    plugs=_split_gain_plugs(),
    stream=REGRESSION_STREAM,
    mistakes=(
        Mistake(
            "pool-unweighted-mean",
            "You averaged the children's means without weights: the pooled mean weights "
            "child j by its share n_j/n of the instances.",
            LOSS_CHANGE,
            _pool_mistake(unweighted_mean=True),
        ),
        Mistake(
            "pool-within-n",
            "The within-child part of the pooled variance is Σ (n_j - 1) s_j²: each s_j² "
            "is a sample variance with n_j - 1 degrees of freedom.",
            LOSS_CHANGE,
            _pool_mistake(within_n=True),
            mutant="sgt-pool-within",
        ),
        Mistake(
            "pool-between-unweighted",
            "The between-children part is Σ n_j (m_j - m)²: every instance of child j "
            "sits at distance m_j - m from the pooled mean.",
            LOSS_CHANGE,
            _pool_mistake(between_unweighted=True),
            mutant="sgt-pool-between",
        ),
        Mistake(
            "pool-divide-by-n",
            "You divided the pooled sum of squares by n: the pooled sample variance divides "
            "by n - 1.",
            LOSS_CHANGE,
            _pool_mistake(divide_by_n=True),
            mutant="sgt-pool-denominator",
        ),
        Mistake(
            "pool-java-j1",
            "You subtracted m where m² belongs (the authors' Java bug J1): "
            "s² = n/(n-1) (S/n - m²), which inflates the variance when m < 0.",
            LOSS_CHANGE,
            _pool_mistake(java_j1=True),
        ),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=25,
)



EXERCISE = SPLIT_GAIN

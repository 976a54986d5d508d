"""Exercise ``sgt-merge-cells``: Chan's merge of two leaf statistics cells.

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
    Stream,
    folder_file,
    folder_hints,
)
from reference.exercises.sgt._shared import (
    _MERGE,
    LEAF_STATISTICS,
    SGT_PARAMS,
    Fn,
    _cell_from_pairs,
    _random_pairs,
    _regression_data,
)
from reference.sgt import grad_hess as _grad_hess

MERGE_SKELETON = folder_file(__file__, "skeleton.py")


def merge_cells(a: list[float], b: list[float]) -> list[float]:
    """The reference: :func:`reference.sgt.grad_hess.merge` of the two cells."""
    merged = _MERGE(_grad_hess.GradHessStats.from_list(list(a)),
                    _grad_hess.GradHessStats.from_list(list(b)))
    return merged.as_list()


def _merge_cases() -> list[Case]:
    rng = random.Random(1212)
    empty = _cell_from_pairs([])
    one = _cell_from_pairs([(0.5, 1.0)])
    cases = [
        Case((empty, empty), "two empty cells"),
        Case((empty, one), "empty left side"),
        Case((one, empty), "empty right side"),
        Case((one, _cell_from_pairs([(1.5, 1.0)])), "two single pairs"),
        Case((_cell_from_pairs([(0.5, 0.8), (1.0, 1.0), (1.5, 1.2)]),
              _cell_from_pairs([(0.5, 1.2), (1.0, 1.0), (1.5, 0.9)])),
             "the tutorial's example"),
        Case((_cell_from_pairs([(2.0, 1.0)] * 4), _cell_from_pairs([(2.0, 1.0)] * 3)),
             "equal means: nothing between the cells"),
    ]
    for i in range(60):
        loss = rng.choice(["squared", "logistic"])
        a = _cell_from_pairs(_random_pairs(rng, rng.randint(1, 40), loss))
        b = _cell_from_pairs(_random_pairs(rng, rng.randint(1, 40), loss))
        cases.append(Case((a, b), f"random {loss} cells {i}"))
    return cases


def _merge_plugs() -> tuple[Plug, ...]:
    def adapt(student: Fn) -> Fn:
        def merge(a: Any, b: Any) -> Any:
            return _grad_hess.GradHessStats.from_list(
                list(student(a.as_list(), b.as_list())))
        return merge
    return (Plug("reference.sgt.grad_hess.merge", adapt),)


def _merge_mistake(kind: str) -> Fn:
    def wrong(a: list[float], b: list[float]) -> list[float]:
        if int(a[0]) == 0:
            return list(b)
        if int(b[0]) == 0:
            return list(a)
        n = int(a[0]) + int(b[0])
        d_g = float(b[1]) / int(b[0]) - float(a[1]) / int(a[0])
        d_h = float(b[2]) / int(b[0]) - float(a[2]) / int(a[0])
        if kind == "n-plus-one":
            weight = float(a[0]) * float(b[0]) / float(n + 1)
        elif kind == "product":
            weight = float(a[0]) * float(b[0])
        else:
            weight = float(a[0]) * float(b[0]) / float(n)
        if kind == "no-between":
            weight = 0.0
        c_term = d_g * d_g * weight if kind == "covariance-dg2" else d_g * d_h * weight
        return [n, float(a[1]) + float(b[1]), float(a[2]) + float(b[2]),
                float(a[3]) + float(b[3]) + d_g * d_g * weight,
                float(a[4]) + float(b[4]) + d_h * d_h * weight,
                float(a[5]) + float(b[5]) + c_term]
    return wrong


MERGE = Exercise(
    name="sgt-merge-cells",
    title="Chan's merge of two leaf statistics cells",
    family="sgt",
    tag="[GPF19, §3.3]; [SGT-SPEC §4.3]",
    anchor=LEAF_STATISTICS,
    function_name="merge_cells",
    skeleton=MERGE_SKELETON,
    reference=merge_cells,
    cases=_merge_cases,
    tolerance=EXACT,
    plugs=_merge_plugs(),
    # merges change only the variances, so the stream uses the default, strict δ = 1e-7,
    # where the split test's variance decides whether the first splits pass
    stream=Stream("SGTRegressor", {**SGT_PARAMS, "delta": 1e-7}, _regression_data),
    mistakes=(
        Mistake(
            "merge-no-between-term",
            "You only added the centred sums: the two cells' means differ, and the spread "
            "between them adds d² n_A n_B / n.",
            LEAF_STATISTICS,
            _merge_mistake("no-between"),
        ),
        Mistake(
            "merge-weight-n-plus-one",
            "The between-cells weight is n_A n_B / n with n = n_A + n_B, not / (n + 1).",
            LEAF_STATISTICS,
            _merge_mistake("n-plus-one"),
            mutant="sgt-merge-weight",
        ),
        Mistake(
            "merge-weight-product",
            "The between-cells weight is n_A n_B / n: each pair of points across the cells "
            "counts once, divided by the merged count.",
            LEAF_STATISTICS,
            _merge_mistake("product"),
        ),
        Mistake(
            "merge-covariance-dg-squared",
            "The co-moment's between term is d_g d_h n_A n_B / n: one difference of each "
            "mean, not d_g².",
            LEAF_STATISTICS,
            _merge_mistake("covariance-dg2"),
        ),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=15,
)



EXERCISE = MERGE

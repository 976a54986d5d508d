"""Exercise ``dt-leaf-prob``: Tree prior: log probability that a node stays a leaf.

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from reference.exercises.catalog import (
    Case,
    Exercise,
    Mistake,
    Plug,
    Stream,
    Tolerance,
    folder_file,
    folder_hints,
)
from reference.exercises.dynamic_trees._shared import (
    _REAL,
    A_PRIOR,
    _function_of,
    _regression_data,
)

LEAF_PROB_SKELETON = folder_file(__file__, "skeleton.py")


def _leaf_prob_reference(depth: int, alpha: float, beta: float) -> float:
    return float(_REAL["log_leaf_prob"](int(depth), float(alpha), float(beta)))


_leaf_prob_reference.__name__ = "log_leaf_prob"


def _leaf_prob_cases() -> list[Case]:
    rng = random.Random(21_111)
    cases = [
        Case((0, 0.95, 2.0), "the root, dynaTree's defaults (alpha 0.95, beta 2)"),
        Case((1, 0.95, 2.0), "depth 1: the children of a grown root"),
        Case((0, 0.0, 2.0), "alpha = 0: nodes never split"),
        Case((0, 0.999, 2.0), "alpha near 1: a root leaf is very unlikely"),
        Case((1000, 0.95, 2.0), "a very deep leaf"),
        Case((3, 0.5, 1e-9), "tiny beta: almost no depth penalty"),
    ]
    for _ in range(60):
        cases.append(Case((rng.randrange(0, 13), rng.uniform(0.3, 0.99),
                           rng.uniform(0.1, 2.5))))
    return cases


def _leaf_prob_plug(student: Callable[..., Any]) -> Callable[..., Any]:
    def log_leaf_prob(depth: int, alpha: float, beta: float) -> float:
        return float(student(depth, alpha, beta))
    return log_leaf_prob


@_function_of("log_leaf_prob")
def _leaf_depth_plus_one(depth: int, alpha: float, beta: float) -> float:
    return math.log(1.0 - alpha * math.pow(2.0 + float(depth), -beta))


@_function_of("log_leaf_prob")
def _leaf_split_term(depth: int, alpha: float, beta: float) -> float:
    if alpha == 0.0:
        return -math.inf
    return math.log(alpha) - beta * math.log(1.0 + float(depth))


@_function_of("log_leaf_prob")
def _leaf_plus(depth: int, alpha: float, beta: float) -> float:
    return math.log(1.0 + alpha * math.pow(1.0 + float(depth), -beta))


@_function_of("log_leaf_prob")
def _leaf_one_minus_log(depth: int, alpha: float, beta: float) -> float:
    if alpha == 0.0:
        return math.inf
    return 1.0 - (math.log(alpha) - beta * math.log(1.0 + float(depth)))


LEAF_PROB = Exercise(
    name="dt-leaf-prob",
    title="Tree prior: log probability that a node stays a leaf",
    family="dynamic_trees",
    tag="[AG13, §2.1]; [DT-SPEC §2]",
    anchor=A_PRIOR,
    function_name="log_leaf_prob",
    skeleton=LEAF_PROB_SKELETON,
    reference=_leaf_prob_reference,
    cases=_leaf_prob_cases,
    tolerance=Tolerance("rel", 1e-9, why=(
        "log1p(-p) and log(1 - p) are both fine but differ by about 1e-16/p relative, "
        "because 1 - p is rounded; for a deep leaf p is about 1e-6")),
    plugs=(Plug("reference.dynatree.tree.log_leaf_prob", _leaf_prob_plug),),
    stream=Stream("DynamicTreeRegressor", {"n_particles": 10, "seed": 1},
                  _regression_data(1)),
    mistakes=(
        Mistake("depth-off-by-one",
                "The depth is off by one: the root has depth 0, so its split probability is "
                "alpha (1 + 0)^-beta = alpha.",
                A_PRIOR, _leaf_depth_plus_one, mutant="dt-leaf-prob-depth"),
        Mistake("split-term",
                "This is log p_split(d), the term of an internal node; a leaf contributes "
                "log(1 - p_split(d)).",
                A_PRIOR, _leaf_split_term),
        Mistake("sign-inside-log",
                "A leaf is a node that does not split: 1 - p_split(d), not 1 + p_split(d).",
                A_PRIOR, _leaf_plus),
        Mistake("one-minus-log",
                "The complement is taken of the probability, then the logarithm: "
                "log(1 - p), not 1 - log p.",
                A_PRIOR, _leaf_one_minus_log),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=10,
)



EXERCISE = LEAF_PROB

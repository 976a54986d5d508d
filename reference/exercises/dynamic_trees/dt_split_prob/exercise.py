"""Exercise ``dt-split-prob``: Tree prior: log probability that a node splits.

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

SPLIT_SKELETON = folder_file(__file__, "skeleton.py")


def _split_reference(depth: int, alpha: float, beta: float) -> float:
    return float(_REAL["log_split_prob"](int(depth), float(alpha), float(beta)))


_split_reference.__name__ = "log_split_prob"


def _split_cases() -> list[Case]:
    rng = random.Random(20_101)
    cases = [
        Case((0, 0.95, 2.0), "the root, dynaTree's defaults (alpha 0.95, beta 2)"),
        Case((1, 0.95, 2.0), "depth 1 (the root's children), defaults"),
        Case((2, 0.5, 1.0), "depth 2, alpha 0.5, beta 1"),
        Case((1000, 0.95, 2.0), "a very deep node"),
        Case((3, 1e-300, 2.0), "tiny alpha"),
        Case((5, 0.999999, 50.0), "alpha near 1, steep beta"),
        Case((4, 0.95, 1e-9), "tiny beta: almost no depth penalty"),
    ]
    for _ in range(60):
        cases.append(Case((rng.randrange(0, 13), rng.uniform(0.01, 0.99),
                           rng.uniform(0.1, 5.0))))
    return cases


def _split_plug(student: Callable[..., Any]) -> Callable[..., Any]:
    def log_split_prob(depth: int, alpha: float, beta: float) -> float:
        return float(student(depth, alpha, beta))
    return log_split_prob


@_function_of("log_split_prob")
def _split_depth_plus_one(depth: int, alpha: float, beta: float) -> float:
    return math.log(alpha) - beta * math.log(2.0 + float(depth))


@_function_of("log_split_prob")
def _split_probability(depth: int, alpha: float, beta: float) -> float:
    return alpha * math.pow(1.0 + float(depth), -beta)


@_function_of("log_split_prob")
def _split_sign(depth: int, alpha: float, beta: float) -> float:
    return math.log(alpha) + beta * math.log(1.0 + float(depth))


@_function_of("log_split_prob")
def _split_leaf_term(depth: int, alpha: float, beta: float) -> float:
    return math.log(1.0 - alpha * math.pow(1.0 + float(depth), -beta))


SPLIT_PROB = Exercise(
    name="dt-split-prob",
    title="Tree prior: log probability that a node splits",
    family="dynamic_trees",
    tag="[AG13, §2.1]; [DT-SPEC §2]",
    anchor=A_PRIOR,
    function_name="log_split_prob",
    skeleton=SPLIT_SKELETON,
    reference=_split_reference,
    cases=_split_cases,
    tolerance=Tolerance("rel", 1e-12, why=(
        "log(alpha (1 + d)^-beta) and log(alpha) - beta log(1 + d) are the same number up "
        "to the rounding of the last digits")),
    plugs=(Plug("reference.dynatree.tree.log_split_prob", _split_plug),),
    stream=Stream("DynamicTreeRegressor", {"n_particles": 10, "seed": 1},
                  _regression_data(1)),
    mistakes=(
        Mistake("depth-off-by-one",
                "The depth is off by one: the root has depth 0, so its factor is "
                "(1 + 0)^-beta = 1, not 2^-beta.",
                A_PRIOR, _split_depth_plus_one, mutant="dt-split-prob-depth"),
        Mistake("probability-not-log",
                "This is p_split itself; the function returns its logarithm.",
                A_PRIOR, _split_probability),
        Mistake("sign-of-beta",
                "The sign of the depth term is wrong: (1 + d)^-beta makes deep splits less "
                "likely, so beta log(1 + d) is subtracted.",
                A_PRIOR, _split_sign),
        Mistake("leaf-term",
                "This is log(1 - p_split(d)), the term of a leaf (a node that does not "
                "split); the split term is log p_split(d).",
                A_PRIOR, _split_leaf_term),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=10,
)



EXERCISE = SPLIT_PROB

"""Exercise ``dt-class-probability``: Class leaf predictive with retired pseudo-counts.

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from reference.dynatree.leaf_models import LeafConfig, LeafStats
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
    A_CLASS,
    A_RETIRE,
    _class_data,
    _class_leaves,
    _class_stats,
)

CLASS_PROB_SKELETON = folder_file(__file__, "skeleton.py")


def _class_prob_reference(counts: list[int], retired: list[float], nu: float,
                          k: int) -> float:
    st, cfg = _class_stats(counts, retired, nu)
    return float(_REAL["class_probability"](st, cfg, int(k)))


_class_prob_reference.__name__ = "class_probability"


def _class_prob_cases() -> list[Case]:
    rng = random.Random(21_212)
    cases = []
    for counts, retired, nu, label in _class_leaves(21_213):
        cases.append(Case((counts, retired, nu, rng.randrange(len(counts))), label))
    return cases


def _class_prob_plug(student: Callable[..., Any]) -> Callable[..., Any]:
    def class_probability(st: LeafStats, cfg: LeafConfig, k: int) -> float:
        return float(student(list(st.counts), list(st.gcounts), st.nu, k))
    return class_probability


def _class_prob_variant(*, weight: float = 1.0, total: float = 1.0, use_retired: bool = True,
                        nu_below: bool = True, laplace: bool = False) -> Callable[..., float]:
    def class_probability(counts: list[int], retired: list[float], nu: float,
                          k: int) -> float:
        c = len(counts)
        a = retired[k] if use_retired else 0.0
        n = float(sum(counts))
        if laplace:
            return (counts[k] + a + 1.0) / (n + nu + c)
        return (counts[k] + a + weight / c) / (n + (nu if (use_retired and nu_below) else 0.0)
                                               + total)
    return class_probability


CLASS_PROBABILITY = Exercise(
    name="dt-class-probability",
    title="Class leaf predictive with retired pseudo-counts",
    family="dynamic_trees",
    tag="[AG13, Eq. 1]; [AG13, §3]; [DT-SPEC §3.3]",
    anchor=A_CLASS,
    function_name="class_probability",
    skeleton=CLASS_PROB_SKELETON,
    reference=_class_prob_reference,
    cases=_class_prob_cases,
    tolerance=Tolerance("rel", 1e-12, why=(
        "c_k + a_k + 1/C and n + nu + 1 may be summed in another order, which changes the "
        "last digits")),
    plugs=(Plug("reference.dynatree.leaf_models.class_probability", _class_prob_plug),),
    stream=Stream("DynamicTreeClassifier",
                  {"classes": [0, 1, 2], "n_particles": 10, "seed": 1, "active_size": 15,
                   "retirement": "random", "lam": 0.9},
                  _class_data(1)),
    mistakes=(
        Mistake("prior-weight-two-over-c",
                "The Dirichlet prior puts 1/C on each class (total mass 1), not 2/C.",
                A_CLASS, _class_prob_variant(weight=2.0), mutant="dt-class-prior-weight"),
        Mistake("total-plus-two",
                "The denominator is n + nu + 1: the labels, the retired mass and the prior's "
                "total mass 1, not + 2.",
                A_CLASS, _class_prob_variant(total=2.0), mutant="dt-class-prior-total"),
        Mistake("retired-ignored",
                "Retired labels stay in the leaf's prior: add their pseudo-counts a_k to the "
                "numerator and their mass nu to the denominator.",
                A_RETIRE, _class_prob_variant(use_retired=False)),
        Mistake("retired-mass-missing-below",
                "The denominator must include the retired mass nu, as the numerator "
                "includes a_k.",
                A_RETIRE, _class_prob_variant(nu_below=False)),
        Mistake("laplace-prior",
                "This is the predictive of a uniform Dirichlet(1, ..., 1) prior; dynaTree's "
                "prior is Dirichlet(1/C, ..., 1/C).",
                A_CLASS, _class_prob_variant(laplace=True)),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=10,
)



EXERCISE = CLASS_PROBABILITY

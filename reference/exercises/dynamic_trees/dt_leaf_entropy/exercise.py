"""Exercise ``dt-leaf-entropy``: Entropy of a class leaf's predictive.

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

import math
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
    T05,
    _class_data,
    _class_leaves,
    _class_stats,
)

ENTROPY_SKELETON = folder_file(__file__, "skeleton.py")


def _entropy_reference(counts: list[int], retired: list[float], nu: float) -> float:
    st, cfg = _class_stats(counts, retired, nu)
    return float(_REAL["leaf_entropy"](st, cfg))


_entropy_reference.__name__ = "leaf_entropy"


def _entropy_cases() -> list[Case]:
    return [Case((counts, retired, nu), label)
            for counts, retired, nu, label in _class_leaves(21_313)]


def _entropy_plug(student: Callable[..., Any]) -> Callable[..., Any]:
    def leaf_entropy(st: LeafStats, cfg: LeafConfig) -> float:
        return float(student(list(st.counts), list(st.gcounts), st.nu))
    return leaf_entropy


def _entropy_variant(*, power: int = 1, base: float = math.e, sign: float = -1.0,
                     prior: bool = True) -> Callable[..., float]:
    def leaf_entropy(counts: list[int], retired: list[float], nu: float) -> float:
        c = len(counts)
        n = float(sum(counts))
        h = 0.0
        for k in range(c):
            if prior:
                pk = (counts[k] + retired[k] + 1.0 / c) / (n + nu + 1.0)
            else:
                total = n + nu
                pk = (counts[k] + retired[k]) / total if total > 0.0 else 1.0 / c
            if pk > 0.0:
                h += sign * pk**power * math.log(pk) / math.log(base)
        return h
    return leaf_entropy


LEAF_ENTROPY = Exercise(
    name="dt-leaf-entropy",
    title="Entropy of a class leaf's predictive",
    family="dynamic_trees",
    tag="[AG13, §4.3]; [DT-SPEC §7.5]",
    anchor=f"{T05}#entropy-for-classification",
    function_name="leaf_entropy",
    skeleton=ENTROPY_SKELETON,
    reference=_entropy_reference,
    cases=_entropy_cases,
    tolerance=Tolerance("rel", 1e-12, why=(
        "the probabilities and the sum over classes may be computed in another order, "
        "which changes the last digits")),
    plugs=(Plug("reference.dynatree.discard_stats.leaf_entropy", _entropy_plug),),
    stream=Stream("DynamicTreeClassifier",
                  {"classes": [0, 1, 2], "n_particles": 10, "seed": 2, "active_size": 10,
                   "retirement": "entropy"},
                  _class_data(2)),
    mistakes=(
        Mistake("p-squared",
                "Each class contributes -p_k log p_k, weighted once by p_k, not by p_k^2.",
                f"{T05}#entropy-for-classification", _entropy_variant(power=2),
                mutant="dt-entropy-term"),
        Mistake("bits",
                "The entropy is in nats (natural logarithm), not bits.",
                f"{T05}#entropy-for-classification", _entropy_variant(base=2.0)),
        Mistake("sign",
                "Sign slip: H = -sum p log p is non-negative.",
                f"{T05}#entropy-for-classification", _entropy_variant(sign=1.0)),
        Mistake("no-prior",
                "The probabilities are the leaf's predictive (c_k + a_k + 1/C)/(n + nu + 1), "
                "with the Dirichlet prior, not the raw proportions.",
                A_CLASS, _entropy_variant(prior=False)),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=10,
)



EXERCISE = LEAF_ENTROPY

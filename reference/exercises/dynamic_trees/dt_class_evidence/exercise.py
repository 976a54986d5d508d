"""Exercise ``dt-class-evidence``: Log evidence of a class leaf (Dirichlet-multinomial).

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

import math
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
    _class_cfg,
    _class_data,
)

CLASS_SKELETON = folder_file(__file__, "skeleton.py")


def _class_reference(counts: list[int]) -> float:
    cfg = _class_cfg(len(counts))
    st = LeafStats(cfg)
    st.counts = [int(c) for c in counts]
    st.n = sum(st.counts)
    return float(_REAL["class_log_evidence"](st, cfg))


_class_reference.__name__ = "class_log_evidence"


def _class_cases() -> list[Case]:
    rng = random.Random(20_404)
    cases = [
        Case(([0, 1],), "the first point (n = 1), two classes"),
        Case(([0, 0, 1],), "the first point (n = 1), three classes"),
        Case(([7, 0, 0],), "a pure leaf: one class only"),
        Case(([3, 3, 3],), "ties: equal counts"),
        Case(([1, 1, 1, 1, 1, 1, 1, 1, 1, 1],), "ten classes, one point each"),
        Case(([1000, 2000],), "large counts"),
        Case(([100_000, 3, 0, 1],), "one dominant class"),
    ]
    for _ in range(60):
        c = rng.randrange(2, 7)
        cases.append(Case(([rng.randrange(0, 21) for _ in range(c)],)))
    return cases


def _class_plug(student: Callable[..., Any]) -> Callable[..., Any]:
    def class_log_evidence(st: LeafStats, cfg: LeafConfig) -> float:
        if st.nu == 0.0:
            return float(student(list(st.counts)))
        return float(_REAL["class_log_evidence"](st, cfg))
    return class_log_evidence


def _class_variant(*, prior: float = 1.0, total_shift: float = 1.0, normaliser: bool = True,
                   coefficient: bool = False) -> Callable[..., float]:
    """Dirichlet(prior/C) evidence with one thing changed."""
    def class_log_evidence(counts: list[int]) -> float:
        c = len(counts)
        a = prior / float(c)
        n = float(sum(counts))
        ell = math.lgamma(float(c) * a) - math.lgamma(n + float(c) * a + total_shift - 1.0)
        for ck in counts:
            ell += math.lgamma(float(ck) + a)
            if normaliser:
                ell -= math.lgamma(a)
        if coefficient:
            ell += math.lgamma(n + 1.0)
            for ck in counts:
                ell -= math.lgamma(float(ck) + 1.0)
        return ell
    return class_log_evidence


def _laplace_class(counts: list[int]) -> float:
    """The evidence under a uniform Dirichlet(1, ..., 1) prior (a mistake)."""
    c = len(counts)
    n = float(sum(counts))
    ell = math.lgamma(float(c)) - math.lgamma(n + float(c))
    for ck in counts:
        ell += math.lgamma(float(ck) + 1.0)
    return ell


_laplace_class.__name__ = "class_log_evidence"


CLASS_EVIDENCE = Exercise(
    name="dt-class-evidence",
    title="Log evidence of a class leaf (Dirichlet-multinomial)",
    family="dynamic_trees",
    tag="[AG13, Eq. 1]; [DT-SPEC §3.3]",
    anchor=A_CLASS,
    function_name="class_log_evidence",
    skeleton=CLASS_SKELETON,
    reference=_class_reference,
    cases=_class_cases,
    tolerance=Tolerance("rel", 1e-10, why=(
        "the reference's log-gamma is a Lanczos approximation written out identically in C; "
        "math.lgamma agrees with it to about 1e-15 per term, and the terms partly cancel")),
    plugs=(Plug("reference.dynatree.leaf_models.class_log_evidence", _class_plug),),
    stream=Stream("DynamicTreeClassifier",
                  {"classes": [0, 1, 2], "n_particles": 10, "seed": 1},
                  _class_data(1)),
    mistakes=(
        Mistake("prior-weight-two-over-c",
                "The Dirichlet prior puts 1/C on each class (total mass 1), not 2/C.",
                A_CLASS, _class_variant(prior=2.0), mutant="dt-class-prior-weight"),
        Mistake("total-n-plus-two",
                "The normaliser is log Gamma(n + 1): n labels plus the prior's total mass "
                "1, not n + 2.",
                A_CLASS, _class_variant(total_shift=2.0), mutant="dt-class-prior-total"),
        Mistake("laplace-prior",
                "This is the evidence under a uniform Dirichlet(1, ..., 1) prior; dynaTree's "
                "prior is Dirichlet(1/C, ..., 1/C).",
                A_CLASS, _laplace_class),
        Mistake("missing-prior-normaliser",
                "Each class term subtracts log Gamma(1/C), the prior's normaliser; without "
                "it, leaves with different numbers of classes are not comparable.",
                A_CLASS, _class_variant(normaliser=False)),
        Mistake("multinomial-coefficient",
                "This is the probability of the counts (with the multinomial coefficient "
                "n!/prod c_k!); the evidence is that of the label sequence.",
                A_CLASS, _class_variant(coefficient=True)),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=15,
)



EXERCISE = CLASS_EVIDENCE

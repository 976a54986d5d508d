"""Exercise ``dt-forgetting-class``: Forgetting: the power prior of a class leaf.

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from reference.dynatree.leaf_models import CLASS, LeafConfig, LeafStats
from reference.exercises.catalog import (
    Case,
    Exercise,
    Mistake,
    Plug,
    Stream,
    folder_file,
    folder_hints,
)
from reference.exercises.dynamic_trees._shared import (
    _REAL,
    A_FORGET,
    _class_data,
    _class_stats,
    _retired_counts,
)

FORGET_CLASS_SKELETON = folder_file(__file__, "skeleton.py")


def _forget_class_reference(nu: float, retired: list[float], label: int,
                            lam: float) -> tuple[float, list[float]]:
    st, cfg = _class_stats([0] * len(retired), retired, nu)
    _REAL["absorb_retired"](st, cfg, [0.0], float(label), float(lam))
    return st.nu, list(st.gcounts)


_forget_class_reference.__name__ = "absorb_retired_class"


def _forget_class_cases() -> list[Case]:
    rng = random.Random(21_616)
    cases = [
        Case((0.0, [0.0, 0.0], 1, 0.9), "the first retirement of the leaf (nu = 0)"),
        Case((*reversed(_retired_counts([0, 1, 1], 3, 1.0)), 2, 1.0), "lam = 1: no forgetting"),
        Case((*reversed(_retired_counts([0, 0, 0, 0], 2, 0.5)), 0, 0.5),
             "ties: the same class again and again"),
        Case((*reversed(_retired_counts([1, 0], 2, 1e-6)), 1, 1e-6),
             "tiny lam: almost forget all"),
    ]
    for _ in range(45):
        c = rng.randrange(2, 6)
        lam = 1.0 if rng.random() < 0.2 else rng.uniform(0.1, 1.0)
        labels = [rng.randrange(c) for _ in range(rng.randrange(0, 25))]
        retired, nu = _retired_counts(labels, c, lam)
        cases.append(Case((nu, retired, rng.randrange(c), lam)))
    return cases


def _forget_class_plug(student: Callable[..., Any]) -> Callable[..., Any]:
    def absorb_retired(st: LeafStats, cfg: LeafConfig, x: Sequence[float], y: float,
                       lam: float) -> None:
        if cfg.kind != CLASS:
            _REAL["absorb_retired"](st, cfg, x, y, lam)
            return
        nu, retired = student(st.nu, list(st.gcounts), int(y), lam)
        st.nu = float(nu)
        st.gcounts = [float(v) for v in retired]
    return absorb_retired


def _forget_class_variant(*, counts: bool = True, mass: bool = True, after: bool = False,
                          everyone: bool = False) -> Callable[..., tuple[float, list[float]]]:
    def absorb_retired_class(nu: float, retired: list[float], label: int,
                             lam: float) -> tuple[float, list[float]]:
        if after:
            out = list(retired)
            out[label] += 1.0
            return lam * (nu + 1.0), [lam * v for v in out]
        out = [lam * v if counts else v for v in retired]
        if everyone:
            out = [v + 1.0 / len(out) for v in out]
        else:
            out[label] += 1.0
        return (lam * nu if mass else nu) + 1.0, out
    return absorb_retired_class


FORGETTING_CLASS = Exercise(
    name="dt-forgetting-class",
    title="Forgetting: the power prior of a class leaf",
    family="dynamic_trees",
    tag="[AG13, §5]; [DT-SPEC §3.5]",
    anchor=A_FORGET,
    function_name="absorb_retired_class",
    skeleton=FORGET_CLASS_SKELETON,
    reference=_forget_class_reference,
    cases=_forget_class_cases,
    plugs=(Plug("reference.dynatree.forgetting.absorb_retired", _forget_class_plug),),
    stream=Stream("DynamicTreeClassifier",
                  {"classes": [0, 1, 2], "n_particles": 10, "seed": 1, "active_size": 15,
                   "retirement": "historical", "lam": 0.8},
                  _class_data(1)),
    mistakes=(
        Mistake("counts-not-discounted",
                "The retired pseudo-counts must be discounted: a <- lam a + e_y.",
                A_FORGET, _forget_class_variant(counts=False), mutant="dt-forget-class-counts"),
        Mistake("mass-not-discounted",
                "The retired mass must be discounted like the counts: nu <- lam nu + 1.",
                A_FORGET, _forget_class_variant(mass=False), mutant="dt-forget-mass"),
        Mistake("discounts-the-retiree",
                "Discount first, then add: the point retired now enters with weight 1, not "
                "lam.",
                A_FORGET, _forget_class_variant(after=True)),
        Mistake("spread-over-classes",
                "The retiree adds 1 to its own class only (e_y), not 1/C to every class.",
                A_FORGET, _forget_class_variant(everyone=True)),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=10,
)



EXERCISE = FORGETTING_CLASS

"""Exercise ``dt-forgetting``: Forgetting: the power prior of a constant leaf.

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from reference.dynatree.leaf_models import CONSTANT, LeafConfig, LeafStats
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
    _constant_cfg,
    _constant_stats,
    _regression_data,
    _retired_sums,
)

FORGET_SKELETON = folder_file(__file__, "skeleton.py")


def _forget_reference(nu: float, syg: float, syyg: float, y: float,
                      lam: float) -> tuple[float, float, float]:
    cfg = _constant_cfg(0.0, 0.0)
    st = _constant_stats(cfg, 0, 0.0, 0.0, nu, syg, syyg)
    _REAL["absorb_retired"](st, cfg, [0.0], float(y), float(lam))
    return st.nu, st.syg, st.syyg


_forget_reference.__name__ = "absorb_retired"


def _forget_cases() -> list[Case]:
    rng = random.Random(20_909)
    cases = [
        Case((0.0, 0.0, 0.0, 1.25, 0.9), "the first retirement of the leaf (nu = 0)"),
        Case((*_retired_sums([0.4, 1.1, -0.2], 1.0), 0.8, 1.0), "lam = 1: no forgetting"),
        Case((*_retired_sums([0.4, 1.1, -0.2], 0.5), 0.8, 0.5), "lam = 0.5"),
        Case((*_retired_sums([2.0] * 40, 0.9), 2.0, 0.9),
             "ties: a long run of equal responses (nu near 1/(1 - lam))"),
        Case((*_retired_sums([0.3, 0.6], 1e-6), 0.9, 1e-6), "tiny lam: almost forget all"),
        Case((*_retired_sums([1e150, -1e150], 0.9), 3e150, 0.9), "huge responses"),
        Case((*_retired_sums([1e-150, 2e-150], 0.9), 3e-150, 0.9), "tiny responses"),
    ]
    for _ in range(50):
        lam = 1.0 if rng.random() < 0.2 else rng.uniform(0.05, 1.0)
        retired = [rng.gauss(0.5, 2.0) for _ in range(rng.randrange(0, 30))]
        cases.append(Case((*_retired_sums(retired, lam), rng.gauss(0.5, 2.0), lam)))
    return cases


def _forget_plug(student: Callable[..., Any]) -> Callable[..., Any]:
    def absorb_retired(st: LeafStats, cfg: LeafConfig, x: Sequence[float], y: float,
                       lam: float) -> None:
        if cfg.kind != CONSTANT:
            _REAL["absorb_retired"](st, cfg, x, y, lam)
            return
        nu, syg, syyg = student(st.nu, st.syg, st.syyg, y, lam)
        st.nu, st.syg, st.syyg = float(nu), float(syg), float(syyg)
    return absorb_retired


def _forget_variant(*, mass: bool = True, sums: bool = True, squares: bool = True,
                    after: bool = False, complement: bool = False
                    ) -> Callable[..., tuple[float, float, float]]:
    def absorb_retired(nu: float, syg: float, syyg: float, y: float,
                       lam: float) -> tuple[float, float, float]:
        f = 1.0 - lam if complement else lam
        if after:
            return f * (nu + 1.0), f * (syg + y), f * (syyg + y * y)
        return ((f * nu if mass else nu) + 1.0, (f * syg if sums else syg) + y,
                (f * syyg if squares else syyg) + y * y)
    return absorb_retired


FORGETTING = Exercise(
    name="dt-forgetting",
    title="Forgetting: the power prior of a constant leaf",
    family="dynamic_trees",
    tag="[AG13, §5]; [DT-SPEC §3.5]",
    anchor=A_FORGET,
    function_name="absorb_retired",
    skeleton=FORGET_SKELETON,
    reference=_forget_reference,
    cases=_forget_cases,
    plugs=(Plug("reference.dynatree.forgetting.absorb_retired", _forget_plug),),
    stream=Stream("DynamicTreeRegressor",
                  {"n_particles": 10, "seed": 1, "active_size": 15,
                   "retirement": "historical", "lam": 0.8},
                  _regression_data(1)),
    mistakes=(
        Mistake("mass-not-discounted",
                "The retired mass must be discounted too: nu <- lam nu + 1, otherwise the "
                "prior keeps its full strength while its sums fade.",
                A_FORGET, _forget_variant(mass=False), mutant="dt-forget-mass"),
        Mistake("sum-not-discounted",
                "The retired sum must be discounted: S^g_y <- lam S^g_y + y.",
                A_FORGET, _forget_variant(sums=False), mutant="dt-forget-sum"),
        Mistake("squares-not-discounted",
                "The retired sum of squares must be discounted: S^g_yy <- lam S^g_yy + y^2.",
                A_FORGET, _forget_variant(squares=False)),
        Mistake("discounts-the-retiree",
                "Discount first, then add: the point retired now enters with weight 1, not "
                "lam.",
                A_FORGET, _forget_variant(after=True)),
        Mistake("one-minus-lam",
                "lam is the weight kept (lam = 1: no forgetting), not the fraction "
                "forgotten.",
                A_FORGET, _forget_variant(complement=True)),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=10,
)



EXERCISE = FORGETTING

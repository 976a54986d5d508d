"""Exercise ``dt-retired-share``: A grown child's share of the retired prior.

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from reference.dynatree.leaf_models import CONSTANT, LeafConfig, LeafStats
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
    A_SHARE,
    _constant_cfg,
    _constant_stats,
    _regression_data,
    _retired_sums,
)

SHARE_SKELETON = folder_file(__file__, "skeleton.py")


def _share_reference(n_child: int, n_parent: int, nu: float, syg: float,
                     syyg: float) -> tuple[float, float, float]:
    cfg = _constant_cfg(0.0, 0.0)
    child = _constant_stats(cfg, n_child, 0.0, 0.0)
    parent = _constant_stats(cfg, n_parent, 0.0, 0.0, nu, syg, syyg)
    _REAL["receive_retired_share"](child, cfg, parent, float(child.n) / float(parent.n))
    return child.nu, child.syg, child.syyg


_share_reference.__name__ = "child_retired_share"


def _share_cases() -> list[Case]:
    rng = random.Random(21_515)
    cases = [
        Case((4, 8, *_retired_sums([0.3, 1.1, -0.4], 1.0)), "an even split"),
        Case((1, 9, *_retired_sums([0.3, 1.1], 1.0)), "the smallest child"),
        Case((9, 9, *_retired_sums([0.3, 1.1], 1.0)), "a child with every active point"),
        Case((3, 7, *_retired_sums([2.0] * 6, 0.8)), "ties, discounted retired mass"),
        Case((5, 12, *_retired_sums([1e150, -2e150], 1.0)), "huge retired sums"),
        Case((2, 3, *_retired_sums([1e-150, 3e-150], 1.0)), "tiny retired sums"),
    ]
    for _ in range(50):
        n_parent = rng.randrange(2, 60)
        lam = 1.0 if rng.random() < 0.5 else rng.uniform(0.3, 1.0)
        retired = [rng.gauss(0.5, 2.0) for _ in range(rng.randrange(1, 30))]
        cases.append(Case((rng.randrange(1, n_parent), n_parent,
                           *_retired_sums(retired, lam))))
    return cases


def _share_plug(student: Callable[..., Any]) -> Callable[..., Any]:
    def _receive_retired_share(st: LeafStats, cfg: LeafConfig, parent: LeafStats,
                               rho: float) -> None:
        if cfg.kind != CONSTANT:
            _REAL["receive_retired_share"](st, cfg, parent, rho)
            return
        nu, syg, syyg = student(st.n, parent.n, parent.nu, parent.syg, parent.syyg)
        st.nu, st.syg, st.syyg = float(nu), float(syg), float(syyg)
    return _receive_retired_share


def _share_variant(*, share_mass: bool = True, share_sums: bool = True, half: bool = False,
                   inverted: bool = False) -> Callable[..., tuple[float, float, float]]:
    def child_retired_share(n_child: int, n_parent: int, nu: float, syg: float,
                            syyg: float) -> tuple[float, float, float]:
        rho = float(n_child) / float(n_parent)
        if half:
            rho = 0.5
        if inverted:
            rho = float(n_parent) / float(n_child)
        return ((rho * nu if share_mass else nu), (rho * syg if share_sums else syg),
                (rho * syyg if share_sums else syyg))
    return child_retired_share


RETIRED_SHARE = Exercise(
    name="dt-retired-share",
    title="A grown child's share of the retired prior",
    family="dynamic_trees",
    tag="[AG13, §3.2]; [DT-SPEC §6.4]",
    anchor=A_SHARE,
    function_name="child_retired_share",
    skeleton=SHARE_SKELETON,
    reference=_share_reference,
    cases=_share_cases,
    tolerance=Tolerance("rel", 1e-12, why=(
        "rho nu and n_child nu / n_parent are the same number up to the rounding of the "
        "last digit")),
    plugs=(Plug("reference.dynatree.leaf_models._receive_retired_share", _share_plug),),
    stream=Stream("DynamicTreeRegressor",
                  {"n_particles": 10, "seed": 1, "active_size": 15, "retirement": "random"},
                  _regression_data(1)),
    mistakes=(
        Mistake("mass-not-shared",
                "Each child gets the share rho nu of the retired mass, not all of it: the "
                "retired points would be counted twice.",
                A_SHARE, _share_variant(share_mass=False), mutant="dt-retired-share"),
        Mistake("sums-not-shared",
                "The retired sums are shared like the mass: rho S^g_y and rho S^g_yy.",
                A_SHARE, _share_variant(share_sums=False)),
        Mistake("halves",
                "The share is proportional to the child's active points, rho = n_child / "
                "n_parent, not one half.",
                A_SHARE, _share_variant(half=True)),
        Mistake("share-inverted",
                "The share is n_child / n_parent (at most 1), not n_parent / n_child.",
                A_SHARE, _share_variant(inverted=True)),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=10,
)



EXERCISE = RETIRED_SHARE

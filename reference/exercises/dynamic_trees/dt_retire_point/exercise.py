"""Exercise ``dt-retire-point``: Retire a point into the leaf's prior (lam = 1).

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from reference.dynatree import leaf_models
from reference.dynatree.leaf_models import CONSTANT, LeafConfig
from reference.dynatree.tree import Node
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
    A_RETIRE,
    _constant_cfg,
    _constant_stats,
    _regression_data,
    _retired_sums,
    _sums,
)

RETIRE_SKELETON = folder_file(__file__, "skeleton.py")


def _retire_reference(n: int, sy: float, syy: float, nu: float, syg: float, syyg: float,
                      y: float) -> tuple[int, float, float, float, float, float]:
    cfg = _constant_cfg(0.0, 0.0)
    st = _constant_stats(cfg, n, sy, syy, nu, syg, syyg)
    ys = [float(y)] + [0.0] * (int(n) - 1)
    leaf = Node(0, None, list(range(int(n))), st)
    _REAL["retire_from_leaf"](leaf, 0, [[0.0]] * int(n), ys, cfg, 1.0)
    return st.n, st.sy, st.syy, st.nu, st.syg, st.syyg


_retire_reference.__name__ = "retire_constant"


def _retire_cases() -> list[Case]:
    rng = random.Random(20_808)
    sy = ((0.1 + 0.2 + 0.7) - 0.1) - 0.2      # 0.7000000000000002: rounding residue
    syy = ((0.1 * 0.1 + 0.2 * 0.2 + 0.7 * 0.7) - 0.1 * 0.1) - 0.2 * 0.2
    cases = [
        Case((*_sums([1.5, -0.3, 2.2]), 0.0, 0.0, 0.0, 1.5), "the first retirement (nu = 0)"),
        Case((*_sums([0.9]), *_retired_sums([0.3, 1.2], 1.0), 0.9),
             "the last active point leaves (n becomes 0)"),
        Case((1, sy, syy, 2.0, 0.3, 0.05, 0.7),
             "the last active point leaves with rounding residue in the sums"),
        Case((*_sums([0.5] * 4), *_retired_sums([0.5] * 3, 1.0), 0.5), "ties"),
        Case((*_sums([1e150, -2e150]), 0.0, 0.0, 0.0, 1e150), "huge responses"),
        Case((*_sums([1e-150, 3e-150, 2e-150]), 0.0, 0.0, 0.0, 3e-150), "tiny responses"),
    ]
    for _ in range(50):
        active = [rng.gauss(1.0, 2.0) for _ in range(rng.randrange(1, 25))]
        retired = [rng.gauss(1.0, 2.0) for _ in range(rng.randrange(0, 25))]
        cases.append(Case((*_sums(active), *_retired_sums(retired, 1.0),
                           active[rng.randrange(len(active))])))
    return cases


def _retire_plug(student: Callable[..., Any]) -> Callable[..., Any]:
    def retire_from_leaf(leaf: Node, index: int, X: Sequence[Sequence[float]],
                         y: Sequence[float], cfg: LeafConfig, lam: float) -> None:
        if cfg.kind != CONSTANT or lam != 1.0:
            _REAL["retire_from_leaf"](leaf, index, X, y, cfg, lam)
            return
        st = leaf.stats
        leaf.points.remove(index)
        n, sy, syy, nu, syg, syyg = student(st.n, st.sy, st.syy, st.nu, st.syg, st.syyg,
                                            y[index])
        st.n = int(n)
        st.sy, st.syy = float(sy), float(syy)
        st.nu, st.syg, st.syyg = float(nu), float(syg), float(syyg)
        leaf_models.refresh(st, cfg)
    return retire_from_leaf


def _retire_variant(*, remove: bool = True, sign: float = -1.0, square: bool = True,
                    reset: bool = True, count: bool = True
                    ) -> Callable[..., tuple[int, float, float, float, float, float]]:
    def retire_constant(n: int, sy: float, syy: float, nu: float, syg: float, syyg: float,
                        y: float) -> tuple[int, float, float, float, float, float]:
        n2 = n - 1 if count else n
        if remove:
            sy2 = sy + sign * y
            syy2 = syy + sign * y * y
        else:
            sy2, syy2 = sy, syy
        if reset and n2 == 0:
            sy2, syy2 = 0.0, 0.0
        return n2, sy2, syy2, nu + 1.0, syg + y, syyg + (y * y if square else y)
    return retire_constant


RETIRE_POINT = Exercise(
    name="dt-retire-point",
    title="Retire a point into the leaf's prior (lam = 1)",
    family="dynamic_trees",
    tag="[AG13, §3]; [DT-SPEC §3.5]; [DT-SPEC §6]",
    anchor=A_RETIRE,
    function_name="retire_constant",
    skeleton=RETIRE_SKELETON,
    reference=_retire_reference,
    cases=_retire_cases,
    plugs=(Plug("reference.dynatree.retirement.retire_from_leaf", _retire_plug),),
    stream=Stream("DynamicTreeRegressor",
                  {"n_particles": 10, "seed": 2, "active_size": 15,
                   "retirement": "historical"},
                  _regression_data(2)),
    mistakes=(
        Mistake("active-sums-kept",
                "The point must leave the active sums (S_y - y, S_yy - y^2); kept there it "
                "is counted twice, once active and once retired.",
                A_RETIRE, _retire_variant(remove=False)),
        Mistake("sign",
                "Sign slip: the retiring point is subtracted from the active sums, not "
                "added.",
                A_RETIRE, _retire_variant(sign=1.0)),
        Mistake("retired-square",
                "The retired sum of squares gains y^2, not y.",
                A_RETIRE, _retire_variant(square=False)),
        Mistake("count-not-decremented",
                "The active count n goes down by one.",
                A_RETIRE, _retire_variant(count=False)),
        Mistake("no-reset-when-empty",
                "When the last active point leaves, set S_y and S_yy to exactly 0: the "
                "subtractions leave rounding residue, which an empty leaf must not carry.",
                A_RETIRE, _retire_variant(reset=False)),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=10,
)



EXERCISE = RETIRE_POINT

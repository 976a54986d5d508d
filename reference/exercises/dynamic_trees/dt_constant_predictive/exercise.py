"""Exercise ``dt-constant-predictive``: Student-t predictive of a constant leaf.

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
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
    A_PRED,
    _constant_cfg,
    _constant_leaf_cases,
    _constant_stats,
    _regression_data,
)

PREDICTIVE_SKELETON = folder_file(__file__, "skeleton.py")


def _predictive_reference(n: int, sy: float, syy: float, nu0: float,
                          s20: float) -> tuple[float, float, float]:
    cfg = _constant_cfg(nu0, s20)
    loc, scale, df, _ = _REAL["regression_predictive"](_constant_stats(cfg, n, sy, syy), cfg,
                                                       [0.0])
    return float(loc), float(scale), float(df)


_predictive_reference.__name__ = "constant_predictive"


def _predictive_cases() -> list[Case]:
    return _constant_leaf_cases(20_303)


def _predictive_plug(student: Callable[..., Any]) -> Callable[..., Any]:
    def regression_predictive(st: LeafStats, cfg: LeafConfig,
                              x: Sequence[float]) -> tuple[float, float, float, bool]:
        if cfg.kind == CONSTANT and st.nu == 0.0:
            loc, scale, df = student(st.n, st.sy, st.syy, cfg.nu0, cfg.s20)
            scale = float(scale)
            return float(loc), scale, float(df), 0.0 < scale < math.inf
        return _REAL["regression_predictive"](st, cfg, x)  # type: ignore[no-any-return]
    return regression_predictive


def _predictive_variant(*, h_num: float = 1.0, with_h: bool = True, root: bool = True,
                        df_shift: float = -1.0) -> Callable[..., tuple[float, float, float]]:
    def constant_predictive(n: int, sy: float, syy: float, nu0: float,
                            s20: float) -> tuple[float, float, float]:
        nf = float(n)
        ybar = sy / nf if n > 0 else 0.0
        q = syy - nf * ybar * ybar + nu0 * s20
        df = nu0 + nf + df_shift
        h = h_num / nf if (n > 0 and with_h) else 0.0
        if not q > 0.0 or not df > 0.0:
            return ybar, math.inf, df
        var = q * (1.0 + h) / df
        return ybar, math.sqrt(var) if root else var, df
    return constant_predictive


CONSTANT_PREDICTIVE = Exercise(
    name="dt-constant-predictive",
    title="Student-t predictive of a constant leaf",
    family="dynamic_trees",
    tag="[TGP11]; [AG13, Eq. 1]; [DT-SPEC §3.1]",
    anchor=A_PRED,
    function_name="constant_predictive",
    skeleton=PREDICTIVE_SKELETON,
    reference=_predictive_reference,
    cases=_predictive_cases,
    tolerance=Tolerance("rel", 1e-12, why=(
        "Q (1 + 1/n)/df may be grouped differently (for example Q/df + Q/(n df)), which "
        "changes the last digits")),
    plugs=(Plug("reference.dynatree.leaf_models.regression_predictive", _predictive_plug),),
    stream=Stream("DynamicTreeRegressor", {"n_particles": 10, "seed": 1},
                  _regression_data(1)),
    mistakes=(
        Mistake("h-two-over-n",
                "The parameter uncertainty of the mean adds h = 1/n to the 1 of the new "
                "observation's noise, not 2/n.",
                A_PRED, _predictive_variant(h_num=2.0), mutant="dt-predictive-h"),
        Mistake("no-mean-uncertainty",
                "The scale misses the factor (1 + 1/n): the leaf's mean is itself uncertain, "
                "which widens the predictive.",
                A_PRED, _predictive_variant(with_h=False)),
        Mistake("variance-not-scale",
                "This is the squared scale Q (1 + h)/df; the Student-t scale is its square "
                "root.",
                A_PRED, _predictive_variant(root=False)),
        Mistake("df-n",
                "The degrees of freedom are nu0 + n - 1 (one is spent on the mean), not "
                "nu0 + n.",
                A_PRED, _predictive_variant(df_shift=0.0)),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=15,
)



EXERCISE = CONSTANT_PREDICTIVE

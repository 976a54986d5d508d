"""Exercise ``dt-retired-summary``: Pooled mean, sum of squares and df with retired data.

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
    Tolerance,
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

SUMMARY_SKELETON = folder_file(__file__, "skeleton.py")


def _summary_reference(n: int, sy: float, syy: float, nu: float, syg: float, syyg: float,
                       nu0: float, s20: float) -> tuple[float, float, float, float]:
    cfg = _constant_cfg(nu0, s20)
    st = _constant_stats(cfg, n, sy, syy, nu, syg, syyg)
    mu0, q, qp, df, _ = _REAL["regression_summary"](st, cfg)
    return float(mu0), float(q), float(qp), float(df)


_summary_reference.__name__ = "pooled_summary"


def _retired_leaf(active: Sequence[float], retired: Sequence[float], lam: float,
                  nu0: float = 0.0, s20: float = 0.0) -> tuple[Any, ...]:
    return (*_sums(active), *_retired_sums(retired, lam), nu0, s20)


def _summary_cases() -> list[Case]:
    rng = random.Random(20_707)

    def ys(k: int, loc: float = 1.0, scale: float = 1.0) -> list[float]:
        return [loc + scale * rng.gauss(0.0, 1.0) for _ in range(k)]

    cases = [
        Case(_retired_leaf(ys(6), [], 1.0), "nothing retired (nu = 0)"),
        Case(_retired_leaf([], ys(5), 1.0), "empty active leaf (n = 0), all retired"),
        Case(_retired_leaf(ys(1), ys(4), 1.0), "one active point and retired mass"),
        Case(_retired_leaf(ys(5), ys(1), 1.0), "the first retirement (nu = 1)"),
        Case(_retired_leaf([0.5] * 4, [0.5] * 3, 1.0), "ties: all responses equal"),
        Case(_retired_leaf(ys(8), ys(12), 0.7), "retired mass discounted (lam = 0.7)"),
        Case(_retired_leaf(ys(8, 2.0), ys(6, -3.0), 1.0),
             "active and retired means far apart (the between-groups term)"),
        Case(_retired_leaf([], [], 1.0, 3.0, 0.5), "the prior alone (n = 0, nu = 0)"),
        Case(_retired_leaf(ys(6, 0.0, 1e100), ys(6, 0.0, 1e100), 1.0), "huge responses"),
        Case(_retired_leaf(ys(6, 0.0, 1e-100), ys(6, 0.0, 1e-100), 1.0), "tiny responses"),
    ]
    for _ in range(60):
        lam = 1.0 if rng.random() < 0.5 else rng.uniform(0.3, 1.0)
        nu0, s20 = (0.0, 0.0) if rng.random() < 0.6 else (rng.uniform(0.5, 5.0),
                                                            rng.uniform(0.1, 2.0))
        loc = rng.uniform(-3.0, 3.0)
        cases.append(Case(_retired_leaf(ys(rng.randrange(0, 25), loc),
                                        ys(rng.randrange(1, 25), loc + rng.gauss(0.0, 1.0)),
                                        lam, nu0, s20)))
    return cases


def _summary_plug(student: Callable[..., Any]) -> Callable[..., Any]:
    def regression_summary(st: LeafStats,
                           cfg: LeafConfig) -> tuple[float, float, float, float, float]:
        if cfg.kind == CONSTANT:
            mu0, q, qp, df = student(st.n, st.sy, st.syy, st.nu, st.syg, st.syyg, cfg.nu0,
                                     cfg.s20)
            return float(mu0), float(q), float(qp), float(df), 1.0
        return _REAL["regression_summary"](st, cfg)  # type: ignore[no-any-return]
    return regression_summary


def _summary_variant(*, square_shift: float = 0.0, cross_shift: float = 0.0,
                     pooled_shift: float = 0.0, df_nu: bool = True, cross: bool = True,
                     pooled: bool = True) -> Callable[..., tuple[float, float, float, float]]:
    def pooled_summary(n: int, sy: float, syy: float, nu: float, syg: float, syyg: float,
                       nu0: float, s20: float) -> tuple[float, float, float, float]:
        nf = float(n)
        ybar = sy / nf if n > 0 else 0.0
        s2 = syy - nf * ybar * ybar
        qp = nu0 * s20 + syyg
        if nu > 0.0:
            qp -= syg * syg / (nu + square_shift)
            if n > 0 and cross:
                dev = ybar - syg / nu
                qp += nu * nf / (nu + nf + cross_shift) * dev * dev
        df = nu0 + (nu if df_nu else 0.0) + nf - 1.0
        mu0 = ybar if (nu == 0.0 or not pooled) else (syg + sy) / (nu + nf + pooled_shift)
        return mu0, s2 + qp, qp, df
    return pooled_summary


RETIRED_SUMMARY = Exercise(
    name="dt-retired-summary",
    title="Pooled mean, sum of squares and df with retired data",
    family="dynamic_trees",
    tag="[AG13, §3.1]; [DT-SPEC §3.0]",
    anchor=A_RETIRE,
    function_name="pooled_summary",
    skeleton=SUMMARY_SKELETON,
    reference=_summary_reference,
    cases=_summary_cases,
    tolerance=Tolerance("rel", 1e-12, why=(
        "the prior part Q_p and the pooled mean may be grouped differently (for example "
        "nu n (ybar - m)^2/(nu + n) in another order), which changes the last digits")),
    plugs=(Plug("reference.dynatree.leaf_models.regression_summary", _summary_plug),),
    stream=Stream("DynamicTreeRegressor",
                  {"n_particles": 10, "seed": 1, "active_size": 15, "retirement": "random"},
                  _regression_data(1)),
    mistakes=(
        Mistake("retired-square-nu-plus-one",
                "The retired points' centred sum of squares is S^g_yy - (S^g_y)^2/nu, divided "
                "by the retired mass nu, not nu + 1.",
                A_RETIRE, _summary_variant(square_shift=1.0), mutant="dt-retired-square"),
        Mistake("cross-term-denominator",
                "The between-groups term is nu n/(nu + n) (ybar - S^g_y/nu)^2, with nu + n "
                "in the denominator, not nu + n + 1.",
                A_RETIRE, _summary_variant(cross_shift=1.0), mutant="dt-retired-cross-term"),
        Mistake("pooled-mean-denominator",
                "The pooled mean divides by the total mass nu + n, not nu + n + 1.",
                A_RETIRE, _summary_variant(pooled_shift=1.0), mutant="dt-pooled-mean"),
        Mistake("df-without-nu",
                "Retired points still count: df = nu0 + nu + n - 1 includes the retired "
                "mass nu.",
                A_RETIRE, _summary_variant(df_nu=False), mutant="dt-retired-df"),
        Mistake("no-between-groups-term",
                "The between-groups term nu n/(nu + n) (ybar - S^g_y/nu)^2 is missing: the "
                "active and retired means differ.",
                A_RETIRE, _summary_variant(cross=False)),
        Mistake("active-mean-only",
                "With retired data the location is the pooled mean (S^g_y + S_y)/(nu + n), "
                "not the active mean.",
                A_RETIRE, _summary_variant(pooled=False)),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=25,
)



EXERCISE = RETIRED_SUMMARY

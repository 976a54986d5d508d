"""Exercise ``dt-constant-evidence``: Log evidence of a constant leaf (dynaTree's constant).

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

import math
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
    A_CONST,
    A_TEXTBOOK,
    LOG_2_OVER_PI,
    LOG_2PI,
    _constant_cfg,
    _constant_leaf_cases,
    _constant_stats,
    _regression_data,
)

EVIDENCE_SKELETON = folder_file(__file__, "skeleton.py")


def _evidence_reference(n: int, sy: float, syy: float, nu0: float, s20: float) -> float:
    cfg = _constant_cfg(nu0, s20)
    return float(_REAL["regression_log_evidence"](_constant_stats(cfg, n, sy, syy), cfg))


_evidence_reference.__name__ = "constant_log_evidence"


def _evidence_cases() -> list[Case]:
    return _constant_leaf_cases(20_202)


def _evidence_plug(student: Callable[..., Any]) -> Callable[..., Any]:
    def regression_log_evidence(st: LeafStats, cfg: LeafConfig) -> float:
        if cfg.kind == CONSTANT and st.nu == 0.0:
            return float(student(st.n, st.sy, st.syy, cfg.nu0, cfg.s20))
        return float(_REAL["regression_log_evidence"](st, cfg))
    return regression_log_evidence


def _evidence_variant(*, const: float = LOG_2_OVER_PI, q_half: bool = True,
                      log_n_shift: float = 0.0, log_n_factor: float = 0.5,
                      df_shift: float = -1.0, centred: bool = True, prior_df_shift: float = 0.0,
                      prior_q_half: bool = True, prior_term: bool = True
                      ) -> Callable[..., float]:
    """The evidence formula with one thing changed (a mistake)."""
    def constant_log_evidence(n: int, sy: float, syy: float, nu0: float, s20: float) -> float:
        nf = float(n)
        ybar = sy / nf if n > 0 else 0.0
        s2 = syy - nf * ybar * ybar if centred else syy
        qp = nu0 * s20
        q = s2 + qp
        df = nu0 + nf + df_shift
        if not q > 0.0 or not df > 0.0:
            return -math.inf
        ell = -0.5 * (nf - 1.0) * const
        if n > 0:
            ell -= log_n_factor * math.log(nf + log_n_shift)
        ell += -0.5 * df * math.log(q / 2.0 if q_half else q) + math.lgamma(df / 2.0)
        prior_df = nu0 + prior_df_shift
        if prior_term and prior_df > 0.0 and qp > 0.0:
            ell += 0.5 * prior_df * math.log(qp / 2.0 if prior_q_half else qp)
            ell -= math.lgamma(prior_df / 2.0)
        return ell
    return constant_log_evidence


CONSTANT_EVIDENCE = Exercise(
    name="dt-constant-evidence",
    title="Log evidence of a constant leaf (dynaTree's constant)",
    family="dynamic_trees",
    tag="[TGP11]; [AG13, Eq. 1]; [DT-SPEC §3.1]",
    anchor=A_CONST,
    function_name="constant_log_evidence",
    skeleton=EVIDENCE_SKELETON,
    reference=_evidence_reference,
    cases=_evidence_cases,
    tolerance=Tolerance("rel", 1e-10, why=(
        "the reference's log-gamma is a Lanczos approximation written out identically in C; "
        "math.lgamma agrees with it to about 1e-15 per term, and the terms of the evidence "
        "partly cancel")),
    plugs=(Plug("reference.dynatree.leaf_models.regression_log_evidence", _evidence_plug),),
    stream=Stream("DynamicTreeRegressor",
                  {"n_particles": 10, "seed": 1, "nu0": 3.0, "s20": 0.05},
                  _regression_data(1)),
    mistakes=(
        Mistake("textbook-constant",
                "You used the textbook constant log(2 pi); dynaTree, and this project, use "
                "log(2/pi) per observation.",
                A_TEXTBOOK, _evidence_variant(const=LOG_2PI), mutant="dt-evidence-constant"),
        Mistake("log-q-without-half",
                "The data term is -df/2 log(Q/2): the 1/2 inside the logarithm comes from "
                "the inverse-gamma integral with b = S^2/2.",
                A_CONST, _evidence_variant(q_half=False), mutant="dt-evidence-q-half"),
        Mistake("log-n-plus-one",
                "The mean's integral gives -log(n)/2, with the number of points n, not n + 1.",
                A_CONST, _evidence_variant(log_n_shift=1.0),
                mutant="dt-constant-evidence-log-n"),
        Mistake("missing-half-log-n",
                "A factor 1/2 is missing: integrating the mean gives sqrt(2 pi sigma^2 / n), "
                "hence -log(n)/2.",
                A_CONST, _evidence_variant(log_n_factor=1.0)),
        Mistake("df-n",
                "The degrees of freedom are nu0 + n - 1 (one is spent on the mean), not "
                "nu0 + n.",
                A_CONST, _evidence_variant(df_shift=0.0)),
        Mistake("uncentred-sum-of-squares",
                "Q must use the centred sum of squares S^2 = S_yy - n ybar^2, not S_yy.",
                A_CONST, _evidence_variant(centred=False)),
        Mistake("prior-q-without-half",
                "The prior's normaliser is (nu0/2) log(Q_p/2): the 1/2 inside the logarithm "
                "is missing.",
                A_CONST, _evidence_variant(prior_q_half=False), mutant="dt-prior-q-half"),
        Mistake("prior-df-plus-one",
                "The prior's normaliser has nu0/2 degrees of freedom (nu0 + nu with retired "
                "data), not (nu0 + 1)/2.",
                A_CONST, _evidence_variant(prior_df_shift=1.0), mutant="dt-prior-df"),
        Mistake("missing-prior-normaliser",
                "With a proper prior (nu0 > 0) the evidence divides by the prior's "
                "normaliser: add (nu0/2) log(Q_p/2) - log Gamma(nu0/2).",
                A_CONST, _evidence_variant(prior_term=False)),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=25,
)



EXERCISE = CONSTANT_EVIDENCE

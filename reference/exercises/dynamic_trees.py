"""Exercises on dynamic trees with particle learning [TGP11; AG11; AG13].

One exercise per key equation of ``tutorials/02_dynamic_trees.md`` and
``tutorials/05_data_retirement.md``: the tree prior (split and leaf terms), the constant
leaf's evidence and predictive, the class leaf's evidence and predictive, the move
probabilities, residual resampling, the pooled summary of a leaf with retired data,
retiring a point into the prior, a grown child's share of it, forgetting (constant, linear
and class leaves), and the two retirement statistics (a leaf's ALC and entropy). Each
reference answer is a thin adapter around the function of :mod:`reference.dynatree` that
the model calls, and each plug puts the student's function in that function's place (the
``fast`` model, in C, is untouched), so that a short seeded stream shows the first step
where the student's model departs.

The originals are kept in the private dict ``_REAL``, taken at import: while a plug is in
place the module attribute (``leaf_models.regression_log_evidence``) *is* the plug, so a
plug's fallback for the leaf kinds its exercise does not cover must call the original
through ``_REAL``, not through the module.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any

from reference.dynatree import discard_stats, forgetting, leaf_models, moves, particles, tree
from reference.dynatree import retirement as retire_mod
from reference.dynatree.leaf_models import CLASS, CONSTANT, LeafConfig, LeafStats
from reference.dynatree.tree import Node
from reference.exercises.catalog import Case, Exercise, Mistake, Plug, Stream, Tolerance

__all__ = ["EXERCISES"]

_REAL: dict[str, Callable[..., Any]] = {
    "log_split_prob": tree.log_split_prob,
    "log_leaf_prob": tree.log_leaf_prob,
    "regression_log_evidence": leaf_models.regression_log_evidence,
    "regression_predictive": leaf_models.regression_predictive,
    "regression_summary": leaf_models.regression_summary,
    "class_log_evidence": leaf_models.class_log_evidence,
    "class_probability": leaf_models.class_probability,
    "leaf_entropy": discard_stats.leaf_entropy,
    "move_weights": moves.move_weights,
    "residual_resample": particles.residual_resample,
    "alc_integral": discard_stats.alc_integral,
    "retire_from_leaf": retire_mod.retire_from_leaf,
    "absorb_retired": forgetting.absorb_retired,
    "receive_retired_share": leaf_models._receive_retired_share,
}
"""The reference functions as they were at import, before any plug."""

T02 = "tutorials/02_dynamic_trees.md"
T05 = "tutorials/05_data_retirement.md"
A_PRIOR = f"{T02}#the-tree-prior"
A_CONST = f"{T02}#the-constant-leaf-derived-step-by-step"
A_TEXTBOOK = f"{T02}#where-our-constant-differs-from-the-textbook-and-why"
A_CLASS = f"{T02}#the-multinomial-leaf"
A_PRED = f"{T02}#the-predictive-a-ratio-of-evidences"
A_MOVES = f"{T02}#the-three-moves"
A_PL = f"{T02}#particle-learning-and-residual-resampling"
A_RETIRE = f"{T05}#1-retirement-as-a-conjugate-prior-update"
A_ALC = f"{T05}#alc-for-regression"
A_FORGET = f"{T05}#4-forgetting-power-priors"
A_SHARE = f"{T05}#2-retired-information-when-trees-grow-and-prune"

LOG_2_OVER_PI = math.log(2.0 / math.pi)
LOG_2PI = math.log(2.0 * math.pi)


# ---------------------------------------------------------------------------------------
# Shared helpers: configurations, statistics from plain values, streams
# ---------------------------------------------------------------------------------------

def _constant_cfg(nu0: float, s20: float) -> LeafConfig:
    return LeafConfig(kind=CONSTANT, p=0, augmented=False, delta=1, n_classes=0,
                      nu0=float(nu0), s20=float(s20))


def _constant_stats(cfg: LeafConfig, n: int, sy: float, syy: float, nu: float = 0.0,
                    syg: float = 0.0, syyg: float = 0.0) -> LeafStats:
    st = LeafStats(cfg)
    st.n = int(n)
    st.sy = float(sy)
    st.syy = float(syy)
    st.nu = float(nu)
    st.syg = float(syg)
    st.syyg = float(syyg)
    return st


def _sums(ys: Sequence[float]) -> tuple[int, float, float]:
    """``(n, S_y, S_yy)`` accumulated in arrival order, as the leaf does."""
    sy = 0.0
    syy = 0.0
    for v in ys:
        sy = sy + v
        syy = syy + v * v
    return len(ys), sy, syy


def _retired_sums(ys: Sequence[float], lam: float) -> tuple[float, float, float]:
    """``(nu, S^g_y, S^g_yy)`` after retiring ``ys`` in order with forgetting ``lam``."""
    nu = 0.0
    syg = 0.0
    syyg = 0.0
    for v in ys:
        nu = lam * nu + 1.0
        syyg = lam * syyg + v * v
        syg = lam * syg + v
    return nu, syg, syyg


def _regression_data(seed: int, n: int = 45, d: int = 1) -> Callable[[], tuple[Any, Any]]:
    """``n`` rows of a noisy step-and-sine function of ``d`` inputs in [0, 1]."""
    def data() -> tuple[list[list[float]], list[float]]:
        rng = random.Random(seed)
        X: list[list[float]] = []
        y: list[float] = []
        for _ in range(n):
            x = [rng.random() for _ in range(d)]
            f = math.sin(6.0 * x[0]) + (1.0 if x[-1] > 0.5 else 0.0)
            X.append(x)
            y.append(f + 0.2 * rng.gauss(0.0, 1.0))
        return X, y
    return data


def _class_data(seed: int, n: int = 45) -> Callable[[], tuple[Any, Any]]:
    """``n`` rows of 2 inputs with labels 0, 1, 2 by quadrant and 10% label noise."""
    def data() -> tuple[list[list[float]], list[int]]:
        rng = random.Random(seed)
        X: list[list[float]] = []
        y: list[int] = []
        for _ in range(n):
            x = [rng.random(), rng.random()]
            label = (1 if x[0] > 0.5 else 0) + (1 if x[1] > 0.4 else 0)
            if rng.random() < 0.1:
                label = rng.randrange(3)
            X.append(x)
            y.append(label)
        return X, y
    return data


def _function_of(names: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: give a mistake function the exercise's function name (for reports)."""
    def rename(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn.__name__ = names
        fn.__qualname__ = names
        return fn
    return rename


# =======================================================================================
# 1. dt-split-prob: the tree prior's split probability
# =======================================================================================

SPLIT_SKELETON = r'''import math


def log_split_prob(depth: int, alpha: float, beta: float) -> float:
    r"""Log prior probability that a tree node at ``depth`` splits.

    The tree prior of dynamic trees lets a node at depth :math:`d` (the root has
    :math:`d = 0`) split with probability

    .. math::

        p_{\rm split}(d) = \alpha\,(1 + d)^{-\beta},
        \qquad \log p_{\rm split}(d) = \log\alpha - \beta\log(1 + d).

    Every internal node of a tree contributes :math:`\log p_{\rm split}(d)` to the log
    prior of the tree, every leaf :math:`\log(1 - p_{\rm split}(d))`.

    [AG13, §2.1]; [DT-SPEC §2]. Tutorial: tutorials/02_dynamic_trees.md, "The tree prior".

    Parameters
    ----------
    depth : int
        Depth of the node, 0 for the root.
    alpha : float
        Base split probability, ``0 < alpha < 1``.
    beta : float
        Depth penalty, ``beta > 0``.

    Returns
    -------
    float
        :math:`\log p_{\rm split}(d)` (a negative number).
    """
    raise NotImplementedError
'''


def _split_reference(depth: int, alpha: float, beta: float) -> float:
    return float(_REAL["log_split_prob"](int(depth), float(alpha), float(beta)))


_split_reference.__name__ = "log_split_prob"


def _split_cases() -> list[Case]:
    rng = random.Random(20_101)
    cases = [
        Case((0, 0.95, 2.0), "the root, dynaTree's defaults (alpha 0.95, beta 2)"),
        Case((1, 0.95, 2.0), "depth 1 (the root's children), defaults"),
        Case((2, 0.5, 1.0), "depth 2, alpha 0.5, beta 1"),
        Case((1000, 0.95, 2.0), "a very deep node"),
        Case((3, 1e-300, 2.0), "tiny alpha"),
        Case((5, 0.999999, 50.0), "alpha near 1, steep beta"),
        Case((4, 0.95, 1e-9), "tiny beta: almost no depth penalty"),
    ]
    for _ in range(60):
        cases.append(Case((rng.randrange(0, 13), rng.uniform(0.01, 0.99),
                           rng.uniform(0.1, 5.0))))
    return cases


def _split_plug(student: Callable[..., Any]) -> Callable[..., Any]:
    def log_split_prob(depth: int, alpha: float, beta: float) -> float:
        return float(student(depth, alpha, beta))
    return log_split_prob


@_function_of("log_split_prob")
def _split_depth_plus_one(depth: int, alpha: float, beta: float) -> float:
    return math.log(alpha) - beta * math.log(2.0 + float(depth))


@_function_of("log_split_prob")
def _split_probability(depth: int, alpha: float, beta: float) -> float:
    return alpha * math.pow(1.0 + float(depth), -beta)


@_function_of("log_split_prob")
def _split_sign(depth: int, alpha: float, beta: float) -> float:
    return math.log(alpha) + beta * math.log(1.0 + float(depth))


@_function_of("log_split_prob")
def _split_leaf_term(depth: int, alpha: float, beta: float) -> float:
    return math.log(1.0 - alpha * math.pow(1.0 + float(depth), -beta))


SPLIT_PROB = Exercise(
    name="dt-split-prob",
    title="Tree prior: log probability that a node splits",
    family="dynamic_trees",
    tag="[AG13, §2.1]; [DT-SPEC §2]",
    anchor=A_PRIOR,
    function_name="log_split_prob",
    skeleton=SPLIT_SKELETON,
    reference=_split_reference,
    cases=_split_cases,
    tolerance=Tolerance("rel", 1e-12, why=(
        "log(alpha (1 + d)^-beta) and log(alpha) - beta log(1 + d) are the same number up "
        "to the rounding of the last digits")),
    plugs=(Plug("reference.dynatree.tree.log_split_prob", _split_plug),),
    stream=Stream("DynamicTreeRegressor", {"n_particles": 10, "seed": 1},
                  _regression_data(1)),
    mistakes=(
        Mistake("depth-off-by-one",
                "The depth is off by one: the root has depth 0, so its factor is "
                "(1 + 0)^-beta = 1, not 2^-beta.",
                A_PRIOR, _split_depth_plus_one, mutant="dt-split-prob-depth"),
        Mistake("probability-not-log",
                "This is p_split itself; the function returns its logarithm.",
                A_PRIOR, _split_probability),
        Mistake("sign-of-beta",
                "The sign of the depth term is wrong: (1 + d)^-beta makes deep splits less "
                "likely, so beta log(1 + d) is subtracted.",
                A_PRIOR, _split_sign),
        Mistake("leaf-term",
                "This is log(1 - p_split(d)), the term of a leaf (a node that does not "
                "split); the split term is log p_split(d).",
                A_PRIOR, _split_leaf_term),
    ),
    hints=(
        "The root has depth 0; the probability is a power law in (1 + depth).",
        "Take the logarithm of alpha (1 + d)^-beta; the logarithm of a product is a sum.",
        "Two terms: log(alpha), and -beta times the logarithm of (1 + depth) as a float.",
    ),
    minutes=10,
)


# =======================================================================================
# 2. dt-constant-evidence: log evidence of a constant leaf
# =======================================================================================

EVIDENCE_SKELETON = r'''import math


def constant_log_evidence(n: int, sy: float, syy: float, nu0: float, s20: float) -> float:
    r"""Log evidence (marginal likelihood) of a constant leaf, as dynaTree computes it.

    A constant leaf holds :math:`n` responses :math:`y_i \mid \mu, \sigma^2 \sim
    N(\mu, \sigma^2)` with a flat prior on :math:`\mu` and the inverse-gamma prior
    :math:`\sigma^2 \sim {\rm IG}(\nu_0/2, \nu_0 s_0^2/2)` (:math:`\nu_0 = 0`: the
    improper :math:`1/\sigma^2`). With :math:`\bar y = S_y/n` (0 if :math:`n = 0`),
    :math:`S^2 = S_{yy} - n\bar y^2`, :math:`Q_p = \nu_0 s_0^2`, :math:`Q = S^2 + Q_p`
    and :math:`{\rm df} = \nu_0 + n - 1`:

    .. math::

        \ell = -\frac{n - 1}{2}\log\frac{2}{\pi} - \frac12\log n
        - \frac{\rm df}{2}\log\frac{Q}{2} + \log\Gamma\Big(\frac{\rm df}{2}\Big)
        + \Big[\frac{\nu_0}{2}\log\frac{Q_p}{2} - \log\Gamma\Big(\frac{\nu_0}{2}\Big)\Big]

    where :math:`-\frac12\log n` is present only for :math:`n > 0` and the bracket only
    for :math:`\nu_0 > 0` and :math:`Q_p > 0`. The constant is dynaTree's
    :math:`\log(2/\pi)`, not the textbook :math:`\log(2\pi)` (see the tutorial section
    "Where our constant differs from the textbook, and why"). An improper leaf,
    :math:`Q \le 0` or :math:`{\rm df} \le 0`, has evidence :math:`-\infty`.

    [TGP11]; [AG13, Eq. 1]; [DT-SPEC §3.1]. Tutorial: tutorials/02_dynamic_trees.md,
    "The constant leaf, derived step by step".

    Parameters
    ----------
    n : int
        Number of points in the leaf (may be 0).
    sy, syy : float
        Sum of the responses and sum of their squares.
    nu0, s20 : float
        Variance prior (``nu0 = s20 = 0``: the improper prior).

    Returns
    -------
    float
        :math:`\ell`, or ``-math.inf`` for an improper leaf.
    """
    raise NotImplementedError
'''


def _evidence_reference(n: int, sy: float, syy: float, nu0: float, s20: float) -> float:
    cfg = _constant_cfg(nu0, s20)
    return float(_REAL["regression_log_evidence"](_constant_stats(cfg, n, sy, syy), cfg))


_evidence_reference.__name__ = "constant_log_evidence"


def _constant_leaf_cases(seed: int) -> list[Case]:
    """``(n, sy, syy, nu0, s20)`` of constant leaves: edge cases, then random leaves."""
    rng = random.Random(seed)
    cases = [
        Case((0, 0.0, 0.0, 0.0, 0.0), "empty leaf (n = 0), improper prior"),
        Case((0, 0.0, 0.0, 3.0, 0.5), "empty leaf (n = 0), proper prior nu0 = 3"),
        Case((*_sums([1.7]), 0.0, 0.0), "the first point (n = 1), improper prior"),
        Case((*_sums([1.7]), 2.0, 0.25), "the first point (n = 1), proper prior"),
        Case((*_sums([1.7, -0.4]), 0.0, 0.0), "two points (df = 1)"),
        Case((*_sums([1.3, 0.2, 2.9, 1.1, 1.7, 0.4]), 0.0, 0.0),
             "the tutorial's six points"),
        Case((*_sums([0.5] * 5), 0.0, 0.0), "ties: five equal responses, improper prior"),
        Case((*_sums([0.5] * 5), 4.0, 0.1), "ties: five equal responses, proper prior"),
        Case((*_sums([rng.gauss(0.0, 1e100) for _ in range(8)]), 0.0, 0.0),
             "huge responses (1e100)"),
        Case((*_sums([rng.gauss(0.0, 1e-100) for _ in range(8)]), 0.0, 0.0),
             "tiny responses (1e-100)"),
        Case((*_sums([rng.gauss(3.0, 2.0) for _ in range(500)]), 0.0, 0.0),
             "a large leaf (n = 500)"),
        Case((*_sums([rng.gauss(3.0, 2.0) for _ in range(12)]), 1e-6, 1e-3),
             "a very weak proper prior"),
    ]
    for _ in range(70):
        scale = 10.0 ** rng.uniform(-3.0, 3.0)
        loc = rng.uniform(-5.0, 5.0) * scale
        ys = [loc + scale * rng.gauss(0.0, 1.0) for _ in range(rng.randrange(2, 41))]
        if rng.random() < 0.4:
            nu0, s20 = 0.0, 0.0
        else:
            nu0, s20 = rng.uniform(0.5, 10.0), rng.uniform(0.01, 5.0) * scale * scale
        cases.append(Case((*_sums(ys), nu0, s20)))
    return cases


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
    hints=(
        "Integrate the mean first (a Gaussian integral), then the variance (an "
        "inverse-gamma integral); the tutorial does it step by step.",
        "Compute ybar, S^2 = S_yy - n ybar^2, Q = S^2 + nu0 s20 and df = nu0 + n - 1; "
        "return -inf unless Q > 0 and df > 0.",
        "Sum: -(n - 1)/2 log(2/pi), -log(n)/2 (n > 0), -df/2 log(Q/2) + lgamma(df/2), and "
        "with nu0 > 0 the prior's (nu0/2) log(Q_p/2) - lgamma(nu0/2).",
    ),
    minutes=25,
)


# =======================================================================================
# 3. dt-constant-predictive: Student-t predictive of a constant leaf
# =======================================================================================

PREDICTIVE_SKELETON = r'''import math


def constant_predictive(n: int, sy: float, syy: float, nu0: float,
                        s20: float) -> tuple[float, float, float]:
    r"""Student-t posterior predictive of a new response in a constant leaf.

    With the notation of the constant leaf's evidence (:math:`\bar y = S_y/n`, 0 if
    :math:`n = 0`; :math:`S^2 = S_{yy} - n\bar y^2`; :math:`Q = S^2 + \nu_0 s_0^2`;
    :math:`{\rm df} = \nu_0 + n - 1`), the predictive of a new :math:`y` is the ratio of
    two evidences, a Student-t

    .. math::

        y \mid y_\eta \sim t_{\rm df}\big(\bar y,\ s\big), \qquad
        s = \sqrt{\frac{Q\,(1 + h)}{\rm df}}, \qquad h = \frac1n

    (:math:`h = 0` for an empty leaf). If :math:`Q \le 0` or :math:`{\rm df} \le 0` the
    predictive is improper: return the scale ``math.inf`` (location and df as above).

    [TGP11]; [AG13, Eq. 1]; [DT-SPEC §3.1]. Tutorial: tutorials/02_dynamic_trees.md,
    "The predictive: a ratio of evidences".

    Parameters
    ----------
    n : int
        Number of points in the leaf (may be 0).
    sy, syy : float
        Sum of the responses and sum of their squares.
    nu0, s20 : float
        Variance prior (``nu0 = s20 = 0``: the improper prior).

    Returns
    -------
    tuple of float
        ``(location, scale, df)``.
    """
    raise NotImplementedError
'''


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
    hints=(
        "The predictive is the ratio of the evidence with the new point to the evidence "
        "without it; for this model it is a Student-t.",
        "Its location is the leaf mean and its degrees of freedom those of the evidence, "
        "df = nu0 + n - 1.",
        "Its scale is sqrt(Q (1 + h)/df) with h = 1/n for n > 0; return math.inf as the "
        "scale when Q <= 0 or df <= 0.",
    ),
    minutes=15,
)


# =======================================================================================
# 4. dt-class-evidence: Dirichlet-multinomial evidence of a class leaf
# =======================================================================================

CLASS_SKELETON = r'''import math


def class_log_evidence(counts: list[int]) -> float:
    r"""Log evidence of a class (multinomial) leaf with a Dirichlet(1/C, ..., 1/C) prior.

    A leaf holds :math:`n = \sum_k c_k` labels of :math:`C` classes, :math:`c_k` of
    class :math:`k`. Under a Dirichlet prior of total mass 1 (dynaTree's baseline,
    :math:`1/C` per class) the probability of the observed label *sequence* is

    .. math::

        \ell = \log\Gamma(1) - \log\Gamma(n + 1)
        + \sum_{k=1}^{C}\Big[\log\Gamma\Big(c_k + \frac1C\Big)
        - \log\Gamma\Big(\frac1C\Big)\Big].

    [AG13, Eq. 1]; [DT-SPEC §3.3]. Tutorial: tutorials/02_dynamic_trees.md,
    "The multinomial leaf".

    Parameters
    ----------
    counts : list of int
        :math:`c_1, \dots, c_C`, one count per class (``len(counts)`` is :math:`C`).

    Returns
    -------
    float
        :math:`\ell`.
    """
    raise NotImplementedError
'''


def _class_cfg(n_classes: int) -> LeafConfig:
    return LeafConfig(kind=CLASS, p=0, augmented=False, delta=1, n_classes=n_classes,
                      nu0=0.0, s20=0.0)


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
    hints=(
        "Integrate the multinomial likelihood prod theta_k^c_k against the Dirichlet "
        "density: a ratio of two Dirichlet normalisers.",
        "The Dirichlet normaliser of parameters a_k is prod Gamma(a_k) / Gamma(sum a_k); "
        "here the prior has a_k = 1/C and the posterior a_k = c_k + 1/C.",
        "Sum lgamma(c_k + 1/C) - lgamma(1/C) over the classes and subtract lgamma(n + 1) "
        "(the prior's lgamma(1) is 0).",
    ),
    minutes=15,
)



# =======================================================================================
# 5. dt-move-probabilities: stay / prune / grow
# =======================================================================================

MOVES_SKELETON = r'''import math


def move_probabilities(l_stay: float, l_prune: float,
                       l_grow: float) -> tuple[float, float, float]:
    r"""Probabilities of the stay, prune and grow moves from their log scores.

    Each candidate subtree has a log score :math:`L = \log\pi(\text{subtree}) +
    \sum_{\text{leaves}}\ell` (``-math.inf`` when the move is impossible). The move is
    drawn with probabilities proportional to :math:`e^{L}`:

    .. math::

        p_k = \frac{w_k}{(w_{\rm stay} + w_{\rm prune}) + w_{\rm grow}},\qquad
        w_k = \exp(L_k - L_{\max}),

    where :math:`L_{\max}` is the largest *finite* score and a score that is not finite
    has :math:`w_k = 0` (log-sum-exp normalisation: scores are log densities of many
    points and routinely differ by more than the ~709 that ``exp`` can take). When
    neither prune nor grow has a finite score, stay is certain: return ``(1.0, 0.0, 0.0)``.

    [AG13, Eq. 2]; [DT-SPEC §4.4]. Tutorial: tutorials/02_dynamic_trees.md, "The three moves".

    Parameters
    ----------
    l_stay, l_prune, l_grow : float
        Log scores of the three candidates (``-math.inf``: impossible).

    Returns
    -------
    tuple of float
        ``(p_stay, p_prune, p_grow)``.
    """
    raise NotImplementedError
'''


def _moves_reference(l_stay: float, l_prune: float,
                     l_grow: float) -> tuple[float, float, float]:
    if not math.isfinite(l_grow) and not math.isfinite(l_prune):
        return 1.0, 0.0, 0.0
    w_stay, w_prune, w_grow = _REAL["move_weights"](l_stay, l_prune, l_grow)
    z = (w_stay + w_prune) + w_grow
    return w_stay / z, w_prune / z, w_grow / z


_moves_reference.__name__ = "move_probabilities"

NEG_INF = -math.inf


def _moves_cases() -> list[Case]:
    rng = random.Random(20_505)
    cases = [
        Case((-10.0, -10.0, -10.0), "ties: three equal scores"),
        Case((-3.5, NEG_INF, NEG_INF), "neither prune nor grow possible: stay is certain"),
        Case((NEG_INF, NEG_INF, NEG_INF), "no finite score at all: stay is certain"),
        Case((-12.0, NEG_INF, -11.0), "the root leaf: no prune"),
        Case((-12.0, -13.0, NEG_INF), "a leaf too small to grow"),
        Case((NEG_INF, -5.0, -7.0), "an improper stay subtree (score -inf)"),
        Case((0.0, -800.0, -1e4), "scores far apart (exp(-800) underflows)"),
        Case((-1e4, 0.0, -1e4 + 1.0), "scores far apart, prune dominant"),
        Case((-2500.25, -2500.5, -2499.75), "large scores close together"),
        Case((1e-300, 0.0, -1e-300), "tiny differences"),
    ]
    for _ in range(80):
        base = rng.uniform(-3000.0, 50.0)
        scores = [base + rng.gauss(0.0, 3.0) for _ in range(3)]
        if rng.random() < 0.2:
            scores[1] = NEG_INF
        if rng.random() < 0.2:
            scores[2] = NEG_INF
        cases.append(Case(tuple(scores)))
    return cases


def _moves_plug(student: Callable[..., Any]) -> Callable[..., Any]:
    def choose_move(l_stay: float, l_prune: float, l_grow: float, rng: Any) -> int:
        if not math.isfinite(l_grow) and not math.isfinite(l_prune):
            return moves.STAY       # no draw: the order of random draws is not the exercise
        p_stay, p_prune, _ = student(l_stay, l_prune, l_grow)
        u = rng.uniform()
        if u < p_stay:
            return moves.STAY
        if u < p_stay + p_prune:
            return moves.PRUNE
        return moves.GROW
    return choose_move


def _moves_variant(*, normalise: bool = True, order: str = "spg", with_grow: bool = True,
                   minimum: bool = False) -> Callable[..., tuple[float, float, float]]:
    def move_probabilities(l_stay: float, l_prune: float,
                           l_grow: float) -> tuple[float, float, float]:
        if not math.isfinite(l_grow) and not math.isfinite(l_prune):
            return 1.0, 0.0, 0.0
        scores = (l_stay, l_prune, l_grow)
        finite = [s for s in scores if math.isfinite(s)]
        ref = min(finite) if minimum else max(finite)
        try:
            w = [math.exp(s - ref) if math.isfinite(s) else 0.0 for s in scores]
        except OverflowError:
            return 1.0, 0.0, 0.0    # dynaTree's overflow silently forces a stay
        z = (w[0] + w[1]) + (w[2] if with_grow else 0.0)
        p = [v / z for v in w] if normalise else w
        if order == "sgp":
            return p[0], p[2], p[1]
        return p[0], p[1], p[2]
    return move_probabilities


MOVE_PROBABILITIES = Exercise(
    name="dt-move-probabilities",
    title="Stay / prune / grow probabilities (log-sum-exp)",
    family="dynamic_trees",
    tag="[AG13, Eq. 2]; [DT-SPEC §4.4]",
    anchor=A_MOVES,
    function_name="move_probabilities",
    skeleton=MOVES_SKELETON,
    reference=_moves_reference,
    cases=_moves_cases,
    tolerance=Tolerance("rel", 1e-9, why=(
        "exp(L - L_max)/Z and exp(L - logsumexp(L)) are equal up to rounding, but exp "
        "multiplies the rounding of a difference of scores of magnitude |L| by |L|, and "
        "scores reach several thousand")),
    plugs=(Plug("reference.dynatree.moves.choose_move", _moves_plug),),
    stream=Stream("DynamicTreeRegressor", {"n_particles": 10, "seed": 1},
                  _regression_data(1)),
    mistakes=(
        Mistake("not-normalised",
                "These are the weights exp(L_k - L_max); divide by their sum to get "
                "probabilities.",
                A_MOVES, _moves_variant(normalise=False)),
        Mistake("minimum-normalisation",
                "Subtracting the smallest score (as dynaTree does) overflows once two scores "
                "differ by more than about 709 and then forces a stay; subtract the largest "
                "finite score.",
                A_MOVES, _moves_variant(minimum=True)),
        Mistake("grow-prune-swapped",
                "The order of the result is (stay, prune, grow): prune and grow are swapped.",
                A_MOVES, _moves_variant(order="sgp")),
        Mistake("normaliser-without-grow",
                "The normaliser Z sums all three weights, grow included.",
                A_MOVES, _moves_variant(with_grow=False)),
    ),
    hints=(
        "The probabilities are proportional to exp(L_k); the difficulty is only numerical.",
        "Shift every finite score by the same constant before exponentiating: the "
        "probabilities do not change, and with the largest score nothing overflows.",
        "w_k = exp(L_k - L_max) (0 for a score that is not finite), Z = (w_stay + w_prune) "
        "+ w_grow, p_k = w_k/Z; handle 'neither prune nor grow finite' first.",
    ),
    minutes=15,
)


# =======================================================================================
# 6. dt-residual-resample: residual resampling of the particle cloud
# =======================================================================================

RESAMPLE_SKELETON = r'''import math


def residual_resample(weights: list[float], uniforms: list[float]) -> list[int]:
    r"""Residual resampling: the indices of the ``N`` particles that survive.

    Given normalised weights :math:`\bar w_1, \dots, \bar w_N` (they sum to 1), particle
    :math:`i` first gets :math:`k_i = \lfloor E_i \rfloor` deterministic copies,
    :math:`E_i = N\bar w_i`, listed in index order. The remaining
    :math:`R = N - \sum_i k_i` indices are drawn one by one from the leftover
    probabilities :math:`r_i = (E_i - k_i)/R` by inverse CDF: with the cumulative sums
    :math:`c_j = \sum_{i \le j} r_i` (accumulated in index order, the last one set to
    exactly 1), a uniform :math:`u` gives the first :math:`j` with :math:`u < c_j`.

    .. math::

        \text{out} = (\underbrace{1, \dots, 1}_{k_1}, \dots,
        \underbrace{N, \dots, N}_{k_N},\ j(u_1), \dots, j(u_R))

    (0-based indices in the result). [TGP11]; [AG13, §2.3]; [DT-SPEC §5.2] item 4.
    Tutorial: tutorials/02_dynamic_trees.md, "Particle learning and residual resampling".

    Parameters
    ----------
    weights : list of float
        Normalised weights, one per particle.
    uniforms : list of float
        At least ``R`` uniform numbers in [0, 1); use the first ``R``, one per residual
        draw, in order.

    Returns
    -------
    list of int
        ``N`` particle indices: the deterministic copies, then the ``R`` residual draws.
    """
    raise NotImplementedError
'''


class _ListRng:
    """A stand-in for :class:`reference.rng.Rng` whose ``uniform()`` reads a list."""

    def __init__(self, values: Sequence[float]) -> None:
        self._values = list(values)
        self._at = 0

    def uniform(self) -> float:
        value = self._values[self._at]
        self._at += 1
        return value


def _resample_reference(weights: list[float], uniforms: list[float]) -> list[int]:
    return [int(i) for i in _REAL["residual_resample"](list(weights), _ListRng(uniforms))]


_resample_reference.__name__ = "residual_resample"


def _cumulative(weights: Sequence[float]) -> list[float]:
    """The cumulative leftover probabilities of the specification (for tie cases)."""
    n = len(weights)
    expected = [float(n) * w for w in weights]
    counts = [math.floor(e) for e in expected]
    r = n - sum(counts)
    out = []
    c = 0.0
    for i in range(n):
        c = c + (expected[i] - float(counts[i])) / float(r)
        out.append(c)
    return out


def _normalised(raw: Sequence[float]) -> list[float]:
    total = 0.0
    for v in raw:
        total = total + v
    return [v / total for v in raw]


def _resample_cases() -> list[Case]:
    rng = random.Random(20_606)
    below_one = 1.0 - 2.0 ** -53

    def uniforms(n: int) -> list[float]:
        return [rng.random() for _ in range(n)]

    search = random.Random(5)
    while True:     # weights whose cumulative leftovers sum to less than 1 by rounding
        short_w = _normalised([search.random() for _ in range(search.randrange(3, 12))])
        short_c = _cumulative(short_w)
        if short_c[-1] < 1.0:
            break
    tie_w = _normalised([0.1, 0.2, 0.3, 0.4])
    tie_c = _cumulative(tie_w)
    cases = [
        Case(([0.25, 0.25, 0.25, 0.25], uniforms(4)), "equal weights: every particle once"),
        Case(([1.0], [0.5]), "a single particle"),
        Case(([0.0, 1.0, 0.0], uniforms(3)), "one particle has all the weight"),
        Case((tie_w, [tie_c[0], tie_c[1], 0.0, 0.0]),
             "ties: uniforms exactly on cumulative values (u < c_j is strict)"),
        Case((_normalised([3.0, 1e-300, 2.0, 1e-300, 5.0]), [below_one] * 5),
             "the largest uniform below 1 (the last cumulative value is 1)"),
        Case((short_w, [short_c[-1]] * len(short_w)),
             "rounding leaves the last cumulative value below 1, and u is above it"),
        Case((_normalised([0.0, 0.0, 1e-300, 0.0]), uniforms(4)),
             "tiny weights normalised"),
        Case((_normalised([1.0 + 1e-15, 1.0, 1.0 - 1e-15]), uniforms(3)),
             "almost equal weights"),
    ]
    for _ in range(50):
        n = rng.randrange(2, 31)
        raw = [rng.expovariate(1.0) ** 3 for _ in range(n)]
        for i in range(n):
            if rng.random() < 0.15:
                raw[i] = 0.0
        if sum(raw) == 0.0:
            raw[0] = 1.0
        cases.append(Case((_normalised(raw), uniforms(n))))
    return cases


def _resample_plug(student: Callable[..., Any]) -> Callable[..., Any]:
    def residual_resample(weights: Sequence[float], rng: Any) -> list[int]:
        n = len(weights)
        r = n
        for w in weights:
            r -= int(math.floor(float(n) * w))
        draws = [rng.uniform() for _ in range(r)]
        return [int(i) for i in student(list(weights), draws)]
    return residual_resample


def _resample_variant(*, floor: Callable[[float], int] = math.floor, residual: bool = True,
                      divide: bool = True, strict: bool = True, force_one: bool = True,
                      deterministic: bool = True) -> Callable[..., list[int]]:
    def residual_resample(weights: list[float], uniforms: list[float]) -> list[int]:
        n = len(weights)
        expected = [float(n) * w for w in weights]
        counts = [int(floor(e)) if deterministic else 0 for e in expected]
        out: list[int] = []
        for i in range(n):
            out.extend([i] * counts[i])
        r = n - len(out)
        if r <= 0:
            return out
        cum = []
        c = 0.0
        for i in range(n):
            if residual:
                step = expected[i] - float(counts[i])
                c = c + (step / float(r) if divide else step)
            else:
                c = c + expected[i] / float(n)
            cum.append(c)
        if force_one:
            cum[-1] = 1.0
        for k in range(r):
            u = uniforms[k]
            j = 0
            while j < n and not (u < cum[j] if strict else u <= cum[j]):
                j += 1
            out.append(j)
        return out
    return residual_resample


RESIDUAL_RESAMPLE = Exercise(
    name="dt-residual-resample",
    title="Residual resampling of the particle cloud",
    family="dynamic_trees",
    tag="[TGP11]; [AG13, §2.3]; [DT-SPEC §5.2]",
    anchor=A_PL,
    function_name="residual_resample",
    skeleton=RESAMPLE_SKELETON,
    reference=_resample_reference,
    cases=_resample_cases,
    plugs=(Plug("reference.dynatree.particles.residual_resample", _resample_plug),),
    stream=Stream("DynamicTreeRegressor", {"n_particles": 10, "seed": 1},
                  _regression_data(1)),
    mistakes=(
        Mistake("draws-from-weights",
                "The residual draws use the leftover fractions (N w_i - floor(N w_i))/R, not "
                "the weights themselves: particles already copied would be favoured twice.",
                A_PL, _resample_variant(residual=False), mutant="dt-residual-probabilities"),
        Mistake("round-not-floor",
                "The deterministic copies are floor(N w_i), rounded down, not rounded to the "
                "nearest integer.",
                A_PL, _resample_variant(floor=round)),
        Mistake("leftovers-not-divided",
                "The leftover fractions must be divided by R so that they sum to 1.",
                A_PL, _resample_variant(divide=False)),
        Mistake("less-or-equal",
                "The inverse CDF takes the first j with u < c_j (strict); with u <= c_j a "
                "uniform on a cumulative value picks the wrong particle.",
                A_PL, _resample_variant(strict=False)),
        Mistake("last-cumulative-not-one",
                "Set the last cumulative value to exactly 1: rounding can leave it just "
                "below 1, and a uniform above it must still pick a particle.",
                A_PL, _resample_variant(force_one=False)),
        Mistake("multinomial",
                "This is multinomial resampling (N draws from the weights); residual "
                "resampling first copies floor(N w_i) times and draws only the remaining R.",
                A_PL, _resample_variant(deterministic=False, residual=False)),
    ),
    hints=(
        "Residual resampling is multinomial resampling with the expected number of copies "
        "taken deterministically where it is a whole number.",
        "E_i = N w_i; k_i = floor(E_i) copies of i go first, in index order; R = N - sum "
        "k_i indices remain to draw.",
        "Accumulate c_j += (E_j - k_j)/R in index order, set the last c to 1.0, and for each "
        "of the first R uniforms append the first j with u < c_j.",
    ),
    minutes=20,
)


# =======================================================================================
# 7. dt-retired-summary: a leaf's pooled summary with retired data
# =======================================================================================

SUMMARY_SKELETON = r'''import math


def pooled_summary(n: int, sy: float, syy: float, nu: float, syg: float, syyg: float,
                   nu0: float, s20: float) -> tuple[float, float, float, float]:
    r"""Location, residual sum of squares and degrees of freedom of a constant leaf that
    holds active points and retired (prior) information.

    Active statistics: :math:`n`, :math:`S_y`, :math:`S_{yy}`; retired ones: the mass
    :math:`\nu` and the sums :math:`S^g_y`, :math:`S^g_{yy}` (all 0 if nothing is
    retired). With :math:`\bar y = S_y/n` (0 if :math:`n = 0`) and
    :math:`S^2 = S_{yy} - n\bar y^2`:

    .. math::

        Q_p = \nu_0 s_0^2 + S^g_{yy} - [\nu > 0]\frac{(S^g_y)^2}{\nu}
        + [\nu > 0,\ n > 0]\,\frac{\nu n}{\nu + n}\Big(\bar y - \frac{S^g_y}{\nu}\Big)^2,

        Q = S^2 + Q_p,\qquad {\rm df} = \nu_0 + \nu + n - 1,\qquad
        \mu_0 = \begin{cases}\bar y & \nu = 0\\
        (S^g_y + S_y)/(\nu + n) & \nu > 0.\end{cases}

    :math:`Q_p` is the prior part: the retired points' own sum of squares plus the
    between-groups term, so that :math:`Q` is the sum of squares of all the points.

    [AG13, §3.1]; [DT-SPEC §3.0]. Tutorial: tutorials/05_data_retirement.md,
    "1. Retirement as a conjugate prior update".

    Parameters
    ----------
    n : int
        Active points in the leaf (may be 0).
    sy, syy : float
        Sum and sum of squares of the active responses.
    nu, syg, syyg : float
        Retired mass and the retired sums.
    nu0, s20 : float
        Baseline variance prior.

    Returns
    -------
    tuple of float
        ``(mu0, Q, Q_p, df)``.
    """
    raise NotImplementedError
'''


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
    hints=(
        "Retiring with lam = 1 must not change the predictive: the pooled quantities are "
        "those of all the points, active and retired together.",
        "Decompose the total sum of squares into the active group's, the retired group's "
        "and the between-groups part (the two group means differ).",
        "Q_p = nu0 s20 + S^g_yy - (S^g_y)^2/nu + nu n/(nu + n) (ybar - S^g_y/nu)^2 (each "
        "term only when its masses are positive); df counts nu0, nu and n, minus 1.",
    ),
    minutes=25,
)


# =======================================================================================
# 8. dt-retire-point: moving a point from the active sums into the prior (lam = 1)
# =======================================================================================

RETIRE_SKELETON = r'''import math


def retire_constant(n: int, sy: float, syy: float, nu: float, syg: float, syyg: float,
                    y: float) -> tuple[int, float, float, float, float, float]:
    r"""Retire one active point with response ``y`` from a constant leaf into its prior.

    The point leaves the active statistics and joins the retired ones (no forgetting):

    .. math::

        n \leftarrow n - 1,\quad S_y \leftarrow S_y - y,\quad
        S_{yy} \leftarrow S_{yy} - y^2,\qquad
        \nu \leftarrow \nu + 1,\quad S^g_y \leftarrow S^g_y + y,\quad
        S^g_{yy} \leftarrow S^g_{yy} + y^2 .

    When the last active point leaves (:math:`n` becomes 0), set :math:`S_y` and
    :math:`S_{yy}` to exactly 0 (the subtractions would leave rounding residue).
    The posterior, hence every predictive, is unchanged [AG13, §3.1].

    [AG13, §3]; [DT-SPEC §3.5]; [DT-SPEC §6]. Tutorial: tutorials/05_data_retirement.md,
    "1. Retirement as a conjugate prior update".

    Parameters
    ----------
    n, sy, syy : int, float, float
        Active statistics before the retirement (``n >= 1``).
    nu, syg, syyg : float
        Retired statistics before the retirement.
    y : float
        Response of the retiring point (one of the active points).

    Returns
    -------
    tuple
        ``(n, sy, syy, nu, syg, syyg)`` after the retirement.
    """
    raise NotImplementedError
'''


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
    hints=(
        "For a conjugate model, retiring a point moves its contribution from the "
        "likelihood to the prior; the product, hence the posterior, is unchanged.",
        "Every active sum loses exactly what the matching retired sum gains; the retired "
        "mass nu counts retired points as n counts active ones.",
        "n - 1, S_y - y, S_yy - y^2 (both reset to 0.0 if n becomes 0); nu + 1, "
        "S^g_y + y, S^g_yy + y^2.",
    ),
    minutes=10,
)


# =======================================================================================
# 9. dt-forgetting: the power prior's discount
# =======================================================================================

FORGET_SKELETON = r'''import math


def absorb_retired(nu: float, syg: float, syyg: float, y: float,
                   lam: float) -> tuple[float, float, float]:
    r"""Fold a retiring response ``y`` into a constant leaf's retired statistics with
    forgetting factor ``lam`` (the power prior).

    The power prior raises the likelihood of the retired data to the power
    :math:`\lambda \in (0, 1]`; applied at each retirement, every retired statistic is
    first discounted by :math:`\lambda`, then the retiree is added:

    .. math::

        \nu \leftarrow \lambda\nu + 1,\qquad S^g_y \leftarrow \lambda S^g_y + y,\qquad
        S^g_{yy} \leftarrow \lambda S^g_{yy} + y^2 .

    A point retired :math:`k` retirements ago weighs :math:`\lambda^k`; the baseline prior
    (:math:`\nu_0 s_0^2`) is never discounted.

    [AG13, §5]; [DT-SPEC §3.5]. Tutorial: tutorials/05_data_retirement.md,
    "4. Forgetting: power priors".

    Parameters
    ----------
    nu, syg, syyg : float
        Retired mass and retired sums before the retirement.
    y : float
        Response of the retiring point.
    lam : float
        Forgetting factor, ``0 < lam <= 1`` (1: no forgetting).

    Returns
    -------
    tuple of float
        ``(nu, syg, syyg)`` after the retirement.
    """
    raise NotImplementedError
'''


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
    hints=(
        "Raising the retired data's likelihood to the power lam multiplies each of its "
        "sufficient statistics by lam.",
        "Applied at every retirement, a point retired k retirements ago has weight lam^k; "
        "the new retiree has weight 1.",
        "nu <- lam nu + 1, S^g_y <- lam S^g_y + y, S^g_yy <- lam S^g_yy + y^2.",
    ),
    minutes=10,
)


# =======================================================================================
# 10. dt-leaf-alc: ALC of a leaf, the integrated reduction in predictive variance
# =======================================================================================

ALC_SKELETON = r'''import math


def leaf_alc(q: float, df: float, n_total: float, delta: int, ginv: list[list[float]],
             xbar: list[float], z: list[float], lo: list[float], hi: list[float],
             approx: bool) -> float:
    r"""ALC of a leaf: the reduction in predictive variance that a design point brings,
    integrated over the leaf's rectangle.

    A point :math:`x` (regressors :math:`z`) added to leaf :math:`\eta` lowers the
    predictive variance at :math:`\zeta` by
    :math:`\frac{Q}{{\rm df}-2}\,k(\zeta)^2/(1 + h)`, with :math:`c = \delta/(n+\nu)`
    (0 if :math:`n + \nu = 0`), :math:`u = z - \bar x`, :math:`v = G^{-1}u`,
    :math:`h = c + u^\top v` and :math:`k(\zeta) = c + (\zeta - \bar x)^\top v`.
    Integrated over the rectangle :math:`\prod_i [a_i, b_i]`, shifted by :math:`-\bar x`
    (:math:`a = lo - \bar x`, :math:`b = hi - \bar x`):

    .. math::

        {\rm ALC} = \frac{Q\,A\,S}{({\rm df} - 2)(1 + h)},\qquad
        S = c'^2 + \sum_{i} \Big[c' v_i (a_i + b_i) + v_i^2\,\frac{a_i^2 + a_i b_i + b_i^2}{3}
        + \sum_{j < i} v_i v_j\,\frac{(a_i + b_i)(a_j + b_j)}{2}\Big],

    where the sums run over the *regular* sides (width :math:`b_i - a_i` greater than
    ``2.220446049250313e-16``) in index order, :math:`A` is the product of their widths
    (or :math:`n + \nu` if ``approx``), and each degenerate side (width at most that) is a
    point mass: for a linear leaf it adds :math:`v_i b_i` to :math:`c' = c + \dots`; for a
    constant leaf it makes :math:`A = 0` (unless ``approx``). A constant leaf has
    ``ginv = xbar = z = []`` (so :math:`v = 0`) and integrates the input columns. A leaf
    without :math:`Q > 0` and :math:`{\rm df} > 2` has ALC 0.

    [AG13, §4]; [DT-SPEC §7.1]; [DT-SPEC §7.4]. Tutorial: tutorials/05_data_retirement.md,
    "ALC for regression".

    Parameters
    ----------
    q, df : float
        The leaf's residual sum of squares and degrees of freedom.
    n_total : float
        :math:`n + \nu`, active points plus retired mass.
    delta : int
        1 if the intercept is implied by the leaf mean (constant leaf, implicit
        intercept), else 0.
    ginv : list of list of float
        :math:`G^{-1}`, ``p x p`` (empty for a constant leaf).
    xbar, z : list of float
        Column means used for centring (zeros with an explicit intercept) and the point's
        regressors, ``p`` values each (empty for a constant leaf).
    lo, hi : list of float
        The leaf's rectangle, one ``[lo_i, hi_i]`` per integrated column (``p`` columns
        for a linear leaf, the inputs for a constant one).
    approx : bool
        Use :math:`n + \nu` instead of the rectangle's volume.

    Returns
    -------
    float
        :math:`{\rm ALC}_\eta(x)`.
    """
    raise NotImplementedError
'''


def _alc_reference(q: float, df: float, n_total: float, delta: int, ginv: list[list[float]],
                   xbar: list[float], z: list[float], lo: list[float], hi: list[float],
                   approx: bool) -> float:
    flat = [float(v) for row in ginv for v in row]
    return float(_REAL["alc_integral"](float(q), float(df), float(n_total), int(delta), flat,
                                       [float(v) for v in xbar], [float(v) for v in z],
                                       [float(v) for v in lo], [float(v) for v in hi],
                                       bool(approx)))


_alc_reference.__name__ = "leaf_alc"


def _gram_inverse(rows: Sequence[Sequence[float]]) -> list[list[float]]:
    """``(sum z z')^-1`` by Gauss-Jordan elimination with partial pivoting (case data)."""
    p = len(rows[0])
    g = [[sum(r[i] * r[j] for r in rows) for j in range(p)] for i in range(p)]
    aug = [g[i] + [1.0 if i == j else 0.0 for j in range(p)] for i in range(p)]
    for col in range(p):
        piv = max(range(col, p), key=lambda r: abs(aug[r][col]))
        aug[col], aug[piv] = aug[piv], aug[col]
        d = aug[col][col]
        aug[col] = [v / d for v in aug[col]]
        for r in range(p):
            if r != col:
                f = aug[r][col]
                aug[r] = [a - f * b for a, b in zip(aug[r], aug[col], strict=True)]
    return [row[p:] for row in aug]


def _alc_cases() -> list[Case]:
    rng = random.Random(21_010)

    def box(d: int) -> tuple[list[float], list[float]]:
        lo = [rng.uniform(-1.0, 0.5) for _ in range(d)]
        return lo, [a + rng.uniform(0.05, 1.5) for a in lo]

    def linear(d: int, kind: str, approx: bool, label: str = "random") -> Case:
        pts = [[rng.uniform(-1.0, 1.0) for _ in range(d)] for _ in range(rng.randrange(
            2 * d + 4, 30))]
        x = [rng.uniform(-1.0, 1.0) for _ in range(d)]
        lo, hi = box(d)
        q, df = rng.uniform(0.1, 20.0), rng.uniform(2.5, 40.0)
        tot = float(len(pts)) + (rng.uniform(0.0, 10.0) if kind != "implicit" else 0.0)
        if kind == "augmented":
            rows = [[1.0, *r] for r in pts]
            return Case((q, df, tot, 0, _gram_inverse(rows), [0.0] * (d + 1), [1.0, *x],
                         [1.0, *lo], [1.0, *hi], approx), label)
        if kind == "none":
            return Case((q, df, tot, 0, _gram_inverse(pts), [0.0] * d, x, lo, hi, approx),
                        label)
        means = [sum(r[j] for r in pts) / len(pts) for j in range(d)]
        centred = [[r[j] - means[j] for j in range(d)] for r in pts]
        return Case((q, df, tot, 1, _gram_inverse(centred), means, x, lo, hi, approx), label)

    def constant(d: int, approx: bool, label: str = "random") -> Case:
        lo, hi = box(d)
        return Case((rng.uniform(0.1, 20.0), rng.uniform(2.5, 40.0),
                     float(rng.randrange(4, 40)), 1, [], [], [], lo, hi, approx), label)

    cases = [
        constant(1, False, "constant leaf, one input"),
        constant(3, True, "constant leaf, approx (area = n + nu)"),
        Case((2.0, 5.0, 8.0, 1, [], [], [], [0.0, 0.3], [1.0, 0.3], False),
             "constant leaf with a degenerate side: area 0"),
        Case((2.0, 5.0, 0.0, 1, [], [], [], [0.0], [1.0], False),
             "empty leaf, no retired mass (n + nu = 0)"),
        Case((0.0, 5.0, 8.0, 1, [], [], [], [0.0], [1.0], False), "Q = 0: no variance"),
        Case((2.0, 2.0, 8.0, 1, [], [], [], [0.0], [1.0], False), "df = 2: infinite variance"),
        linear(1, "augmented", False, "augmented intercept: the ones column is a point mass"),
        linear(2, "implicit", False, "implicit intercept: the rectangle is centred"),
        linear(2, "none", True, "no intercept, approx"),
    ]
    for _ in range(45):
        d = rng.randrange(1, 4)
        kind = rng.choice(["constant", "augmented", "implicit", "none"])
        approx = rng.random() < 0.25
        cases.append(constant(d, approx) if kind == "constant" else linear(d, kind, approx))
    return cases


def _alc_plug(student: Callable[..., Any]) -> Callable[..., Any]:
    def alc_integral(q: float, df: float, tot: float, delta: int, ginv: Sequence[float],
                     xbar: Sequence[float], z: Sequence[float], lo: Sequence[float],
                     hi: Sequence[float], approx: bool) -> float:
        p = len(z)
        nested = [[float(ginv[i * p + j]) for j in range(p)] for i in range(p)]
        return float(student(q, df, tot, delta, nested, list(xbar[:p]), list(z), list(lo),
                             list(hi), approx))
    return alc_integral


def _alc_variant(*, df_minus: float = 2.0, m2_div: float = 3.0, cross_div: float = 2.0,
                 with_h: bool = True, centre: bool = True, point_mass: bool = True,
                 ) -> Callable[..., float]:
    eps = 2.220446049250313e-16

    def leaf_alc(q: float, df: float, n_total: float, delta: int, ginv: list[list[float]],
                 xbar: list[float], z: list[float], lo: list[float], hi: list[float],
                 approx: bool) -> float:
        if not (q > 0.0 and df > 2.0):
            return 0.0
        c = 1.0 / n_total if (delta == 1 and n_total > 0.0) else 0.0
        p = len(z)
        u = [z[j] - xbar[j] for j in range(p)]
        v = [sum(ginv[i][j] * u[j] for j in range(p)) for i in range(p)]
        v += [0.0] * (len(lo) - p)
        h = c + sum(u[i] * v[i] for i in range(p))
        shift = [xbar[i] if (centre and i < p) else 0.0 for i in range(len(lo))]
        a = [lo[i] - shift[i] for i in range(len(lo))]
        b = [hi[i] - shift[i] for i in range(len(lo))]
        cp = c
        area = 1.0
        regular = []
        for i in range(len(lo)):
            w = b[i] - a[i]
            if w <= eps and (point_mass or p == 0):
                if p > 0:
                    cp += v[i] * b[i]
                else:
                    area = 0.0
            else:
                regular.append(i)
                area *= w
        if approx:
            area = n_total
        s = cp * cp
        for k, i in enumerate(regular):
            m1 = a[i] + b[i]
            s += cp * v[i] * m1 + v[i] * v[i] * (a[i] * a[i] + a[i] * b[i] + b[i] * b[i]) / m2_div
            for j in regular[:k]:
                s += v[i] * v[j] * m1 * (a[j] + b[j]) / cross_div
        return q * area * s / ((df - df_minus) * ((1.0 + h) if with_h else 1.0))
    return leaf_alc


LEAF_ALC = Exercise(
    name="dt-leaf-alc",
    title="ALC of a leaf: integrated reduction in variance",
    family="dynamic_trees",
    tag="[AG13, §4]; [DT-SPEC §7.1]; [DT-SPEC §7.4]",
    anchor=A_ALC,
    function_name="leaf_alc",
    skeleton=ALC_SKELETON,
    reference=_alc_reference,
    cases=_alc_cases,
    tolerance=Tolerance("rel", 1e-12, why=(
        "the closed-form integral is a sum of signed terms; grouping them differently (for "
        "example 2 c M1 instead of c (a + b)) changes the last digits, more where they "
        "cancel")),
    plugs=(Plug("reference.dynatree.discard_stats.alc_integral", _alc_plug),),
    stream=Stream("DynamicTreeRegressor",
                  {"leaf": "linear", "intercept": "augmented", "n_particles": 10, "seed": 1,
                   "active_size": 20, "retirement": "alc"},
                  _regression_data(1, d=2)),
    mistakes=(
        Mistake("df-minus-one",
                "The predictive variance of a Student-t with df degrees of freedom has "
                "df - 2 in its denominator, not df - 1.",
                A_ALC, _alc_variant(df_minus=1.0), mutant="dt-alc-df"),
        Mistake("second-moment-over-four",
                "The mean of u^2 over [a, b] is (a^2 + a b + b^2)/3, not /4.",
                A_ALC, _alc_variant(m2_div=4.0), mutant="dt-alc-second-moment"),
        Mistake("cross-moment-over-four",
                "Each cross term 2 v_i v_j M1_i M1_j, with M1 = (a + b)/2, is "
                "v_i v_j (a_i + b_i)(a_j + b_j)/2, not /4.",
                A_ALC, _alc_variant(cross_div=4.0), mutant="dt-alc-cross-moment"),
        Mistake("missing-one-plus-h",
                "The reduction is divided by 1 + h(x), the new point's own leverage "
                "(Sherman-Morrison).",
                A_ALC, _alc_variant(with_h=False)),
        Mistake("rectangle-not-centred",
                "The rectangle must be shifted by -xbar (u = zeta - xbar) before "
                "integrating.",
                A_ALC, _alc_variant(centre=False)),
        Mistake("degenerate-side-integrated",
                "A degenerate side of a linear leaf (such as the ones column) is a point "
                "mass: it adds v_i b_i to c, it is not integrated over a zero width.",
                A_ALC, _alc_variant(point_mass=False)),
    ),
    hints=(
        "Adding a design point changes G^-1 by a rank-one (Sherman-Morrison) update, so "
        "the drop in variance at zeta is Q/(df - 2) k(zeta)^2/(1 + h).",
        "k is affine in zeta, so its square integrates over a rectangle in closed form with "
        "the uniform moments (a + b)/2 and (a^2 + a b + b^2)/3 of each side.",
        "Shift lo/hi by xbar, fold degenerate sides into c', then S = c'^2 + sum_i "
        "[c' v_i (a_i + b_i) + v_i^2 M2_i + sum_{j<i} v_i v_j (a_i + b_i)(a_j + b_j)/2], "
        "times A and Q/((df - 2)(1 + h)).",
    ),
    minutes=40,
)


# =======================================================================================
# 11. dt-leaf-prob: the tree prior's leaf term
# =======================================================================================

LEAF_PROB_SKELETON = r'''import math


def log_leaf_prob(depth: int, alpha: float, beta: float) -> float:
    r"""Log prior probability that a tree node at ``depth`` does *not* split (a leaf).

    With the split probability :math:`p_{\rm split}(d) = \alpha(1 + d)^{-\beta}` (the
    root has :math:`d = 0`), every leaf of a tree contributes

    .. math::

        \log\big(1 - p_{\rm split}(d)\big) = \log\big(1 - \alpha\,(1 + d)^{-\beta}\big)

    to the tree's log prior, whatever its size (the minimum leaf size only restricts
    which moves are possible). A grown leaf's children sit at depth :math:`d + 1`.

    [AG13, §2.1]; [DT-SPEC §2]. Tutorial: tutorials/02_dynamic_trees.md, "The tree prior".

    Parameters
    ----------
    depth : int
        Depth of the leaf, 0 for the root.
    alpha : float
        Base split probability, ``0 <= alpha < 1``.
    beta : float
        Depth penalty, ``beta > 0``.

    Returns
    -------
    float
        :math:`\log(1 - p_{\rm split}(d))` (at most 0).
    """
    raise NotImplementedError
'''


def _leaf_prob_reference(depth: int, alpha: float, beta: float) -> float:
    return float(_REAL["log_leaf_prob"](int(depth), float(alpha), float(beta)))


_leaf_prob_reference.__name__ = "log_leaf_prob"


def _leaf_prob_cases() -> list[Case]:
    rng = random.Random(21_111)
    cases = [
        Case((0, 0.95, 2.0), "the root, dynaTree's defaults (alpha 0.95, beta 2)"),
        Case((1, 0.95, 2.0), "depth 1: the children of a grown root"),
        Case((0, 0.0, 2.0), "alpha = 0: nodes never split"),
        Case((0, 0.999, 2.0), "alpha near 1: a root leaf is very unlikely"),
        Case((1000, 0.95, 2.0), "a very deep leaf"),
        Case((3, 0.5, 1e-9), "tiny beta: almost no depth penalty"),
    ]
    for _ in range(60):
        cases.append(Case((rng.randrange(0, 13), rng.uniform(0.3, 0.99),
                           rng.uniform(0.1, 2.5))))
    return cases


def _leaf_prob_plug(student: Callable[..., Any]) -> Callable[..., Any]:
    def log_leaf_prob(depth: int, alpha: float, beta: float) -> float:
        return float(student(depth, alpha, beta))
    return log_leaf_prob


@_function_of("log_leaf_prob")
def _leaf_depth_plus_one(depth: int, alpha: float, beta: float) -> float:
    return math.log(1.0 - alpha * math.pow(2.0 + float(depth), -beta))


@_function_of("log_leaf_prob")
def _leaf_split_term(depth: int, alpha: float, beta: float) -> float:
    if alpha == 0.0:
        return -math.inf
    return math.log(alpha) - beta * math.log(1.0 + float(depth))


@_function_of("log_leaf_prob")
def _leaf_plus(depth: int, alpha: float, beta: float) -> float:
    return math.log(1.0 + alpha * math.pow(1.0 + float(depth), -beta))


@_function_of("log_leaf_prob")
def _leaf_one_minus_log(depth: int, alpha: float, beta: float) -> float:
    if alpha == 0.0:
        return math.inf
    return 1.0 - (math.log(alpha) - beta * math.log(1.0 + float(depth)))


LEAF_PROB = Exercise(
    name="dt-leaf-prob",
    title="Tree prior: log probability that a node stays a leaf",
    family="dynamic_trees",
    tag="[AG13, §2.1]; [DT-SPEC §2]",
    anchor=A_PRIOR,
    function_name="log_leaf_prob",
    skeleton=LEAF_PROB_SKELETON,
    reference=_leaf_prob_reference,
    cases=_leaf_prob_cases,
    tolerance=Tolerance("rel", 1e-9, why=(
        "log1p(-p) and log(1 - p) are both fine but differ by about 1e-16/p relative, "
        "because 1 - p is rounded; for a deep leaf p is about 1e-6")),
    plugs=(Plug("reference.dynatree.tree.log_leaf_prob", _leaf_prob_plug),),
    stream=Stream("DynamicTreeRegressor", {"n_particles": 10, "seed": 1},
                  _regression_data(1)),
    mistakes=(
        Mistake("depth-off-by-one",
                "The depth is off by one: the root has depth 0, so its split probability is "
                "alpha (1 + 0)^-beta = alpha.",
                A_PRIOR, _leaf_depth_plus_one, mutant="dt-leaf-prob-depth"),
        Mistake("split-term",
                "This is log p_split(d), the term of an internal node; a leaf contributes "
                "log(1 - p_split(d)).",
                A_PRIOR, _leaf_split_term),
        Mistake("sign-inside-log",
                "A leaf is a node that does not split: 1 - p_split(d), not 1 + p_split(d).",
                A_PRIOR, _leaf_plus),
        Mistake("one-minus-log",
                "The complement is taken of the probability, then the logarithm: "
                "log(1 - p), not 1 - log p.",
                A_PRIOR, _leaf_one_minus_log),
    ),
    hints=(
        "A node either splits or is a leaf; the two probabilities add up to one.",
        "Compute p_split(d) = alpha (1 + d)^-beta first (the root has d = 0).",
        "Return the logarithm of 1 - alpha (1 + d)^-beta (math.log1p(-p) is also fine).",
    ),
    minutes=10,
)


# =======================================================================================
# 12. dt-class-probability: the class leaf's predictive, with retired counts
# =======================================================================================

CLASS_PROB_SKELETON = r'''import math


def class_probability(counts: list[int], retired: list[float], nu: float, k: int) -> float:
    r"""Posterior predictive probability of class ``k`` in a class leaf.

    The leaf holds :math:`c_1, \dots, c_C` active labels (:math:`n = \sum c_j`) and
    retired (possibly discounted) pseudo-counts :math:`a_1, \dots, a_C` of total mass
    :math:`\nu`; the baseline prior is Dirichlet(1/C, ..., 1/C) (total mass 1). The
    posterior is Dirichlet(:math:`c_j + a_j + 1/C`), whose mean is the predictive

    .. math::

        p(y = k \mid \eta) = \frac{c_k + a_k + 1/C}{n + \nu + 1}.

    Use the given :math:`\nu` (with forgetting it equals :math:`\sum_j a_j` only up to
    rounding). [AG13, Eq. 1]; [AG13, §3]; [DT-SPEC §3.3]. Tutorial:
    tutorials/02_dynamic_trees.md, "The multinomial leaf".

    Parameters
    ----------
    counts : list of int
        Active counts, one per class (``len(counts)`` is :math:`C`).
    retired : list of float
        Retired pseudo-counts :math:`a_j`, one per class.
    nu : float
        Retired mass :math:`\nu`.
    k : int
        The class, ``0 <= k < C``.

    Returns
    -------
    float
        :math:`p(y = k \mid \eta)`.
    """
    raise NotImplementedError
'''

def _class_stats(counts: Sequence[int], retired: Sequence[float],
                 nu: float) -> tuple[LeafStats, LeafConfig]:
    cfg = _class_cfg(len(counts))
    st = LeafStats(cfg)
    st.counts = [int(c) for c in counts]
    st.gcounts = [float(a) for a in retired]
    st.n = sum(st.counts)
    st.nu = float(nu)
    return st, cfg


def _class_prob_reference(counts: list[int], retired: list[float], nu: float,
                          k: int) -> float:
    st, cfg = _class_stats(counts, retired, nu)
    return float(_REAL["class_probability"](st, cfg, int(k)))


_class_prob_reference.__name__ = "class_probability"


def _retired_counts(labels: Sequence[int], n_classes: int,
                    lam: float) -> tuple[list[float], float]:
    """Retired pseudo-counts and mass after retiring ``labels`` in order with ``lam``."""
    a = [0.0] * n_classes
    nu = 0.0
    for label in labels:
        nu = lam * nu + 1.0
        a = [lam * v for v in a]
        a[label] = a[label] + 1.0
    return a, nu


def _class_leaves(seed: int) -> list[tuple[list[int], list[float], float, str]]:
    """Class leaves ``(counts, retired, nu, label)``: edge cases, then random ones."""
    rng = random.Random(seed)
    leaves: list[tuple[list[int], list[float], float, str]] = [
        ([0, 0], [0.0, 0.0], 0.0, "empty leaf (n = 0), nothing retired"),
        ([1, 0, 0], [0.0, 0.0, 0.0], 0.0, "the first point (n = 1)"),
        ([0, 0, 0], *_retired_counts([0, 2, 2], 3, 1.0), "everything retired (n = 0)"),
        ([4, 4], *_retired_counts([0, 1], 2, 1.0), "ties: equal counts"),
        ([9, 0, 0], [0.0, 0.0, 0.0], 0.0, "a pure leaf"),
        ([2, 5, 1], *_retired_counts([rng.randrange(3) for _ in range(40)], 3, 0.9),
         "many retirements with forgetting (lam = 0.9)"),
        ([3, 1], *_retired_counts([0, 1, 1], 2, 1e-6), "tiny lam: almost all forgotten"),
        ([100_000, 7], [0.0, 0.0], 0.0, "large counts"),
    ]
    for _ in range(40):
        c = rng.randrange(2, 6)
        lam = 1.0 if rng.random() < 0.4 else rng.uniform(0.3, 1.0)
        labels = [rng.randrange(c) for _ in range(rng.randrange(0, 20))]
        leaves.append(([rng.randrange(0, 15) for _ in range(c)],
                       *_retired_counts(labels, c, lam), "random"))
    return leaves


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
    hints=(
        "The predictive probability of a class is the posterior mean of its Dirichlet "
        "weight.",
        "The posterior parameters are active counts plus retired pseudo-counts plus the "
        "prior's 1/C; their total is n + nu + 1.",
        "(counts[k] + retired[k] + 1/C) / (n + nu + 1) with n = sum(counts).",
    ),
    minutes=10,
)


# =======================================================================================
# 13. dt-leaf-entropy: entropy of a class leaf's predictive
# =======================================================================================

ENTROPY_SKELETON = r'''import math


def leaf_entropy(counts: list[int], retired: list[float], nu: float) -> float:
    r"""Entropy of a class leaf's predictive distribution (nats).

    With the predictive probabilities :math:`p_k = (c_k + a_k + 1/C)/(n + \nu + 1)` of the
    class leaf (active counts :math:`c_k`, :math:`n = \sum c_k`, retired pseudo-counts
    :math:`a_k` of mass :math:`\nu`):

    .. math::

        H_\eta = -\sum_{k=1}^{C} p_k \log p_k .

    Entropy retirement removes the active point whose leaves (averaged over the
    particles) have the lowest entropy: points in nearly pure leaves are redundant.

    [AG13, §4.3]; [DT-SPEC §7.5]. Tutorial: tutorials/05_data_retirement.md,
    "Entropy for classification".

    Parameters
    ----------
    counts : list of int
        Active counts, one per class.
    retired : list of float
        Retired pseudo-counts, one per class.
    nu : float
        Retired mass.

    Returns
    -------
    float
        :math:`H_\eta` in nats.
    """
    raise NotImplementedError
'''


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
    hints=(
        "The entropy is that of the leaf's predictive distribution over the classes.",
        "Compute every p_k = (c_k + a_k + 1/C)/(n + nu + 1) first; none is 0 thanks to "
        "the prior.",
        "Sum -p_k log(p_k) over the classes, with the natural logarithm.",
    ),
    minutes=10,
)


# =======================================================================================
# 14. dt-forgetting-linear: the power prior of a linear leaf
# =======================================================================================

FORGET_LINEAR_SKELETON = r'''import math


def absorb_retired_linear(nu: float, syyg: float, gram: list[list[float]], xty: list[float],
                          z: list[float], y: float,
                          lam: float) -> tuple[float, float, list[list[float]], list[float]]:
    r"""Fold a retiring point into a linear leaf's retired statistics with forgetting
    factor ``lam`` (the power prior).

    A linear leaf :math:`y = z^\top\beta + \varepsilon` keeps, for its retired points,
    the mass :math:`\nu`, the sum of squares :math:`S^g_{yy}`, the Gram matrix
    :math:`G^g = \sum z z^\top` and :math:`b^g = \sum z\,y`. Retiring :math:`(z, y)`
    discounts every retired statistic by :math:`\lambda`, then adds the retiree:

    .. math::

        \nu \leftarrow \lambda\nu + 1,\quad S^g_{yy} \leftarrow \lambda S^g_{yy} + y^2,\quad
        G^g \leftarrow \lambda G^g + z z^\top,\quad b^g \leftarrow \lambda b^g + z\,y .

    [AG13, §3]; [AG13, §5]; [DT-SPEC §3.5]. Tutorial: tutorials/05_data_retirement.md,
    "4. Forgetting: power priors".

    Parameters
    ----------
    nu, syyg : float
        Retired mass and sum of squares.
    gram : list of list of float
        :math:`G^g`, ``p x p``.
    xty : list of float
        :math:`b^g`, ``p`` values.
    z : list of float
        The retiree's regressors (``p`` values, with the leading 1 of an explicit
        intercept).
    y : float
        The retiree's response.
    lam : float
        Forgetting factor, ``0 < lam <= 1``.

    Returns
    -------
    tuple
        ``(nu, syyg, gram, xty)`` after the retirement.
    """
    raise NotImplementedError
'''


def _linear_cfg(p: int) -> LeafConfig:
    return LeafConfig(kind=leaf_models.LINEAR, p=p, augmented=False, delta=0, n_classes=0,
                      nu0=0.0, s20=0.0)


def _forget_linear_reference(nu: float, syyg: float, gram: list[list[float]],
                             xty: list[float], z: list[float], y: float, lam: float
                             ) -> tuple[float, float, list[list[float]], list[float]]:
    p = len(z)
    cfg = _linear_cfg(p)
    st = LeafStats(cfg)
    st.nu = float(nu)
    st.syyg = float(syyg)
    st.Gg = [float(v) for row in gram for v in row]
    st.bg = [float(v) for v in xty]
    _REAL["absorb_retired"](st, cfg, [float(v) for v in z], float(y), float(lam))
    return (st.nu, st.syyg, [st.Gg[i * p:(i + 1) * p] for i in range(p)], list(st.bg))


_forget_linear_reference.__name__ = "absorb_retired_linear"


def _linear_retired(points: Sequence[tuple[list[float], float]], p: int,
                    lam: float) -> tuple[float, float, list[list[float]], list[float]]:
    nu = 0.0
    syyg = 0.0
    g = [[0.0] * p for _ in range(p)]
    b = [0.0] * p
    for z, y in points:
        nu = lam * nu + 1.0
        syyg = lam * syyg + y * y
        for j in range(p):
            b[j] = lam * b[j] + z[j] * y
            for k in range(p):
                g[j][k] = lam * g[j][k] + z[j] * z[k]
    return nu, syyg, g, b


def _forget_linear_cases() -> list[Case]:
    rng = random.Random(21_414)

    def point(p: int, augmented: bool) -> tuple[list[float], float]:
        x = [rng.uniform(-2.0, 2.0) for _ in range(p - 1 if augmented else p)]
        return ([1.0, *x] if augmented else x), rng.gauss(0.0, 2.0)

    def case(p: int, augmented: bool, k: int, lam: float, label: str = "random") -> Case:
        z, y = point(p, augmented)
        return Case((*_linear_retired([point(p, augmented) for _ in range(k)], p, lam), z, y,
                     lam), label)

    cases = [
        case(2, True, 0, 0.9, "the first retirement (nu = 0), augmented intercept"),
        case(3, True, 5, 1.0, "lam = 1: no forgetting"),
        case(2, False, 6, 0.5, "no intercept, lam = 0.5"),
        case(1, False, 30, 0.95, "one regressor, a long history"),
        case(3, True, 4, 1e-6, "tiny lam: almost forget all"),
    ]
    for _ in range(40):
        p = rng.randrange(1, 5)
        lam = 1.0 if rng.random() < 0.2 else rng.uniform(0.1, 1.0)
        cases.append(case(p, rng.random() < 0.5 and p > 1, rng.randrange(0, 20), lam))
    return cases


def _forget_linear_plug(student: Callable[..., Any]) -> Callable[..., Any]:
    def absorb_retired(st: LeafStats, cfg: LeafConfig, x: Sequence[float], y: float,
                       lam: float) -> None:
        if cfg.kind != leaf_models.LINEAR:
            _REAL["absorb_retired"](st, cfg, x, y, lam)
            return
        p = cfg.p
        gram = [st.Gg[i * p:(i + 1) * p] for i in range(p)]
        nu, syyg, g, b = student(st.nu, st.syyg, gram, list(st.bg),
                                 leaf_models.regressors(x, cfg), y, lam)
        st.nu, st.syyg = float(nu), float(syyg)
        st.Gg = [float(v) for row in g for v in row]
        st.bg = [float(v) for v in b]
    return absorb_retired


def _forget_linear_variant(*, discount_gram: bool = True, discount_xty: bool = True,
                           mass: bool = True, after: bool = False) -> Callable[..., Any]:
    def absorb_retired_linear(nu: float, syyg: float, gram: list[list[float]], xty: list[float],
                              z: list[float], y: float, lam: float
                              ) -> tuple[float, float, list[list[float]], list[float]]:
        p = len(z)
        if after:
            return (lam * (nu + 1.0), lam * (syyg + y * y),
                    [[lam * (gram[j][k] + z[j] * z[k]) for k in range(p)] for j in range(p)],
                    [lam * (xty[j] + z[j] * y) for j in range(p)])
        fg = lam if discount_gram else 1.0
        fb = lam if discount_xty else 1.0
        return ((lam * nu if mass else nu) + 1.0, lam * syyg + y * y,
                [[fg * gram[j][k] + z[j] * z[k] for k in range(p)] for j in range(p)],
                [fb * xty[j] + z[j] * y for j in range(p)])
    return absorb_retired_linear


FORGETTING_LINEAR = Exercise(
    name="dt-forgetting-linear",
    title="Forgetting: the power prior of a linear leaf",
    family="dynamic_trees",
    tag="[AG13, §3]; [AG13, §5]; [DT-SPEC §3.5]",
    anchor=A_FORGET,
    function_name="absorb_retired_linear",
    skeleton=FORGET_LINEAR_SKELETON,
    reference=_forget_linear_reference,
    cases=_forget_linear_cases,
    plugs=(Plug("reference.dynatree.forgetting.absorb_retired", _forget_linear_plug),),
    stream=Stream("DynamicTreeRegressor",
                  {"leaf": "linear", "intercept": "augmented", "n_particles": 10, "seed": 1,
                   "active_size": 15, "retirement": "historical", "lam": 0.8},
                  _regression_data(1)),
    mistakes=(
        Mistake("gram-not-discounted",
                "The retired Gram matrix must be discounted too: G^g <- lam G^g + z z'.",
                A_FORGET, _forget_linear_variant(discount_gram=False), mutant="dt-forget-gram"),
        Mistake("xty-not-discounted",
                "The retired b^g = sum z y must be discounted: b^g <- lam b^g + z y.",
                A_FORGET, _forget_linear_variant(discount_xty=False)),
        Mistake("mass-not-discounted",
                "The retired mass must be discounted: nu <- lam nu + 1.",
                A_FORGET, _forget_linear_variant(mass=False), mutant="dt-forget-mass"),
        Mistake("discounts-the-retiree",
                "Discount first, then add: the point retired now enters with weight 1, not "
                "lam.",
                A_FORGET, _forget_linear_variant(after=True)),
    ),
    hints=(
        "The power prior multiplies every sufficient statistic of the retired data by lam.",
        "Four statistics: the mass, the sum of squares, the Gram matrix and X'y; each is "
        "discounted, then the retiree's own contribution is added.",
        "nu <- lam nu + 1, S <- lam S + y^2, G[j][k] <- lam G[j][k] + z[j] z[k], "
        "b[j] <- lam b[j] + z[j] y; return new lists.",
    ),
    minutes=15,
)


# =======================================================================================
# 16. dt-forgetting-class: the power prior of a class leaf
# =======================================================================================

FORGET_CLASS_SKELETON = r'''import math


def absorb_retired_class(nu: float, retired: list[float], label: int,
                         lam: float) -> tuple[float, list[float]]:
    r"""Fold a retiring label into a class leaf's retired pseudo-counts with forgetting
    factor ``lam`` (the power prior).

    A class leaf keeps, for its retired points, the mass :math:`\nu` and one pseudo-count
    :math:`a_k` per class, added to the Dirichlet prior's concentration. Retiring a point
    of class :math:`y` discounts every retired statistic by :math:`\lambda`, then adds the
    retiree:

    .. math::

        \nu \leftarrow \lambda\nu + 1,\qquad a \leftarrow \lambda a + e_y

    (:math:`e_y` is 1 at class :math:`y` and 0 elsewhere).

    [AG13, §5]; [DT-SPEC §3.5]. Tutorial: tutorials/05_data_retirement.md,
    "4. Forgetting: power priors".

    Parameters
    ----------
    nu : float
        Retired mass.
    retired : list of float
        Retired pseudo-counts, one per class.
    label : int
        The retiree's class, ``0 <= label < len(retired)``.
    lam : float
        Forgetting factor, ``0 < lam <= 1``.

    Returns
    -------
    tuple
        ``(nu, retired)`` after the retirement (a new list).
    """
    raise NotImplementedError
'''


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
    hints=(
        "The power prior multiplies every sufficient statistic of the retired data by lam.",
        "For a class leaf the statistics are the mass and one pseudo-count per class; the "
        "retiree's own contribution is a one-hot vector.",
        "nu <- lam nu + 1; every a_k <- lam a_k; then a_label += 1; return a new list.",
    ),
    minutes=10,
)


# =======================================================================================
# 15. dt-retired-share: a grown child's share of its parent's retired information
# =======================================================================================

SHARE_SKELETON = r'''import math


def child_retired_share(n_child: int, n_parent: int, nu: float, syg: float,
                        syyg: float) -> tuple[float, float, float]:
    r"""The retired statistics a child receives when a constant leaf is split (grow).

    A retired point has no location any more: its leaf only knows it was somewhere
    inside. When a leaf with :math:`n` active points (the new one included) and retired
    statistics :math:`\nu, S^g_y, S^g_{yy}` is split, each child :math:`c` with
    :math:`n_c` of the active points receives the same share
    :math:`\rho_c = n_c / n` of every retired statistic:

    .. math::

        \nu_c = \rho_c\,\nu,\qquad S^g_{y,c} = \rho_c\,S^g_y,\qquad
        S^g_{yy,c} = \rho_c\,S^g_{yy} .

    Since the children's shares add up to 1, a grow followed by a prune gives back the
    parent's retired statistics. [AG13, §3.2]; [DT-SPEC §6.4]. Tutorial:
    tutorials/05_data_retirement.md, "2. Retired information when trees grow and prune".

    Parameters
    ----------
    n_child, n_parent : int
        Active points of the child and of the leaf being split (``n_parent >= 1``).
    nu, syg, syyg : float
        The parent's retired mass and retired sums.

    Returns
    -------
    tuple of float
        The child's ``(nu, syg, syyg)``.
    """
    raise NotImplementedError
'''


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
    hints=(
        "A retired point has no location any more; the children must share what the "
        "parent knows without creating or losing any of it.",
        "Split the retired information as the active points are split: the two shares "
        "add up to one.",
        "rho = n_child / n_parent; multiply nu, S^g_y and S^g_yy by rho.",
    ),
    minutes=10,
)


EXERCISES: tuple[Exercise, ...] = (
    SPLIT_PROB,
    LEAF_PROB,
    CONSTANT_EVIDENCE,
    CONSTANT_PREDICTIVE,
    CLASS_EVIDENCE,
    CLASS_PROBABILITY,
    MOVE_PROBABILITIES,
    RESIDUAL_RESAMPLE,
    RETIRED_SUMMARY,
    RETIRE_POINT,
    RETIRED_SHARE,
    FORGETTING,
    FORGETTING_LINEAR,
    FORGETTING_CLASS,
    LEAF_ALC,
    LEAF_ENTROPY,
)
"""The dynamic-tree exercises, in course order."""


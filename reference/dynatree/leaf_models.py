"""Conjugate leaf models: building statistics, evidence and predictive [AG13, Eq. 1].

Three leaf models share one statistics record, :class:`LeafStats`
(:mod:`reference.dynatree.leaf_stats`); the linear leaf's algebra is in
:mod:`reference.dynatree.linear_leaf`:

* constant: ``y | eta ~ N(mu, sigma^2)``, statistics ``(S_y, S_yy)`` (§3.1);
* linear: ``y | x, eta ~ N(mu + beta' x, sigma^2)`` with an implicit (centred), augmented
  (ones column) or no intercept, statistics ``(G, b, S_yy)`` (§3.2);
* class (multinomial): Dirichlet(1/C, ..., 1/C) prior, statistics = class counts (§3.3).

Tags such as ``[DT-SPEC §3.1]`` cite the dynamic-tree specification
(``docs/spec/dynamic_trees.md``); a bare ``§3.3`` is a section of that page. The
retired-information fields (``nu``, ``syg``, ``syyg``, ``Gg``, ``bg``, ``gcounts``) are part
of every formula and stay 0 until points are retired (``retirement.py``, ``forgetting.py``).
C twin: ``csrc/dynatree/leaf_models.c``.

Notation
--------
``n``            active points in the leaf; ``nu`` retired (discounted) mass.
``sy, syy``      sum of y and of y^2 over the active points.
``syg, syyg``    the same over retired points.
``G, b``         Gram matrix and X'y of the regressors (row-major ``p*p`` list), ``p = bmax``.
``ginv``         ``G^-1``; ``log_det_ginv`` = log |G^-1|; ``beta`` = G^-1 b; ``bb`` = beta' G beta.
``xbar``         column means of the active regressors (implicit intercept only).
``delta``        1 if the intercept is implied by the leaf mean, else 0.
``dm``           number of mean parameters in use: ``delta + (p if bb > 0 else 0)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from reference.dynatree.leaf_stats import (
    CLASS,
    CONSTANT,
    LINEAR,
    LeafConfig,
    LeafStats,
    stats_from_list,
)
from reference.dynatree.linear_leaf import (
    add_outer,
    calculate_linear,
    linear_implicit_from_points,
    regressors,
)
from reference.special import lgamma, student_t_logpdf

__all__ = [
    # the statistics record (reference.dynatree.leaf_stats), named here as before
    "CLASS", "CONSTANT", "LINEAR", "LeafConfig", "LeafStats", "stats_from_list",
    # the linear leaf's algebra (reference.dynatree.linear_leaf), named here as before
    "calculate_linear", "regressors",
    # this module
    "LOG_2_OVER_PI", "NEG_INF", "PI", "add_point", "class_log_evidence", "class_probability",
    "merge_stats", "refresh", "regression_density", "regression_log_evidence",
    "regression_predictive", "regression_summary", "stats_from_points",
]

PI = 3.141592653589793
LOG_2_OVER_PI = math.log(2.0 / PI)
"""log(2/pi): dynaTree's evidence constant (§3.1, §11 item 1); textbook value log(2 pi)."""

NEG_INF = -math.inf


# ---------------------------------------------------------------------------------------
# Building statistics: insert one point, from scratch (grow), merge (prune)
# ---------------------------------------------------------------------------------------

def add_point(st: LeafStats, cfg: LeafConfig, points: Sequence[int], index: int,
              X: Sequence[Sequence[float]], y: Sequence[float]) -> None:
    """Insert active point ``index`` (already appended to ``points``) into the statistics.

    Constant: ``S_y += y``, ``S_yy += y^2``; class: ``c_y += 1``; explicit-intercept linear:
    ``G += z z'``, ``b += z y``, ``S_yy += y^2`` and re-inversion; implicit linear: full
    recomputation (§4.1 step 1). Refreshes ``log_evidence``.
    """
    yi = y[index]
    if cfg.kind == CONSTANT:
        st.n += 1
        st.sy = st.sy + yi
        st.syy = st.syy + yi * yi
    elif cfg.kind == CLASS:
        st.n += 1
        st.counts[int(yi)] += 1
    elif cfg.delta == 1:
        linear_implicit_from_points(st, cfg, points, X, y)
    else:
        st.n += 1
        st.syy = st.syy + yi * yi
        add_outer(st.G, st.b, regressors(X[index], cfg), yi, cfg.p)
        calculate_linear(st, cfg)
    refresh(st, cfg)


def stats_from_points(cfg: LeafConfig, points: Sequence[int], X: Sequence[Sequence[float]],
                      y: Sequence[float], parent: LeafStats | None = None) -> LeafStats:
    """Statistics of a new leaf holding ``points`` (a grow child, §4.5 and §6.4).

    Active statistics from scratch in arrival order; if ``parent`` has retired mass
    ``nu != 0``, the child receives the share ``rho = n_child / n_parent`` of every
    retired statistic and adds it to its totals.
    """
    st = LeafStats(cfg)
    if cfg.kind == LINEAR and cfg.delta == 1:
        linear_implicit_from_points(st, cfg, points, X, y)
        refresh(st, cfg)
        return st
    for i in points:
        yi = y[i]
        st.n += 1
        if cfg.kind == CONSTANT:
            st.sy = st.sy + yi
            st.syy = st.syy + yi * yi
        elif cfg.kind == CLASS:
            st.counts[int(yi)] += 1
        else:
            st.syy = st.syy + yi * yi
            add_outer(st.G, st.b, regressors(X[i], cfg), yi, cfg.p)
    if parent is not None and parent.nu != 0.0:
        _receive_retired_share(st, cfg, parent, float(st.n) / float(parent.n))
    if cfg.kind == LINEAR:
        calculate_linear(st, cfg)
    refresh(st, cfg)
    return st


def _receive_retired_share(st: LeafStats, cfg: LeafConfig, parent: LeafStats,
                           rho: float) -> None:
    """Proportional split of retired statistics on a grow [AG13, §3.2]; §6.4."""
    st.nu = rho * parent.nu
    st.syg = rho * parent.syg
    st.syyg = rho * parent.syyg
    for k in range(cfg.n_classes):
        st.gcounts[k] = rho * parent.gcounts[k]
    for k in range(cfg.p * cfg.p):
        st.Gg[k] = rho * parent.Gg[k]
        st.G[k] = st.G[k] + st.Gg[k]
    for k in range(cfg.p):
        st.bg[k] = rho * parent.bg[k]
        st.b[k] = st.b[k] + st.bg[k]


def merge_stats(cfg: LeafConfig, leaves: Sequence[LeafStats], points: Sequence[int],
                X: Sequence[Sequence[float]], y: Sequence[float]) -> LeafStats:
    """Statistics of the leaf that replaces a pruned subtree (§4.1 step 5, §6.4).

    Additive over the leaves (preorder): active and retired sums, and for the explicit
    linear leaf the totals ``G, b``; the implicit linear leaf is recomputed from the union
    ``points`` (arrival order).
    """
    st = LeafStats(cfg)
    for leaf in leaves:
        st.nu = st.nu + leaf.nu
        st.syg = st.syg + leaf.syg
        st.syyg = st.syyg + leaf.syyg
        for k in range(cfg.n_classes):
            st.gcounts[k] = st.gcounts[k] + leaf.gcounts[k]
        for k in range(cfg.p * cfg.p):
            st.Gg[k] = st.Gg[k] + leaf.Gg[k]
        for k in range(cfg.p):
            st.bg[k] = st.bg[k] + leaf.bg[k]
    if cfg.kind == LINEAR and cfg.delta == 1:
        linear_implicit_from_points(st, cfg, points, X, y)
        refresh(st, cfg)
        return st
    for leaf in leaves:
        st.n += leaf.n
        st.sy = st.sy + leaf.sy
        st.syy = st.syy + leaf.syy
        for k in range(cfg.n_classes):
            st.counts[k] += leaf.counts[k]
        for k in range(cfg.p * cfg.p):
            st.G[k] = st.G[k] + leaf.G[k]
        for k in range(cfg.p):
            st.b[k] = st.b[k] + leaf.b[k]
    if cfg.kind == LINEAR:
        calculate_linear(st, cfg)
    refresh(st, cfg)
    return st


# ---------------------------------------------------------------------------------------
# Evidence and predictive
# ---------------------------------------------------------------------------------------

def regression_summary(st: LeafStats, cfg: LeafConfig) -> tuple[float, float, float, float,
                                                                  float]:
    """The shared regression core ``(mu0, Q, Q_p, df, dm)`` of §3.0 [CODE Tree::Regression].

    ``ybar = S_y/n``, ``S2_y = S_yy - n ybar^2``,
    ``Q_p = nu0 s20 + S^g_yy - [nu>0] (S^g_y)^2/nu + [nu>0, n>0] nu n/(nu+n) (ybar - S^g_y/nu)^2``,
    ``df = nu0 + nu + n - dm``, ``Q = S2_y - bb + Q_p``, ``mu0 = ybar`` (or the pooled mean);
    ``dm = delta + r`` with ``r`` the linear leaf's rank (kept regressors, §3.2) when
    ``bb > 0``; with the slope prior (§3.7) ``dm = delta``.
    """
    n = float(st.n)
    # slopes under the proper prior of §3.7 (kappa > 0) use no degrees of freedom; else
    # one per kept regressor (a positive diagonal entry of G^-1, §3.2 step 2)
    plin = 0
    if cfg.kind == LINEAR and st.bb > 0.0 and cfg.kappa == 0.0:
        for j in range(cfg.p):
            if st.ginv[j * cfg.p + j] > 0.0:
                plin += 1
    dm = float(cfg.delta + plin)
    ybar = st.sy / n if st.n > 0 else 0.0
    s2y = st.syy - n * ybar * ybar
    qp = cfg.nu0 * cfg.s20 + st.syyg
    if st.nu > 0.0:
        qp = qp - st.syg * st.syg / st.nu
        if st.n > 0:
            dev = ybar - st.syg / st.nu
            qp = qp + st.nu * n / (st.nu + n) * dev * dev
    df = cfg.nu0 + st.nu + n - dm
    q = s2y - st.bb + qp
    mu0 = ybar if st.nu == 0.0 else (st.syg + st.sy) / (st.nu + n)
    return mu0, q, qp, df, dm


def regression_log_evidence(st: LeafStats, cfg: LeafConfig) -> float:
    """Log marginal likelihood ``ell_eta`` of a constant or linear leaf (§3.1, §3.2).

    ``ell = -(n - dm)/2 log(2/pi) - [delta][n>0] log(n)/2 + [delta][nu>0] log(nu)/2
    - df/2 log(Q/2) + lgamma(df/2) + [nu0+nu>0, Q_p>0] ((nu0+nu)/2 log(Q_p/2)
    - lgamma((nu0+nu)/2)) + log|G^-1|/2`` (the last term for linear leaves; with the slope
    prior of §3.7 it is ``log|kappa G_kappa^-1|/2``, as stored by ``calculate_linear``).

    Deviation: ``-inf`` also when ``df <= 0`` (dynaTree would evaluate lgamma there); the
    constant is dynaTree's ``log(2/pi)`` (§0 item 1, see the tutorial for why).
    """
    _, q, qp, df, dm = regression_summary(st, cfg)
    if not q > 0.0 or not df > 0.0:
        return NEG_INF
    n = float(st.n)
    ell = -0.5 * (n - dm) * LOG_2_OVER_PI
    if cfg.delta == 1:
        if st.n > 0:
            ell = ell - 0.5 * math.log(n)
        if st.nu > 0.0:
            ell = ell + 0.5 * math.log(st.nu)
    ell = ell - 0.5 * df * math.log(q / 2.0) + lgamma(df / 2.0)
    prior_df = cfg.nu0 + st.nu
    if prior_df > 0.0 and qp > 0.0:
        ell = ell + (0.5 * prior_df * math.log(qp / 2.0) - lgamma(prior_df / 2.0))
    if cfg.kind == LINEAR:
        ell = ell + 0.5 * st.log_det_ginv
    return ell


def class_log_evidence(st: LeafStats, cfg: LeafConfig) -> float:
    """Dirichlet-multinomial evidence of a class leaf (§3.3).

    ``ell = -lgamma(n + nu + 1) + sum_k lgamma(c_k + a_k + 1/C) - C lgamma(1/C)``.
    """
    inv_c = 1.0 / float(cfg.n_classes)
    ell = -lgamma(float(st.n) + st.nu + 1.0)
    for k in range(cfg.n_classes):
        ell = ell + lgamma(float(st.counts[k]) + st.gcounts[k] + inv_c)
    return ell - float(cfg.n_classes) * lgamma(inv_c)


def refresh(st: LeafStats, cfg: LeafConfig) -> None:
    """Recompute the cached ``log_evidence`` after a change of the statistics."""
    if cfg.kind == CLASS:
        st.log_evidence = class_log_evidence(st, cfg)
    else:
        st.log_evidence = regression_log_evidence(st, cfg)


def regression_predictive(st: LeafStats, cfg: LeafConfig,
                          x: Sequence[float]) -> tuple[float, float, float, bool]:
    """Student-t predictive ``(location, scale, df, proper)`` at ``x`` in the leaf (§3.1-3.2).

    ``h = delta/(n+nu) + (z - xbar)' G^-1 (z - xbar)``, location ``mu0 + (z - xbar)' beta``,
    ``scale = sqrt(Q (1 + h) / df)``. ``proper`` is False when ``df <= 0`` or ``Q <= 0``
    (then the scale is ``inf``, §0 item 3). With the slope prior (§3.7) the linear terms
    are used whatever ``bb``, unless the leaf fell back (``G^-1`` is then ``G_kappa^-1``,
    whose first diagonal entry is positive except after the fall-back).
    """
    mu0, q, _, df, _ = regression_summary(st, cfg)
    tot = float(st.n) + st.nu
    h = 0.0
    if cfg.delta == 1 and tot > 0.0:
        h = 1.0 / tot
    loc = mu0
    if cfg.kind == LINEAR and (st.bb > 0.0 if cfg.kappa == 0.0 else st.ginv[0] > 0.0):
        p = cfg.p
        z = regressors(x, cfg)
        dx = [0.0] * p
        for j in range(p):
            dx[j] = z[j] - st.xbar[j]
        quad = 0.0
        lin = 0.0
        for i in range(p):
            t = 0.0
            for j in range(p):
                t = t + st.ginv[i * p + j] * dx[j]
            quad = quad + dx[i] * t
            lin = lin + dx[i] * st.beta[i]
        # G^-1 is positive semi-definite: only rounding makes quad < 0 (§3.2)
        if quad < 0.0:
            quad = 0.0
        h = h + quad
        if st.bb > 0.0:  # else beta = 0 (slope prior, b = 0): mu0 even if x - xbar overflows
            loc = mu0 + lin
    if not q > 0.0 or not df > 0.0:
        return loc, math.inf, df, False
    return loc, math.sqrt(q * (1.0 + h) / df), df, True


def regression_density(st: LeafStats, cfg: LeafConfig, x: Sequence[float],
                       y: float) -> tuple[float, bool]:
    """Predictive density ``t_df((y - loc)/scale)/scale`` and whether it is proper (§5.2)."""
    loc, scale, df, proper = regression_predictive(st, cfg, x)
    if not proper:
        return 0.0, False
    return math.exp(student_t_logpdf((y - loc) / scale, df)) / scale, True


def class_probability(st: LeafStats, cfg: LeafConfig, k: int) -> float:
    """``p(y = k | eta) = (c_k + a_k + 1/C) / (n + nu + 1)`` (§3.3)."""
    inv_c = 1.0 / float(cfg.n_classes)
    return (float(st.counts[k]) + st.gcounts[k] + inv_c) / (float(st.n) + st.nu + 1.0)

"""Linear algebra of the linear leaf: regressors, ``G^-1``, ``beta`` (§3.2) [AG13, Eq. 1].

Written out as plain loops over row-major ``p*p`` lists, the same loops as in C
(``csrc/dynatree/leaf_models.c``); the notation is that of :mod:`reference.dynatree.leaf_models`
(a bare ``§3.2`` is a section of ``docs/spec/dynamic_trees.md``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from reference.dynatree.leaf_stats import LeafConfig, LeafStats

__all__ = ["PIVOT_TOL", "add_outer", "calculate_linear", "linear_implicit_from_points",
           "regressors"]


def regressors(x: Sequence[float], cfg: LeafConfig) -> list[float]:
    """The regressor vector ``z`` of a linear leaf: ``(1, x)`` if augmented, else ``x``."""
    if cfg.augmented:
        return [1.0, *x]
    return list(x)

# ---------------------------------------------------------------------------------------
# Linear algebra for the linear leaf (written out, same loops in C)
# ---------------------------------------------------------------------------------------

PIVOT_TOL = 1e-9
"""Relative pivot below which a regressor is dropped from the leaf's fit (§3.2 step 2)."""


def calculate_linear(st: LeafStats, cfg: LeafConfig) -> None:
    """Derived regression quantities ``G^-1, log|G^-1|, beta, bb`` (§3.2 steps 1-4).

    Cholesky ``G = L L'`` with **dropped regressors**: the pivot of column ``j``,
    ``s_j = G_jj - sum_{k<j} L_jk^2``, is compared with ``PIVOT_TOL`` times the column's raw
    sum of squares ``G_jj + n xbar_j^2`` (plus ``kappa``); if it is not larger, column ``j``
    is (up to rounding) a linear combination of the columns kept before it, and it is
    dropped: its row and column of ``L`` and of ``G^-1`` and its slope are 0. The result is
    exactly the leaf fitted on the kept columns, with ``G^-1`` the inverse of their Gram
    matrix placed in the kept rows and columns (a generalised inverse of ``G``) and
    ``log|G^-1|`` the log determinant of that inverse; the number of kept columns (the
    positive diagonal entries of ``G^-1``) is the leaf's rank, used by ``regression_summary``.
    A leaf whose columns are all dropped, or whose ``bb <= 0``, falls back to
    ``G^-1 = 0``, ``log|G^-1| = 0``, ``beta = 0`` (the constant model for the implicit
    intercept, the zero-mean model otherwise).

    With the slope prior (``cfg.kappa > 0``, §3.7) the factorised matrix is
    ``G_kappa = G + kappa I`` (``kappa`` added to each diagonal entry of ``G`` as it is
    read), ``bb = beta' G_kappa beta`` and ``log_det_ginv = log|G_kappa^-1| + r log kappa``
    over the ``r`` kept columns; a zero ``G`` or ``bb = 0`` is then an ordinary leaf; the
    leaf falls back only when every column is dropped or it gives a non-finite ``bb`` or a
    ``G^-1`` whose first diagonal entry is not positive (sums that overflowed), so that
    after a successful one ``ginv[0] > 0`` marks the linear terms as in use.

    Deviation: dynaTree falls back on any singular ``G`` (§11 item 11), which makes an
    ordinary design (a constant or duplicated column, a full set of dummies next to the
    intercept) a zero-mean or constant leaf, and factorises nearly singular ones into
    rounding noise (a negative predictive scale); the stored ``G`` is never overwritten.
    """
    p = cfg.p
    low = [0.0] * (p * p)
    rank = _cholesky_dropping(st, cfg, low)
    if rank == 0:
        _linear_fallback(st, p)
        return
    _ginv_from_factor(st, p, low)
    kappa = cfg.kappa
    ridge = kappa > 0.0
    s = 0.0
    for j in range(p):
        if low[j * p + j] > 0.0:
            s = s + math.log(low[j * p + j])
    st.log_det_ginv = -2.0 * s
    if ridge:
        st.log_det_ginv = st.log_det_ginv + float(rank) * math.log(kappa)
    for i in range(p):
        t = 0.0
        for j in range(p):
            t = t + st.ginv[i * p + j] * st.b[j]
        st.beta[i] = t
    G = st.G
    bb = 0.0
    for i in range(p):
        t = 0.0
        for j in range(p):
            t = t + G[i * p + j] * st.beta[j]
        if ridge:
            t = t + kappa * st.beta[i]
        bb = bb + st.beta[i] * t
    st.bb = bb
    if ridge:
        # G_kappa is positive definite, so only overflowing sums end here (§3.7)
        if not (bb >= 0.0 and bb < math.inf and st.ginv[0] > 0.0):
            _linear_fallback(st, p)
    elif not bb > 0.0:
        _linear_fallback(st, p)


def _cholesky_dropping(st: LeafStats, cfg: LeafConfig, low: list[float]) -> int:
    """Fill the lower factor ``low`` of the kept columns (§3.2 step 2); return their count.

    A dropped column ``j`` keeps ``low[j][j] = 0`` and a zero column below it, so later
    pivots use only the kept columns. A non-finite pivot (sums that overflowed) drops every
    column.
    """
    p = cfg.p
    G = st.G
    kappa = cfg.kappa
    n = float(st.n)
    rank = 0
    for j in range(p):
        s = G[j * p + j]
        if kappa > 0.0:
            s = s + kappa
        scale = s + n * st.xbar[j] * st.xbar[j]
        for k in range(j):
            s = s - low[j * p + k] * low[j * p + k]
        if not s < math.inf or not scale < math.inf:
            return 0
        if not s > PIVOT_TOL * scale:
            continue
        rank += 1
        low[j * p + j] = math.sqrt(s)
        for i in range(j + 1, p):
            t = G[i * p + j]
            for k in range(j):
                t = t - low[i * p + k] * low[j * p + k]
            low[i * p + j] = t / low[j * p + j]
    return rank


def _ginv_from_factor(st: LeafStats, p: int, low: Sequence[float]) -> None:
    """``G^-1 = M' M`` with ``M = L^-1`` over the kept columns, 0 in the dropped ones."""
    inv = [0.0] * (p * p)
    for j in range(p):
        if not low[j * p + j] > 0.0:
            continue
        inv[j * p + j] = 1.0 / low[j * p + j]
        for i in range(j + 1, p):
            if not low[i * p + i] > 0.0:
                continue
            t = 0.0
            for k in range(j, i):
                t = t + low[i * p + k] * inv[k * p + j]
            inv[i * p + j] = -t / low[i * p + i]
    for i in range(p):
        for j in range(p):
            t = 0.0
            for k in range(i if i > j else j, p):
                t = t + inv[k * p + i] * inv[k * p + j]
            st.ginv[i * p + j] = t


def _linear_fallback(st: LeafStats, p: int) -> None:
    """``G^-1 := 0``, ``log|G^-1| := 0``, ``beta := 0``, ``bb := 0`` (§3.2 fall-back)."""
    for k in range(p * p):
        st.ginv[k] = 0.0
    for k in range(p):
        st.beta[k] = 0.0
    st.bb = 0.0
    st.log_det_ginv = 0.0


def add_outer(G: list[float], b: list[float], z: Sequence[float], y: float, p: int) -> None:
    """``G += z z'`` (upper triangle, mirrored) and ``b += z y``."""
    for j in range(p):
        b[j] = b[j] + z[j] * y
        for k in range(j, p):
            G[j * p + k] = G[j * p + k] + z[j] * z[k]
            G[k * p + j] = G[j * p + k]


def linear_implicit_from_points(st: LeafStats, cfg: LeafConfig, points: Sequence[int],
                                X: Sequence[Sequence[float]], y: Sequence[float]) -> None:
    """Centred statistics of an implicit-intercept linear leaf, from scratch (§3.2 item 1).

    ``xbar`` = column means, ``G = Xc' Xc``, ``b = Xc' (y - ybar)``, plus ``S_y, S_yy``;
    points in arrival order.
    """
    p = cfg.p
    n = len(points)
    sy = 0.0
    syy = 0.0
    xbar = [0.0] * p
    for i in points:
        yi = y[i]
        sy = sy + yi
        syy = syy + yi * yi
        xi = X[i]
        for j in range(p):
            xbar[j] = xbar[j] + xi[j]
    ybar = 0.0
    if n > 0:
        for j in range(p):
            xbar[j] = xbar[j] / float(n)
        ybar = sy / float(n)
    G = [0.0] * (p * p)
    b = [0.0] * p
    dx = [0.0] * p
    for i in points:
        xi = X[i]
        for j in range(p):
            dx[j] = xi[j] - xbar[j]
        add_outer(G, b, dx, y[i] - ybar, p)
    st.n = n
    st.sy = sy
    st.syy = syy
    st.xbar = xbar
    st.G = G
    st.b = b
    calculate_linear(st, cfg)

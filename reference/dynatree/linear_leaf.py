"""Linear algebra of the linear leaf: regressors, ``G^-1``, ``beta`` (§3.2) [AG13, Eq. 1].

Written out as plain loops over row-major ``p*p`` lists, the same loops as in C
(``csrc/dynatree/leaf_models.c``); the notation is that of :mod:`reference.dynatree.leaf_models`
(a bare ``§3.2`` is a section of ``docs/spec/dynamic_trees.md``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from reference.dynatree.leaf_stats import LeafConfig, LeafStats

__all__ = ["add_outer", "calculate_linear", "linear_implicit_from_points", "regressors"]


def regressors(x: Sequence[float], cfg: LeafConfig) -> list[float]:
    """The regressor vector ``z`` of a linear leaf: ``(1, x)`` if augmented, else ``x``."""
    if cfg.augmented:
        return [1.0, *x]
    return list(x)

# ---------------------------------------------------------------------------------------
# Linear algebra for the linear leaf (written out, same loops in C)
# ---------------------------------------------------------------------------------------

def calculate_linear(st: LeafStats, cfg: LeafConfig) -> None:
    """Derived regression quantities ``G^-1, log|G^-1|, beta, bb`` (§3.2 steps 1-4).

    Cholesky ``G = L L'``; on a zero ``G``, a non-positive pivot or ``bb <= 0`` the leaf
    falls back to ``G^-1 = 0``, ``log|G^-1| = 0``, ``beta = 0`` (so ``p_lin = 0``: constant
    model for the implicit intercept, zero-mean model otherwise).

    With the slope prior (``cfg.kappa > 0``, §3.7) the factorised matrix is
    ``G_kappa = G + kappa I`` (``kappa`` added to each diagonal entry of ``G`` as it is
    read), ``bb = beta' G_kappa beta`` and ``log_det_ginv = log|G_kappa^-1| + p log kappa``;
    a zero ``G`` or ``bb = 0`` is then an ordinary leaf; the leaf falls back only when the
    factorisation fails or gives a non-finite ``bb`` or a ``G^-1`` whose first diagonal
    entry is not positive (sums that overflowed), so that after a successful one
    ``ginv[0] > 0`` marks the linear terms as in use.

    Deviation: the stored ``G`` is never overwritten on a failed factorisation (§0 item 2;
    dynaTree zeroes it), and ``beta`` is zeroed together with ``G^-1`` in the fall-back.
    """
    p = cfg.p
    G = st.G
    kappa = cfg.kappa
    ridge = kappa > 0.0
    ok = ridge
    for k in range(p * p):
        if G[k] != 0.0:
            ok = True
            break
    low = [0.0] * (p * p)
    if ok:
        for j in range(p):
            s = G[j * p + j]
            if ridge:
                s = s + kappa
            for k in range(j):
                s = s - low[j * p + k] * low[j * p + k]
            if not s > 0.0:
                ok = False
                break
            low[j * p + j] = math.sqrt(s)
            for i in range(j + 1, p):
                t = G[i * p + j]
                for k in range(j):
                    t = t - low[i * p + k] * low[j * p + k]
                low[i * p + j] = t / low[j * p + j]
    if not ok:
        _linear_fallback(st, p)
        return
    # M = L^-1 (lower triangular), then G^-1 = M' M
    inv = [0.0] * (p * p)
    for j in range(p):
        inv[j * p + j] = 1.0 / low[j * p + j]
        for i in range(j + 1, p):
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
    s = 0.0
    for j in range(p):
        s = s + math.log(low[j * p + j])
    st.log_det_ginv = -2.0 * s
    if ridge:
        st.log_det_ginv = st.log_det_ginv + float(p) * math.log(kappa)
    for i in range(p):
        t = 0.0
        for j in range(p):
            t = t + st.ginv[i * p + j] * st.b[j]
        st.beta[i] = t
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

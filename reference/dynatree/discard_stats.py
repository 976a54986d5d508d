"""Active-discarding statistics: entropy and ALC of the active points [AG13, §4]; [DT-SPEC §7].

``entropy_active`` gives every active point the particle average of its leaf's predictive
entropy (§7.5): points deep inside class interiors (low entropy) are the cheapest to
retire. ``alc`` gives the particle average of the integrated reduction in predictive
variance that a point brings to its leaf (§7.1-7.4). Values are computed once per leaf
and shared by the leaf's points (the per-leaf scheme of [AG13, §4.4]). C twin:
``csrc/dynatree/discard_stats.c``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from reference.dynatree.leaf_models import (
    LINEAR,
    LeafConfig,
    LeafStats,
    class_probability,
    regression_summary,
    regressors,
)
from reference.dynatree.tree import Node, find_leaf, leaves


def leaf_entropy(st: LeafStats, cfg: LeafConfig) -> float:
    """``H = -sum_k p_k log p_k`` of the leaf predictive of §3.3 (§7.5)."""
    h = 0.0
    for k in range(cfg.n_classes):
        pk = class_probability(st, cfg, k)
        h = h - pk * math.log(pk)
    return h


def entropy_active(roots: Sequence[Node], cfg: LeafConfig, n_active: int) -> list[float]:
    """``entropyX(x) = (1/N) sum_i H_{eta_i(x)}`` for every active point (§7.5).

    Particles in index order, leaves left to right; each leaf's entropy is computed once
    and added to each of its points' running sums, which are then divided by ``N``.
    """
    out = [0.0] * n_active
    for root in roots:
        for leaf in leaves(root):
            if not leaf.points:
                continue
            h = leaf_entropy(leaf.stats, cfg)
            for i in leaf.points:
                out[i] = out[i] + h
    n = float(len(roots))
    for i in range(n_active):
        out[i] = out[i] / n
    return out


# ---------------------------------------------------------------------------------------
# ALC: integrated reduction of predictive variance ([DT-SPEC §7.1]-[DT-SPEC §7.4])
# ---------------------------------------------------------------------------------------

EPS = 2.220446049250313e-16
"""Machine epsilon: rectangle sides at most this wide are degenerate (§7.4)."""


def integrated_box(box: Sequence[tuple[float, float]], cfg: LeafConfig) -> list[list[float]]:
    """The integrated columns' bounds ``[lo, hi]``: the ``d`` inputs for a constant leaf,
    the regressors of a linear leaf (``[1, 1]`` for the ones column when augmented)."""
    out = [[lo, hi] for lo, hi in box]
    if cfg.augmented:
        out.insert(0, [1.0, 1.0])
    return out


def leaf_rectangle(leaf: Node, box: Sequence[Sequence[float]],
                   cfg: LeafConfig) -> tuple[list[float], list[float]]:
    """The leaf's cell closed by the bounding box (§7.3): ``(lo, hi)`` per integrated column.

    From the root down, a split on ``j`` at ``xi`` sets ``hi_j = xi`` on the left and
    ``lo_j = xi`` on the right (substitution, no clamping).
    """
    lo = [b[0] for b in box]
    hi = [b[1] for b in box]
    shift = 1 if cfg.augmented else 0
    path = []
    node = leaf
    while node.parent is not None:
        path.append(node)
        node = node.parent
    for child in reversed(path):
        par = child.parent
        assert par is not None
        if par.left is child:
            hi[par.var + shift] = par.value
        else:
            lo[par.var + shift] = par.value
    return lo, hi


def leaf_alc(st: LeafStats, cfg: LeafConfig, lo: Sequence[float], hi: Sequence[float],
             x: Sequence[float], approx: bool) -> float:
    """``ALC_eta(x)`` of a leaf (§7.1, §7.4): its regression summary ``Q, df`` and
    regressors ``z`` of ``x`` handed to :func:`alc_integral`."""
    _, q, _, df, _ = regression_summary(st, cfg)
    z = regressors(x, cfg) if cfg.kind == LINEAR else []
    return alc_integral(q, df, float(st.n) + st.nu, cfg.delta, st.ginv, st.xbar, z, lo, hi,
                        approx)


def alc_integral(q: float, df: float, tot: float, delta: int, ginv: Sequence[float],
                 xbar: Sequence[float], z: Sequence[float], lo: Sequence[float],
                 hi: Sequence[float], approx: bool) -> float:
    """``ALC_eta(x) = Q I_eta(x) / ((df - 2)(1 + h(x)))`` (§7.1, §7.4).

    ``tot = n + nu``; ``z`` is the regressor vector of ``x`` for a linear leaf (``p``
    entries, ``ginv`` the row-major ``G^-1``, ``xbar`` the centring) and empty for a
    constant leaf. ``c = delta/(n + nu)``, ``u = z - xbar``, ``v = G^-1 u``,
    ``h = c + u'v``. On the rectangle ``[lo, hi]`` shifted by ``-xbar``: degenerate sides
    (width <= eps) of a linear leaf are point masses at ``hi`` (``c' = c + v_i hi_i``);
    other sides are integrated in closed form, ``I = A [c'^2 + sum_i (c' v_i (a_i + b_i)
    + v_i^2 M2_i + sum_{j<i} v_i v_j (a_i + b_i)(a_j + b_j)/2)]`` with
    ``M2 = (a^2 + a b + b^2)/3`` and ``A`` the product of the regular widths, or
    ``n + nu`` with ``approx``. A leaf without ``df > 2`` and ``Q > 0`` contributes 0
    (§0 item 3).

    Deviation: no categorical columns (dynaTree's {0,1} columns are integrated as
    ordinary ones); a degenerate side of a constant leaf makes the area 0; the cross terms
    run over regular columns only.
    """
    if not (q > 0.0 and df > 2.0):
        return 0.0
    c = 0.0
    if delta == 1 and tot > 0.0:
        c = 1.0 / tot
    p = len(z)
    linear = p > 0
    m = len(lo)
    v = [0.0] * m
    a = list(lo)
    b = list(hi)
    h = c
    if linear:
        u = [z[j] - xbar[j] for j in range(p)]
        for i in range(p):
            t = 0.0
            for j in range(p):
                t = t + ginv[i * p + j] * u[j]
            v[i] = t
            h = h + u[i] * t
            a[i] = a[i] - xbar[i]
            b[i] = b[i] - xbar[i]
    cp = c
    area = 1.0
    regular: list[int] = []
    for i in range(m):
        w = b[i] - a[i]
        if w <= EPS:
            if linear:
                cp = cp + v[i] * b[i]
            else:
                area = 0.0
        else:
            regular.append(i)
            area = area * w
    if approx:
        area = tot
    s = cp * cp
    for k, i in enumerate(regular):
        m1 = a[i] + b[i]
        m2 = (a[i] * a[i] + a[i] * b[i] + b[i] * b[i]) / 3.0
        t = cp * v[i] * m1 + v[i] * v[i] * m2
        for j in regular[:k]:
            t = t + v[i] * v[j] * (m1 * (a[j] + b[j])) / 2.0
        s = s + t
    return q * (area * s) / ((df - 2.0) * (1.0 + h))


def box_area(box: Sequence[Sequence[float]], approx: bool, n_total: int) -> float:
    """``A_B``: product of the box widths >= eps, or ``n_act + retired`` with ``approx``."""
    if approx:
        return float(n_total)
    area = 1.0
    for lo, hi in box:
        if hi - lo >= EPS:
            area = area * (hi - lo)
    return area


def alc_active(roots: Sequence[Node], cfg: LeafConfig, X: Sequence[Sequence[float]],
               box: Sequence[tuple[float, float]], approx: bool, n_total: int) -> list[float]:
    """``alcX`` of every active point: ``(1/(N A_B)) sum_i ALC_{eta_i(x)}(x)`` (§7.4).

    Particles in index order, leaves left to right; each leaf's rectangle once.
    """
    ibox = integrated_box(box, cfg)
    out = [0.0] * len(X)
    for root in roots:
        for leaf in leaves(root):
            if not leaf.points:
                continue
            lo, hi = leaf_rectangle(leaf, ibox, cfg)
            for i in leaf.points:
                out[i] = out[i] + leaf_alc(leaf.stats, cfg, lo, hi, X[i], approx)
    denom = float(len(roots)) * box_area(ibox, approx, n_total)
    for i in range(len(X)):
        out[i] = out[i] / denom
    return out


def alc_points(roots: Sequence[Node], cfg: LeafConfig, rows: Sequence[Sequence[float]],
               box: Sequence[tuple[float, float]], approx: bool, n_total: int) -> list[float]:
    """ALC of candidate rows (``alc(X)``), same averaging as :func:`alc_active`."""
    ibox = integrated_box(box, cfg)
    out = [0.0] * len(rows)
    for root in roots:
        for k, x in enumerate(rows):
            leaf = find_leaf(root, x)
            lo, hi = leaf_rectangle(leaf, ibox, cfg)
            out[k] = out[k] + leaf_alc(leaf.stats, cfg, lo, hi, x, approx)
    denom = float(len(roots)) * box_area(ibox, approx, n_total)
    for k in range(len(rows)):
        out[k] = out[k] / denom
    return out


def data_box(rows: Sequence[Sequence[float]], d: int) -> list[tuple[float, float]]:
    """Per-column ``(min, max)`` of ``rows`` (the default bounding box, §7.3)."""
    out = []
    for j in range(d):
        lo = rows[0][j]
        hi = rows[0][j]
        for r in rows:
            if r[j] < lo:
                lo = r[j]
            if r[j] > hi:
                hi = r[j]
        out.append((lo, hi))
    return out

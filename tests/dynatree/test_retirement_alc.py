"""ALC and entropy discarding statistics ([DT-SPEC §7], [DT-SPEC §A] item 5).

* the closed-form rectangle integral equals a Monte-Carlo integral on random leaves;
* the ALC integrand equals the direct difference of predictive variances;
* the cloud statistics equal a per-point recomputation;
* the default box is the range of the active inputs.
"""

from __future__ import annotations

import numpy as np
import pytest
from _dynatree_helpers import class_stream, regression_stream

from reference import DynamicTreeClassifier, DynamicTreeRegressor
from reference.dynatree.discard_stats import (
    data_box,
    integrated_box,
    leaf_alc,
    leaf_entropy,
    leaf_rectangle,
)
from reference.dynatree.leaf_models import (
    CONSTANT,
    LINEAR,
    LeafConfig,
    regression_summary,
    regressors,
    stats_from_points,
)
from reference.dynatree.retirement import retire_from_leaf
from reference.dynatree.tree import Node, find_leaf

CFGS = {
    "constant": LeafConfig(CONSTANT, 0, False, 1, 0, 0.0, 0.0),
    "implicit": LeafConfig(LINEAR, 2, False, 1, 0, 0.0, 0.0),
    "augmented": LeafConfig(LINEAR, 3, True, 0, 0, 0.0, 0.0),
    "none": LeafConfig(LINEAR, 2, False, 0, 0, 0.0, 0.0),
}


def _random_leaf(cfg: LeafConfig, seed: int) -> tuple[Node, list[list[float]]]:
    data = regression_stream(seed, 25)
    X = [x for x, _ in data]
    y = [v + x[0] * 2.0 for x, v in data]
    points = list(range(25))
    leaf = Node(0, None, points, stats_from_points(cfg, points, X, y))
    if cfg.delta == 0 or cfg.kind == CONSTANT:
        for r in range(6):  # retired data enter every formula
            retire_from_leaf(leaf, r, X, y, cfg, 0.8)
    return leaf, X


def _k(leaf: Node, cfg: LeafConfig, z: np.ndarray, x: list[float]) -> tuple[np.ndarray, float]:
    st = leaf.stats
    tot = st.n + st.nu
    c = 1.0 / tot if cfg.delta == 1 else 0.0
    if cfg.kind == CONSTANT:
        return np.full(len(z), c), c
    p = cfg.p
    ginv = np.array(st.ginv).reshape(p, p)
    xbar = np.array(st.xbar)
    u = np.array(regressors(x, cfg)) - xbar
    v = ginv @ u
    zz = np.column_stack([np.ones(len(z)), z]) if cfg.augmented else z
    return c + (zz - xbar) @ v, c + float(u @ v)


@pytest.mark.parametrize("model", list(CFGS))
@pytest.mark.parametrize("seed", range(3))
def test_closed_form_equals_monte_carlo(model: str, seed: int) -> None:
    cfg = CFGS[model]
    leaf, _ = _random_leaf(cfg, seed)
    rs = np.random.default_rng(seed)
    lo = list(rs.uniform(-1.0, 0.3, 2))
    hi = [v + w for v, w in zip(lo, rs.uniform(0.2, 1.5, 2), strict=True)]
    ilo, ihi = ([1.0] + lo, [1.0] + hi) if cfg.augmented else (lo, hi)
    x = list(rs.uniform(0.0, 1.0, 2))
    closed = leaf_alc(leaf.stats, cfg, ilo, ihi, x, approx=False)
    _, q, _, df, _ = regression_summary(leaf.stats, cfg)
    z = rs.uniform(lo, hi, size=(400_000, 2))
    k, h = _k(leaf, cfg, z, x)
    area = (hi[0] - lo[0]) * (hi[1] - lo[1])
    mc = area * float(np.mean(q / (df - 2.0) * k * k / (1.0 + h)))
    assert closed > 0.0
    assert closed == pytest.approx(mc, rel=1e-2)
    approx = leaf_alc(leaf.stats, cfg, ilo, ihi, x, approx=True)
    assert approx == pytest.approx(closed / area * (leaf.stats.n + leaf.stats.nu), rel=1e-12)


@pytest.mark.parametrize("model", ["augmented", "none", "constant"])
def test_integrand_is_the_direct_variance_reduction(model: str) -> None:
    """Delta sigma^2_x(z) = V(z) - V_x(z) with Q/(df-2) held fixed ([DT-SPEC §7.1])."""
    cfg = CFGS[model]
    leaf, _ = _random_leaf(cfg, 5)
    st = leaf.stats
    _, q, _, df, _ = regression_summary(st, cfg)
    s = q / (df - 2.0)
    x = [0.3, 0.8]
    zs = np.array([[0.1, 0.2], [0.9, 0.4], [0.5, 0.5]])
    k, h = _k(leaf, cfg, zs, x)
    if cfg.kind == CONSTANT:
        tot = st.n + st.nu
        direct = s * (1.0 / tot - 1.0 / (tot + 1.0)) * np.ones(3)
    else:
        p = cfg.p
        G = np.array(st.G).reshape(p, p)
        zx = np.array(regressors(x, cfg))
        Z = np.array([regressors(list(z), cfg) for z in zs])
        a = np.einsum("ij,jk,ik->i", Z, np.linalg.inv(G), Z)
        b = np.einsum("ij,jk,ik->i", Z, np.linalg.inv(G + np.outer(zx, zx)), Z)
        direct = s * (a - b)
    np.testing.assert_allclose(s * k * k / (1.0 + h), direct, rtol=1e-9)


def _model(leaf: str, seed: int) -> DynamicTreeRegressor:
    kw = {"intercept": "augmented", "min_leaf": 4} if leaf == "linear" else {}
    m = DynamicTreeRegressor(leaf=leaf, n_particles=6, seed=seed, active_size=30,
                             retirement="alc", **kw)  # type: ignore[arg-type]
    for x, y in regression_stream(seed, 70):
        m.learn_one(x, y)
    return m


@pytest.mark.parametrize("leaf", ["constant", "linear"])
def test_alc_active_equals_per_point_recomputation(leaf: str) -> None:
    m = _model(leaf, 2)
    X = m.active_X_.tolist()
    box = data_box(X, 2)
    ibox = integrated_box(box, m._engine._cfg)
    area = 1.0
    for lo, hi in ibox:
        if hi - lo > 0.0:
            area *= hi - lo
    want = []
    for x in X:
        total = 0.0
        for root in m._engine._roots:
            lf = find_leaf(root, x)
            lo, hi = leaf_rectangle(lf, ibox, m._engine._cfg)
            total += leaf_alc(lf.stats, m._engine._cfg, lo, hi, x, False)
        want.append(total / (len(m._engine._roots) * area))
    np.testing.assert_allclose(m.alc_active(), want, rtol=1e-13)
    np.testing.assert_allclose(m.alc(X, rect=box), want, rtol=1e-13)
    assert min(want) > 0.0


def test_leaf_rectangle_follows_the_path() -> None:
    m = _model("constant", 3)
    box = [(0.0, 1.0), (0.0, 1.0)]
    for root in m._engine._roots:
        for x in m.active_X_.tolist():
            lf = find_leaf(root, x)
            lo, hi = leaf_rectangle(lf, box, m._engine._cfg)
            assert all(lo[j] <= x[j] <= hi[j] for j in range(2))


def test_entropy_active_equals_per_point_recomputation() -> None:
    m = DynamicTreeClassifier(classes=[0, 1, 2], n_particles=6, seed=4, active_size=25,
                              retirement="entropy")
    for x, y in class_stream(4, 80):
        m.learn_one(x, y)
    want = []
    for x in m.active_X_.tolist():
        total = 0.0
        for root in m._engine._roots:
            total += leaf_entropy(find_leaf(root, x).stats, m._engine._cfg)
        want.append(total / len(m._engine._roots))
    np.testing.assert_allclose(m.entropy_active(), want, rtol=1e-13)


@pytest.mark.parametrize("leaf", ["constant", "linear"])
@pytest.mark.parametrize("d", [1, 2])
def test_alc_active_walk_equals_per_row_descent(backend: object, leaf: str, d: int) -> None:
    """``alc_active`` (one walk per particle, each leaf's rectangle built from the root
    down, in C) and ``alc`` at the same rows (a descent to the row's leaf, then its
    rectangle from the leaf up) take the same terms in the same order: equal bit for bit,
    on trees deep enough that a column is split several times on one path (d = 1, 2)."""
    kw = {"intercept": "augmented", "min_leaf": 3} if leaf == "linear" else {"min_leaf": 1}
    m = backend.DynamicTreeRegressor(  # type: ignore[attr-defined]
        leaf=leaf, n_particles=8, seed=5, active_size=100, retirement="alc", **kw)
    for x, y in regression_stream(11, 200, d=d):
        m.learn_one(x, y)
    assert m.tree_stats()["mean_height"] >= 4.0  # several splits per column on a path
    X = m.active_X_
    box = [(float(X[:, j].min()), float(X[:, j].max())) for j in range(d)]
    walk = m.alc_active()
    descent = m.alc(X, rect=box)
    np.testing.assert_array_equal(walk, descent)

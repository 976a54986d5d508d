"""Per-function differential tests: each dt_* C kernel against its Python twin, exactly."""

from __future__ import annotations

import math
from typing import Any

import pytest

from reference.dynatree import leaf_models as lm
from reference.dynatree.moves import choose_move
from reference.dynatree.particles import residual_resample
from reference.dynatree.tree import log_leaf_prob, log_split_prob
from reference.rng import Rng

CONFIGS = [
    ("constant", lm.LeafConfig(lm.CONSTANT, 0, False, 1, 0, 0.0, 0.0)),
    ("constant-prior", lm.LeafConfig(lm.CONSTANT, 0, False, 1, 0, 2.0, 0.5)),
    ("implicit", lm.LeafConfig(lm.LINEAR, 3, False, 1, 0, 0.0, 0.0)),
    ("augmented", lm.LeafConfig(lm.LINEAR, 4, True, 0, 0, 0.0, 0.0)),
    ("none", lm.LeafConfig(lm.LINEAR, 3, False, 0, 0, 1.0, 1.0)),
    ("class", lm.LeafConfig(lm.CLASS, 0, False, 1, 4, 0.0, 0.0)),
]


def c_config(lib: Any, cfg: lm.LeafConfig) -> Any:
    from fast._ffi import ffi

    c = ffi.new("dt_leaf_config *")
    lib.dt_leaf_config_init(c, cfg.kind, cfg.p, int(cfg.augmented), cfg.delta, cfg.n_classes,
                            cfg.nu0, cfg.s20)
    return c


def data(seed: int, n: int, kind: int, collinear: bool) -> tuple[list[list[float]], list[float]]:
    r = Rng(seed)
    X = [[r.uniform() for _ in range(3)] for _ in range(n)]
    if collinear:
        X = [[x[0], 2.0 * x[0], x[2] if seed % 2 else 0.5] for x in X]
    if kind == lm.CLASS:
        return X, [float(r.below(4)) for _ in range(n)]
    return X, [x[0] * 3.0 - x[1] + r.uniform() for x in X]


@pytest.mark.parametrize("name,cfg", CONFIGS)
@pytest.mark.parametrize("seed", range(8))
def test_stats_evidence_predictive_match(lib: Any, name: str, cfg: lm.LeafConfig,
                                         seed: int) -> None:
    """dt_stats_from_points / dt_add_point / dt_merge_stats / dt_regression_predictive."""
    from fast._ffi import ffi
    from fast.dynatree.engine import _block_to_list

    c = c_config(lib, cfg)
    n = 3 + seed * 3
    X, y = data(seed, n, cfg.kind, collinear=seed % 3 == 2)
    cX = ffi.new("double[]", [v for row in X for v in row])
    cy = ffi.new("double[]", y)
    work = ffi.new("double[]", 2 * cfg.p * cfg.p + 2 * cfg.p + 8)
    sw = c.sw
    pts = list(range(n))
    st = lm.stats_from_points(cfg, pts, X, y)
    block = ffi.new("double[]", sw)
    lib.dt_stats_from_points(block, c, ffi.new("int32_t[]", pts), n, cX, cy, 3, ffi.NULL, work)
    cb = ffi.unpack(block, sw)
    assert _block_to_list(cb, cfg) == st.as_list(cfg)
    assert cb[8] == st.log_evidence  # cached ell (DT_OFF_ELL)
    # incremental insertion of one more point
    X2 = X + [[0.25, 0.5, 0.75]]
    y2 = y + [1.0]
    cX2 = ffi.new("double[]", [v for row in X2 for v in row])
    cy2 = ffi.new("double[]", y2)
    lm.add_point(st, cfg, pts + [n], n, X2, y2)
    lib.dt_add_point(block, c, ffi.new("int32_t[]", pts + [n]), n + 1, n, cX2, cy2, 3, work)
    cb = ffi.unpack(block, sw)
    assert _block_to_list(cb, cfg) == st.as_list(cfg)
    assert cb[8] == st.log_evidence
    # merge of two halves (prune)
    half = (n + 1) // 2
    left = lm.stats_from_points(cfg, pts[:half], X2, y2)
    right = lm.stats_from_points(cfg, pts[half:] + [n], X2, y2)
    merged = lm.merge_stats(cfg, [left, right], pts + [n], X2, y2)
    blocks = ffi.new("double[]", 2 * sw)
    lib.dt_stats_from_points(blocks, c, ffi.new("int32_t[]", pts[:half]), half, cX2, cy2, 3,
                             ffi.NULL, work)
    rest = pts[half:] + [n]
    lib.dt_stats_from_points(blocks + sw, c, ffi.new("int32_t[]", rest), len(rest), cX2, cy2,
                             3, ffi.NULL, work)
    out = ffi.new("double[]", sw)
    lib.dt_merge_stats(out, c, blocks, ffi.new("int32_t[]", [0, 1]), 2,
                       ffi.new("int32_t[]", pts + [n]), n + 1, cX2, cy2, 3, work)
    assert _block_to_list(ffi.unpack(out, sw), cfg) == merged.as_list(cfg)
    assert out[8] == merged.log_evidence
    if cfg.kind == lm.CLASS:
        for k in range(4):
            assert lib.dt_class_probability(out, c, k) == lm.class_probability(merged, cfg, k)
        return
    loc, scale, df = ffi.new("double *"), ffi.new("double *"), ffi.new("double *")
    for x in ([0.1, 0.9, 0.4], [0.7, 0.2, 0.6]):
        proper = lib.dt_regression_predictive(out, c, ffi.new("double[]", x), loc, scale, df,
                                              work)
        assert (loc[0], scale[0], df[0], bool(proper)) == lm.regression_predictive(merged, cfg, x)


@pytest.mark.parametrize("seed", range(10))
def test_choose_move_matches(lib: Any, seed: int) -> None:
    """dt_choose_move: same move and same draws on random scores (with infinities)."""
    from fast._ffi import ffi

    py = Rng(seed)
    cr = ffi.new("rng_state *")
    lib.rng_seed(cr, seed)
    gen = Rng(seed + 99)
    choices = [-math.inf, -1000.0, 0.0, 3.5, 800.0]
    for _ in range(200):
        scores = [choices[gen.below(5)] + gen.uniform() for _ in range(3)]
        assert lib.dt_choose_move(*scores, cr) == choose_move(*scores, py)
        assert tuple(cr.s) == py.state


@pytest.mark.parametrize("seed", range(10))
def test_residual_resample_matches(lib: Any, seed: int) -> None:
    """dt_residual_resample: same indices and same draws."""
    from fast._ffi import ffi

    gen = Rng(seed)
    n = 1 + gen.below(40)
    w = [gen.uniform() ** 3 for _ in range(n)]
    total = 0.0
    for v in w:
        total = total + v
    w = [v / total for v in w]
    py = Rng(seed + 1)
    cr = ffi.new("rng_state *")
    lib.rng_seed(cr, seed + 1)
    out = ffi.new("int32_t[]", n)
    cnt = lib.dt_residual_resample(ffi.new("double[]", w), n, cr, out, ffi.new("double[]", n),
                                   ffi.new("double[]", n), ffi.new("int32_t[]", n))
    expected = residual_resample(w, py)
    assert cnt == n == len(expected)
    assert ffi.unpack(out, n) == expected
    assert tuple(cr.s) == py.state


def test_prior_matches(lib: Any) -> None:
    for depth in range(70):
        for alpha, beta in ((0.95, 2.0), (0.5, 0.5), (0.99, 7.0)):
            assert lib.dt_log_split_prob(depth, alpha, beta) == log_split_prob(depth, alpha, beta)
            assert lib.dt_log_leaf_prob(depth, alpha, beta) == log_leaf_prob(depth, alpha, beta)


@pytest.mark.parametrize("leaf", ["constant", "linear", "class"])
def test_point_set_references_balance(lib: Any, leaf: str) -> None:
    """Copy-on-write point sets: every live leaf holds exactly one reference, free sets
    none, and sets really are shared after resampling."""
    from _dynatree_helpers import class_stream, regression_stream

    import fast

    if leaf == "class":
        m = fast.DynamicTreeClassifier(classes=[0, 1, 2], n_particles=40, seed=3)
        data: list[Any] = class_stream(3, 300)
    else:
        m = fast.DynamicTreeRegressor(leaf=leaf, n_particles=40, seed=3)
        data = regression_stream(3, 300)
    for x, y in data:
        m.learn_one(x, y)
    h = m._engine._m
    refs = sum(h.pool.refs[i] for i in range(h.pool.n_sets))
    assert refs == sum(m.leaf_counts())
    # set by set: the count is the number of live leaves, over all particles' arenas,
    # that hold the set (what resampling's dt_particle_replace keeps balanced)
    holders = [0] * h.pool.n_sets
    for i in range(h.par.n_particles):
        t = h.pf.parts[i]
        for k in range(t.n_nodes):
            node = t.nodes[k]
            if node.var < 0 and node.depth >= 0:
                holders[node.set] += 1
    assert holders == [h.pool.refs[i] for i in range(h.pool.n_sets)]
    free = 0
    k = h.pool.free_set
    while k >= 0:
        assert h.pool.refs[k] == 0
        free += 1
        k = h.pool.sets[k].next_free
    assert free == sum(1 for i in range(h.pool.n_sets) if h.pool.refs[i] == 0)
    shared = sum(1 for i in range(h.pool.n_sets) if h.pool.refs[i] > 1)
    assert shared > 0  # resampling duplicates really share leaves

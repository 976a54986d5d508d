"""Behaviour and invariants of the dynamic-tree models, written once, run on both backends."""

from __future__ import annotations

import copy
import math
import pickle
from types import ModuleType

import numpy as np
import pytest
from _dynatree_helpers import check_snapshot_invariants, class_stream, regression_stream

from _compare import assert_snapshot_equal

REG_OPTIONS = [
    {"leaf": "constant"},
    {"leaf": "linear"},
    {"leaf": "linear", "intercept": "augmented"},
    {"leaf": "linear", "intercept": "none"},
]


@pytest.mark.parametrize("opts", REG_OPTIONS)
@pytest.mark.parametrize("seed", range(2))
def test_regression_invariants_every_step(backend: ModuleType, opts: dict[str, str],
                                          seed: int) -> None:
    """Leaves partition the data, split rules hold, leaves hold >= minp points, N fixed."""
    m = backend.DynamicTreeRegressor(n_particles=12, seed=seed, **opts)
    d = 2
    minp = 4 if opts["leaf"] == "constant" else 2 * d + 4
    for t, (x, y) in enumerate(regression_stream(seed, 120, d)):
        m.learn_one(x, y)
        if t % 7 == 0 or t < minp + 2:
            check_snapshot_invariants(m.snapshot(), 12, minp, minp)
    assert m.n_seen_ == 120 and m.n_features_in_ == 2
    assert m.tree_stats()["mean_leaves"] > 1.0  # many grows happened
    assert m.lpred_[:minp] == [0.0] * minp  # nothing before nstart (Appendix A item 7)
    total = 0.0
    for v in m.lpred_:
        total = total + v
    assert m.log_marginal_likelihood_ == total


@pytest.mark.parametrize("seed", range(3))
def test_classifier_invariants_and_probabilities(backend: ModuleType, seed: int) -> None:
    m = backend.DynamicTreeClassifier(classes=["a", "b", "c"], n_particles=12, seed=seed)
    for t, (x, y) in enumerate(class_stream(seed, 150, labels=("a", "b", "c"))):
        m.learn_one(x, y)
        if t % 10 == 0:
            check_snapshot_invariants(m.snapshot(), 12, 1, 1, n_classes=3)
    p = m.predict_proba_one([0.1, 0.5])
    assert list(p) == ["a", "b", "c"]
    assert sum(p.values()) == pytest.approx(1.0, abs=1e-12)
    assert m.predict_one([0.1, 0.5]) == "a" and m.predict_one([0.9, 0.5]) == "c"
    P = m.predict_proba(np.array([[0.1, 0.5], [0.5, 0.5], [0.9, 0.1]]))
    assert P.shape == (3, 3)
    assert np.allclose(P.sum(axis=1), 1.0)
    ent = m.predict_entropy([[0.1, 0.5], [0.34, 0.5]])
    assert np.all((ent > 0.0) & (ent < math.log(3.0)))
    assert list(m.predict([[0.1, 0.5], [0.9, 0.5]])) == ["a", "c"]


def test_single_particle_has_zero_lpred_and_only_step_key_draws(backend: ModuleType) -> None:
    """N = 1: lpred = 0 (Appendix A item 7); alpha = 0 and N = 1: no resampling, no grow
    candidate, no move draw, so the model's generator advances by the step keys alone
    (stream rule 2, [DT-SPEC §0] item 6): one ``next_u64`` per PL step, none while the
    first ``nstart`` rows fill the root; one row fewer leaves it one draw behind."""
    m = backend.DynamicTreeRegressor(n_particles=1, seed=4)
    for x, y in regression_stream(4, 80):
        m.learn_one(x, y)
    assert m.lpred_ == [0.0] * 80
    q = backend.DynamicTreeRegressor(n_particles=1, alpha=0.0, seed=4)
    rows = regression_stream(4, 40)
    for x, y in rows:
        q.learn_one(x, y)
    steps = 40 - q._params.resolved_nstart(2)
    assert steps > 0
    expected = backend.Rng(4)
    for _ in range(steps - 1):
        expected.next_u64()
    assert q.rng.state != expected.state       # one step key short
    expected.next_u64()
    assert q.rng.state == expected.state
    assert q.leaf_counts() == [1]


def test_predict_dist_shapes_and_order(backend: ModuleType) -> None:
    m = backend.DynamicTreeRegressor(n_particles=20, seed=1)
    assert m.predict_one([0.5, 0.5]) == 0.0  # empty model: running mean of no data
    m.partial_fit(np.array([x for x, _ in regression_stream(1, 150)]),
                  np.array([y for _, y in regression_stream(1, 150)]))
    dist = m.predict_dist(np.array([[0.1, 0.2], [0.5, 0.5], [0.9, 0.9]]))
    assert set(dist) == {"mean", "var", "q05", "q95", "df"}
    assert np.all(dist["q05"] < dist["mean"]) and np.all(dist["mean"] < dist["q95"])
    assert np.all(dist["var"] > 0.0) and np.all(dist["df"] > 2.0)
    assert np.array_equal(dist["mean"], m.predict([[0.1, 0.2], [0.5, 0.5], [0.9, 0.9]]))


def test_fit_quality_on_a_step(backend: ModuleType) -> None:
    """Constant leaves learn a noiseless-ish step function."""
    m = backend.DynamicTreeRegressor(n_particles=30, seed=2)
    for i in range(120):
        x = (i * 37 % 120) / 120.0
        m.learn_one([x], (1.0 if x > 0.5 else 0.0) + 0.01 * math.sin(17.0 * i))
    assert abs(m.predict_one([0.2])) < 0.05
    assert abs(m.predict_one([0.8]) - 1.0) < 0.05


def test_partial_fit_equals_learn_one(backend: ModuleType) -> None:
    data = regression_stream(6, 90)
    a = backend.DynamicTreeRegressor(leaf="linear", n_particles=10, seed=6)
    b = backend.DynamicTreeRegressor(leaf="linear", n_particles=10, seed=6)
    for x, y in data:
        a.learn_one(x, y)
    b.partial_fit([x for x, _ in data[:40]], [y for _, y in data[:40]])
    b.partial_fit(np.array([x for x, _ in data[40:]]), np.array([y for _, y in data[40:]]))
    assert_snapshot_equal(a.snapshot(), b.snapshot())
    assert a.lpred_ == b.lpred_


def test_partial_fit_fixes_classes_in_order_of_appearance(backend: ModuleType) -> None:
    m = backend.DynamicTreeClassifier(n_particles=5, seed=0)
    m.partial_fit([[0.1], [0.2], [0.9]], ["z", "y", "z"])
    assert m.classes_ == ["z", "y"]
    m.learn_one([0.3], "y")
    assert m.n_seen_ == 4


def test_mapping_inputs(backend: ModuleType) -> None:
    a = backend.DynamicTreeRegressor(n_particles=8, seed=3)
    b = backend.DynamicTreeRegressor(n_particles=8, seed=3)
    for x, y in regression_stream(3, 40):
        a.learn_one({"u": x[0], "v": x[1]}, y)
        b.learn_one(x, y)
    assert_snapshot_equal(a.snapshot(), b.snapshot())
    assert a.predict_one({"v": 0.2, "u": 0.7}) == b.predict_one([0.7, 0.2])


@pytest.mark.parametrize("kind", ["reg", "class"])
def test_clone_pickle_deepcopy(backend: ModuleType, kind: str) -> None:
    if kind == "reg":
        m = backend.DynamicTreeRegressor(leaf="linear", intercept="augmented", n_particles=8,
                                         seed=9)
        data = regression_stream(9, 70)
    else:
        m = backend.DynamicTreeClassifier(classes=[0, 1, 2], n_particles=8, seed=9)
        data = class_stream(9, 70)
    for x, y in data[:50]:
        m.learn_one(x, y)
    c = m.clone()
    assert c.get_params() == m.get_params() and c.n_seen_ == 0
    p = pickle.loads(pickle.dumps(m))
    q = copy.deepcopy(m)
    assert type(p) is type(m)
    assert_snapshot_equal(m.snapshot(), p.snapshot())
    for x, y in data[50:]:
        m.learn_one(x, y)
        p.learn_one(x, y)
        q.learn_one(x, y)
    assert_snapshot_equal(m.snapshot(), p.snapshot())
    assert_snapshot_equal(m.snapshot(), q.snapshot())
    assert m.log_marginal_likelihood_ == p.log_marginal_likelihood_


def test_rng_rewind_reproduces(backend: ModuleType) -> None:
    """Setting the generator state mid-stream replays the same random path."""
    data = regression_stream(11, 60)
    a = backend.DynamicTreeRegressor(n_particles=10, seed=1)
    for x, y in data[:30]:
        a.learn_one(x, y)
    b = pickle.loads(pickle.dumps(a))
    b.rng.state = a.rng.state
    for x, y in data[30:]:
        a.learn_one(x, y)
        b.learn_one(x, y)
    assert_snapshot_equal(a.snapshot(), b.snapshot())


def test_tree_stats_match_snapshot(backend: ModuleType) -> None:
    m = backend.DynamicTreeRegressor(n_particles=10, seed=5)
    for x, y in regression_stream(5, 100):
        m.learn_one(x, y)
    snap = m.snapshot()
    leaves = [sum(1 for rec in tree if rec[1] < 0) for tree in snap["particles"]]
    assert m.leaf_counts() == leaves
    heights = [max(rec[0] for rec in tree) + 1 for tree in snap["particles"]]
    stats = m.tree_stats()
    assert stats["mean_height"] == pytest.approx(sum(heights) / 10.0)
    assert stats["mean_leaves"] == pytest.approx(sum(leaves) / 10.0)
    assert stats["mean_leaf_size"] == pytest.approx(sum(100 / v for v in leaves) / 10.0)


def test_constant_responses_stay_improper(backend: ModuleType) -> None:
    """Equal responses: no proper predictive, uniform weights, lpred 0, infinite variance."""
    m = backend.DynamicTreeRegressor(n_particles=6, seed=0)
    for i in range(12):
        m.learn_one([i / 12.0], 3.0)
    assert m.lpred_ == [0.0] * 12
    assert m.predict_one([0.5]) == 3.0
    dist = m.predict_dist([[0.5]])
    assert dist["var"][0] == math.inf and dist["q05"][0] == -math.inf


def test_draw_order_of_the_first_grow(backend: ModuleType) -> None:
    """Spec §0 item 6, stream rule 2: the model's generator gives one step key per PL step
    (N = 1: no resampling) and nothing else; the first grow, at n = 2 minp, takes below(d)
    then the uniform for xi from the slot's stream ``Rng(stream_seed(key, 0))``: the split
    value is rebuilt here from the keys, by the rule, without the model."""
    from reference.rng import Rng, stream_seed

    m = backend.DynamicTreeRegressor(n_particles=1, seed=21)
    expected = Rng(21)
    xs = [0.15, 0.85, 0.4, 0.6, 0.05, 0.95, 0.3, 0.7]
    nstart = m._params.resolved_nstart(1)
    key = 0
    for t, x in enumerate(xs):
        m.learn_one([x], x * x + 0.01 * t)
        if t >= nstart:
            key = expected.next_u64()         # the step key of this row
        assert m.rng.state == expected.state
    slot = Rng(stream_seed(key, 0))
    assert slot.below(1) == 0
    u = slot.uniform()
    lo, hi = 0.4, 0.6            # the minp-th smallest and largest x (minp = 4)
    root = m.snapshot()["particles"][0][0]
    assert root[:2] == [0, 0]    # the root split on column 0
    assert root[2] == lo + u * (hi - lo)


@pytest.mark.parametrize("leaf", ["constant", "linear"])
def test_lpred_is_log_average_predictive(leaf: str) -> None:
    """lpred_t = log(1/N sum_i p(y_t | x_t, T_i)) with the trees before step t (§5.4)."""
    import reference
    from reference.dynatree.particles import particle_weight

    m = reference.DynamicTreeRegressor(leaf=leaf, n_particles=15, seed=8)
    for t, (x, y) in enumerate(regression_stream(8, 80)):
        expected = None
        if t >= m._params.resolved_nstart(2):
            weights = [particle_weight(root, x, y, m._engine._cfg)[0] for root in m._engine._roots]
            expected = math.log(sum(weights) / len(weights))
        m.learn_one(x, y)
        if expected is not None:
            assert m.lpred_[-1] == pytest.approx(expected, rel=1e-12, abs=1e-12)

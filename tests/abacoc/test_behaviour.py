"""ABACOC behaviour on both backends: golden numbers, the tie rules ([ABACOC-SPEC T1] to
[ABACOC-SPEC T6]: T1 nearest-ball ties, T2 majority ties, T3 membership boundary, T4
randomized BASE, T5 FIX victim, T6 AUTO initialisation), invariants ([ABACOC-SPEC §17])."""

from __future__ import annotations

import copy
import math
import pickle
from typing import Any

import numpy as np
import pytest
from _abacoc_streams import bananas, random_stream

from _compare import assert_snapshot_equal
from reference.abacoc.balls import Ball
from reference.abacoc.kdtree import LooseKDTree
from reference.abacoc.params import METRIC_EUCLIDEAN, METRIC_MANHATTAN, METRIC_MINKOWSKI
from reference.abacoc.search import scan_nearest
from reference.rng import Rng

# -- golden numbers ([ABACOC-SPEC §17]): bananas.csv in file order, rate 1
# ----------------------------


@pytest.mark.parametrize(("variant", "accuracy", "n_balls"),
                         [("auto_adj", 0.861321, 116), ("auto", 0.864906, 117)])
def test_golden_bananas(backend: Any, variant: str, accuracy: float, n_balls: int) -> None:
    X, y = bananas()
    model = backend.ABACOCClassifier(variant=variant)
    result = model.prequential(X, y)
    assert round(result["accuracy"], 6) == accuracy
    assert result["n_balls"] == n_balls == model.n_balls_
    assert result["n_learned"] == len(y)


def test_golden_bananas_through_evaluation_kit(backend: Any) -> None:
    from reference.evaluation.prequential import prequential

    X, y = bananas()
    model = backend.ABACOCClassifier(variant="auto_adj")
    result = prequential(model, X, y, proba=False, progress=False)
    assert round(result.final["accuracy"], 6) == 0.861321
    assert model.n_balls_ == 116


def test_kit_subsampling_matches_own_protocol(backend: Any) -> None:
    """The kit's Alg. 5 loop and the model's own loop draw the same coins."""
    from reference.evaluation.prequential import prequential

    X, y = random_stream(4, 600, 2, 3)
    a = backend.ABACOCClassifier(variant="auto_adj")
    b = backend.ABACOCClassifier(variant="auto_adj")
    ra = prequential(a, X, y, rate=0.2, label_seed=7, proba=False, progress=False)
    rb = b.prequential(X, y, rate=0.2, seed=7)
    assert ra.n_learned == rb["n_learned"] < 200
    assert ra.final["accuracy"] == rb["accuracy"]
    assert_snapshot_equal(a.snapshot(), b.snapshot())


# -- invariants after every step ----------------------------------------------------------


@pytest.mark.parametrize("cfg", [{"variant": "auto"}, {"variant": "auto_adj"},
                                 {"variant": "auto_adj", "budget": 6},
                                 {"variant": "auto", "budget": 3, "search": "kdtree"}])
def test_auto_family_invariants(backend: Any, cfg: dict[str, Any]) -> None:
    X, y = random_stream(8, 400, 2, 3, lattice=0.25, new_class_at=200)
    model = backend.ABACOCClassifier(**cfg)
    radius: dict[int, float] = {}
    initial: dict[int, float] = {}
    init_step = None
    for t, (x, label) in enumerate(zip(X, y, strict=True)):
        model.learn_one(x, label)
        snap = model.snapshot()
        if not snap["init_done"]:
            assert len(snap["balls"]) == 1 and sum(snap["balls"][0]["counts"]) == 1
            continue
        if init_step is None:
            init_step = t
        balls = snap["balls"]
        if "budget" in cfg:
            assert len(balls) <= cfg["budget"]
        total = 0
        for ball in balls:
            assert ball["eps"] > 0.0
            assert ball["eps"] == ball["R"] * math.pow(max(ball["m"], 1), -1.0 / 4.0)
            assert ball["eps"] <= radius.get(ball["id"], math.inf)
            assert initial.setdefault(ball["id"], ball["R"]) == ball["R"]
            radius[ball["id"]] = ball["eps"]
            total += sum(ball["counts"])
        if "budget" not in cfg:
            assert total == 2 + (t - init_step)
    assert init_step is not None


def test_base_invariants(backend: Any) -> None:
    X, y = random_stream(3, 500, 2, 2)
    X = X / 4.0                              # diameter about 1, as the analysis assumes
    model = backend.ABACOCClassifier(variant="base")
    dims = [1.0]
    phases = 1
    for x, label in zip(X, y, strict=True):
        model.predict_one(x)
        model.learn_one(x, label)
        snap = model.snapshot()
        assert 0.0 < snap["radius"] <= 1.0
        assert snap["radius"] == math.pow(snap["phase_steps"], -1.0 / (2.0 + snap["phase_dim"]))
        if snap["phase"] != phases:
            assert snap["phase"] == phases + 1
            assert snap["phase_dim"] > dims[-1]
            assert len(snap["balls"]) == 1 and snap["phase_steps"] == 1
            dims.append(snap["phase_dim"])
            phases = snap["phase"]
    assert phases >= 6


def test_auto_invariant_to_exact_similarity(backend: Any) -> None:
    """x -> a Q x with a = 4 and Q a signed permutation is exact in floating point."""
    X, y = random_stream(6, 400, 3, 3)
    Z = 4.0 * X[:, [2, 0, 1]] * np.array([-1.0, 1.0, -1.0])
    a = backend.ABACOCClassifier(variant="auto_adj")
    b = backend.ABACOCClassifier(variant="auto_adj")
    pa = a.prequential(X, y)["predictions"]
    pb = b.prequential(Z, y)["predictions"]
    assert list(pa) == list(pb)
    assert a.n_balls_ == b.n_balls_


def test_auto_nearly_invariant_to_rotation_and_shift(backend: Any) -> None:
    X, y = bananas()
    X, y = X[:2000], y[:2000]
    theta = 0.7
    Q = np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
    Z = 3.0 * X @ Q.T + np.array([5.0, -2.0])
    pa = backend.ABACOCClassifier(variant="auto").prequential(X, y)["predictions"]
    pb = backend.ABACOCClassifier(variant="auto").prequential(Z, y)["predictions"]
    assert np.mean(pa == pb) > 0.99


# -- tie rules T1-T6 ([ABACOC-SPEC T1] to [ABACOC-SPEC T6]), one test each ----------------


@pytest.mark.parametrize("search", ["scan", "kdtree"])
def test_nearest_ball_ties_go_to_smallest_id_not_slot(backend: Any, search: str) -> None:
    for seed in range(1, 50):
        model = backend.ABACOCClassifier(variant="auto", budget=2, seed=seed, search=search)
        model.learn_one([0.0, 0.0], "a")
        model.learn_one([2.0, 0.0], "b")
        model.learn_one([10.0, 0.0], "a")   # outside: budget full, a victim is replaced
        if model.snapshot()["balls"][0]["id"] == 2:
            break
    else:
        pytest.fail("no seed replaced slot 0")
    # slots: [id 2 at (10, 0) 'a', id 1 at (2, 0) 'b']; (6, 0) is equidistant
    assert model.balls_["ids"].tolist() == [2, 1]
    assert model.predict_one([6.0, 0.0]) == "b"
    assert model.predict_proba_one([6.0, 0.0]) == {"a": 0.0, "b": 1.0}


def test_majority_ties_and_closed_ball_boundary(backend: Any) -> None:
    model = backend.ABACOCClassifier(variant="auto")
    model.learn_one([0.0, 0.0], "a")
    model.learn_one([1.0, 0.0], "b")          # both radii 1
    model.learn_one([-1.0, 0.0], "b")         # distance 1 = eps: inside ([ABACOC-SPEC T3])
    assert model.n_balls_ == 2
    ball = model.snapshot()["balls"][0]
    assert ball["counts"] == [1, 1] and ball["m"] == 1   # maj was 'a': a mistake
    assert model.predict_one([-0.2, 0.0]) == "a"          # 1:1 tie: first label ([ABACOC-SPEC T2])
    assert model.predict_proba_one([-0.2, 0.0]) == {"a": 0.5, "b": 0.5}


def test_randomized_base_extremes_and_draws(backend: Any) -> None:
    model = backend.ABACOCClassifier(variant="base", labels=("neg", "pos"), seed=5)
    assert model.predict_proba_one([0.0]) == {"neg": 0.5, "pos": 0.5}
    for _ in range(3):
        model.learn_one([0.0], "pos")          # one ball, 3 x label_1: q = .8, p = 1
    state = model.rng.state
    assert [model.predict_one([0.0]) for _ in range(50)] == ["pos"] * 50
    expected = Rng(0)
    expected.state = state
    for _ in range(50):
        expected.uniform()
    assert model.rng.state == expected.state          # exactly one draw per prediction
    before = model.rng.state
    model.predict_proba_one([0.0])
    assert model.rng.state == before                   # probabilities draw nothing
    other = backend.ABACOCClassifier(variant="base", seed=5)
    for _ in range(3):
        other.learn_one([0.0], 0)
    assert [other.predict_one([0.0]) for _ in range(50)] == [0] * 50   # p = 0


def test_fix_victim_is_the_integer_walk(backend: Any) -> None:
    X, y = random_stream(12, 300, 2, 3)
    model = backend.ABACOCClassifier(variant="auto_adj", budget=5, seed=21)
    checked = 0
    for x, label in zip(X, y, strict=True):
        before = model.snapshot()
        model.learn_one(x, label)
        after = model.snapshot()
        if after["next_id"] == before["next_id"] + 1 and len(before["balls"]) == 5:
            weights = [b["m"] + 1 for b in before["balls"]]
            rng = Rng(0)
            rng.state = tuple(before["rng_state"])
            r = rng.below(sum(weights))
            running, victim = 0, -1
            for slot, w in enumerate(weights):
                running += w
                if running > r:
                    victim = slot
                    break
            assert after["balls"][victim]["id"] == before["next_id"]
            assert list(rng.state) == after["rng_state"]
            checked += 1
    assert checked > 5


def test_auto_initialisation_drops_coincident_points(backend: Any) -> None:
    model = backend.ABACOCClassifier(variant="auto_adj")
    assert model.predict_one([0.0, 0.0]) is None and model.predict_proba_one([0.0, 0.0]) == {}
    model.learn_one([1.0, 1.0], "x")
    model.learn_one([5.0, 5.0], "x")            # same label: dropped (I2 of [ABACOC-SPEC §6])
    model.learn_one([1.0, 1.0], "y")            # distance 0: dropped ([ABACOC-SPEC T6])
    snap = model.snapshot()
    assert snap["init_done"] == 0 and len(snap["balls"]) == 1
    assert snap["balls"][0]["counts"] == [1, 0] and model.classes_ == ["x", "y"]
    assert model.predict_one([9.0, 9.0]) == "x"
    model.learn_one([4.0, 5.0], "y")            # I3 of [ABACOC-SPEC §6]: two balls, R = eps = 5
    balls = model.snapshot()["balls"]
    assert [b["R"] for b in balls] == [5.0, 5.0] == [b["eps"] for b in balls]
    assert model.predict_one([3.9, 5.0]) == "y"


def test_single_class_stream_stays_in_initialisation(backend: Any) -> None:
    model = backend.ABACOCClassifier(variant="auto")
    X, _ = random_stream(1, 100, 3, 2)
    model.partial_fit(X, ["only"] * 100)
    assert model.n_balls_ == 1 and model.predict_one(X[0]) == "only"


# -- classes on the fly, probabilities, attributes --------------------------------------------


def test_new_classes_mid_stream_and_proba(backend: Any) -> None:
    X, y = random_stream(2, 300, 2, 2, new_class_at=150, labels=[("t", 0), "s", 7.5])
    model = backend.ABACOCClassifier(variant="auto_adj")
    model.partial_fit(X[:150], y[:150])
    assert 7.5 not in model.classes_
    model.partial_fit(X[150:], y[150:])
    assert model.classes_[-1] == 7.5 and len(model.classes_) == 3
    P = model.predict_proba(X)
    assert P.shape == (300, 3) and np.allclose(P.sum(axis=1), 1.0)
    table = model.balls_
    for i in range(0, 300, 37):
        proba = model.predict_proba_one(X[i])
        assert list(proba) == model.classes_
        assert model.predict_one(X[i]) == max(proba, key=proba.__getitem__)
    assert table["counts"].sum() <= 300 and table["centers"].shape == (model.n_balls_, 2)
    assert model.n_seen_ == 300 and model.n_features_in_ == 2


def test_mapping_rows(backend: Any) -> None:
    model = backend.ABACOCClassifier(variant="auto")
    model.learn_one({"a": 0.0, "b": 1.0}, 0)
    model.learn_one({"b": 0.0, "a": 1.0}, 1)   # same keys, other order
    assert model.snapshot()["balls"][1]["center"] == [1.0, 0.0]
    assert model.predict_one({"b": 0.0, "a": 0.9}) == 1


# -- persistence and parameters ---------------------------------------------------------------


@pytest.mark.parametrize("cfg", [{"variant": "auto_adj", "budget": 10, "search": "kdtree"},
                                 {"variant": "base", "seed": 4}])
def test_pickle_deepcopy_clone(backend: Any, cfg: dict[str, Any]) -> None:
    X, y = random_stream(9, 400, 3, 2)
    model = backend.ABACOCClassifier(**cfg)
    model.partial_fit(X[:200], y[:200])
    for twin in (pickle.loads(pickle.dumps(model)), copy.deepcopy(model)):
        assert type(twin) is type(model)
        assert_snapshot_equal(model.snapshot(), twin.snapshot())
        assert twin.classes_ == model.classes_
        twin.partial_fit(X[200:], y[200:])
        ref = copy.deepcopy(model)
        ref.partial_fit(X[200:], y[200:])
        assert_snapshot_equal(ref.snapshot(), twin.snapshot())
        assert list(ref.predict(X)) == list(twin.predict(X))
    fresh = model.clone()
    assert fresh.get_params() == model.get_params() and fresh.n_balls_ == 0
    assert model.get_params()["variant"] == cfg["variant"]


# -- search structures: scan and loose kd-tree give the same answers ---------------------------


@pytest.mark.parametrize("cfg", [{"variant": "auto_adj"}, {"variant": "auto", "budget": 40},
                                 {"variant": "base_adj", "C": 0.02},
                                 {"variant": "auto_adj", "metric": "manhattan"}])
def test_scan_and_kdtree_models_identical(backend: Any, cfg: dict[str, Any]) -> None:
    X, y = random_stream(13, 700, 3, 3, lattice=0.5)
    runs = []
    for search in ("scan", "kdtree", "auto"):
        model = backend.ABACOCClassifier(search=search, leaf_size=2, search_threshold=20, **cfg)
        result = model.prequential(X, y)
        runs.append((list(result["predictions"]), model.snapshot()))
    for preds, snap in runs[1:]:
        assert preds == runs[0][0]
        assert_snapshot_equal(runs[0][1], snap)


def _lattice_balls(seed: int, n: int, n_features: int) -> list[Ball]:
    g = np.random.default_rng(seed)
    pts = g.integers(-3, 4, size=(n, n_features)).astype(float)   # many duplicates
    ids = g.permutation(n)
    return [Ball(int(ids[s]), pts[s].tolist(), 0, 1.0) for s in range(n)]


@pytest.mark.parametrize("metric", [METRIC_EUCLIDEAN, METRIC_MANHATTAN, METRIC_MINKOWSKI])
@pytest.mark.parametrize("leaf_size", [2, 5])
def test_reference_kdtree_equals_scan_on_lattice(metric: int, leaf_size: int) -> None:
    balls = _lattice_balls(0, 300, 3)
    tree = LooseKDTree(3, leaf_size, metric, 3.0)
    tree.build(balls[:150])
    for slot in range(150, 300):
        tree.insert(balls[:slot + 1], slot)
    g = np.random.default_rng(1)
    queries = np.vstack([g.integers(-4, 5, size=(200, 3)).astype(float) / 2.0,
                         g.normal(size=(50, 3))])
    for q in queries.tolist():
        assert tree.nearest(balls, q) == scan_nearest(balls, q, metric, 3.0)
    # moves and deletes keep it exact (loose boxes)
    for slot in range(0, 300, 3):
        balls[slot].center = [c + 0.5 for c in balls[slot].center]
        tree.move(balls, slot)
    for slot in range(1, 300, 7):
        tree.delete(slot)
    alive = [b for s, b in enumerate(balls) if s % 7 != 1]
    for q in queries.tolist():
        slot, raw = tree.nearest(balls, q)
        _, raw_scan = scan_nearest(alive, q, metric, 3.0)
        best = min((b.id for b in alive if b.center == balls[slot].center), default=-1)
        assert raw == raw_scan and balls[slot].id == best


def test_fast_kdtree_equals_scan_on_lattice(both: Any) -> None:
    ref, fast = both
    model = fast.ABACOCClassifier(variant="auto", leaf_size=3)
    model.learn_one([0.0, 0.0, 0.0], 0)
    state = model.__getstate__()
    balls = _lattice_balls(5, 400, 3)
    state["snapshot"]["balls"] = [
        {"id": b.id, "center": b.center, "counts": [1], "u": 1, "R": 1.0, "eps": 1.0, "m": 0}
        for b in balls
    ]
    state["snapshot"]["next_id"] = 400
    state["snapshot"]["init_done"] = 1
    twin = fast.ABACOCClassifier.__new__(fast.ABACOCClassifier)
    twin.__setstate__(state)
    g = np.random.default_rng(2)
    Q = np.vstack([g.integers(-4, 5, size=(300, 3)).astype(float) / 2.0, g.normal(size=(50, 3))])
    by_scan = twin._engine.nearest_slots(Q, False)
    assert twin._engine.nearest_slots(Q, True) == by_scan
    assert by_scan == [scan_nearest(balls, q, METRIC_EUCLIDEAN, 2.0)[0] for q in Q.tolist()]


def test_reference_tree_rebuilds_periodically() -> None:
    from reference import ABACOCClassifier

    X, y = random_stream(3, 1200, 2, 2)
    model = ABACOCClassifier(variant="auto_adj", search="kdtree")
    rebuilt = False
    for x, label in zip(X, y, strict=True):
        model.learn_one(x, label)
        tree = model._engine.cover.index.tree
        assert tree is not None and tree.ops <= max(256, 2 * model.n_balls_)
        rebuilt = rebuilt or (model.n_seen_ > 300 and tree.ops < 10)
    assert rebuilt

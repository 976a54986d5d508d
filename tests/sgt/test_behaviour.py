"""Behaviour and invariants of the SGT models, written once and run on both backends."""

from __future__ import annotations

import copy
import inspect
import math
import pickle
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import reference
from _compare import assert_snapshot_equal
from reference.sgt.losses import sigmoid

UNIT = {0: (0.0, 1.0), 1: (0.0, 1.0)}


def leaves(model: Any, tree: int = 0) -> list[dict[str, Any]]:
    return [n for n in model.snapshot()["core"]["trees"][tree]["nodes"] if n["feature"] < 0]


def check_invariants(model: Any, bins: int, kinds: list[int]) -> None:
    """Each feature's cells partition the leaf total; children follow their parent."""
    for tree in model.snapshot()["core"]["trees"]:
        nodes = tree["nodes"]
        for node in nodes:
            if node["feature"] >= 0:
                for j in range(node["n_children"]):
                    assert nodes[node["first_child"] + j]["depth"] == node["depth"] + 1
                continue
            cells = node["cells"]
            offset = 1
            for kind in kinds:
                width = kind or bins
                count = 0
                for cell in cells[offset:offset + width]:
                    count += cell[0]
                assert count == cells[0][0]
                offset += width


def test_step_function_is_learned(backend: ModuleType) -> None:
    rng = np.random.default_rng(0)
    model = backend.SGTRegressor(grace_period=50, warmup=100, bins=16)
    for t in range(3000):
        x = [float(rng.uniform()), float(rng.uniform())]
        model.learn_one(x, 5.0 if x[0] > 0.5 else -5.0)
        if t % 500 == 0:
            check_invariants(model, 16, [0, 0])
    assert model.predict_one([0.8, 0.5]) == pytest.approx(5.0, abs=0.6)
    assert model.predict_one([0.2, 0.5]) == pytest.approx(-5.0, abs=0.6)
    assert model.depth_ >= 1 and model.n_nodes_ >= 3
    root = model.snapshot()["core"]["trees"][0]["nodes"][0]
    assert root["feature"] == 0 and root["threshold"] in (7, 8)


def test_constant_target_updates_value_by_newton_step(backend: ModuleType) -> None:
    """s² = 0 with m < 0 applies the null candidate ([SGT-SPEC §8]): v = 5 / (1 + λ)."""
    model = backend.SGTRegressor(grace_period=20, feature_ranges=UNIT, lam=0.1)
    for i in range(19):
        model.learn_one([i / 19, 0.5], 5.0)
    assert model.predict_one([0.1, 0.1]) == 0.0
    model.learn_one([0.3, 0.3], 5.0)
    assert model.predict_one([0.1, 0.1]) == 5.0 / (1.0 + 0.1 + 2.2250738585072014e-308)
    assert model.n_nodes_ == 1
    (leaf,) = leaves(model)
    assert all(cell == [0, 0.0, 0.0, 0.0, 0.0, 0.0] for cell in leaf["cells"])  # reset


def test_grace_period_schedule(backend: ModuleType) -> None:
    """Statistics accumulate until n is a multiple of the grace period."""
    model = backend.SGTRegressor(grace_period=7, feature_ranges=UNIT)
    for i in range(6):
        model.learn_one([i / 6, 0.0], 3.0)
        assert leaves(model)[0]["cells"][0][0] == i + 1
    model.learn_one([0.5, 0.5], 3.0)
    assert leaves(model)[0]["cells"][0][0] == 0
    assert model.snapshot()["core"]["trees"][0]["n_updates"] == 1


@pytest.mark.parametrize("max_depth", [0, 1, 2])
def test_max_depth(backend: ModuleType, max_depth: int) -> None:
    rng = np.random.default_rng(1)
    model = backend.SGTRegressor(grace_period=20, warmup=50, max_depth=max_depth, delta=1e-3)
    for _ in range(3000):
        x = [float(v) for v in rng.uniform(size=2)]
        model.learn_one(x, 10 * math.sin(6 * x[0]) + 5 * x[1])
    assert model.depth_ == max_depth
    if max_depth == 0:
        assert model.n_nodes_ == 1
        assert model.snapshot()["core"]["trees"][0]["n_updates"] > 0


def test_nominal_multiway_split_not_repeated_on_path(backend: ModuleType) -> None:
    rng = np.random.default_rng(2)
    model = backend.SGTRegressor(grace_period=30, warmup=60, bins=8, nominal={1: 4},
                                 delta=1e-3)
    for t in range(4000):
        x = [float(rng.uniform()), float(rng.integers(0, 4))]
        model.learn_one(x, [-6.0, 0.0, 3.0, 9.0][int(x[1])] + 2.0 * x[0])
        if t % 1000 == 0:
            check_invariants(model, 8, [0, 4])
    nodes = model.snapshot()["core"]["trees"][0]["nodes"]
    assert nodes[0]["feature"] == 1 and nodes[0]["n_children"] == 4
    assert nodes[0]["threshold"] == -1
    for node in nodes[1:]:
        assert node["feature"] != 1
        if node["feature"] < 0:
            assert node["used"] == [0, 1]
    for category, level in enumerate([-6.0, 0.0, 3.0, 9.0]):
        assert model.predict_one([0.5, category]) == pytest.approx(level + 1.0, abs=1.0)


def test_warmup_replay_equals_known_ranges(backend: ModuleType) -> None:
    """Replaying the buffered warm-up gives the tree a learner with known ranges gets."""
    rng = np.random.default_rng(3)
    rows = [[float(v) for v in rng.uniform(-2, 3, size=2)] for _ in range(1500)]
    ys = [r[0] * 3 + (4.0 if r[1] > 0.5 else 0.0) for r in rows]
    a = backend.SGTRegressor(warmup=200, grace_period=40, warmup_prediction="zero")
    for r, y in zip(rows[:200], ys[:200], strict=True):
        assert a.predict_one(r) == 0.0  # σ(init) during the warm-up
        a.learn_one(r, y)
    core = a.snapshot()["core"]
    assert core["frozen"] == 1 and core["buffer"] == []
    ranges = {i: (core["lo"][i], core["hi"][i]) for i in range(2)}
    assert ranges[0] == (min(r[0] for r in rows[:200]), max(r[0] for r in rows[:200]))
    b = backend.SGTRegressor(warmup=200, grace_period=40, feature_ranges=ranges)
    for r, y in zip(rows[:200], ys[:200], strict=True):
        b.learn_one(r, y)
    assert a.snapshot()["core"]["trees"] == b.snapshot()["core"]["trees"]
    c = backend.SGTRegressor(warmup=200, grace_period=40)   # the warm-up Newton step
    for r, y in zip(rows[:200], ys[:200], strict=True):      # does not touch the trees
        c.predict_one(r)
        c.learn_one(r, y)
    assert c.snapshot()["core"] == a.snapshot()["core"]
    for r, y in zip(rows[200:], ys[200:], strict=True):
        a.learn_one(r, y)
        b.learn_one(r, y)
    assert_snapshot_equal(a.snapshot()["core"]["trees"], b.snapshot()["core"]["trees"])
    assert a.n_nodes_ > 1


def test_warmup_buffer_and_discard(backend: ModuleType) -> None:
    a = backend.SGTRegressor(warmup=10, grace_period=5)
    b = backend.SGTRegressor(warmup=10, grace_period=5, warmup_trains=False)
    for i in range(9):
        a.learn_one([float(i)], 1.0)
        b.learn_one([float(i)], 1.0)
    assert len(a.snapshot()["core"]["buffer"]) == 9
    a.learn_one([9.0], 1.0)
    b.learn_one([9.0], 1.0)
    assert a.snapshot()["core"]["trees"][0]["n_updates"] == 2  # replayed: attempts at 5, 10
    assert b.snapshot()["core"]["trees"][0]["n_updates"] == 0
    assert leaves(b)[0]["cells"][0][0] == 0
    assert a.n_seen_ == b.n_seen_ == 10


def test_binary_classifier_one_tree_sigmoid(backend: ModuleType) -> None:
    model = backend.SGTClassifier(classes=[False, True], grace_period=25, warmup=50)
    assert model.predict_proba_one([0.3]) == {False: 0.5, True: 0.5}
    rng = np.random.default_rng(4)
    for _ in range(2000):
        x = float(rng.uniform())
        model.learn_one([x], bool(rng.uniform() < (0.9 if x > 0.5 else 0.1)))
    snap = model.snapshot()["core"]
    assert len(snap["trees"]) == 1
    proba = model.predict_proba_one([0.9])
    assert proba[True] > 0.75 and proba[False] == 1.0 - proba[True]
    values = [n["value"] for n in snap["trees"][0]["nodes"] if n["feature"] < 0]
    assert any(proba[True] == sigmoid(v) for v in values)
    assert model.predict_one([0.9]) is True and model.predict_one([0.1]) is False


def test_committee_has_k_minus_1_trees(backend: ModuleType) -> None:
    model = backend.SGTClassifier(classes=["r", "g", "b", "y"], grace_period=30, warmup=60)
    assert model.predict_proba_one([0.1, 0.1]) == pytest.approx(
        {"r": 0.25, "g": 0.25, "b": 0.25, "y": 0.25})
    rng = np.random.default_rng(5)
    for _ in range(3000):
        x = [float(v) for v in rng.uniform(size=2)]
        model.learn_one(x, "rgby"[int(x[0] * 2) * 2 + int(x[1] * 2)])
    assert len(model.snapshot()["core"]["trees"]) == 3
    for x, label in (([0.1, 0.1], "r"), ([0.1, 0.9], "g"), ([0.9, 0.1], "b"), ([0.9, 0.9], "y")):
        proba = model.predict_proba_one(x)
        total = 0.0
        for p in proba.values():
            total += p
        assert total == pytest.approx(1.0)
        assert model.predict_one(x) == label
    assert model.predict_proba(np.array([[0.1, 0.1]])).shape == (1, 4)


def test_classes_fixed_by_first_partial_fit(backend: ModuleType) -> None:
    model = backend.SGTClassifier(warmup=5)
    assert model.predict_one([0.0]) is None and model.predict_proba_one([0.0]) == {}
    with pytest.raises(ValueError):
        model.learn_one([0.0], "a")
    model.partial_fit([[0.0], [1.0], [2.0]], ["b", "a", "b"])
    assert model.classes_ == ["b", "a"]
    model.learn_one([1.0], "a")
    with pytest.raises(ValueError):
        model.learn_one([1.0], "c")


def test_multi_instance_zero_gradients_are_counted(backend: ModuleType) -> None:
    model = backend.SGTMultiInstanceClassifier(grace_period=100, feature_ranges=UNIT)
    model.learn_one([[0.1, 0.2], [0.5, 0.5], [0.9, 0.1]], 1)
    (leaf,) = leaves(model)
    total = leaf["cells"][0]
    assert total[0] == 3  # all three rows counted
    assert total[1] == pytest.approx(0.5 - 1.0) and total[2] == pytest.approx(0.25)
    assert model.predict_proba_one([[0.3, 0.3]]) == {0: 0.5, 1: 0.5}


def test_multi_instance_learns_bag_concept(backend: ModuleType) -> None:
    rng = np.random.default_rng(6)
    model = backend.SGTMultiInstanceClassifier(grace_period=20, warmup=100, epochs=3)
    bags, labels = [], []
    for _ in range(300):
        bag = rng.uniform(size=(int(rng.integers(2, 6)), 2))
        bags.append(bag)
        labels.append(int((bag[:, 0] > 0.8).any()))
    model.partial_fit(bags, labels)
    assert model.n_seen_ == 900
    correct = 0
    for bag, label in zip(bags, labels, strict=True):
        correct += int(model.predict_one(bag) == label)
    assert correct / len(bags) > 0.85


def test_custom_loss_equals_builtin(backend: ModuleType) -> None:
    rng = np.random.default_rng(7)
    se = backend.CustomLoss(lambda y, f: f - y, lambda y, f: 1.0)
    bce = backend.CustomLoss(lambda y, f: sigmoid(f) - y,
                             lambda y, f: sigmoid(f) * (1.0 - sigmoid(f)), transfer=sigmoid)
    pairs = [(backend.SGT(se, grace_period=20, warmup=30),
              backend.SGTRegressor(grace_period=20, warmup=30)),
             (backend.SGT(bce, grace_period=20, warmup=30),
              backend.SGT(backend.BinaryCrossEntropy(), grace_period=20, warmup=30))]
    for custom, builtin in pairs:
        for _ in range(600):
            x = [float(v) for v in rng.uniform(size=2)]
            y = float(x[0] > 0.4)
            custom.learn_one(x, y)
            builtin.learn_one(x, y)
        assert_snapshot_equal(custom.snapshot(), builtin.snapshot())
        assert custom.predict_one([0.9, 0.1]) == builtin.predict_one([0.9, 0.1])


def test_pseudo_huber_resists_gross_outliers_in_the_targets(backend: ModuleType) -> None:
    """What the loss is for ([SGT-SPEC §3.5]): with 10% of the targets off by 100 to 200,
    squared error cannot even split (the outliers swamp the t-test) while pseudo-Huber
    learns the clean curve; its median absolute error is a fraction of squared error's."""

    def median_error(loss: Any) -> float:
        rng = np.random.default_rng(3)
        model = backend.SGT(loss, grace_period=50, warmup=100, bins=16, quantization="global")
        for _ in range(3000):
            x = [float(rng.uniform()), float(rng.uniform())]
            y = 2.0 * math.sin(6.0 * x[0]) + 0.1 * float(rng.normal())
            if rng.uniform() < 0.1:
                y += float(rng.choice([-1.0, 1.0])) * 100.0 * (1.0 + float(rng.uniform()))
            model.learn_one(x, y)
        test = rng.uniform(size=(300, 2))
        return float(np.median([abs(model.predict_one([float(a), float(b)])
                                    - 2.0 * math.sin(6.0 * a)) for a, b in test]))

    robust, squared = median_error(backend.PseudoHuber()), median_error(backend.SquaredError())
    assert robust < 0.4
    assert robust < squared / 3.0


def test_params_clone_pickle_deepcopy_mapping(backend: ModuleType) -> None:
    model = backend.SGTRegressor(grace_period=11, bins=5, warmup=20, nominal={1: 3})
    assert model.get_params()["grace_period"] == 11
    rng = np.random.default_rng(8)
    for _ in range(300):
        x = {"a": float(rng.uniform()), "b": float(rng.integers(0, 3))}
        model.learn_one(x, x["a"] * 4 + x["b"])
    assert model.n_features_in_ == 2 and model.n_seen_ == 300
    fresh = model.clone()
    assert fresh.get_params() == model.get_params() and fresh.n_seen_ == 0
    assert type(fresh) is type(model)
    for other in (pickle.loads(pickle.dumps(model)), copy.deepcopy(model)):
        assert_snapshot_equal(other.snapshot(), model.snapshot())
        assert other.predict_one({"a": 0.3, "b": 2.0}) == model.predict_one({"a": 0.3, "b": 2.0})
    assert model.predict_one([0.3, 2.0]) == model.predict_one({"a": 0.3, "b": 2.0})
    nodes = model.snapshot()["core"]["trees"][0]["nodes"]
    assert model.n_nodes_ == len(nodes)
    assert model.depth_ == max(n["depth"] for n in nodes)


def test_api_parity(both: tuple[ModuleType, ModuleType]) -> None:
    ref, fast = both
    for name in ("SGTRegressor", "SGTClassifier", "SGTMultiInstanceClassifier", "SGT",
                 "SquaredError", "BinaryCrossEntropy", "CustomLoss"):
        assert name in ref.__all__ and name in fast.__all__
        a, b = getattr(ref, name), getattr(fast, name)
        assert inspect.signature(a) == inspect.signature(b)
        assert b.__doc__ and a.__doc__ and b.__doc__ == a.__doc__
    assert fast.SGTRegressor.__module__ == "fast.sgt.model"
    assert reference.SGTRegressor.__module__ == "reference.sgt.model"

"""Per-leaf quantization (``quantization="leaf"``, [SGT-SPEC §5.8]).

- Lockstep: both backends agree bit for bit with per-leaf bins for every model, through the
  one-row calls, the C loops, pickles and model files, on stationary and drifting streams.
- Oracle: a leaf's cells are the counts of the bins recomputed with numpy from the rows that
  reached it (its range being the extremes of the rows before its last value update), and
  the children of a split get the parent's observed range cut at the bin edge.
- Bad input: an unknown ``quantization`` and a tampered per-node range are refused with the
  same exception and message in both backends.
- The paper's global bins stay the default of the parameter object and of old states.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from _compare import assert_snapshot_equal, run_lockstep
from reference.sgt.params import SGTParams
from reference.state import StateFormatError

from .test_lockstep import (
    OPTIONS,
    bag_stream,
    classifier_lockstep,
    huber_gradient,
    huber_hessian,
    regression_stream,
)

LEAF = dict(quantization="leaf")


def drifting_stream(seed: int, n: int) -> Iterator[tuple[list[float], float]]:
    """x0 drifts from [0, 1] to [5, 8] halfway; the target follows a step in x0 that moves
    with it, so the bins must follow the data to keep splitting."""
    rng = np.random.default_rng(seed)
    for i in range(n):
        late = i >= n // 2
        x0 = float(rng.uniform(5.0, 8.0) if late else rng.uniform(0.0, 1.0))
        x1 = float(rng.uniform(-1.0, 1.0))
        step = x0 > (6.5 if late else 0.5)
        yield [x0, x1], (4.0 if step else -4.0) + x1 + 0.3 * float(rng.normal())


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("opt", range(len(OPTIONS)))
def test_regressor_lockstep_leaf(both: tuple[ModuleType, ModuleType], seed: int,
                                 opt: int) -> None:
    ref, fast = both
    kw = dict(OPTIONS[opt], **LEAF)
    if seed % 2:
        kw["nominal"] = {1: 3}
    a, b = ref.SGTRegressor(**kw), fast.SGTRegressor(**kw)
    run_lockstep(a, b, regression_stream(seed, 500, seed % 2 == 1), snapshot_every=25)
    assert a.n_nodes_ == b.n_nodes_ and a.depth_ == b.depth_


@pytest.mark.parametrize("seed", range(4))
def test_drifting_stream_lockstep_leaf(both: tuple[ModuleType, ModuleType], seed: int) -> None:
    ref, fast = both
    kw = dict(grace_period=20, bins=8, warmup=40, delta=1e-3, **LEAF)
    a, b = ref.SGTRegressor(**kw), fast.SGTRegressor(**kw)
    run_lockstep(a, b, drifting_stream(seed, 800), snapshot_every=40)
    assert a.n_nodes_ > 3          # the tree split after the drift too


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [2, 4])
def test_classifier_lockstep_leaf(both: tuple[ModuleType, ModuleType], seed: int,
                                  k: int) -> None:
    classifier_lockstep(both, seed, k, nominal=seed % 2 == 0, n=500, snapshot_every=25, **LEAF)


@pytest.mark.parametrize("seed", range(3))
def test_multi_instance_and_custom_loss_lockstep_leaf(both: tuple[ModuleType, ModuleType],
                                                      seed: int) -> None:
    ref, fast = both
    kw = dict(grace_period=[1, 7, 20][seed], bins=[3, 8, 12][seed], warmup=25, **LEAF)
    a, b = ref.SGTMultiInstanceClassifier(**kw), fast.SGTMultiInstanceClassifier(**kw)
    run_lockstep(a, b, bag_stream(seed, 300), predict=("predict_one", "predict_proba_one"),
                 snapshot_every=25)
    kw = dict(OPTIONS[seed], **LEAF)
    c = ref.SGT(ref.CustomLoss(huber_gradient, huber_hessian), **kw)
    d = fast.SGT(fast.CustomLoss(huber_gradient, huber_hessian), **kw)
    run_lockstep(c, d, regression_stream(seed, 400), snapshot_every=25)


@pytest.mark.parametrize("seed", range(3))
def test_loops_pickles_and_files_leaf(both: tuple[ModuleType, ModuleType], seed: int,
                                      tmp_path: Path) -> None:
    """partial_fit / progressive_predict in C equal the reference; a pickle, a deep copy
    and a model file (either direction) continue bit for bit."""
    ref, fast = both
    data = list(drifting_stream(seed, 900))
    X = np.array([x for x, _ in data])
    y = np.array([t for _, t in data])
    kw = dict(grace_period=25, bins=6, warmup=50, delta=1e-3, **LEAF)
    a, b = ref.SGTRegressor(**kw), fast.SGTRegressor(**kw)
    a.partial_fit(X[:300], y[:300])
    b.partial_fit(X[:300], y[:300])
    assert_snapshot_equal(a.snapshot(), b.snapshot())
    assert a.progressive_predict(X[300:600], y[300:600]).tolist() == b.progressive_predict(
        X[300:600], y[300:600]).tolist()
    assert_snapshot_equal(a.snapshot(), b.snapshot())
    a.save(tmp_path / "a.dwm")
    b.save(tmp_path / "b.dwm")
    copies = [pickle.loads(pickle.dumps(b)), copy.deepcopy(b), fast.load(tmp_path / "a.dwm"),
              ref.load(tmp_path / "b.dwm"), pickle.loads(pickle.dumps(a))]
    for other in copies:
        assert other.quantization == "leaf"
        assert_snapshot_equal(a.snapshot(), other.snapshot())
    rest = data[600:]
    for other in copies:
        run_lockstep(copy.deepcopy(a), other, iter(rest), snapshot_every=60)


def _leaf_of(tree: Any, x: list[float]) -> Any:
    return tree.nodes[tree.leaf_of(x)]


def _numpy_bins(values: np.ndarray, lo: float, hi: float, bins: int) -> np.ndarray:
    """Equal-width bins by numpy: floor(B (x - lo) / (hi - lo)) clipped to [0, B-1]."""
    if not hi > lo:
        return np.zeros(len(values), dtype=np.int64)
    pos = np.floor(bins * (values - lo) / (hi - lo))
    return np.clip(pos, 0, bins - 1).astype(np.int64)


def test_leaf_cells_are_the_bins_of_the_rows_since_the_last_update() -> None:
    """A single-leaf tree (max_depth=0: value updates only) with a drifting feature: after
    every row, each feature's cell counts equal numpy's bin counts of the rows since the
    last update (the replayed warm-up rows included), binned with the range of the rows
    between the two updates before it (the warm-up's range before the first)."""
    import reference

    bins, warmup = 8, 30
    model = reference.SGTRegressor(grace_period=40, bins=bins, warmup=warmup, max_depth=0,
                                   delta=0.3, **LEAF)
    rng = np.random.default_rng(5)
    rows = [[float(i) * 0.05 + float(rng.uniform(0, 1)), float(rng.normal())]
            for i in range(400)]
    ys = [3.0 + r[0] for r in rows]
    for x, t in zip(rows[:warmup], ys[:warmup], strict=True):
        model.learn_one(x, t)
    tree = model._engine.trees[0]
    arr = np.array(rows)
    lo, hi = arr[:warmup].min(axis=0), arr[:warmup].max(axis=0)
    segment_start = 0                   # rows (in learning order) since the last update
    updates = tree.n_updates
    for i in range(warmup, len(rows)):
        model.learn_one(rows[i], ys[i])
        if tree.n_updates != updates:   # a value update: re-bin to the rows it saw
            updates = tree.n_updates
            seen = arr[segment_start:i + 1]
            lo, hi = seen.min(axis=0), seen.max(axis=0)
            segment_start = i + 1
        leaf = tree.nodes[0]
        since = arr[segment_start:i + 1]
        assert leaf.cells[0].n == len(since)
        for a in range(2):
            assert [leaf.lo[a], leaf.hi[a]] == [lo[a], hi[a]]
            counts = np.bincount(_numpy_bins(since[:, a], lo[a], hi[a], bins), minlength=bins)
            cells = [c.n for c in leaf.cells[1 + a * bins:1 + (a + 1) * bins]]
            assert cells == counts.tolist(), (i, a)
    assert updates >= 5


def test_split_children_take_the_observed_range_cut_at_the_edge() -> None:
    """Children of the root's first split: the root's observed ranges over the rows since
    its last update, the split feature's cut at lo + (hi - lo)(k + 1)/B."""
    import reference

    bins = 16
    model = reference.SGTRegressor(grace_period=25, bins=bins, warmup=20, delta=1e-3,
                                   max_depth=1, **LEAF)
    rng = np.random.default_rng(7)
    rows = [[float(rng.uniform(-2, 3)), float(rng.uniform(10, 11))] for _ in range(600)]
    tree = None
    start = 0
    for i, x in enumerate(rows):
        before = (0, 0) if tree is None else (tree.n_updates, tree.n_splits)
        root_range = None if tree is None else (list(tree.nodes[0].lo), list(tree.nodes[0].hi))
        model.learn_one(x, 5.0 if x[0] > 0.7 else -5.0)
        tree = model._engine.trees[0]
        if i < 20:
            continue
        if tree.n_updates != before[0]:
            start = i + 1
        if tree.n_splits != before[1]:
            seen = np.array(rows[start:i + 1])
            root = tree.nodes[0]
            assert root_range is not None and [root.lo, root.hi] == list(root_range)
            a, k = root.feature, root.threshold
            assert a == 0
            left, right = tree.nodes[root.first_child], tree.nodes[root.first_child + 1]
            obs_lo, obs_hi = seen.min(axis=0).tolist(), seen.max(axis=0).tolist()
            edge = root.lo[a] + (root.hi[a] - root.lo[a]) * (k + 1) / bins
            assert edge == pytest.approx(np.linspace(root.lo[a], root.hi[a], bins + 1)[k + 1])
            assert left.lo == obs_lo and right.hi == obs_hi
            assert left.hi == [min(edge, obs_hi[0]), obs_hi[1]]
            assert right.lo == [max(edge, obs_lo[0]), obs_lo[1]]
            # the routing agrees with the children's ranges: left rows lie below the edge
            assert _leaf_of(tree, [left.lo[0], 10.5]) is left
            assert _leaf_of(tree, [right.hi[0], 10.5]) is right
            return
    pytest.fail("the root never split")


def test_leaf_bins_beat_frozen_bins_after_a_drift() -> None:
    """The reason for the option: after x0 drifts out of the warm-up's range, frozen global
    bins put every new value in the end bin and cannot split the new step; per-leaf bins
    follow the data."""
    import reference

    data = list(drifting_stream(3, 4000))
    errors = {}
    for mode in ("global", "leaf"):
        model = reference.SGTRegressor(grace_period=50, warmup=100, quantization=mode)
        for x, t in data:
            model.learn_one(x, t)
        late = [abs(model.predict_one(x) - t) for x, t in data[-500:]]
        errors[mode] = float(np.mean(late))
    assert errors["leaf"] < 0.5 * errors["global"]


@pytest.mark.parametrize("value", ["Leaf", "per-leaf", None, 1])
def test_unknown_quantization_is_refused_alike(both: tuple[ModuleType, ModuleType],
                                               value: Any) -> None:
    messages = []
    for pkg in both:
        for cls in (pkg.SGTRegressor, pkg.SGTClassifier, pkg.SGTMultiInstanceClassifier):
            with pytest.raises(ValueError) as info:
                cls(quantization=value)
            messages.append(str(info.value))
        with pytest.raises(ValueError) as info:
            pkg.SGT(pkg.SquaredError(), quantization=value)
        messages.append(str(info.value))
    assert len(set(messages)) == 1
    assert messages[0] == f"quantization must be 'global' or 'leaf', got {value!r}"


@pytest.mark.parametrize("change", ["drop", "short", "text"])
def test_tampered_node_range_is_refused_alike(both: tuple[ModuleType, ModuleType],
                                              change: str, tmp_path: Path) -> None:
    """A model file whose node lacks its range, has too few numbers or a non-number."""
    import gzip
    import json

    from reference.persist import to_document

    ref, fast = both
    model = fast.SGTRegressor(grace_period=10, warmup=20, delta=0.3, **LEAF)
    for x, t in regression_stream(1, 200):
        model.learn_one(x, t)
    doc = to_document(model)
    node = doc["snapshot"]["core"]["trees"][0]["nodes"][-1]
    if change == "drop":
        del node["range"]
    elif change == "short":
        node["range"].pop()
    else:
        node["range"][0] = "0.0"
    path = tmp_path / "bad.dwm"
    with gzip.open(path, "wt", encoding="utf-8") as out:
        json.dump(doc, out)
    messages = []
    for pkg in (ref, fast):
        with pytest.raises(StateFormatError) as info:
            pkg.load(path)
        messages.append(str(info.value))
    assert messages[0] == messages[1] and "range" in messages[0]


def test_global_bins_are_the_parameter_default_and_old_states_keep_them() -> None:
    """The paper's bins are what SGTParams and a state without the field mean."""
    import reference

    assert SGTParams().quantization == "global"
    model = reference.SGTRegressor(warmup=10, quantization="global")
    state = model.__getstate__()
    state.pop("quantization")
    clone = type(model).__new__(type(model))
    clone.__setstate__(state)
    assert clone.quantization == "global"


def test_file_without_quantization_loads_with_global_bins(both: tuple[ModuleType, ModuleType],
                                                          tmp_path: Path) -> None:
    """A model file written before the parameter existed (no ``quantization`` in its params,
    an explicit warm-up) is the global-bins model it was, in both backends; a default model
    (``warmup=None``) round-trips through a file."""
    import gzip
    import json

    from reference.persist import to_document

    ref, fast = both
    data = list(drifting_stream(2, 300))
    old = ref.SGTRegressor(grace_period=20, warmup=50, quantization="global")
    for x, t in data[:150]:
        old.learn_one(x, t)
    doc = to_document(old)
    del doc["params"]["quantization"]
    path = tmp_path / "old.dwm"
    with gzip.open(path, "wt", encoding="utf-8") as out:
        json.dump(doc, out)
    for pkg in (ref, fast):
        loaded = pkg.load(path)
        assert loaded.quantization == "global" and loaded.warmup == 50
        assert_snapshot_equal(old.snapshot(), loaded.snapshot())
        run_lockstep(copy.deepcopy(old), loaded, iter(data[150:]), snapshot_every=50)
    default = fast.SGTClassifier(classes=[0, 1])
    for x, t in data[:250]:
        default.learn_one(x, int(t > 0))
    default.save(tmp_path / "d.dwm")
    back = ref.load(tmp_path / "d.dwm")
    assert back.warmup is None and back.quantization == "leaf"
    assert_snapshot_equal(default.snapshot(), back.snapshot())


@pytest.mark.parametrize(("kw", "rows"), [({}, 200), ({"grace_period": 50}, 50),
                                          ({"quantization": "global"}, 1000),
                                          ({"quantization": "global", "warmup": 30}, 30),
                                          ({"warmup": 70}, 70)])
def test_default_warmup_is_the_grace_period_with_leaf_bins_and_1000_with_global(
        backend: ModuleType, kw: dict[str, Any], rows: int) -> None:
    """``warmup=None``: the ranges freeze after ``grace_period`` rows with per-leaf bins
    (the default) and after the paper's 1,000 with global bins ([SGT-SPEC §5.8])."""
    model = backend.SGTRegressor(**kw)
    rng = np.random.default_rng(0)
    for i in range(rows):
        if i == rows - 1 and i > 0:     # one row before the end: still estimating
            assert model.snapshot()["core"]["frozen"] == 0
        model.learn_one([float(rng.uniform()), float(rng.uniform())], float(i % 7))
    assert model.snapshot()["core"]["frozen"] == 1
    assert model.snapshot()["core"]["warm_rows"] == rows

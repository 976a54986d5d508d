"""River rows through the adapters: features by name, absent and new features.

[DT-SPEC §12.1], [SGT-SPEC §16.1], [ABACOC-SPEC §20].

The rule (:mod:`reference.river_rows`, ``docs/river.md``): the features are the present
keys of the first learned row in sorted order; an absent feature takes the running mean
of its learned values (or the constant ``missing``); a feature first seen later is
ignored. The dense rows a model receives are read back from a dynamic tree's stored rows
(``snapshot()["X"]``) and compared with rows worked out by hand, in both backends;
``learn_many`` must build the same rows as ``learn_one``, and the two backends must agree
bit for bit on a stream whose keys are shuffled, dropped and added.
"""

from __future__ import annotations

import itertools
import random
from types import ModuleType
from typing import Any

import numpy as np
import pytest

pytest.importorskip("river")
pd = pytest.importorskip("pandas")

from reference.river_rows import ordered  # noqa: E402


def _stored(adapter: Any) -> list[list[float]]:
    return [list(map(float, r)) for r in adapter.model.snapshot()["X"]]


def test_feature_order_is_sorted_whatever_order_the_keys_come_in() -> None:
    assert ordered(["b", "c", "a"]) == ordered(["c", "a", "b"]) == ["a", "b", "c"]
    assert ordered([2, "x", 1]) == [1, 2, "x"]            # by type name, then value
    assert ordered([(1, "a"), (1, 2)]) == ordered([(1, 2), (1, "a")])   # repr fallback


def test_absent_feature_takes_the_running_mean_worked_by_hand(backend: ModuleType) -> None:
    adapter = backend.to_river(backend.DynamicTreeRegressor(n_particles=3))
    adapter.learn_one({"b": 2.0, "a": 1.0}, 0.5)        # features fixed: a, b (sorted)
    adapter.learn_one({"a": 3.0}, 0.1)                  # b absent: mean of {2} = 2
    adapter.learn_one({"b": 6.0, "c": 9.0}, 0.2)        # a absent: (1 + 3) / 2; c ignored
    adapter.learn_one({"a": float("nan"), "b": None}, 0.3)  # both absent: 2 and (2 + 6) / 2
    assert _stored(adapter) == [[1.0, 2.0], [3.0, 2.0], [2.0, 6.0], [2.0, 4.0]]
    assert adapter.model.n_features_in_ == 2
    # prediction fills with the means as they stand and learns nothing
    assert adapter._space.row({"c": 1.0}) == [2.0, 4.0]
    assert adapter.predict_one({"b": 1.0, "a": 0.0}) == adapter.model.predict_one([0.0, 1.0])
    assert len(_stored(adapter)) == 4


def test_absent_feature_takes_the_constant_when_one_is_given(backend: ModuleType) -> None:
    adapter = backend.to_river(backend.DynamicTreeRegressor(n_particles=3), missing=-1.5)
    adapter.learn_one({"y": 4.0, "x": 1.0}, 0.0)
    adapter.learn_one({"y": 5.0}, 1.0)
    assert _stored(adapter) == [[1.0, 4.0], [-1.5, 5.0]]
    assert adapter.clone().missing == -1.5
    for bad in ("median", float("nan"), True, None):
        with pytest.raises(ValueError, match="missing must be"):
            type(adapter)(backend.DynamicTreeRegressor(), missing=bad)


def test_shuffled_keys_learn_the_same_model(backend: ModuleType) -> None:
    a = backend.to_river(backend.DynamicTreeRegressor(n_particles=5, seed=3))
    b = backend.to_river(backend.DynamicTreeRegressor(n_particles=5, seed=3))
    rng = random.Random(0)
    for i in range(40):
        x = {f"f{j}": float((i * 7 + j * 3) % 11) for j in range(4)}
        keys = list(x)
        rng.shuffle(keys)
        a.learn_one(x, float(i % 5))
        b.learn_one({k: x[k] for k in keys}, float(i % 5))
    assert a.model.snapshot() == b.model.snapshot()


def test_learn_many_builds_the_rows_learn_one_builds(backend: ModuleType) -> None:
    rows = [{"a": 1.0, "b": 2.0}, {"a": 3.0}, {"b": 6.0, "c": 1.0}, {"a": 5.0, "b": 4.0},
            {}, {"b": 1.0}]
    targets = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    one = backend.to_river(backend.DynamicTreeRegressor(n_particles=4))
    many = one.clone()
    for x, y in zip(rows, targets, strict=True):
        one.learn_one(x, y)
    many.learn_many(pd.DataFrame(rows[:3]), pd.Series(targets[:3]))   # NaN cells are absent
    many.learn_many(pd.DataFrame(rows[3:], columns=["b", "a"]), pd.Series(targets[3:]))
    assert _stored(many) == _stored(one)
    assert many.model.snapshot() == one.model.snapshot()
    queries = pd.DataFrame([{"a": 0.5}, {"b": 3.0, "a": 1.0}, {"z": 1.0}])
    expected = [one.predict_one(dict(q.dropna())) for _, q in queries.iterrows()]
    assert many.predict_many(queries).tolist() == expected


def test_classifier_learn_many_matches_learn_one_across_new_labels(backend: ModuleType) -> None:
    from river import datasets

    data = list(itertools.islice(datasets.ImageSegments(), 80))
    one = backend.to_river(backend.SGTClassifier(warmup=10, grace_period=20, bins=8))
    many = one.clone()
    for x, y in data:
        one.learn_one(x, y)
    for chunk in (data[:7], data[7:50], data[50:]):
        many.learn_many(pd.DataFrame([x for x, _ in chunk]), pd.Series([y for _, y in chunk]))
    assert many.model.classes_ == one.model.classes_
    assert many.model.snapshot() == one.model.snapshot()
    queries = pd.DataFrame([x for x, _ in data[:10]])
    probs = many.predict_proba_many(queries)
    for i, (x, _) in enumerate(data[:10]):
        assert {k: probs.iloc[i][k] for k in probs.columns} == one.predict_proba_one(x)


def test_bad_values_raise_and_change_nothing(backend: ModuleType) -> None:
    adapter = backend.to_river(backend.SGTRegressor())
    with pytest.raises(TypeError, match="feature 'a'"):
        adapter.learn_one({"a": "text"}, 1.0)
    with pytest.raises(ValueError, match="finite"):
        adapter.learn_one({"a": float("inf")}, 1.0)
    with pytest.raises(ValueError, match="no feature"):
        adapter.learn_one({}, 1.0)
    assert adapter._space.names is None and adapter.model.n_seen_ == 0
    adapter.learn_one({"a": 1.0}, 1.0)
    with pytest.raises(TypeError):
        adapter.learn_one({"a": [1.0]}, 1.0)
    assert adapter._space.counts == [1] and adapter.model.n_seen_ == 1


def test_scikit_learn_path_still_refuses_nan(backend: ModuleType) -> None:
    X = np.array([[1.0, np.nan], [2.0, 3.0]])
    for model in (backend.SGTRegressor(), backend.DynamicTreeRegressor(n_particles=3)):
        with pytest.raises(ValueError):
            model.fit(X, [1.0, 2.0])


def test_backends_agree_bit_for_bit_on_rows_that_come_and_go(
        both: tuple[ModuleType, ModuleType]) -> None:
    from river import datasets

    rng = random.Random(3)
    stream = []
    for x, y in itertools.islice(datasets.ImageSegments(), 150):
        keys = list(x)
        rng.shuffle(keys)
        kept = {k: x[k] for k in keys[:len(keys) - rng.randrange(4)]}
        if rng.random() < 0.1:
            kept["late"] = 1.0
        stream.append((kept, y))
    for name, kwargs in [("SGTClassifier", {"warmup": 20, "grace_period": 30, "bins": 8}),
                         ("DynamicTreeClassifier", {"n_particles": 5, "active_size": 40}),
                         ("ABACOCClassifier", {})]:
        ref, fast = (b.to_river(getattr(b, name)(**kwargs)) for b in both)
        for x, y in stream:
            assert ref.predict_proba_one(x) == fast.predict_proba_one(x), name
            ref.learn_one(x, y)
            fast.learn_one(x, y)
        assert ref.model.snapshot() == fast.model.snapshot(), name


def test_adapter_clone_protocol(backend: ModuleType) -> None:
    adapter = backend.to_river(backend.DynamicTreeClassifier(n_particles=3, seed=5))
    for x, y in [({"a": 1.0}, "u"), ({"a": 2.0}, "v"), ({"a": 3.0}, "w")]:
        adapter.learn_one(x, y)
    fresh = adapter.clone()
    assert fresh.model.n_seen_ == 0 and fresh._space.names is None and fresh._labels == []
    assert fresh.model.get_params()["classes"] is None
    seeded = adapter.clone({"model": {"seed": 42}, "missing": 0.0})
    assert seeded.model.get_params()["seed"] == 42 and seeded.missing == 0.0
    from river.checks.utils import seed_params

    assert adapter.clone(seed_params(adapter._get_params(), 7)).model.get_params()["seed"] == 7
    assert not adapter._is_stochastic          # driftwood models are always seeded
    full = adapter.clone(include_attributes=True)
    assert full.model.snapshot() == adapter.model.snapshot() and full._labels == ["u", "v", "w"]
    with pytest.raises(ValueError, match="not a parameter"):
        adapter.clone({"seed": 1})
    with pytest.raises(ValueError, match="NaN"):
        adapter.learn_one({"a": 1.0}, float("nan"))
    assert adapter.model.classes_ == ["u", "v", "w"]


def test_predictions_before_any_row_is_learned(backend: ModuleType) -> None:
    adapter = backend.to_river(backend.SGTRegressor())
    frame = pd.DataFrame([{"a": 1.0}, {"b": 2.0}, {"a": 3.0, "b": 4.0}])   # NaN cells
    assert adapter.predict_many(frame).tolist() == [0.0, 0.0, 0.0]
    assert adapter.predict_one({"a": 1.0}) == 0.0 and adapter.predict_one({}) == 0.0
    with pytest.raises(TypeError, match="feature 'a'"):
        adapter.predict_one({"a": "text"})
    assert adapter._space.names is None and adapter.model.n_seen_ == 0
    adapter.learn_one({"b": 1.0, "a": 2.0}, 1.0)
    assert adapter.model.n_features_in_ == 2


@pytest.mark.parametrize("name", ["SGTRegressor", "SGTClassifier", "ABACOCClassifier"])
def test_each_family_learns_the_rows_filled_by_hand(backend: ModuleType, name: str) -> None:
    """The rows of the first test, learned through the adapter and as hand-filled lists
    by the bare model: the same model (``snapshot``) in every family."""
    kwargs: dict[str, Any] = {"warmup": 2} if name.startswith("SGT") else {}
    if name == "SGTClassifier":
        kwargs["classes"] = ["p", "q"]
    labels: list[Any] = ["p", "q", "q", "p"] if "Classifier" in name else [0.5, 0.1, 0.2, 0.3]
    adapter = backend.to_river(getattr(backend, name)(**kwargs))
    bare = getattr(backend, name)(**kwargs)
    rows = [{"b": 2.0, "a": 1.0}, {"a": 3.0}, {"b": 6.0, "c": 9.0}, {"a": float("nan")}]
    by_hand = [[1.0, 2.0], [3.0, 2.0], [2.0, 6.0], [2.0, 4.0]]
    for x, filled, y in zip(rows, by_hand, labels, strict=True):
        adapter.learn_one(x, y)
        bare.learn_one(filled, y)
    assert adapter.model.snapshot() == bare.snapshot()

"""The River adapter under failure, bad types, absent nominal features and threads.

Checked in both backends, for the classifiers that grow their classes (SGT, dynamic tree)
and the regressors:

- a ``learn_one`` that raises with a new label does not register it: the model's classes,
  its state and the adapter's labels are as before (the model refuses the row after the
  class was added: a dynamic tree refuses a value past its magnitude bound, an SGT a
  category outside its nominal range);
- a ``learn_many`` that raises after a first segment was learned and a class added leaves
  the model, its classes, the labels and the feature means as before, and the adapter is
  usable: learning the good rows afterwards gives the model of an adapter that never saw
  the failing call;
- the type rules of ``learn_one`` and ``learn_many`` are the same: text features
  (``TypeError``), infinite features (``ValueError``) and text regression targets
  (``ValueError``) are refused by both, nothing learned;
- an absent nominal feature takes the running mode of its learned values (the smallest
  category on a tie), the same in ``learn_one`` and ``learn_many``; the calls after it do
  not raise;
- while a thread adds classes through the adapter, other threads' ``predict_proba`` on the
  model never fail (the growth holds the model's lock).
"""

from __future__ import annotations

import threading
from types import ModuleType
from typing import Any

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
pytest.importorskip("river")

from _compare import assert_snapshot_equal  # noqa: E402


def _classifier(pkg: ModuleType, family: str) -> Any:
    if family == "sgt":
        return pkg.to_river(pkg.SGTClassifier(warmup=5, grace_period=5, nominal={1: 3}))
    return pkg.to_river(pkg.DynamicTreeClassifier(n_particles=5, seed=1))


def _bad_row(family: str) -> dict[str, float]:
    """A row the model (not the adapter) refuses."""
    return {"a": 0.5, "c": 5.0} if family == "sgt" else {"a": 1e300, "c": 1.0}


def _rows(n: int, seed: int = 0) -> list[dict[str, float]]:
    rng = np.random.default_rng(seed)
    return [{"a": float(rng.uniform()), "c": float(rng.integers(0, 3))} for _ in range(n)]


def _state(adapter: Any) -> tuple[Any, ...]:
    model = adapter.model
    classes = list(getattr(model, "classes_", None) or [])
    return (model.snapshot(), classes, list(adapter._labels), adapter._space.names,
            list(adapter._space.sums), list(adapter._space.counts))


def _same(a: tuple[Any, ...], b: tuple[Any, ...]) -> None:
    assert_snapshot_equal(a[0], b[0])
    assert a[1:] == b[1:]


@pytest.mark.parametrize("family", ["sgt", "dynatree"])
def test_a_failed_learn_one_does_not_register_its_label(backend: ModuleType,
                                                        family: str) -> None:
    adapter = _classifier(backend, family)
    for i, row in enumerate(_rows(20)):
        adapter.learn_one(row, i % 2)
    before = _state(adapter)
    with pytest.raises(ValueError):
        adapter.learn_one(_bad_row(family), 7)
    _same(before, _state(adapter))
    assert 7 not in adapter.predict_proba_one({"a": 0.5, "c": 1.0})
    adapter.learn_one({"a": 0.5, "c": 1.0}, 7)         # usable: the label joins now
    assert list(adapter.model.classes_) == [0, 1, 7]


@pytest.mark.parametrize("family", ["sgt", "dynatree"])
def test_a_failed_learn_many_leaves_model_and_adapter_as_before(backend: ModuleType,
                                                               family: str) -> None:
    rows = _rows(30, seed=2)
    labels = [i % 2 for i in range(30)]
    adapter, twin = _classifier(backend, family), _classifier(backend, family)
    for one in (adapter, twin):
        one.learn_many(pd.DataFrame(rows[:10]), pd.Series(labels[:10]))
    before = _state(adapter)
    # a first segment (known labels) is learned, then label 5 joins, then the model
    # refuses a row of the second segment
    frame = pd.DataFrame(rows[10:15] + [rows[15], _bad_row(family)])
    with pytest.raises(ValueError):
        adapter.learn_many(frame, pd.Series(labels[10:15] + [5, 5]))
    _same(before, _state(adapter))
    assert adapter.predict_one(rows[0]) in (0, 1)       # usable
    for one in (adapter, twin):
        one.learn_many(pd.DataFrame(rows[10:]), pd.Series(labels[10:]))
    _same(_state(twin), _state(adapter))


def test_a_failed_regressor_learn_many_leaves_the_adapter_usable(backend: ModuleType) -> None:
    adapter = backend.to_river(backend.DynamicTreeRegressor(n_particles=5, seed=1))
    frame = pd.DataFrame({"a": [0.1, 0.2, 0.3, 1e300], "b": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(ValueError):
        adapter.learn_many(frame, pd.Series([1.0, 2.0, 3.0, 4.0]))
    fresh = backend.DynamicTreeRegressor(n_particles=5, seed=1)
    assert_snapshot_equal(fresh.snapshot(), adapter.model.snapshot())
    assert adapter._space.names is None
    adapter.learn_one({"a": 0.1, "b": 1.0}, 1.0)
    assert np.isfinite(adapter.predict_one({"a": 0.2, "b": 2.0}))


BAD_FEATURES = [("text", "1.5", TypeError), ("bytes", b"1", TypeError),
                ("infinite", float("inf"), ValueError)]


@pytest.mark.parametrize(("case", "value", "error"), BAD_FEATURES,
                         ids=[c for c, _, _ in BAD_FEATURES])
def test_one_and_many_refuse_the_same_feature_values(backend: ModuleType, case: str,
                                                     value: Any, error: type) -> None:
    one = backend.to_river(backend.SGTRegressor(warmup=5))
    many = backend.to_river(backend.SGTRegressor(warmup=5))
    with pytest.raises(error):
        one.learn_one({"a": 0.5, "b": value}, 1.0)
    with pytest.raises(error):
        many.learn_many(pd.DataFrame({"a": [0.5, 0.6], "b": [1.0, value]}),
                        pd.Series([1.0, 2.0]))
    for adapter in (one, many):
        assert adapter._space.names is None
        assert adapter.model.snapshot() == one.model.snapshot()


@pytest.mark.parametrize("target", ["1.5", b"2", float("nan"), None])
def test_one_and_many_refuse_the_same_regression_targets(backend: ModuleType,
                                                         target: Any) -> None:
    one = backend.to_river(backend.SGTRegressor(warmup=5))
    many = backend.to_river(backend.SGTRegressor(warmup=5))
    with pytest.raises(ValueError, match="y must be"):
        one.learn_one({"a": 0.5}, target)
    with pytest.raises(ValueError, match="y must be"):
        many.learn_many(pd.DataFrame({"a": [0.5, 0.6]}),
                        pd.Series([1.0, target], dtype=object))
    assert many._space.names is None
    assert_snapshot_equal(one.model.snapshot(), many.model.snapshot())


def test_an_absent_nominal_feature_takes_the_running_mode(backend: ModuleType) -> None:
    rows = [{"a": 0.1, "c": 2.0}, {"a": 0.2, "c": 1.0}, {"a": 0.3},      # tie 1/2: 1
            {"a": 0.4, "c": 2.0}, {"a": 0.5}, {"a": 0.6, "c": 0.0}, {"a": 0.7}]  # then 2
    want = [2.0, 1.0, 1.0, 2.0, 2.0, 0.0, 2.0]
    one = backend.to_river(backend.SGTRegressor(warmup=3, nominal={1: 3}))
    seen = []
    for i, row in enumerate(rows):
        seen.append(one._space.take(row)[0][1])
        one.learn_one(row, float(i))
    assert seen == want
    many = backend.to_river(backend.SGTRegressor(warmup=3, nominal={1: 3}))
    frame = pd.DataFrame(rows)
    assert list(many._space.take_frame(frame)[0][:, 1]) == want
    many.learn_many(frame, pd.Series([float(i) for i in range(len(rows))]))
    assert_snapshot_equal(one.model.snapshot(), many.model.snapshot())
    one.learn_one({"a": 0.8}, 1.0)                  # later calls do not raise
    assert np.isfinite(one.predict_one({"a": 0.9}))


@pytest.mark.parametrize("family", ["sgt", "dynatree"])
def test_predictions_on_other_threads_survive_class_growth(backend: ModuleType,
                                                           family: str) -> None:
    adapter = _classifier(backend, family)
    rows = _rows(200, seed=5)
    for i, row in enumerate(rows[:20]):
        adapter.learn_one(row, i % 2)
    X = np.array([[r["a"], r["c"]] for r in rows[:50]])
    errors: list[BaseException] = []
    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            try:
                probs = np.asarray(adapter.model.predict_proba(X))
                assert np.allclose(probs.sum(axis=1), 1.0)
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)
                return

    threads = [threading.Thread(target=reader) for _ in range(2)]
    for thread in threads:
        thread.start()
    try:
        for k, row in enumerate(rows[20:60]):
            adapter.learn_one(row, 2 + k)               # a new class at every row
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert not errors, repr(errors[0])
    assert len(adapter.model.classes_) == 42

"""The array path of the fast SGT batch methods (:mod:`reference.batches`).

``fast`` reads a numeric batch chunk by chunk instead of copying it: whatever the layout
and dtype, and across chunk boundaries, it must learn and predict bit for bit what the
reference does with its float64 copy, and reject a bad batch with the same exception and
message, leaving the model unchanged (a batch is validated as a whole first).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import reference
import reference.batches as batches
from _compare import rejects_alike
from conftest import require_fast

N_ROWS = 700
SMALL_CHUNK = 8 * 3 * 64        # 64 rows of 3 features per chunk: 11 chunks of 700 rows


@pytest.fixture(autouse=True)
def _small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of 64 rows, so every test crosses many chunk boundaries."""
    require_fast()
    monkeypatch.setattr(batches, "CHUNK_BYTES", SMALL_CHUNK)


def _stream(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.random((N_ROWS, 3))
    X[:, 2] = rng.integers(0, 4, N_ROWS)               # a nominal feature (0..3)
    y = 3.0 * X[:, 0] - X[:, 1] + (X[:, 2] == 2)
    return X, y


def _layouts(X: np.ndarray, tmp_path: Path) -> dict[str, np.ndarray]:
    mapped = np.memmap(tmp_path / "X.f64", dtype=np.float64, mode="w+", shape=X.shape)
    mapped[:] = X
    mapped.flush()
    wide = np.zeros((X.shape[0], 2 * X.shape[1]))
    wide[:, ::2] = X
    return {
        "c_float64": X,
        "float32": X.astype(np.float32),
        "fortran": np.asfortranarray(X),
        "int64": np.round(X * [8, 8, 1]).astype(np.int64),
        "strided": wide[:, ::2],
        "memmap": np.memmap(tmp_path / "X.f64", dtype=np.float64, mode="r", shape=X.shape),
    }


def _pair(name: str, **params: Any) -> tuple[Any, Any]:
    import fast

    options = {"grace_period": 40, "nominal": {2: 9}, **params}
    return getattr(reference, name)(**options), getattr(fast, name)(**options)


LAYOUTS = ["c_float64", "float32", "fortran", "int64", "strided", "memmap"]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_regressor_batches_of_any_layout_match_the_reference(layout: str, tmp_path: Path) -> None:
    X, y = _stream()
    arr = _layouts(X, tmp_path)[layout]
    ref, fast_model = _pair("SGTRegressor")
    for model in (ref, fast_model):
        model.partial_fit(arr[:300], y[:300].astype(np.float32))
    assert fast_model.snapshot() == ref.snapshot()
    np.testing.assert_array_equal(fast_model.progressive_predict(arr[300:], y[300:]),
                                  ref.progressive_predict(arr[300:], y[300:]))
    np.testing.assert_array_equal(fast_model.predict(arr), ref.predict(arr))
    assert fast_model.snapshot() == ref.snapshot()
    assert fast_model.n_seen_ == ref.n_seen_ == N_ROWS


def test_regressor_batch_equals_the_one_row_path() -> None:
    X, y = _stream(1)
    _, batch = _pair("SGTRegressor")
    _, rows = _pair("SGTRegressor")
    batch.partial_fit(X.astype(np.float32), y)
    for x, target in zip(X.astype(np.float32).tolist(), y.tolist(), strict=True):
        rows.learn_one(x, target)
    assert batch.snapshot() == rows.snapshot()


LABELS = {
    "str": lambda y: np.where(y > 1.0, "high", "low"),
    "int": lambda y: (y > 1.0).astype(np.int64) + 5,
    "bool": lambda y: y > 1.0,
    "float_signed_zero": lambda y: np.where(y > 1.0, 2.5, np.where(y > 0.0, 0.0, -0.0)),
    "three_int8": lambda y: np.digitize(y, [0.5, 1.5]).astype(np.int8),
    "int8_extremes": lambda y: np.where(y > 1.0, 127, -128).astype(np.int8),
    "list": lambda y: np.where(y > 1.0, "high", "low").tolist(),
}


@pytest.mark.parametrize("labels", sorted(LABELS))
@pytest.mark.parametrize("layout", ["c_float64", "float32", "fortran", "memmap"])
def test_classifier_batches_match_the_reference(labels: str, layout: str,
                                                tmp_path: Path) -> None:
    X, y = _stream(2)
    arr = _layouts(X, tmp_path)[layout]
    lab = LABELS[labels](y)
    ref, fast_model = _pair("SGTClassifier")
    for model in (ref, fast_model):
        model.partial_fit(arr[:400], lab[:400])     # classes in order of first appearance
    assert fast_model.classes_ == ref.classes_
    assert [type(c) for c in fast_model.classes_] == [type(c) for c in ref.classes_]
    assert fast_model.snapshot() == ref.snapshot()
    got, want = fast_model.progressive_predict(arr[400:], lab[400:]), \
        ref.progressive_predict(arr[400:], lab[400:])
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(fast_model.predict_proba(arr), ref.predict_proba(arr))
    got, want = fast_model.predict(arr), ref.predict(arr)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    assert fast_model.snapshot() == ref.snapshot()


CLASS_LISTS = [[0, 1, 2], [True, False], ["a", "bbb", "cc"], [1, 2.5, "x"], [1.5, 2, True],
               [(1, 2), (3, 4)], [None, "a"], [np.int32(3), np.int32(4), 7], [b"x", b"yy"],
               [2**63, 1]]


@pytest.mark.parametrize("classes", CLASS_LISTS, ids=[str(i) for i in range(len(CLASS_LISTS))])
def test_labels_taken_by_index_are_the_classes_themselves(classes: list[Any]) -> None:
    """Each item equals ``classes[k]`` and is of its kind (a typed array only when every
    class is of one kind numpy holds exactly; else an object array of the classes)."""
    rng = np.random.default_rng(len(classes))
    for indices in (rng.integers(0, len(classes), 300), np.zeros(5, dtype=np.int64),
                    np.array([len(classes) - 1] * 3)):
        got = batches.take_labels(classes, indices)
        assert got.shape == (len(indices),)
        for item, k in zip(list(got), indices.tolist(), strict=True):
            assert item == classes[k]
            assert batches._label_kind(item) == batches._label_kind(classes[k])


@pytest.mark.parametrize("call", ["partial_fit", "progressive_predict"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_bad_value_in_a_later_chunk_rejects_the_whole_batch(call: str, dtype: Any) -> None:
    X, y = _stream(3)
    ref, fast_model = _pair("SGTRegressor")
    for model in (ref, fast_model):
        model.partial_fit(X[:100], y[:100])
    bad = X.astype(dtype)
    bad[500, 1] = np.nan                               # the 8th chunk of 64 rows
    message = rejects_alike(ref, fast_model, call, bad, y)
    assert "NaN or infinite" in message
    nominal = X.copy()
    nominal[200, 2] = 1.5                              # not an integer category
    assert "nominal feature 2" in rejects_alike(ref, fast_model, call, nominal, y)
    nominal[650, 0] = np.inf                           # a later NaN still comes first
    assert "NaN or infinite" in rejects_alike(ref, fast_model, call, nominal, y)
    target = y.copy()
    target[600] = np.inf
    assert rejects_alike(ref, fast_model, call, X, target) == \
        "y must be a finite real number, got inf"
    assert "labels for" in rejects_alike(ref, fast_model, call, X, y[:-1])
    assert "5 features" in rejects_alike(ref, fast_model, call, np.zeros((3, 5)), y[:3])


def test_an_unknown_label_in_a_later_chunk_rejects_the_whole_batch() -> None:
    X, y = _stream(4)
    lab = np.where(y > 1.0, "high", "low")
    ref, fast_model = _pair("SGTClassifier", classes=["low", "high"])
    lab_bad = lab.copy().astype("<U6")
    lab_bad[450] = "other"
    message = rejects_alike(ref, fast_model, "partial_fit", X, lab_bad)
    assert message.startswith("unknown label 'other'")
    ints = (y > 1.0).astype(np.int64)
    ints[300] = 7
    ref, fast_model = _pair("SGTClassifier", classes=[0, 1])
    for model in (ref, fast_model):
        model.partial_fit(X[:50], ints[:50])
    assert rejects_alike(ref, fast_model, "progressive_predict", X, ints).startswith(
        "unknown label 7")
    ref, fast_model = _pair("SGTClassifier")
    assert "two classes" in rejects_alike(ref, fast_model, "partial_fit", X, np.ones(N_ROWS))
    assert fast_model.classes_ is None


def test_chunk_helpers_cover_every_row_once() -> None:
    X = np.arange(70 * 5, dtype=np.float32).reshape(70, 5)
    size = batches.chunk_rows(5)
    assert size == SMALL_CHUNK // 40
    spans = list(batches.chunks(70, size))
    assert spans[0] == (0, size) and spans[-1][1] == 70
    joined = np.vstack([batches.as_float64(X[a:b]) for a, b in spans])
    np.testing.assert_array_equal(joined, X.astype(np.float64))
    view = batches.as_float64(np.ascontiguousarray(X, dtype=np.float64))
    copy = batches.as_float64(view)                  # C float64: still a private copy
    assert not np.shares_memory(copy, view) and np.array_equal(copy, view)
    assert batches.array_input(X.tolist()) is None
    assert batches.array_input(X.astype(object)) is None
    y = np.array([3, 1, 3, 2, 1] * 30)
    assert batches.distinct_labels(y, 7) == [3, 1, 2]
    np.testing.assert_array_equal(batches.label_codes(y[:5], {3: 0, 1: 1}), [0, 1, 0, -1, 1])
    assert batches.label_input(np.array([1.0, np.nan])) is None


def test_label_helpers_name_labels_in_row_order_across_chunks() -> None:
    y = np.array([3, 1, 3, 2, 1] * 30 + [8, 9])
    first = batches.distinct_labels(y, 7, as_items=False)
    assert first == [3, 1, 2, 8, 9] and all(type(v) is np.int64 for v in first)
    assert batches.first_unknown(y, {3: 0, 1: 1, 2: 2}, 7) == 150     # chunk 22 of 22
    assert batches.first_unknown(y, {3: 0, 1: 1, 2: 2, 8: 3, 9: 4}, 7) is None
    assert batches.first_unknown(y, {1: 0}, 7) == 0


def test_values_are_finite_as_float64_in_one_and_two_dimensions() -> None:
    assert batches.all_finite(np.arange(300.0)) and batches.all_finite(np.ones((9, 4)))
    late = np.ones(300, dtype=np.float32)
    late[-1] = np.inf
    assert not batches.all_finite(late) and not batches.all_finite(late.reshape(-1, 3))
    if np.finfo(np.longdouble).max > np.finfo(np.float64).max:       # e.g. x86 long double
        wide = np.full((3, 2), np.finfo(np.float64).max, dtype=np.longdouble) * 4
        assert np.isfinite(wide).all() and not batches.all_finite(wide)


@pytest.mark.parametrize("labels", [
    np.array([3, 1, 3, 9, 1, -4] * 20, dtype=np.int8), np.array([True, False, True] * 9),
    np.array([2**63 + 5, 1, 7], dtype=np.uint64), np.array([10**12, -(10**12), 7, 7]),
    np.array([0.5, -0.0, 0.0, 2.0]), np.array(["b", "a", "zz", "a"]),
    np.array([-128, 127, 1, -128], dtype=np.int8),
], ids=["int8", "bool", "uint64_wide", "int64_wide", "float", "str", "int8_extremes"])
def test_label_codes_are_the_dict_lookups_of_the_labels(labels: np.ndarray) -> None:
    index = {1: 0, 7: 1, 2**63 + 5: 2, -(10**12): 3, 0.0: 4, "a": 5, -4: 6, -128: 7, 127: 8}
    want = [index.get(v, -1) for v in labels.tolist()]
    assert batches.label_codes(labels, index).tolist() == want

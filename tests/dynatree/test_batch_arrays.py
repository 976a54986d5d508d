"""Dynamic trees: numeric arrays reach the C engine a chunk at a time, with the list path's
results and errors.

A ``fast`` dynamic tree hands a 2-D numeric array to C in chunks of
:data:`reference.batches.CHUNK_BYTES` (a float64 C-contiguous array is read in place,
other layouts and dtypes are converted a chunk at a time), validates it a chunk at a time,
and never builds Python lists of its rows. Checked here, with chunks shrunk to a few rows so
that every batch spans several: the results equal those of the same rows given as lists
(the readable path, unchanged) and the reference's, bit for bit, for every layout
(Fortran order, a strided column slice, float32, integers, a ``numpy.memmap``); a bad value
in a later chunk raises the reference's exception and message and leaves the model
unchanged (every row is validated before any is learned); class discovery and label
checks run across chunks in row order; an allocation failure keeps the rows learned before
the failing one; and releasing a memory map's pages never changes its data.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from _alloc_hook import fail_at
from _compare import assert_snapshot_equal
from conftest import REFERENCE, require_fast
from reference import batches

N_ROWS = 60
ROWS_PER_CHUNK = 7


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> Callable[[int], None]:
    """Shrink the chunks to ``ROWS_PER_CHUNK`` rows of a table of ``d`` columns."""

    def shrink(d: int) -> None:
        monkeypatch.setattr(batches, "CHUNK_BYTES", 8 * d * ROWS_PER_CHUNK)

    return shrink


def _make(package: Any, kind: str) -> Any:
    if kind == "class":
        return package.DynamicTreeClassifier(n_particles=8, seed=5)
    if kind == "alc":
        return package.DynamicTreeRegressor(n_particles=8, seed=5, active_size=25,
                                            retirement="alc")
    return package.DynamicTreeRegressor(leaf=kind, n_particles=8, seed=5)


def _data(kind: str, n: int = N_ROWS, d: int = 3, seed: int = 0) -> tuple[np.ndarray, Any]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, d))
    if kind == "class":
        return X, np.where(X[:, 0] + 0.3 * X[:, 1] > 0.0, "up", "down")
    return X, np.sin(3.0 * X[:, 0]) + 0.1 * rng.standard_normal(n)


def _layouts(X: np.ndarray, tmp_path: Path) -> dict[str, np.ndarray]:
    """The same table in other layouts (each converts to float64 losslessly, except
    float32 and integers, whose values the list comparison takes converted)."""
    wide = np.zeros((X.shape[0], 2 * X.shape[1]))
    wide[:, ::2] = X
    path = tmp_path / "rows.f64"
    X.tofile(path)
    return {
        "c_float64": np.ascontiguousarray(X),
        "fortran": np.asfortranarray(X),
        "strided": wide[:, ::2],
        "float32": X.astype(np.float32),
        "int": np.round(4.0 * X).astype(np.int64),
        "memmap": np.memmap(path, dtype=np.float64, mode="r", shape=X.shape),
    }


LAYOUTS = ["c_float64", "fortran", "strided", "float32", "int", "memmap"]
KINDS = ["constant", "linear", "class", "alc"]


def _predictions(model: Any, X: Any) -> dict[str, Any]:
    if hasattr(model, "predict_proba"):
        return {"predict": model.predict(X), "proba": model.predict_proba(X),
                "entropy": model.predict_entropy(X)}
    out = {"predict": model.predict(X), **model.predict_dist(X)}
    if model.get_params()["leaf"] == "constant":
        out["alc"] = model.alc(X)
        out["alc_rect"] = model.alc(X, rect=[(-1.0, 1.0)] * model.n_features_in_)
    return out


def _assert_same_predictions(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert a.keys() == b.keys()
    for key in a:
        assert a[key].dtype == b[key].dtype, key
        assert np.array_equal(a[key], b[key]), key


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("kind", KINDS)
def test_array_layouts_give_the_list_results(kind: str, layout: str, tmp_path: Path,
                                             small_chunks: Callable[[int], None]) -> None:
    fast = require_fast()
    X, y = _data(kind)
    table = _layouts(X, tmp_path)[layout]
    small_chunks(X.shape[1])
    rows = table.astype(np.float64).tolist()
    by_array, by_list = _make(fast, kind), _make(fast, kind)
    by_array.partial_fit(table[:40], y[:40])
    by_list.partial_fit(rows[:40], y[:40].tolist())
    by_array.partial_fit(table[40:], y[40:])      # a fitted model: its width is checked
    by_list.partial_fit(rows[40:], y[40:].tolist())
    assert by_array.lpred_ == by_list.lpred_
    assert all(type(v) is float for v in by_array.lpred_)
    assert by_array.n_seen_ == by_list.n_seen_ == N_ROWS
    assert_snapshot_equal(by_list.snapshot(), by_array.snapshot())
    _assert_same_predictions(_predictions(by_list, rows), _predictions(by_array, table))


@pytest.mark.parametrize("kind", KINDS)
def test_arrays_in_chunks_match_the_reference(kind: str,
                                              small_chunks: Callable[[int], None]) -> None:
    fast = require_fast()
    X, y = _data(kind, n=45)
    small_chunks(X.shape[1])
    ours, theirs = _make(fast, kind), _make(REFERENCE, kind)
    ours.partial_fit(X, y)
    theirs.partial_fit(X, y)
    assert ours.lpred_ == theirs.lpred_
    if kind == "class":
        assert ours.classes_ == theirs.classes_
    assert_snapshot_equal(theirs.snapshot(), ours.snapshot())
    T = _data(kind, n=23, seed=9)[0]
    _assert_same_predictions(_predictions(theirs, T), _predictions(ours, T))


def _bad_batches(kind: str) -> dict[str, tuple[np.ndarray, Any]]:
    """Batches with one bad value in the second or a later chunk (or a bad shape)."""
    X, y = _data(kind)
    nan_x = X.copy()
    nan_x[ROWS_PER_CHUNK + 3, 1] = np.nan
    inf_x = X.copy()
    inf_x[-1, 2] = -np.inf
    out = {"nan_x": (nan_x, y), "inf_x": (inf_x, y), "short_y": (X, y[:-1]),
           "no_rows": (X[:0], y[:0])}
    if kind == "class":
        unknown = y.copy().astype("<U7")
        unknown[2 * ROWS_PER_CHUNK + 1] = "sideway"
        unknown[3 * ROWS_PER_CHUNK + 2] = "above"
        out["unknown_label"] = (X, unknown)
        out["one_class"] = (X, np.full(N_ROWS, "up"))
    else:
        inf_y = y.copy()
        inf_y[ROWS_PER_CHUNK + 1] = np.inf
        out["inf_y"] = (X, inf_y)
        nan_y = y.astype(np.float32)
        nan_y[-2] = np.nan
        out["nan_y32"] = (X, nan_y)
    return out


def _raised(call: Callable[[], Any]) -> tuple[type, str]:
    with pytest.raises(Exception) as info:
        call()
    return type(info.value), str(info.value)


@pytest.mark.parametrize("fitted", [False, True], ids=["first_call", "fitted"])
@pytest.mark.parametrize("kind", ["constant", "class"])
def test_a_bad_value_in_a_later_chunk_changes_nothing(kind: str, fitted: bool,
                                                       small_chunks: Callable[[int], None]
                                                       ) -> None:
    """Every row is validated before any is learned, as documented (``partial_fit``: "all
    rows are validated first"): the reference's exception and message, and no change."""
    fast = require_fast()
    small_chunks(3)
    for name, (X, y) in _bad_batches(kind).items():
        if fitted and name == "one_class" or not fitted and name == "unknown_label":
            continue                        # a first call discovers the classes
        models = [_make(fast, kind), _make(REFERENCE, kind)]
        if fitted:
            X0, y0 = _data(kind, n=20, seed=4)
            if kind == "class":
                y0 = np.where(np.arange(20) % 2 == 0, "up", "down")
            for model in models:
                model.partial_fit(X0, y0)
        before = models[0].snapshot()
        lpred = list(models[0].lpred_)
        ours, theirs = (_raised(lambda m=m, X=X, y=y: m.partial_fit(X, y)) for m in models)
        assert ours == theirs, name
        assert_snapshot_equal(before, models[0].snapshot())
        assert models[0].lpred_ == lpred
        if kind == "class" and not fitted:
            assert models[0].classes_ == []


def test_unknown_labels_are_named_in_row_order(small_chunks: Callable[[int], None]) -> None:
    fast = require_fast()
    small_chunks(3)
    X, y = _bad_batches("class")["unknown_label"]
    model = fast.DynamicTreeClassifier(n_particles=4, classes=["down", "up"])
    kind, message = _raised(lambda: model.partial_fit(X, y))
    assert kind is ValueError
    assert message.startswith("unknown label np.str_('sideway')")


@pytest.mark.parametrize("labels", ["late_class", "float_nan", "ints", "bools"])
def test_class_discovery_across_chunks(labels: str,
                                       small_chunks: Callable[[int], None]) -> None:
    """A first call fixes the classes in order of first appearance across chunks (a class
    first seen in the last chunk comes last); float labels with NaN are refused alike."""
    fast = require_fast()
    small_chunks(3)
    X, _ = _data("class", n=30)
    y: np.ndarray = {
        "late_class": np.array(["b", "a"] * 14 + ["c", "a"]),
        "float_nan": np.array([0.5, -0.0, 0.0, np.nan] * 7 + [0.5, 2.0]),
        "ints": (np.arange(30) * 7) % 4 - 2,
        "bools": np.arange(30) % 3 == 0,
    }[labels]
    if labels == "float_nan":  # NaN labels are refused (each NaN would be its own class)
        for backend in (fast, REFERENCE):
            with pytest.raises(ValueError, match="NaN"):
                backend.DynamicTreeClassifier(n_particles=4, seed=2).partial_fit(X, y)
        return
    ours = fast.DynamicTreeClassifier(n_particles=4, seed=2).partial_fit(X, y)
    theirs = REFERENCE.DynamicTreeClassifier(n_particles=4, seed=2).partial_fit(X, y)
    assert [repr(c) for c in ours.classes_] == [repr(c) for c in theirs.classes_]
    assert_snapshot_equal(theirs.snapshot(), ours.snapshot())
    T = _data("class", n=9, seed=3)[0]
    assert np.array_equal(ours.predict(T), theirs.predict(T))
    assert ours.predict(T).dtype == theirs.predict(T).dtype


def test_an_allocation_failure_keeps_the_rows_before_it(
        small_chunks: Callable[[int], None]) -> None:
    """``MemoryError`` in a later chunk: the rows learned before the failing one stay
    learned and counted (``n_seen_``, ``lpred_``), exactly as a model that learned only
    those rows."""
    fast = require_fast()
    small_chunks(3)
    X, y = _data("constant", n=30)
    kept: set[int] = set()
    for n in range(0, 4000, 37):
        model = fast.DynamicTreeRegressor(n_particles=4, seed=1)
        with fail_at(n) as flag:
            try:
                model.partial_fit(X, y)
            except MemoryError:
                pass
        if not flag[0]:
            break
        k = model.n_seen_
        kept.add(k)
        twin = fast.DynamicTreeRegressor(n_particles=4, seed=1)
        if k:
            twin.partial_fit(X[:k].tolist(), y[:k].tolist())
        assert_snapshot_equal(twin.snapshot(), model.snapshot())
        assert model.lpred_ == twin.lpred_
    assert 0 in kept and max(kept) > ROWS_PER_CHUNK    # a failure in a later chunk


@pytest.mark.parametrize("mode", ["r", "r+", "c"])
def test_releasing_a_memory_map_keeps_its_data(mode: str, tmp_path: Path) -> None:
    """Pages handed back after a chunk are read again from the file; writes made through a
    shared map before the release reach the file; a copy-on-write map is left alone."""
    path = tmp_path / "table.f64"
    values = np.arange(4096 * 3, dtype=np.float64).reshape(-1, 3)
    values.tofile(path)
    X = np.memmap(path, dtype=np.float64, mode=mode, shape=values.shape)
    if mode != "r":
        X[5, 1] = -1.0
    expected = np.array(X)
    for start, stop in batches.chunks(X.shape[0], 1000, X):
        assert np.array_equal(batches.as_float64(X[start:stop]), expected[start:stop])
    batches.release(X, 0, X.shape[0])
    assert np.array_equal(X, expected)
    del X
    on_disk = np.fromfile(path).reshape(-1, 3)
    assert on_disk[5, 1] == (-1.0 if mode == "r+" else values[5, 1])


def test_chunks_are_bounded_private_copies(small_chunks: Callable[[int], None]) -> None:
    """Every chunk is a copy, a float64 C-contiguous table's too (another thread may write
    to the caller's array while the C reads the chunk)."""
    small_chunks(4)
    X = np.random.default_rng(1).uniform(size=(30, 4))
    for table, copied in ((X, True), (np.asfortranarray(X), True), (X.astype(np.float32),
                                                                     True)):
        sizes = []
        for start, stop in batches.chunks(table.shape[0], batches.chunk_rows(4), table):
            rows = batches.as_float64(table[start:stop])
            assert rows.dtype == np.float64 and rows.flags.c_contiguous
            assert np.shares_memory(rows, table) is not copied
            assert np.array_equal(rows, table[start:stop].astype(np.float64))
            sizes.append(stop - start)
        assert sizes == [ROWS_PER_CHUNK] * 4 + [2]


def _rss_file() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("RssFile:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no RssFile line")


def test_a_memory_mapped_batch_does_not_stay_resident(tmp_path: Path) -> None:
    """After ``partial_fit`` and ``predict`` on a 24 MB memory map, the map's pages are no
    longer mapped into the process (a file larger than memory streams through)."""
    if not Path("/proc/self/status").exists() or batches._madvise is None:
        pytest.skip("needs Linux's /proc and madvise")
    fast = require_fast()
    path = tmp_path / "rows.f64"
    rng = np.random.default_rng(3)
    rng.uniform(size=(1_000_000, 3)).tofile(path)
    X = np.memmap(path, dtype=np.float64, mode="r", shape=(1_000_000, 3))
    model = fast.DynamicTreeRegressor(n_particles=2, active_size=50, retirement="historical")
    model.partial_fit(X[:100], np.zeros(100))
    before = _rss_file()
    model.predict(X)
    model.partial_fit(X[:200_000], np.zeros(200_000))
    assert _rss_file() - before < 4 * 1024 * 1024


def test_a_column_of_targets_from_a_data_frame_is_read_as_an_array(
        small_chunks: Callable[[int], None]) -> None:
    pd = pytest.importorskip("pandas")
    fast = require_fast()
    small_chunks(3)
    X, y = _data("constant", n=30)
    ours = fast.DynamicTreeRegressor(n_particles=4).partial_fit(X, pd.Series(y))
    theirs = REFERENCE.DynamicTreeRegressor(n_particles=4).partial_fit(X, pd.Series(y))
    assert_snapshot_equal(theirs.snapshot(), ours.snapshot())
    bad = pd.Series(y)
    bad.iloc[-1] = np.nan
    model = fast.DynamicTreeRegressor(n_particles=4)
    assert _raised(lambda: model.partial_fit(X, bad)) == _raised(
        lambda: REFERENCE.DynamicTreeRegressor(n_particles=4).partial_fit(X, bad))
    assert model.n_seen_ == 0

"""Fast batch calls while another thread writes to the input array.

The fast engines read each chunk with the GIL released, checking every row before using it.
A thread that writes to the caller's array during the call (a programming error, but one
that must never crash the process or corrupt the model) could change a row between the
check and the use: a nominal SGT value used as a cell index, a NaN stored in a dynamic
tree's data store. Each chunk handed to C is therefore a private copy
(:func:`reference.batches.as_float64`), checked by the C where it is read. Here a writer
thread scribbles out-of-range nominal values, NaN and infinities over the array while the
main thread makes large batch calls: the call either succeeds or raises ``ValueError``, and
the model stays valid (finite state, and it learns and predicts on afterwards).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest

from reference.batches import as_float64

fast = pytest.importorskip("fast")


@contextmanager
def _scribbling(X: np.ndarray, column: int, values: tuple[float, ...]) -> Iterator[None]:
    """A thread writing ``values`` into random rows of ``X[:, column]`` until the block
    ends, then restoring them."""
    stop = threading.Event()
    original = X[:, column].copy()

    def scribble() -> None:
        rng = np.random.default_rng(0)
        while not stop.is_set():
            rows = rng.integers(0, X.shape[0], size=4096)
            X[rows, column] = values[int(rng.integers(len(values)))]
            time.sleep(0.0002)
            X[rows, column] = original[rows]
            time.sleep(0.005)

    thread = threading.Thread(target=scribble, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def _survives(call: Callable[[], Any]) -> None:
    try:
        call()
    except ValueError:
        pass  # the C found a scribbled value in its private copy and refused the chunk


def _finite_snapshot(value: Any) -> None:
    if isinstance(value, float):
        assert np.isfinite(value) or value == -np.inf, value
    elif isinstance(value, dict):
        for v in value.values():
            _finite_snapshot(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _finite_snapshot(v)


def test_chunks_handed_to_the_engines_are_private_copies() -> None:
    X = np.zeros((10, 3))
    block = as_float64(X[2:5])
    assert not np.shares_memory(block, X) and block.flags.c_contiguous


def test_sgt_nominal_column_written_during_a_call() -> None:
    rng = np.random.default_rng(1)
    n = 400_000
    X = np.c_[rng.integers(0, 4, size=n).astype(float), rng.uniform(size=n)]
    y = X[:, 0] + X[:, 1]
    model = fast.SGTRegressor(nominal={0: 4}, grace_period=50)
    with _scribbling(X, 0, (1e9, -5.0, 2.5, np.nan)):
        for _ in range(2):
            _survives(lambda: model.partial_fit(X, y))
            _survives(lambda: model.predict(X))
    _finite_snapshot(model.snapshot())
    clean = X[:1000].copy()
    model.partial_fit(clean, y[:1000])
    assert np.all(np.isfinite(model.predict(clean)))


@pytest.mark.parametrize("make", [
    lambda: fast.DynamicTreeRegressor(n_particles=5, active_size=200,
                                      retirement="historical"),
    lambda: fast.ABACOCClassifier(budget=100),
])
def test_rows_written_with_nan_during_a_call(make: Callable[[], Any]) -> None:
    rng = np.random.default_rng(2)
    n = 60_000
    X = rng.uniform(size=(n, 3))
    y = (X[:, 0] > 0.5).astype(np.int64) if "ABACOC" in repr(make()) else X[:, 0].copy()
    model = make()
    with _scribbling(X, 1, (np.nan, np.inf, -np.inf)):
        for _ in range(2):
            _survives(lambda: model.partial_fit(X, y))
            _survives(lambda: model.predict(X))
    _finite_snapshot(model.snapshot())
    clean = X[:500].copy()
    model.partial_fit(clean, y[:500])
    assert np.all(np.isfinite(np.asarray(model.predict(clean), dtype=float)))

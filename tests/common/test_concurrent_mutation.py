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


# ---- deterministic: a write inside the C call, and C that refuses bad cells itself -------

_ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]

_WRITE_INSIDE_THE_CALL = r"""
import sys, threading, time
import numpy as np
sys.path.insert(0, sys.argv[1])
import fast

rng = np.random.default_rng(0)
d = 40
def rows(n):
    X = rng.uniform(size=(n, d + 1))
    X[:, 0] = rng.integers(0, 4, size=n)
    return X
make = lambda: fast.SGTClassifier(classes=list(range(10)), nominal={0: 4}, bins=4000, warmup=20,
                                  grace_period=1, delta=1e-12)
W = rows(40); yw = rng.integers(0, 10, size=40)
X = rows(1); y = np.array([2])
pristine = X.copy()
model = make(); model.partial_fit(W, yw)
m = model._engine._m
before = m.trees[0].nodes[0].cells[0].n
before1 = m.trees[8].nodes[0].cells[0].n
assert all(m.trees[c].n_nodes == 1 for c in range(9))
wrote = threading.Event(); finished = threading.Event()
def writer():
    # the C is inside the call once tree 0 counted the row and the last tree has not: the
    # other trees read the row again (469477c read it from the caller's array), so write a
    # nominal value no cell exists for into it now
    t0, t1 = m.trees[0], m.trees[8]
    while not finished.is_set():
        if t0.nodes[0].cells[0].n == before + 1 and t1.nodes[0].cells[0].n == before1:
            X[0, 0] = 1.5e9
            wrote.set()
            return
thread = threading.Thread(target=writer, daemon=True); thread.start()
try:
    model.partial_fit(X, y); outcome = "learned"
except ValueError:
    outcome = "refused"
finished.set(); thread.join()
twin = make(); twin.partial_fit(W, yw)
if outcome == "learned":
    twin.partial_fit(pristine, y)
    same = np.array_equal(model.predict_proba(pristine), twin.predict_proba(pristine))
else:
    same = model.n_seen_ == 40
print(outcome, bool(wrote.is_set()), same)
"""


def test_a_nominal_value_written_inside_the_c_call_never_crashes() -> None:
    """Pins the SGT nominal-column race (SIGSEGV on 469477c, 16 crashes in 16 runs there).
    A nine-tree committee learns one row; each tree's split attempt (grace period 1, 4,000
    bins by 40 features) scans every cell, so the committee spends a while on the row. A
    thread waits until tree 0 has counted the row and tree 8 has not, then writes an
    out-of-range nominal value (``1.5e9``) into the caller's array: 469477c, which checked
    the row once and then read it again tree by tree, used it as a cell index. Now the C
    reads a private copy of each row, checked where it is used: the child process ends
    normally and the model learned the row as it was at the call (probabilities identical
    to a twin fitted on an untouched copy)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _WRITE_INSIDE_THE_CALL, str(_ROOT)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    outcome, _wrote, same = done.stdout.split()
    assert outcome in ("learned", "refused")
    assert same == "True", done.stdout


def _raw_learn(model: Any, row: list[float], target: float) -> int:
    """Call the C entry point directly, past every Python-side check."""
    from fast._ffi import ffi, lib

    return int(lib.sgt_model_learn(model._engine._m, ffi.new("double[]", row), 1, target))


@pytest.mark.parametrize("bad", [4.0, -1.0, 1.5e9, 2.5, np.inf])
def test_the_c_refuses_an_out_of_range_nominal_value_itself(both: Any, bad: float) -> None:
    """Defence in depth for the nominal race: the C refuses a row whose nominal value is no
    category (``ST_EINVAL``, ``ValueError`` in the facade, as the reference raises for the
    same row) before using it as a cell index, and the model is unchanged."""
    from _compare import assert_snapshot_equal
    from fast._ffi import lib

    reference_backend, fast_backend = both
    models = []
    for backend in both:
        model = backend.SGTRegressor(nominal={0: 4}, warmup=5, grace_period=2)
        model.partial_fit([[float(i % 4), i / 10] for i in range(10)], list(range(10)))
        models.append(model)
    before = models[1].snapshot()
    assert _raw_learn(models[1], [bad, 0.5], 1.0) == lib.ST_EINVAL
    assert_snapshot_equal(before, models[1].snapshot())
    for model in models:
        with pytest.raises(ValueError):
            model.learn_one([bad, 0.5], 1.0)
    assert_snapshot_equal(models[0].snapshot(), models[1].snapshot())


_RESTORED_BAD_BUFFER = r"""
import sys
sys.path.insert(0, sys.argv[1])
import fast
from fast._ffi import ffi, lib
model = fast.SGTRegressor(nominal={0: 4}, warmup=4, grace_period=1)
model.partial_fit([[1.0, 0.1], [2.0, 0.2]], [1.0, 2.0])
m = model._engine._m
# a buffered row that no Python-side check saw (as a corrupted restore could give)
lib.sgt_model_buffer_restore(m, ffi.new("double[]", [1.5e9, 0.3]), 1, 3.0)
m.warm.warm_rows += 1
rc = lib.sgt_model_learn(m, ffi.new("double[]", [3.0, 0.4]), 1, 4.0)
print(rc == lib.ST_EINVAL, m.q.frozen == 0, m.warm.buf_items == 3)
"""


def test_the_warm_up_replay_checks_each_buffered_row_where_it_uses_it() -> None:
    """Defence in depth for the nominal race: the warm-up buffer is checked row by row as
    it is replayed, so an out-of-range nominal value in it (written into the buffer behind
    the checks) is refused with ``ST_EINVAL`` and the warm-up-ending row is undone, where
    469477c used it as a cell index (a crash: hence the child process)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _RESTORED_BAD_BUFFER, str(_ROOT)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert done.stdout.split() == ["True", "True", "True"], done.stdout

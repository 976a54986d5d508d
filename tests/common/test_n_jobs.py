"""``n_jobs``: every model's batch outputs are the same for any number of threads.

Checked in both backends (the reference accepts ``n_jobs`` and computes on one thread):

- every model and batch method named by the parameter's documentation gives identical
  arrays for ``n_jobs`` in ``None, 1, 2, 3, -1``, and the same as the other backend;
- ``set_params(n_jobs=...)`` and assigning ``n_jobs`` keep a fitted model (same
  snapshot), while any other parameter still restarts it; bad values raise ``ValueError``
  in the constructor, ``set_params`` and the setter, leaving the model unchanged;
- a pickle keeps ``n_jobs``; a model file does not store it (the file is the same for
  every value) and loads with the default; ``clone`` keeps it;
- the fast dynamic trees split a batch into many chunks (a small ``CHUNK_WORK``) with the
  same values, also on a model restored from a pickle (whose leaves share no point set);
- :func:`reference.parallel.run_chunks`: a Ctrl-C while the calling thread waits is raised
  only once no chunk is still running (also when a program's own handler raises it while
  the chunks are still being queued); an exception of a chunk reaches the caller;
  :func:`reference.parallel.row_chunks` covers the rows in order.
"""

from __future__ import annotations

import copy
import os
import pickle
import signal
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType, ModuleType
from typing import Any

import numpy as np
import pytest

from conftest import REFERENCE, require_fast
from reference import parallel
from reference.parallel import check_n_jobs, effective_jobs, row_chunks, run_chunks
from reference.persist import read_document

JOBS = (1, 2, 3, -1)


def _data(n: int, d: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, d))
    y = np.sin(4.0 * X[:, 0]) + X[:, 1] + 0.1 * rng.normal(size=n)
    return X, y


def _fitted(pkg: ModuleType) -> dict[str, tuple[Any, tuple[str, ...]]]:
    """Fitted models and the batch methods to compare (X-taking unless noted)."""
    X, y = _data(100)
    labels = (y > np.median(y)).astype(int) + (y > np.quantile(y, 0.8)).astype(int)
    out: dict[str, tuple[Any, tuple[str, ...]]] = {}
    for name, kw in [("dt-constant", {"active_size": 70}),
                     ("dt-linear", {"leaf": "linear", "intercept": "augmented",
                                    "active_size": 60, "retirement": "alc"}),
                     ("dt-linear-implicit", {"leaf": "linear"})]:
        model = pkg.DynamicTreeRegressor(n_particles=15, seed=3, **kw).fit(X, y)
        out[name] = (model, ("predict", "predict_dist", "alc", "score", "alc_active"))
    out["dt-class"] = (pkg.DynamicTreeClassifier(n_particles=15, seed=4).fit(X, labels),
                       ("predict", "predict_proba", "score", "entropy_active"))
    out["sgt-reg"] = (pkg.SGTRegressor(warmup=40, grace_period=20).fit(X, y),
                      ("predict", "score"))
    out["sgt-warmup"] = (pkg.SGTRegressor(warmup=400, grace_period=20).fit(X, y),
                         ("predict",))
    out["sgt-class"] = (pkg.SGTClassifier(warmup=40, grace_period=20).fit(X, labels),
                        ("predict", "predict_proba", "score"))
    out["sgt-loss"] = (pkg.SGT(warmup=40, grace_period=20).fit(X, y), ("predict",))
    out["abacoc"] = (pkg.ABACOCClassifier(mode="majority", search="kdtree").fit(X, labels),
                     ("predict", "predict_proba", "score"))
    out["abacoc-base"] = (pkg.ABACOCClassifier(variant="base").fit(X, labels > 0),
                          ("predict_proba",))
    return out


def _call(model: Any, method: str, X: np.ndarray, y: np.ndarray) -> Any:
    if method in ("alc_active", "entropy_active"):
        return getattr(model, method)()
    if method == "score":
        target = y if model._estimator_type == "regressor" else model.predict(X)
        return model.score(X, target)
    return getattr(model, method)(X)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    return bool(np.array_equal(np.asarray(a), np.asarray(b)))


@pytest.fixture(scope="module")
def fitted() -> dict[str, dict[str, tuple[Any, tuple[str, ...]]]]:
    out = {"reference": _fitted(REFERENCE)}
    out["fast"] = _fitted(require_fast())
    return out


@pytest.mark.parametrize("name", ["dt-constant", "dt-linear", "dt-linear-implicit",
                                  "dt-class", "sgt-reg", "sgt-warmup", "sgt-class",
                                  "sgt-loss", "abacoc", "abacoc-base"])
def test_batch_outputs_are_identical_for_every_n_jobs(fitted: Any, name: str) -> None:
    Q, yq = _data(120, seed=9)
    for backend in ("reference", "fast"):
        model, methods = fitted[backend][name]
        before = model.snapshot()
        for method in methods:
            model.set_params(n_jobs=None)
            want = _call(model, method, Q, yq)
            for jobs in JOBS if backend == "fast" else (2,):   # the reference: one thread
                model.set_params(n_jobs=jobs)
                got = _call(model, method, Q, yq)
                assert _same(got, want), (backend, name, method, jobs)
            model.set_params(n_jobs=None)
            if backend == "fast":   # and the same as the reference
                other = fitted["reference"][name][0]
                assert _same(_call(other, method, Q, yq), want), (name, method)
        assert model.snapshot() == before, (backend, name)


def test_many_chunks_and_a_restored_model_give_the_same_values(monkeypatch: Any) -> None:
    fast = require_fast()
    import fast.dynatree.engine as engine

    X, y = _data(200)
    Q, _ = _data(257, seed=5)
    model = fast.DynamicTreeRegressor(n_particles=30, seed=1, leaf="linear").fit(X, y)
    want = (model.predict(Q), model.predict_dist(Q))
    restored = pickle.loads(pickle.dumps(model))
    monkeypatch.setattr(engine, "CHUNK_WORK", 30 * 7)      # 7 rows per chunk
    for m in (model, restored):
        for jobs in (1, 2, 3):
            m.n_jobs = jobs
            assert np.array_equal(m.predict(Q), want[0])
            assert _same(m.predict_dist(Q), want[1])


@pytest.mark.parametrize("backend", ["reference", "fast"])
def test_set_params_n_jobs_keeps_the_fitted_model(backend: str) -> None:
    pkg = REFERENCE if backend == "reference" else require_fast()
    X, y = _data(60)
    model = pkg.DynamicTreeRegressor(n_particles=10, seed=2).fit(X, y)
    snap = model.snapshot()
    assert model.set_params(n_jobs=2) is model
    assert model.n_jobs == 2 and model.get_params()["n_jobs"] == 2
    assert model.snapshot() == snap and model.n_seen_ == 60
    model.n_jobs = -1
    assert model.get_params()["n_jobs"] == -1 and model.snapshot() == snap
    assert "n_jobs=-1" in repr(model)
    model.set_params(seed=5)                    # any other parameter restarts the model
    assert model.n_seen_ == 0 and model.n_jobs == -1
    sgt = pkg.SGTRegressor(warmup=10).fit(X, y)
    seen = sgt.n_seen_
    sgt.set_params(n_jobs=3)
    assert sgt.n_seen_ == seen and sgt.get_params()["n_jobs"] == 3


@pytest.mark.parametrize("backend", ["reference", "fast"])
@pytest.mark.parametrize("bad", [0, 1.5, True, "2", [2]])
def test_bad_n_jobs_raises_value_error(backend: str, bad: Any) -> None:
    pkg = REFERENCE if backend == "reference" else require_fast()
    for cls in (pkg.DynamicTreeRegressor, pkg.DynamicTreeClassifier, pkg.SGTRegressor,
                pkg.SGTClassifier, pkg.SGT, pkg.SGTMultiInstanceClassifier,
                pkg.ABACOCClassifier):
        with pytest.raises(ValueError, match="n_jobs"):
            cls(n_jobs=bad)
        model = cls(n_jobs=2)
        with pytest.raises(ValueError, match="n_jobs"):
            model.set_params(n_jobs=bad)
        with pytest.raises(ValueError, match="n_jobs"):
            model.n_jobs = bad
        assert model.n_jobs == 2, cls.__name__


@pytest.mark.parametrize("backend", ["reference", "fast"])
def test_pickles_keep_n_jobs_and_model_files_do_not_store_it(backend: str,
                                                           tmp_path: Any) -> None:
    pkg = REFERENCE if backend == "reference" else require_fast()
    X, y = _data(60)
    Q, _ = _data(40, seed=3)
    docs = []
    for jobs in (None, 2):
        model = pkg.DynamicTreeRegressor(n_particles=5, seed=2, n_jobs=jobs).fit(X, y)
        again = pickle.loads(pickle.dumps(model))
        assert again.n_jobs == jobs and copy.deepcopy(model).n_jobs == jobs
        assert np.array_equal(again.predict(Q), model.predict(Q))
        from sklearn.base import clone

        assert clone(model).get_params()["n_jobs"] == jobs
        path = tmp_path / f"m{jobs}.dwm"
        model.save(path)
        doc = read_document(path)
        assert "n_jobs" not in doc["params"]
        docs.append(doc["params"])
        loaded = pkg.load(path)
        assert loaded.n_jobs is None and loaded.get_params()["n_jobs"] is None
        assert np.array_equal(loaded.predict(Q), model.predict(Q))
    assert docs[0] == docs[1]
    bad = {**pickle.loads(pickle.dumps(model)).__getstate__(), "n_jobs": 0}
    from reference.state import StateFormatError

    fresh = type(model).__new__(type(model))
    with pytest.raises(StateFormatError, match="n_jobs"):
        fresh.__setstate__(bad)


def test_row_chunks_cover_the_rows_in_order() -> None:
    for n in (1, 2, 7, 100, 1001):
        for jobs in (1, 2, 3, 8):
            for max_rows in (1, 5, 1000):
                chunks = row_chunks(n, jobs, max_rows)
                assert chunks[0][0] == 0 and chunks[-1][1] == n
                assert all(a[1] == b[0] for a, b in zip(chunks, chunks[1:], strict=False))
                assert all(0 < b - a <= max(max_rows, -(-n // len(chunks)))
                           for a, b in chunks)
    assert row_chunks(0, 2, 10) == []
    assert len(row_chunks(10_000, 2, 2048)) % 2 == 0


def test_n_jobs_values() -> None:
    assert check_n_jobs(None) is None and check_n_jobs(np.int64(3)) == 3
    assert effective_jobs(None) == 1 and effective_jobs(4) == 4
    assert effective_jobs(-1) == (os.cpu_count() or 1)
    assert effective_jobs(-1000) == 1


@pytest.fixture
def ctrl_c_seen() -> Iterator[threading.Event]:
    """Python's SIGINT behaviour for the test (``KeyboardInterrupt`` in the main thread),
    whatever an earlier test left behind, plus an event set when the handler runs: a
    chunk can wait for the handler instead of guessing how long it takes to come."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers can only be set in the main thread")
    seen = threading.Event()

    def handler(signum: int, frame: FrameType | None) -> None:
        seen.set()
        signal.default_int_handler(signum, frame)

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield seen
    finally:
        signal.signal(signal.SIGINT, previous)


# a bound for waits on an event the code under test sets: never reached when the code
# works (the wait ends at the event), it only stops a broken run from hanging
EVENT_WAIT = 60.0


def test_ctrl_c_returns_only_when_no_chunk_runs(ctrl_c_seen: threading.Event) -> None:
    """A SIGINT while the calling thread waits: the running chunks finish, the others are
    cancelled, then KeyboardInterrupt is raised. The two chunks running when the signal
    comes last until its handler has run, so the other eight are still queued then."""
    state = {"running": 0, "ran": 0}
    lock = threading.Lock()

    def chunk(kill: bool) -> None:
        with lock:
            state["running"] += 1
        if kill:
            os.kill(os.getpid(), signal.SIGINT)
        ctrl_c_seen.wait(EVENT_WAIT)
        time.sleep(0.2)        # the queued chunks would need 4 x 0.2 s to run after it
        with lock:
            state["running"] -= 1
            state["ran"] += 1

    calls = [lambda: chunk(True)] + [lambda: chunk(False) for _ in range(9)]
    with pytest.raises(KeyboardInterrupt):
        run_chunks(calls, 2)
    assert ctrl_c_seen.is_set()
    assert state["running"] == 0
    assert state["ran"] < len(calls)            # the queued chunks were cancelled


def test_ctrl_c_that_reaches_a_pool_thread_is_taken_while_the_chunk_runs() -> None:
    """The kernel may hand a process's SIGINT to any of its threads. When a pool thread
    gets it, the waiting caller must still run Python's handler within a poll interval
    (``WAIT_POLL``), not only once the chunk it waits for has ended: here the chunk runs
    until the handler has run (an event; at most ``EVENT_WAIT`` seconds, far more than a
    busy machine needs), and the handler must run before that. The signalling chunk is
    the last one queued, so the caller is past handing out chunks when it comes."""
    handled = threading.Event()
    state: dict[str, bool] = {}

    def handler(signum: int, frame: FrameType | None) -> None:
        handled.set()
        raise KeyboardInterrupt

    def chunk(kill: bool) -> None:
        if kill:
            signal.pthread_kill(threading.get_ident(), signal.SIGINT)
            state["handled_while_the_chunk_ran"] = handled.wait(EVENT_WAIT)
            state["chunk_ended"] = True
        else:
            time.sleep(0.01)

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers can only be set in the main thread")
    previous = signal.signal(signal.SIGINT, handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            run_chunks([lambda: chunk(False) for _ in range(5)] + [lambda: chunk(True)], 2)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert state.get("chunk_ended"), "run_chunks returned while the chunk still ran"
    assert state["handled_while_the_chunk_ran"]


def test_ctrl_c_while_the_chunks_are_handed_out_waits_for_the_running_ones(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A program's own SIGINT handler (which the hand-out guard leaves alone) raising
    while ``run_chunks`` is still queueing chunks: the exception reaches the caller only
    once no chunk runs. The first chunk raises the signal from its pool thread and runs on
    until the handler has run; the pool's ``submit`` is made to wait for the handler
    before queueing the second chunk, so the handler runs (and raises) mid-queueing."""
    handled = threading.Event()
    state: dict[str, bool] = {}

    def handler(signum: int, frame: FrameType | None) -> None:
        handled.set()
        raise KeyboardInterrupt

    def first() -> None:
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)
        handled.wait(EVENT_WAIT)
        time.sleep(0.1)
        state["first_ended"] = True

    real_pool = parallel._pool

    class SlowToQueue:
        """A pool whose ``submit`` waits, after the first chunk, for the handler: a
        polling wait, so that the calling (main) thread runs the handler in it."""

        def __init__(self) -> None:
            self.pool = real_pool()
            self.queued = 0

        def submit(self, fn: Callable[..., None], /, *args: object) -> object:
            deadline = time.monotonic() + EVENT_WAIT
            while self.queued and not handled.is_set() and time.monotonic() < deadline:
                time.sleep(0.001)
            self.queued += 1
            return self.pool.submit(fn, *args)

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers can only be set in the main thread")
    monkeypatch.setattr(parallel, "_pool", SlowToQueue)
    previous = signal.signal(signal.SIGINT, handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            run_chunks([first] + [lambda: None for _ in range(5)], 2)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert handled.is_set()
    assert state.get("first_ended"), "run_chunks returned while a chunk still ran"


def test_an_exception_in_a_chunk_reaches_the_caller() -> None:
    running = []
    lock = threading.Lock()

    def slow() -> None:
        with lock:
            running.append(1)
        time.sleep(0.1)
        with lock:
            running.pop()

    def boom() -> None:
        raise MemoryError("chunk")

    with pytest.raises(MemoryError, match="chunk"):
        run_chunks([slow, boom, slow, slow], 3)
    assert not running                          # the running chunks were waited for


def test_abacoc_threads_count_the_search_work_of_one_thread() -> None:
    """The k-d tree's query and visit counts (which decide, while learning, whether the
    tree still pays) are the same after a threaded batch, so learning continues alike."""
    fast = require_fast()
    rng = np.random.default_rng(3)
    X = rng.uniform(size=(400, 4))
    labels = (X[:, 0] + X[:, 1] > 1.0).astype(int)
    Q = rng.uniform(size=(300, 4))
    models = [fast.ABACOCClassifier(mode="majority", search=search, search_threshold=8,
                                    n_jobs=jobs).fit(X[:200], labels[:200])
              for jobs in (None, 3) for search in ("kdtree", "auto")]
    for model in models:
        model.predict(Q)
        model.predict_proba(Q)
    trees = [m._engine._h.tree for m in models]
    assert trees[0] != fast_null()              # the k-d tree answers the queries
    for one, many in ((0, 2), (1, 3)):
        if trees[one] != fast_null():
            assert (trees[one].queries, trees[one].visited) == \
                (trees[many].queries, trees[many].visited)
        else:
            assert trees[many] == fast_null()
    for model in models:
        model.partial_fit(X[200:], labels[200:])
    for one, many in ((0, 2), (1, 3)):
        assert models[one].snapshot() == models[many].snapshot()
        assert np.array_equal(models[one].predict_proba(Q), models[many].predict_proba(Q))


def fast_null() -> Any:
    from fast._ffi import ffi

    return ffi.NULL

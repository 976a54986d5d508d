"""``n_jobs`` across processes and over a process's life: forks, the thread cap, refusals.

Checked in both backends (the reference accepts ``n_jobs`` and computes on one thread, so
its half proves that the same calls give the same numbers there):

- a child made by ``multiprocessing``'s ``fork`` after its parent predicted with
  ``n_jobs=2`` predicts with ``n_jobs=2`` too, the parent's numbers, in every family (the
  fork handler drops the inherited pool, whose threads do not exist in the child);
- whatever sequence of ``n_jobs`` values a process uses (2 to 64 here, under a 3 GB
  address-space limit, in a fresh process), the pool threads alive never exceed
  :data:`reference.parallel.MAX_THREADS` (counted by name with ``threading`` and in all by
  ``/proc/self/status``), and every call returns the numbers of ``n_jobs=None``;
- the cap is pinned from both sides: a call with ``n_jobs = MAX_THREADS`` runs that many
  chunks at once, one with ``MAX_THREADS + 1`` still ``MAX_THREADS``; a call with
  ``n_jobs = 3`` never more than 3;
- a refused thread (``RuntimeError: can't start new thread``) makes the call warn and run
  on the calling thread, with the same numbers and the model unchanged.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from _installed import PACKAGE_PARENT

from reference import parallel
from reference.parallel import MAX_THREADS, run_chunks

FAMILIES = ("dynatree", "sgt", "abacoc")
pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="fork and /proc: Linux")


def _model(pkg: ModuleType, family: str) -> tuple[Any, np.ndarray]:
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(120, 3))
    labels = (X[:, 0] + X[:, 1] > 1.0).astype(int)
    if family == "dynatree":
        model = pkg.DynamicTreeClassifier(n_particles=10, seed=2, n_jobs=2)
    elif family == "sgt":
        model = pkg.SGTClassifier(warmup=30, grace_period=20, n_jobs=2)
    else:
        model = pkg.ABACOCClassifier(n_jobs=2)
    return model.fit(X, labels), rng.uniform(size=(300, 3))


def _child(model: Any, Q: np.ndarray, out: Any) -> None:
    out.put(np.asarray(model.predict_proba(Q)).tolist())


@pytest.mark.parametrize("family", FAMILIES)
def test_a_forked_child_predicts_with_threads_as_its_parent(backend: ModuleType,
                                                            family: str) -> None:
    model, Q = _model(backend, family)
    expected = np.asarray(model.predict_proba(Q))     # the pool now has threads
    context = multiprocessing.get_context("fork")
    out = context.Queue()
    child = context.Process(target=_child, args=(model, Q, out))
    child.start()
    try:
        got = out.get(timeout=60)
    finally:
        child.join(10)
        if child.is_alive():
            child.kill()
            child.join()
    assert child.exitcode == 0
    np.testing.assert_array_equal(np.asarray(got), expected)


_SEQUENCE = textwrap.dedent("""
    import json, resource, sys, threading
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
    import numpy as np
    pkg = __import__(sys.argv[1])
    from reference.parallel import MAX_THREADS

    def proc_threads():
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("Threads:"))

    rng = np.random.default_rng(0)
    X = rng.uniform(size=(80, 3))
    labels = (X[:, 0] > 0.5).astype(int)
    Q = rng.uniform(size=(200, 3))
    models = [pkg.DynamicTreeClassifier(n_particles=5, seed=1).fit(X, labels),
              pkg.SGTClassifier(warmup=20, grace_period=10).fit(X, labels),
              pkg.ABACOCClassifier().fit(X, labels)]
    expected = [m.predict_proba(Q) for m in models]
    before = proc_threads()
    most_named = most_proc = 0
    same = True
    for jobs in range(2, 65):
        for m, e in zip(models, expected):
            m.set_params(n_jobs=jobs)
            same = same and bool(np.array_equal(m.predict_proba(Q), e))
        named = sum(t.name.startswith("driftwood") for t in threading.enumerate())
        most_named = max(most_named, named)
        most_proc = max(most_proc, proc_threads() - before)
    print(json.dumps({"cap": MAX_THREADS, "named": most_named, "proc": most_proc,
                      "same": same}))
""")


@pytest.mark.skipif("libasan" in os.environ.get("LD_PRELOAD", ""),
                    reason="AddressSanitizer reserves more address space than the limit")
def test_the_pool_threads_stay_within_the_cap_whatever_the_n_jobs_sequence(
        backend: ModuleType) -> None:
    env = {**os.environ, "PYTHONPATH": str(PACKAGE_PARENT)}
    done = subprocess.run([sys.executable, "-c", _SEQUENCE, backend.__name__], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["same"]
    assert figures["named"] <= figures["cap"]
    assert figures["proc"] <= figures["cap"]


def _peak_concurrency(jobs: int, n_calls: int, hold: float = 1.0) -> int:
    """The most calls running at once when ``n_calls`` calls each stay until ``jobs`` run
    together (or ``hold`` seconds pass)."""
    state = {"running": 0, "peak": 0}
    lock = threading.Lock()

    def call() -> None:
        with lock:
            state["running"] += 1
            state["peak"] = max(state["peak"], state["running"])
        deadline = time.monotonic() + hold
        while time.monotonic() < deadline:
            with lock:
                if state["peak"] >= jobs:
                    break
            time.sleep(0.002)
        with lock:
            state["running"] -= 1

    run_chunks([call] * n_calls, jobs)
    return state["peak"]


def test_a_call_runs_at_most_n_jobs_chunks_at_once() -> None:
    assert _peak_concurrency(3, 12, hold=0.3) == 3


def test_the_thread_cap_holds_at_the_limit_and_one_past_it() -> None:
    assert _peak_concurrency(MAX_THREADS, MAX_THREADS) == MAX_THREADS
    assert _peak_concurrency(MAX_THREADS + 1, MAX_THREADS + 1) == MAX_THREADS


@pytest.fixture
def refused_threads(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A fresh pool whose threads the system refuses to start."""
    start = threading.Thread.start

    def refuse(self: threading.Thread) -> None:
        if self.name.startswith("driftwood"):
            raise RuntimeError("can't start new thread")
        start(self)

    monkeypatch.setattr(parallel, "_POOL", None)
    monkeypatch.setattr(parallel, "_WARNED", False)
    monkeypatch.setattr(threading.Thread, "start", refuse)
    yield
    pool = parallel._POOL
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)


@pytest.mark.parametrize("family", FAMILIES)
def test_a_refused_thread_falls_back_to_the_calling_thread(backend: ModuleType, family: str,
                                                          refused_threads: None) -> None:
    model, Q = _model(backend, family)
    model.set_params(n_jobs=None)
    expected = np.asarray(model.predict_proba(Q))
    snapshot = model.snapshot()
    model.set_params(n_jobs=4)
    if backend.__name__ == "fast":
        with pytest.warns(RuntimeWarning, match="no new thread"):
            got = model.predict_proba(Q)
    else:
        got = model.predict_proba(Q)
    np.testing.assert_array_equal(np.asarray(got), expected)
    np.testing.assert_array_equal(np.asarray(model.predict_proba(Q)), expected)
    assert json.dumps(model.snapshot(), sort_keys=True, default=str) == \
        json.dumps(snapshot, sort_keys=True, default=str)

"""``n_jobs``: batch predictions split by rows over a pool of threads, the same numbers.

Every model takes scikit-learn's ``n_jobs`` constructor parameter: ``None`` (the default)
or ``1`` runs a batch call on the calling thread, ``k > 1`` on ``k`` threads, ``-1`` on one
thread per core (``-2`` one fewer, joblib's convention). It is an execution setting, not
part of the model: it never changes a result, ``set_params(n_jobs=...)`` changes it on a
fitted model without restarting it, and a model file or pickle written with any value
loads as the same model.

How a batch is shared (the ``fast`` backend; the ``reference`` backend accepts ``n_jobs``
and computes the same numbers on one thread): the rows are cut into contiguous chunks,
each chunk is one call into C that writes its own slice of the output, and ``k`` workers
take the chunks in order and run them on the threads of one pool shared by every model
and every call. cffi releases the GIL during a C call, so the chunks run in parallel. A
row's value is computed by the same operations in the same order whichever chunk and
thread it falls in (each row's sum over particles or trees is its own), so the output is
bit-identical for every ``n_jobs``. The C must only read the model during these calls:
whatever a call caches is built before the chunks start, on the calling thread, while the
model's lock is held (:mod:`reference.locking`).

Threads: the pool is created on first use and starts its threads lazily, one when a
worker finds none idle, up to :data:`MAX_THREADS` in all: whatever sequence of ``n_jobs``
values (and of concurrent calls) a process uses, no more than ``MAX_THREADS`` pool threads
are ever alive; a call with ``n_jobs`` above the cap runs ``MAX_THREADS`` chunks at a time
(the same numbers). Idle threads wait for the next call and are reused. If the system
refuses a new thread (``RuntimeError: can't start new thread``, for instance under a
memory limit), the call warns once (``RuntimeWarning``) and the calling thread runs the
chunks no pool thread takes: the call still returns the same numbers and the model is
never changed by a batch prediction.

Processes: after ``os.fork`` (multiprocessing's ``fork`` start method) the child has none
of its parent's threads; a fork handler (``os.register_at_fork``) makes the child drop the
inherited pool and its lock, and the child's first threaded call makes a new pool, so a
forked child predicts with any ``n_jobs`` as its parent does. ``spawn`` and
``forkserver`` children start with no pool at all.

Ctrl-C: a Ctrl-C while the workers are handed to the pool is held until all are queued
(:class:`reference.interrupt.Interruptible`); the calling thread then waits for the
chunks, waking every :data:`WAIT_POLL` seconds so that Python runs its signal handlers
whichever thread the signal reached; on ``KeyboardInterrupt`` no chunk not yet started
starts, the running ones (each a short C call) are waited for, so that no thread still
reads the model when the exception reaches the caller, and the interrupt is raised.
"""

from __future__ import annotations

import concurrent.futures
import math
import numbers
import os
import threading
import warnings
from collections.abc import Callable

from reference.interrupt import Interruptible

__all__ = ["MAX_THREADS", "check_n_jobs", "effective_jobs", "row_chunks", "run_chunks"]

MAX_THREADS = max(32, os.cpu_count() or 1)
"""The most pool threads alive at once in a process (32, or one per core on a machine
with more cores): the pool never starts more, whatever ``n_jobs`` values are used."""

_POOL: concurrent.futures.ThreadPoolExecutor | None = None
"""The one pool of the process, created on first use (and again in a forked child)."""
_POOL_LOCK = threading.Lock()
_WARNED = False


def _forget_pool_in_child() -> None:
    """Fork handler of the child: the parent's pool threads do not exist here, so the pool
    (and its lock, which a parent thread may have held at the fork) is dropped; the
    child's first threaded call makes a new one."""
    global _POOL, _POOL_LOCK
    _POOL = None
    _POOL_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool_in_child)

WAIT_POLL = 0.05
"""Seconds between the calling thread's checks for Ctrl-C while it waits for chunks."""


def check_n_jobs(n_jobs: object) -> int | None:
    """``n_jobs`` as ``None`` or a non-zero int; ``ValueError`` for anything else (a bool,
    a float, zero)."""
    if n_jobs is None:
        return None
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral):
        raise ValueError(f"n_jobs must be None or a non-zero int, got {n_jobs!r}")
    value = int(n_jobs)
    if value == 0:
        raise ValueError("n_jobs must be None or a non-zero int, got 0")
    return value


def effective_jobs(n_jobs: int | None) -> int:
    """Threads a call with ``n_jobs`` uses: 1 for ``None``; ``k`` for ``k > 0``;
    ``cores + 1 + k`` (at least 1) for ``k < 0``."""
    if n_jobs is None:
        return 1
    if n_jobs > 0:
        return n_jobs
    return max(1, (os.cpu_count() or 1) + 1 + n_jobs)


def row_chunks(n: int, jobs: int, max_rows: int) -> list[tuple[int, int]]:
    """Contiguous ``(start, stop)`` chunks covering ``range(n)``: a multiple of ``jobs``
    chunks of nearly equal size, each at most ``max_rows`` rows (so that Ctrl-C waits
    for one short call at most)."""
    if n <= 0:
        return []
    jobs = max(1, jobs)
    rounds = max(1, math.ceil(n / (jobs * max(1, max_rows))))
    count = min(n, jobs * rounds)
    size = math.ceil(n / count)
    return [(start, min(n, start + size)) for start in range(0, n, size)]


def _pool() -> concurrent.futures.ThreadPoolExecutor:
    """The process's pool of at most :data:`MAX_THREADS` threads."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = concurrent.futures.ThreadPoolExecutor(
                max_workers=MAX_THREADS, thread_name_prefix="driftwood")
        return _POOL


class _Chunks:
    """The chunks of one call and the workers taking them in order: a worker takes the
    next chunk until none is left or the call stops (a chunk raised, or Ctrl-C)."""

    def __init__(self, calls: list[Callable[[], None]]) -> None:
        self.calls = calls
        self.next = 0
        self.running = 0
        self.stopped = False
        self.errors: dict[int, BaseException] = {}
        self.changed = threading.Condition(threading.Lock())

    def _take(self) -> int | None:
        with self.changed:
            if self.stopped or self.next >= len(self.calls):
                return None
            self.running += 1
            self.next += 1
            return self.next - 1

    def work(self) -> None:
        """Run chunks until none is left (a worker; the calling thread in the fallback)."""
        while (i := self._take()) is not None:
            try:
                self.calls[i]()
            except BaseException as exc:  # reported to the caller, in list order
                with self.changed:
                    self.errors[i] = exc
                    self.stopped = True
            finally:
                with self.changed:
                    self.running -= 1
                    self.changed.notify_all()

    def stop(self) -> None:
        """No chunk starts after this (the running ones finish)."""
        with self.changed:
            self.stopped = True

    def settled(self) -> bool:
        """True once no chunk runs and none will start: no thread reads the model."""
        with self.changed:
            return self.running == 0 and (self.stopped or self.next >= len(self.calls))

    def wait(self, timeout: float | None) -> None:
        with self.changed:
            if not (self.running == 0 and (self.stopped or self.next >= len(self.calls))):
                self.changed.wait(timeout)


def _hand_out(chunks: _Chunks, workers: int) -> bool:
    """Queue ``workers`` workers on the pool; False if a thread could not be started
    (the calling thread then works too)."""
    global _WARNED
    try:
        pool = _pool()
        for _ in range(workers):
            pool.submit(chunks.work)
    except RuntimeError as exc:      # "can't start new thread" (or a pool shut down)
        if not _WARNED:
            _WARNED = True
            warnings.warn(f"n_jobs: no new thread could be started ({exc}); the calling "
                          "thread runs the chunks the pool's threads do not take",
                          RuntimeWarning, stacklevel=4)
        return False
    return True


def run_chunks(calls: list[Callable[[], None]], jobs: int) -> None:
    """Run ``calls`` (independent, each writing its own output) on ``jobs`` threads of the
    pool (at most :data:`MAX_THREADS`); returns when all are done, raising the first
    exception of a call in list order (no call starts after one has raised). One thread
    (or one call) runs them here, in order."""
    if jobs <= 1 or len(calls) <= 1:
        for call in calls:
            call()
        return
    chunks = _Chunks(calls)
    try:
        with Interruptible():
            # a Ctrl-C while the workers are handed out is held until all are queued (the
            # guard raises it on leaving), so that none runs unseen after we return
            queued = _hand_out(chunks, min(jobs, len(calls), MAX_THREADS))
        if not queued:
            chunks.work()
        while not chunks.settled():
            # a timed wait, so that the calling thread runs Python's signal handlers at
            # least every WAIT_POLL seconds, even when the signal reached another thread
            # (and on Windows, where an untimed wait ignores Ctrl-C)
            chunks.wait(WAIT_POLL)
    except BaseException:
        chunks.stop()
        interrupted = False
        while True:                  # no thread may still read the model on the way out
            try:
                while not chunks.settled():
                    chunks.wait(WAIT_POLL)
                break
            except KeyboardInterrupt:
                interrupted = True
        if interrupted:
            raise KeyboardInterrupt from None
        raise
    if chunks.errors:
        # a Ctrl-C taken by the calling thread while it ran chunks itself comes first
        first = min(chunks.errors, key=lambda i: (
            not isinstance(chunks.errors[i], KeyboardInterrupt), i))
        raise chunks.errors[first]

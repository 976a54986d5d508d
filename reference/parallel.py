"""``n_jobs``: batch predictions split by rows over a pool of threads, the same numbers.

Every model takes scikit-learn's ``n_jobs`` constructor parameter: ``None`` (the default)
or ``1`` runs a batch call on the calling thread, ``k > 1`` on ``k`` threads, ``-1`` on one
thread per core (``-2`` one fewer, joblib's convention). It is an execution setting, not
part of the model: it never changes a result, ``set_params(n_jobs=...)`` changes it on a
fitted model without restarting it, and a model file or pickle written with any value
loads as the same model.

How a batch is shared (the ``fast`` backend; the ``reference`` backend accepts ``n_jobs``
and computes the same numbers on one thread): the rows are cut into contiguous chunks,
each chunk is one call into C that writes its own slice of the output, and the calls run
on a pool of threads that lives as long as the process (created on first use; one pool
per thread count asked for). cffi releases the GIL during a C call, so the chunks run in
parallel. A row's value is computed by the same operations in the same order whichever
chunk and thread it falls in (each row's sum over particles or trees is its own), so the
output is bit-identical for every ``n_jobs``. The C must only read the model during these
calls: whatever a call caches is built before the chunks start, on the calling thread,
while the model's lock is held (:mod:`reference.locking`).

Ctrl-C: a Ctrl-C while the chunks are handed to the pool is held until all are queued
(:class:`reference.interrupt.Interruptible`); the calling thread then waits for them,
waking every :data:`WAIT_POLL` seconds so that Python runs its signal handlers whichever
thread the signal reached; on
``KeyboardInterrupt`` the chunks not yet started are cancelled, the running ones (each a
short C call) are waited for, so that no thread still reads the model when the exception
reaches the caller, and the interrupt is raised.
"""

from __future__ import annotations

import concurrent.futures
import math
import numbers
import os
import threading
from collections.abc import Callable

from reference.interrupt import Interruptible

__all__ = ["check_n_jobs", "effective_jobs", "row_chunks", "run_chunks"]

_POOLS: dict[int, concurrent.futures.ThreadPoolExecutor] = {}
"""One pool of ``k`` threads per thread count ``k`` asked for, created on first use and
kept for the life of the process (its threads wait idle between calls)."""
_POOLS_LOCK = threading.Lock()

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


def _pool(jobs: int) -> concurrent.futures.ThreadPoolExecutor:
    """The pool of ``jobs`` threads."""
    with _POOLS_LOCK:
        pool = _POOLS.get(jobs)
        if pool is None:
            pool = _POOLS[jobs] = concurrent.futures.ThreadPoolExecutor(
                max_workers=jobs, thread_name_prefix=f"driftwood-{jobs}")
        return pool


def _run_into(call: Callable[[], None], future: concurrent.futures.Future[None]) -> None:
    """Run ``call`` on a pool thread with its outcome in ``future``; nothing if ``future``
    was cancelled before the thread took it."""
    if not future.set_running_or_notify_cancel():
        return
    try:
        call()
    except BaseException as error:  # noqa: BLE001 -- handed to the caller, as the pool does
        future.set_exception(error)
    else:
        future.set_result(None)


def run_chunks(calls: list[Callable[[], None]], jobs: int) -> None:
    """Run ``calls`` (independent, each writing its own output) on ``jobs`` threads of the
    pool; returns when all are done, raising the first exception of a call in list
    order. One thread (or one call) runs them here, in order."""
    if jobs <= 1 or len(calls) <= 1:
        for call in calls:
            call()
        return
    pool = _pool(jobs)
    # every future exists before the first chunk is queued: a KeyboardInterrupt raised by
    # a program's own SIGINT handler while the chunks are handed out (which the guard
    # below does not hold) still finds each chunk's future, cancels the unqueued ones and
    # waits for those already running
    futures: list[concurrent.futures.Future[None]] = [
        concurrent.futures.Future() for _ in calls]
    try:
        with Interruptible():
            # a Ctrl-C while the chunks are handed out is held until all are queued (the
            # guard raises it on leaving), so that none runs unseen after we return
            for call, future in zip(calls, futures, strict=True):
                pool.submit(_run_into, call, future)
        for future in futures:
            while not future.done():
                # a timed wait, so that the calling thread runs Python's signal handlers
                # at least every WAIT_POLL seconds, even when the signal reached another
                # thread (and on Windows, where an untimed wait ignores Ctrl-C)
                concurrent.futures.wait((future,), timeout=WAIT_POLL)
            future.result()
    except BaseException:
        for future in futures:
            future.cancel()
        interrupted = False
        while True:                  # no thread may still read the model on the way out
            try:
                # done() is true of a running chunk once it has ended and of a cancelled
                # one (never to start, queued or not); wait() would wait for a cancelled
                # future that was never queued for ever
                running = [future for future in futures if not future.done()]
                while running:
                    concurrent.futures.wait(running, timeout=WAIT_POLL)
                    running = [future for future in running if not future.done()]
                break
            except KeyboardInterrupt:
                interrupted = True
        if interrupted:
            raise KeyboardInterrupt from None
        raise

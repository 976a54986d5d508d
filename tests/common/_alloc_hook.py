"""The allocation-failure hook of ``csrc/common/alloc.c`` as a context manager, and the
sweep of the hardening tests built on it.

``alloc_fail_after(n)`` makes the n-th next allocation of the C library return NULL once;
:func:`fail_at` arms it for the duration of a block and reports whether a failure was
actually injected (the block may make fewer than ``n + 1`` allocations);
:func:`sweep_allocation_failures` fails each allocation of one call in turn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def fail_at(n: int) -> Iterator[list[bool]]:
    """Arm the hook for the block; yields ``[injected?]``, set when the block ends."""
    from fast._ffi import lib

    flag = [False]
    before = lib.alloc_failures()
    lib.alloc_fail_after(n)
    try:
        yield flag
    finally:
        lib.alloc_fail_after(-1)
        flag[0] = lib.alloc_failures() > before


def sweep_allocation_failures(call: Callable[[], object], unchanged: Callable[[int], None],
                              limit: int = 100_000) -> int:
    """Make allocation ``n`` of ``call()`` fail, for ``n = 0, 1, ...``: each time
    ``call()`` must raise ``MemoryError`` (a swallowed failure is an assertion error) and
    ``unchanged(n)``, the caller's check that the model is as it was, must pass. The sweep
    ends at the first ``n`` at which no failure was injected: that call ran clean and
    must not have raised. Returns the number of failures injected (``n``); more than
    ``limit`` allocations is an assertion error."""
    for n in range(limit):
        error = None
        with fail_at(n) as flag:
            try:
                call()
            except MemoryError as exc:
                error = exc
        if not flag[0]:
            assert error is None, f"the clean call raised {error!r}"
            return n
        assert error is not None, f"allocation {n}: failure swallowed"
        unchanged(n)
    raise AssertionError(f"the call made more than {limit} allocations")

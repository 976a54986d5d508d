"""The allocation-failure hook of ``csrc/common/alloc.c`` as a context manager.

Used by the hardening tests.

``alloc_fail_after(n)`` makes the n-th next allocation of the C library return NULL once;
:func:`fail_at` arms it for the duration of a block and reports whether a failure was
actually injected (the block may make fewer than ``n + 1`` allocations).
"""

from __future__ import annotations

from collections.abc import Iterator
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

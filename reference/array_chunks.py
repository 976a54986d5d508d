"""Numeric 2-D arrays read in bounded chunks: what a batch call costs beyond its input.

An engine that takes arrays (the C engines) is handed a batch a chunk of rows at a time:
a float64 C-contiguous array is passed as it is (a chunk is a view, nothing is copied);
any other layout or dtype (Fortran order, a column slice, float32, integers) is converted
one chunk at a time. The extra memory of a call is therefore one chunk
(:data:`CHUNK_BYTES`), whatever the number of rows. A ``numpy.memmap`` input is read
through its mapping, and the pages of each chunk are handed back to the operating system
once the chunk is done (:func:`release`), so that a file larger than memory streams
through with flat resident memory; the data are untouched (the next read maps them again).
"""

from __future__ import annotations

import ctypes
import mmap
from collections.abc import Iterator
from typing import Any

import numpy as np

from reference.interrupt import pieces

__all__ = ["CHUNK_BYTES", "all_finite", "as_float64", "chunk_rows", "chunks",
           "is_numeric_table", "release"]

CHUNK_BYTES = 1 << 22
"""Bytes of float64 values per chunk (4 MiB): large enough that the Python around each
chunk costs nothing next to its rows, small enough to stay in cache-friendly sizes."""


def is_numeric_table(X: Any) -> bool:
    """True for a 2-D array of floats or integers with at least one column (the inputs
    whose every value converts to float64 without a Python object per value)."""
    return (isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype.kind in "fiu"
            and X.shape[1] > 0)


def chunk_rows(width: int, limit: int | None = None) -> int:
    """Rows per chunk of ``width`` float64 values (at least 1, at most ``limit``)."""
    rows = max(1, CHUNK_BYTES // (8 * max(1, width)))
    return rows if limit is None else max(1, min(rows, limit))


def as_float64(block: np.ndarray) -> np.ndarray:
    """``block`` as a float64 C-contiguous array: itself if it already is one, else a
    converted copy (the size of the block)."""
    return np.ascontiguousarray(block, dtype=np.float64)


def chunks(X: np.ndarray, size: int) -> Iterator[tuple[int, int, np.ndarray]]:
    """``(start, stop, rows)`` for consecutive chunks of at most ``size`` rows of ``X``,
    ``rows`` in float64 C-contiguous form; each chunk's memory-mapped pages are released
    when the next one is asked for (:func:`release`)."""
    for start, stop in pieces(X.shape[0], size):
        yield start, stop, as_float64(X[start:stop])
        release(X, start, stop)


def all_finite(X: np.ndarray, size: int) -> bool:
    """True if no value of ``X`` (a numeric table) is NaN or infinite once converted to
    float64, checked a chunk of ``size`` rows at a time (integers are always finite)."""
    if X.dtype.kind != "f":
        return True
    for _, _, rows in chunks(X, size):
        if not bool(np.isfinite(rows).all()):
            return False
    return True


_MADV_DONTNEED = getattr(mmap, "MADV_DONTNEED", None)
_madvise: Any = None
if _MADV_DONTNEED is not None:
    try:
        _madvise = ctypes.CDLL(None, use_errno=True).madvise
        _madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
        _madvise.restype = ctypes.c_int
    except (OSError, AttributeError):  # pragma: no cover - platforms without madvise
        _madvise = None


_LOOKBACK = 1 << 22
"""Bytes before a chunk released with it: reading a chunk maps the whole large folio (up to
2 MiB) of the page cache around its first row again, rows released with the chunk before."""


def release(X: np.ndarray, start: int, stop: int) -> None:
    """Drop rows (items of a 1-D array) ``start:stop`` of a shared ``numpy.memmap`` (modes
    ``r``, ``r+``, ``w+``) from this process's resident memory (``madvise(MADV_DONTNEED)``
    on every page they touch, and on the pages just before them, which reading the rows
    maps again). The file's data are unchanged: written pages stay in the page
    cache and reach the file as usual, and reading them again maps them back. Other
    arrays, copy-on-write maps (mode ``c``, whose pages would be lost) and row layouts
    that are not one byte range per row are left alone."""
    if _madvise is None or not isinstance(X, np.memmap) or stop <= start:
        return
    if getattr(X, "mode", "c") == "c" or getattr(X, "_mmap", None) is None:
        return
    row_bytes = X.strides[0]
    width = 1 if X.ndim == 1 else X.shape[1]
    if X.ndim > 2 or X.strides[-1] != X.itemsize or row_bytes < X.itemsize * width:
        return
    page = mmap.PAGESIZE
    base = X.ctypes.data
    begin = max(base, base + start * row_bytes - _LOOKBACK)
    end = base + stop * row_bytes
    # whole pages, rounded outwards: a large folio only partly covered would stay mapped,
    # and a neighbouring row that loses its page simply maps it again when read
    first = begin // page * page
    last = -(-end // page) * page
    _madvise(first, last - first, _MADV_DONTNEED)

"""Batches read chunk by chunk: the array path of the batch methods.

A batch method that copied its whole input into float64 (and its labels into Python lists)
held several times the batch in memory. The facades of the models whose engine reads arrays
(the ``fast`` engines of every family, ``array_batches = True``) instead read a numeric 2-D
array (and a numeric or text label vector) in chunks of at most :data:`CHUNK_BYTES` of
float64 values: each chunk is converted (a view when it already is C-contiguous float64, a
copy of the chunk otherwise), checked with vectorised numpy, and handed to the engine as a
private copy (the engine checks and reads that copy, so another thread writing to the input
cannot change what the engine has checked). Memory of a batch call is then its input plus
one chunk, whatever the batch size. A ``numpy.memmap`` input is read through its mapping,
and the pages of each chunk are handed back to the operating system once the chunk is done
(:func:`release`), so that a file larger than memory streams through with flat resident
memory; the data are untouched (the next read maps them again). Every chunk holds exactly
the values the whole-batch conversion would give, so results do not change; the checks
raise the errors of the whole-batch checks, with the same messages. Inputs of any other
kind (lists, object arrays, mappings, ...) take the general path of each facade.
"""

from __future__ import annotations

import ctypes
import mmap
from collections.abc import Callable, Hashable, Iterator
from typing import Any

import numpy as np

from reference.interrupt import pieces

__all__ = ["CHUNK_BYTES", "array_input", "is_numeric_table", "chunk_rows", "chunks",
           "release", "as_float64", "all_finite", "label_input", "has_nan", "distinct_labels",
           "label_codes", "first_unknown", "LazyColumn", "CodedLabels", "label_table",
           "take_labels"]

CHUNK_BYTES = 1 << 22
"""Bytes of float64 values per chunk (4 MiB): large enough that the Python around each
chunk costs nothing next to its rows, small enough to stay in cache-friendly sizes."""

_NUMERIC = frozenset("biuf")


def array_input(X: Any) -> np.ndarray | None:
    """``X`` itself if it is a 2-D ``numpy.ndarray`` (or ``numpy.memmap``) of booleans,
    integers or floats of at most 64 bits, read chunk by chunk; None for anything else
    (the tables of the SGT and ABACOC facades)."""
    if type(X) is not np.ndarray and type(X) is not np.memmap:
        return None
    if X.ndim != 2 or X.dtype.kind not in _NUMERIC or X.dtype.itemsize > 8:
        return None
    return X


def is_numeric_table(X: Any) -> bool:
    """True for a 2-D array of floats or integers with at least one column (the inputs
    whose every value converts to float64 without a Python object per value: the tables
    of the dynamic-tree facades)."""
    return (isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype.kind in "fiu"
            and X.shape[1] > 0)


def chunk_rows(width: int, limit: int = 50_000) -> int:
    """Rows per chunk of ``width`` float64 values: :data:`CHUNK_BYTES` of them, at least 1
    and at most ``limit``."""
    return max(1, min(limit, CHUNK_BYTES // (8 * max(1, width))))


def chunks(n: int, size: int, *sources: Any) -> Iterator[tuple[int, int]]:
    """``(start, stop)`` of consecutive chunks of at most ``size`` rows of ``range(n)``.

    Rows ``start:stop`` of each of ``sources`` (arrays, or :class:`LazyColumn` computed
    from one) are read by the caller; once it asks for the next chunk, their
    memory-mapped pages are given back (:func:`release`)."""
    arrays = [source.source if isinstance(source, LazyColumn) else source
              for source in sources]
    arrays = [a for a in arrays if isinstance(a, np.memmap)]
    for start, stop in pieces(n, size):
        yield start, stop
        for array in arrays:
            release(array, start, stop)


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


def release(X: Any, start: int, stop: int) -> None:
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


def as_float64(block: np.ndarray) -> np.ndarray:
    """A private C-contiguous float64 copy of a chunk (the same values as converting the
    whole array).

    Always a copy, even of a chunk that already is C-contiguous float64: the engines read it
    with the GIL released, checking each row before using it, and another thread writing to
    the caller's array between the check and the use must not reach them (a nominal value
    used as an index, a NaN stored in a model). The copy of one chunk costs a memory copy
    of at most :data:`CHUNK_BYTES` per chunk (``tests/benchmarks/bench_chunk_copy.py``)."""
    return np.array(block, dtype=np.float64, order="C", copy=True)


def all_finite(arr: np.ndarray) -> bool:
    """True if no value of a numeric 1-D or 2-D array is NaN or infinite once converted
    to float64, checked a chunk at a time (booleans and integers always are finite)."""
    if arr.dtype.kind != "f":
        return True
    size = chunk_rows(arr.shape[1] if arr.ndim == 2 else 1)
    for start, stop in chunks(arr.shape[0], size, arr):
        block = arr[start:stop]
        if block.dtype.itemsize > 8:
            # wider floats may overflow float64 (the answer, not a warning); narrower
            # ones convert exactly
            with np.errstate(over="ignore"):
                block = as_float64(block)
        if not np.isfinite(block).all():
            return False
    return True


def label_input(y: Any) -> np.ndarray | None:
    """``y`` itself if it is a 1-D array whose labels map vectorised to Python scalars with
    the same equality (booleans, integers, floats of at most 64 bits without NaN,
    ``str``); None for anything else (the general path of Python labels)."""
    if type(y) is not np.ndarray and type(y) is not np.memmap:
        return None
    if y.ndim != 1 or y.dtype.kind not in "biufU" or (
            y.dtype.kind != "U" and y.dtype.itemsize > 8):
        return None
    if has_nan(y, chunk_rows(1)):
        # NaN labels are distinct Python objects that never compare equal: general path
        return None
    return y


def has_nan(y: np.ndarray, size: int) -> bool:
    """Whether a 1-D array holds a NaN (floats only), read ``size`` at a time."""
    return y.dtype.kind == "f" and any(
        bool(np.isnan(y[start:stop]).any()) for start, stop in chunks(y.shape[0], size, y))


def distinct_labels(y: np.ndarray, size: int, *, as_items: bool = True) -> list[Hashable]:
    """The distinct labels of a 1-D label array in order of first appearance (the first
    occurrence of each), read ``size`` at a time: as Python scalars, or with ``as_items``
    False as the numpy scalars ``y[i]`` (what iterating over the array gives)."""
    seen: dict[Hashable, Hashable] = {}
    for start, stop in chunks(y.shape[0], size, y):
        block = y[start:stop]
        _, first = np.unique(block, return_index=True)
        for i in np.sort(first).tolist():
            label = block[i]
            seen.setdefault(label.item(), label)
    return list(seen) if as_items else list(seen.values())


def label_codes(block: np.ndarray, index: dict[Hashable, int]) -> np.ndarray:
    """The class index of each label of a chunk of :func:`label_input` labels (int64),
    -1 for a label ``index`` does not hold."""
    if block.dtype.kind in "biu" and block.size:
        # integers in a short range: a lookup table over the range, no sort (offsets in
        # 64 bits: in a narrow type, 127 - (-128) would wrap)
        ints = block if block.dtype.kind == "u" else block.astype(np.int64, copy=False)
        low, high = int(ints.min()), int(ints.max())
        if high - low <= 4 * block.size + 1024:
            offsets = (ints - low).astype(np.intp)
            present = np.flatnonzero(np.bincount(offsets))
            lookup = np.full(high - low + 1, -1, dtype=np.int64)
            lookup[present] = [index.get(low + k, -1) for k in present.tolist()]
            short: np.ndarray = lookup[offsets]
            return short
    values, inverse = np.unique(block, return_inverse=True)
    table = np.array([index.get(v, -1) for v in values.tolist()], dtype=np.int64)
    codes: np.ndarray = table[inverse.reshape(-1)]
    return codes


def first_unknown(y: np.ndarray, index: dict[Hashable, int], size: int) -> int | None:
    """The row of the first label of a 1-D label array that ``index`` does not hold (so
    that the error names it, in row order), read ``size`` at a time; None if every label
    is known."""
    for start, stop in chunks(y.shape[0], size, y):
        codes = label_codes(y[start:stop], index)
        if (codes < 0).any():
            return start + int(np.argmin(codes))
    return None


def _label_kind(label: Any) -> str:
    """numpy's kind letter of a label's type (``"O"`` for anything else)."""
    if isinstance(label, (bool, np.bool_)):
        return "b"
    if isinstance(label, (int, np.integer)):
        return "i"
    if isinstance(label, (float, np.floating)):
        return "f"
    if isinstance(label, (str, np.str_)):
        return "U"
    if isinstance(label, (bytes, np.bytes_)):
        return "S"
    return "O"


def label_table(classes: list[Any]) -> np.ndarray:
    """The classes as a 1-D array whose items are the classes themselves, as
    :meth:`predict_one` returns them: a numpy array of their common type when every class
    is of one kind (booleans, integers, floats or text) that numpy holds exactly, else an
    object array of the classes (tuples, mixed ``0`` and ``"spam"``, an integer no
    integer dtype holds next to the others)."""
    kinds = {_label_kind(c) for c in classes}
    if len(kinds) == 1 and "O" not in kinds:
        try:
            typed = np.array(classes)
        except (OverflowError, ValueError):
            typed = None
        kind = next(iter(kinds))
        if (typed is not None and typed.ndim == 1
                and typed.dtype.kind in ("iu" if kind == "i" else kind)
                and all(a == b for a, b in zip(typed.tolist(), classes, strict=True))):
            return typed
    table = np.empty(len(classes), dtype=object)
    for i, label in enumerate(classes):
        table[i] = label
    return table


def take_labels(classes: list[Any], indices: Any) -> np.ndarray:
    """The labels ``classes[k]`` for each ``k`` of ``indices``, as one array whose items
    equal the classes with their types (:func:`label_table`)."""
    taken: np.ndarray = label_table(classes)[np.asarray(indices, dtype=np.intp)]
    return taken


class LazyColumn:
    """A column of ``n`` values computed a chunk at a time: ``column[start:stop]`` calls
    ``compute(start, stop)`` (e.g. the targets or class indices of a chunk of labels), so
    the whole column never exists at once."""

    def __init__(self, n: int, compute: Callable[[int, int], np.ndarray],
                 source: np.ndarray | None = None) -> None:
        self._n = n
        self._compute = compute
        self.source = source
        """The array the column is computed from, row for row (pages released by
        :func:`chunks`), or None."""

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, span: slice) -> np.ndarray:
        start, stop, step = span.indices(self._n)
        if step != 1:
            raise ValueError("a LazyColumn is read in consecutive chunks")
        return self._compute(start, stop)


class CodedLabels:
    """A label array read chunk by chunk (:func:`label_input`) and its distinct labels in
    order of first appearance: what a facade needs of a label list without the list."""

    def __init__(self, values: np.ndarray) -> None:
        self.values = values
        self.distinct = distinct_labels(values, chunk_rows(1))

    def __len__(self) -> int:
        return int(self.values.shape[0])

    def codes(self, index: dict[Hashable, int]) -> LazyColumn:
        """The class index of every label under ``index`` (int64), a chunk at a time."""
        values = self.values

        def compute(start: int, stop: int) -> np.ndarray:
            return label_codes(values[start:stop], index)

        return LazyColumn(len(self), compute, values)

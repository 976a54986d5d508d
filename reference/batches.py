"""Batches read chunk by chunk: the array path of the facades whose engine takes arrays.

A batch method that copied its whole input into float64 (and its labels into Python
lists) held several times the batch in memory. The facades of the models whose engine
reads arrays (``fast``, engines with ``array_batches = True``) instead read a numeric
2-D array (and a numeric or text label vector) in chunks of at most :data:`CHUNK_BYTES`
of float64 values: each chunk is converted (a view when it already is C-contiguous
float64, a copy of the chunk otherwise), checked with vectorised numpy, and handed to
the engine. Memory of a batch call is then its input plus one chunk, whatever the batch
size, and a ``numpy.memmap`` streams through. Every chunk holds exactly the values the
whole-batch conversion would give, so results do not change; the checks raise the
errors of the whole-batch checks, with the same messages. Inputs of any other kind
(lists, object arrays, mappings, ...) take the general path of each facade.
"""

from __future__ import annotations

import mmap
from collections.abc import Callable, Hashable, Iterator
from typing import Any

import numpy as np

__all__ = ["CHUNK_BYTES", "array_input", "chunk_rows", "chunks", "as_float64",
           "all_finite", "label_input", "distinct_labels", "label_codes", "LazyColumn",
           "CodedLabels", "take_labels"]

CHUNK_BYTES = 1 << 22
"""Bytes of float64 values per chunk (4 MiB)."""

_NUMERIC = frozenset("biuf")


def array_input(X: Any) -> np.ndarray | None:
    """``X`` itself if it is a 2-D ``numpy.ndarray`` (or ``numpy.memmap``) of booleans,
    integers or floats of at most 64 bits, read chunk by chunk; None for anything else."""
    if type(X) is not np.ndarray and type(X) is not np.memmap:
        return None
    if X.ndim != 2 or X.dtype.kind not in _NUMERIC or X.dtype.itemsize > 8:
        return None
    return X


def chunk_rows(n_features: int, limit: int = 50_000) -> int:
    """Rows per chunk for ``n_features`` columns: :data:`CHUNK_BYTES` of float64 values,
    at least 1 and at most ``limit``."""
    return max(1, min(limit, CHUNK_BYTES // (8 * max(1, n_features))))


def chunks(n: int, size: int, *sources: Any) -> Iterator[tuple[int, int]]:
    """``(start, stop)`` of consecutive chunks of at most ``size`` rows of ``range(n)``.

    Each of ``sources`` that is a read-only, C-contiguous ``numpy.memmap`` (rows
    ``start:stop`` of it being read) gives the pages of a chunk back to the kernel once the
    caller asks for the next one (``madvise(MADV_DONTNEED)``: the file's pages stay in the
    page cache and are read again on the next access), so that a memory-mapped file
    larger than memory streams through with flat resident memory."""
    releases = [release for release in map(_pages_release, sources) if release is not None]
    for start in range(0, n, size):
        stop = min(n, start + size)
        yield start, stop
        for release in releases:
            release(start, stop)


def _pages_release(source: Any) -> Callable[[int, int], None] | None:
    """``release(start, stop)``: drop the resident pages of rows ``start:stop`` of a
    read-only C-contiguous memmap; None for any other array (nothing to do)."""
    if isinstance(source, LazyColumn):
        source = source.source
    advice = getattr(mmap, "MADV_DONTNEED", None)
    handle = getattr(source, "_mmap", None)
    if (type(source) is not np.memmap or source.mode != "r" or advice is None
            or not isinstance(handle, mmap.mmap) or not source.flags.c_contiguous
            or source.ndim == 0 or source.size == 0):
        return None
    offset = source.ctypes.data - np.frombuffer(handle, dtype=np.uint8).ctypes.data
    row_bytes = source.strides[0]
    page = mmap.PAGESIZE

    def release(start: int, stop: int) -> None:
        low = (offset + start * row_bytes) // page * page
        high = (offset + stop * row_bytes) // page * page
        if high > low:
            handle.madvise(advice, low, high - low)

    return release


def as_float64(block: np.ndarray) -> np.ndarray:
    """A chunk as C-contiguous float64: the chunk itself when it already is, else a copy
    (the same values as converting the whole array)."""
    return np.ascontiguousarray(block, dtype=np.float64)


def all_finite(arr: np.ndarray) -> bool:
    """True if no value of a numeric array (:func:`array_input`) is NaN or infinite,
    checked a chunk at a time (booleans and integers always are finite)."""
    if arr.dtype.kind != "f":
        return True
    for start, stop in chunks(arr.shape[0], chunk_rows(arr.shape[1]), arr):
        if not np.isfinite(arr[start:stop]).all():
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
    if y.dtype.kind == "f":
        # NaN labels are distinct Python objects that never compare equal: general path
        for start, stop in chunks(y.shape[0], chunk_rows(1), y):
            if np.isnan(y[start:stop]).any():
                return None
    return y


def distinct_labels(y: np.ndarray, size: int) -> list[Hashable]:
    """The distinct labels of ``y`` (from :func:`label_input`) in order of first
    appearance, as Python scalars (the first occurrence of each), read ``size`` at a time."""
    seen: dict[Hashable, None] = {}
    for start, stop in chunks(y.shape[0], size, y):
        block = y[start:stop]
        _, first = np.unique(block, return_index=True)
        for i in np.sort(first).tolist():
            seen.setdefault(block[i].item(), None)
    return list(seen)


def label_codes(block: np.ndarray, index: dict[Hashable, int]) -> np.ndarray:
    """The class index of each label of a chunk of :func:`label_input` labels (int64),
    -1 for a label ``index`` does not hold."""
    if block.dtype.kind in "biu" and block.size:
        # integers in a short range: a lookup table over the range, no sort
        ints = block.astype(np.int64) if block.dtype.kind == "b" else block
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


def take_labels(classes: list[Any], indices: np.ndarray) -> np.ndarray:
    """``numpy.array([classes[k] for k in indices])`` without the list: the array of the
    distinct labels predicted, indexed. The same dtype and values when that array is 1-D
    of booleans, numbers or text (numpy's dtype of a list depends only on its distinct
    items); the list otherwise (objects, tuples, ...)."""
    present = np.unique(indices)
    template = np.array([classes[k] for k in present.tolist()])
    if template.ndim != 1 or template.dtype.kind not in "biufUS":
        return np.array([classes[k] for k in indices.tolist()])
    taken: np.ndarray = template[np.searchsorted(present, indices)]
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

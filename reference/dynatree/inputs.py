"""Input validation shared by both backends' dynamic-tree facades ([DET-SPEC §4], "Errors").

Every check runs before any state change, so a rejected call leaves the model unchanged,
and both backends raise the same exception class (``ValueError``) for bad data.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np

from reference.batches import chunk_rows, chunks

MAX_MAGNITUDE = 1e150
"""Largest magnitude of a feature value or regression target a dynamic tree accepts
([DET-SPEC §4], "Errors"): the leaf statistics sum squares of targets (and, for linear
leaves, products of features) over up to millions of rows, and a split point is drawn in
a feature's range ``hi - lo``. Below ``1e150`` every such sum and width stays finite
(a square is at most ``1e300``, leaving a factor ``1e8`` in rows); beyond it the means,
variances and predictions overflow to ``inf`` or ``nan`` silently (targets near
``1.7e306`` predicted ``+inf``). Larger values raise ``ValueError`` (the C library
refuses them too, ``DT_MAX_MAGNITUDE``)."""

TOO_LARGE = (f"must have magnitude at most {MAX_MAGNITUDE:.0e} (a dynamic tree squares "
              "and sums them; rescale the data)")


def all_bounded(arr: np.ndarray) -> bool:
    """True if every value of a finite numeric 1-D or 2-D array has magnitude at most
    :data:`MAX_MAGNITUDE`, checked a chunk at a time (integers of at most 64 bits always
    have)."""
    if arr.dtype.kind != "f":
        return True
    size = chunk_rows(arr.shape[1] if arr.ndim == 2 else 1)
    for start, stop in chunks(arr.shape[0], size, arr):
        # a float64 bound: a Python float would be cast to a float32 array and overflow
        if not bool((np.abs(arr[start:stop]) <= np.float64(MAX_MAGNITUDE)).all()):
            return False
    return True


def row_values(x: Any, keys: list[Hashable] | None, d: int | None) -> list[float]:
    """``x`` as a list of finite floats of length ``d`` (the first row fixes ``d``), each
    of magnitude at most :data:`MAX_MAGNITUDE`.

    A ``Mapping`` is read in the key order of the first mapping row (``keys``); it must
    have exactly those keys. Raises ``ValueError`` for a wrong dimension, non-numeric,
    NaN or infinite values, or an empty row.
    """
    if isinstance(x, Mapping):
        if keys is None:
            if d is not None:
                raise ValueError("x is a mapping but the model was fitted on sequences")
            keys = list(x.keys())
        if set(x.keys()) != set(keys) or len(x) != len(keys):
            raise ValueError(f"x must have the keys {keys!r}, got {list(x.keys())!r}")
        raw: Sequence[Any] = [x[k] for k in keys]
    elif isinstance(x, (str, bytes)):
        raise ValueError("x must be a sequence of numbers, got a string")
    else:
        try:
            raw = list(np.asarray(x, dtype=object).ravel()) if isinstance(x, np.ndarray) \
                else list(x)
        except TypeError as exc:
            raise ValueError(f"x must be a sequence of numbers, got {type(x).__name__}") \
                from exc
    values: list[float] = []
    for v in raw:
        if isinstance(v, (str, bytes, bool, np.bool_)) or v is None:
            raise ValueError(f"x must contain numbers, got {v!r}")
        try:
            f = float(v)
        except OverflowError:
            raise ValueError("x holds a number too large for a float "
                             "(magnitude above 1.8e308)") from None
        except (TypeError, ValueError) as exc:
            raise ValueError(f"x must contain numbers, got {v!r}") from exc
        if not math.isfinite(f):
            raise ValueError("x must not contain NaN or infinite values")
        values.append(f)
    if not values:
        raise ValueError("x must not be empty")
    if d is not None and len(values) != d:
        raise ValueError(f"x must have {d} features, got {len(values)}")
    if any(abs(v) > MAX_MAGNITUDE for v in values):
        raise ValueError(f"x values {TOO_LARGE}")
    return values


def first_keys(x: Any) -> list[Hashable] | None:
    """The key order fixed by a first mapping row (None for sequences)."""
    return list(x.keys()) if isinstance(x, Mapping) else None


def target_value(y: Any) -> float:
    """A regression target as a finite float of magnitude at most :data:`MAX_MAGNITUDE`
    (``ValueError`` otherwise)."""
    if isinstance(y, (str, bytes, bool, np.bool_)) or y is None:
        raise ValueError(f"y must be a number, got {y!r}")
    try:
        f = float(y)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"y must be a number, got {y!r}") from exc
    if not math.isfinite(f):
        raise ValueError("y must not be NaN or infinite")
    if abs(f) > MAX_MAGNITUDE:
        raise ValueError(f"y {TOO_LARGE}")
    return f


def batch_rows(X: Any, keys: list[Hashable] | None, d: int | None) -> list[list[float]]:
    """All rows of a batch, validated; the first row fixes ``d`` if it is unknown."""
    if isinstance(X, np.ndarray):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D, got {X.ndim} dimension(s)")
        if X.dtype.kind in "fiu" and X.shape[1] > 0:
            # numeric array: one vectorised check at the API boundary
            if d is not None and X.shape[1] != d:
                raise ValueError(f"x must have {d} features, got {X.shape[1]}")
            converted = X.astype(np.float64)
            if not bool(np.isfinite(converted).all()):
                raise ValueError("x must not contain NaN or infinite values")
            if not all_bounded(converted):
                raise ValueError(f"x values {TOO_LARGE}")
            table: list[list[float]] = converted.tolist()
            return table
        rows_in: list[Any] = list(X)
    else:
        try:
            rows_in = list(X)
        except TypeError as exc:
            raise ValueError("X must be a 2-D array or a sequence of rows") from exc
    rows: list[list[float]] = []
    for row in rows_in:
        if keys is None and d is None and isinstance(row, Mapping):
            keys = list(row.keys())
        values = row_values(row, keys, d)
        if d is None:
            d = len(values)
        rows.append(values)
    return rows


def target_column(y: np.ndarray, n: int) -> np.ndarray:
    """An array of targets or labels as the 1-D column of a batch of ``n`` rows (flattened,
    as :func:`batch_targets` flattens it), checked for its length alike."""
    column = y if y.ndim == 1 else np.ravel(y)
    if column.shape[0] != n:
        raise ValueError(f"X has {n} rows but y has {column.shape[0]} values")
    return column


def batch_targets(y: Any, n: int) -> list[Any]:
    """The targets of a batch as a list of length ``n``."""
    try:
        values = list(np.asarray(y).ravel()) if isinstance(y, np.ndarray) else list(y)
    except TypeError as exc:
        raise ValueError("y must be a sequence") from exc
    if len(values) != n:
        raise ValueError(f"X has {n} rows but y has {len(values)} values")
    return values

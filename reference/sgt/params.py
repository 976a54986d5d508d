"""Hyper-parameters of stochastic gradient trees and input checks shared by both backends.

The dataclass :class:`SGTParams` validates every constructor argument once; the
``reference`` and ``fast`` facades both call :meth:`SGTParams.validate`, so the two
backends raise the same ``ValueError`` with the same message. The row checks
(:func:`check_row`, :func:`check_matrix`) are also shared, so bad data is rejected by
the same code, before any state changes, in both backends.

Notation
--------
``delta``         δ, significance level of the t-test [GPF19, §3.3].
``lam``           λ, L2 penalty on leaf deltas, per instance ([SGT-SPEC §7.1]) [GPF19, Eq. 5].
``gamma``         γ, cost per new leaf [GPF19, Eq. 5].
``grace_period``  n_min, instances between split attempts [GPF19, §3.3].
``bins``          B, equal-width bins per numeric feature [GPF19, §3.2].
``warmup``        W, instances used to estimate the bin ranges [GPF19, §3.2].
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from reference.batches import as_float64, chunk_rows, chunks
from reference.rows import plain_floats as _plain_floats

INT32_MAX = 2**31 - 1
"""Largest count the C core stores in its int32 parameters."""

__all__ = ["SGTParams", "check_row", "check_matrix", "check_array", "check_feature_config"]


def _is_real(value: object) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_)
    )


def _is_int(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


@dataclass(frozen=True)
class SGTParams:
    """Validated hyper-parameters of an SGT model ([SGT-SPEC §12] defaults).

    Parameters
    ----------
    delta : float
        Significance level δ of the two-sided t-test, in (0, 1). Default 1e-7.
    grace_period : int
        Split attempts happen when the leaf count since its last reset is a multiple
        of this, >= 1. Default 200.
    lam : float
        λ >= 0, per-instance L2 shrinkage of the Newton step. Default 0.1.
    gamma : float
        γ >= 0, penalty per child leaf (divided by the leaf count). Default 1.0.
    bins : int
        B >= 2 equal-width bins per numeric feature. Default 64.
    warmup : int or None
        W >= 1 instances buffered to estimate the bin ranges. Default None: 1000 (the
        paper's W) with ``quantization="global"``, ``grace_period`` with ``"leaf"``
        (:attr:`warmup_rows`, [SGT-SPEC §5.8]).
    feature_ranges : mapping or None
        ``{index: (low, high)}`` with finite ``low < high``: known ranges that skip
        the estimation for those numeric features.
    nominal : mapping or None
        ``{index: n_categories}`` (n_categories >= 2): nominal features, whose values
        must be integers in ``[0, n_categories)``.
    max_depth : int or None
        Optional maximum depth (root has depth 0), >= 0.
    warmup_trains : bool
        Replay the warm-up instances as training data once the ranges are frozen
        (default True); False discards them as the authors' Java code does.
    test : str
        ``"two-sided"`` (default: p-value of the two-sided t-test plus the sign check,
        as in the authors' code) or ``"one-sided"`` (p = P(T_{n-1} <= t)), [SGT-SPEC §8].
    warmup_prediction : str
        ``"newton"`` (default: during the warm-up each tree predicts one Newton step of its
        root over the buffered rows) or ``"zero"`` (raw score 0, the authors' wrapper),
        [SGT-SPEC §5.7].
    quantization : str
        ``"global"`` (one range per feature, frozen after the warm-up [GPF19, §3.2]) or
        ``"leaf"`` (each leaf re-bins from the values that reached it), [SGT-SPEC §5.8].
        Default here ``"global"``, what a state saved before the parameter existed means;
        the public models pass their own default, ``"leaf"``.
    """

    delta: float = 1e-7
    grace_period: int = 200
    lam: float = 0.1
    gamma: float = 1.0
    bins: int = 64
    warmup: int | None = None
    feature_ranges: Mapping[int, tuple[float, float]] | None = field(default=None)
    nominal: Mapping[int, int] | None = field(default=None)
    max_depth: int | None = None
    warmup_trains: bool = True
    test: str = "two-sided"
    warmup_prediction: str = "newton"
    quantization: str = "global"

    def validate(self) -> None:
        """Raise ``ValueError`` naming the first invalid parameter and its range."""
        if not _is_real(self.delta) or not 0.0 < float(self.delta) < 1.0:
            raise ValueError(f"delta must be a float in (0, 1), got {self.delta!r}")
        if not _is_int(self.grace_period) or not 1 <= int(self.grace_period) <= INT32_MAX:
            raise ValueError(f"grace_period must be an int in [1, 2**31 - 1], "
                             f"got {self.grace_period!r}")
        if not _is_real(self.lam) or not 0.0 <= float(self.lam) < math.inf:
            raise ValueError(f"lam must be a finite float >= 0, got {self.lam!r}")
        if not _is_real(self.gamma) or not 0.0 <= float(self.gamma) < math.inf:
            raise ValueError(f"gamma must be a finite float >= 0, got {self.gamma!r}")
        if not _is_int(self.bins) or not 2 <= int(self.bins) <= 1_000_000:
            raise ValueError(f"bins must be an int in [2, 1000000], got {self.bins!r}")
        if self.warmup is not None and (not _is_int(self.warmup)
                                        or not 1 <= int(self.warmup) <= INT32_MAX):
            raise ValueError(f"warmup must be None or an int in [1, 2**31 - 1], "
                             f"got {self.warmup!r}")
        if self.max_depth is not None and (
            not _is_int(self.max_depth) or not 0 <= int(self.max_depth) <= 1_000_000
        ):
            raise ValueError(
                f"max_depth must be None or an int in [0, 1000000], got {self.max_depth!r}"
            )
        if not isinstance(self.warmup_trains, bool):
            raise ValueError(f"warmup_trains must be a bool, got {self.warmup_trains!r}")
        if self.test not in ("two-sided", "one-sided"):
            raise ValueError(f"test must be 'two-sided' or 'one-sided', got {self.test!r}")
        if self.warmup_prediction not in ("newton", "zero"):
            raise ValueError(f"warmup_prediction must be 'newton' or 'zero', "
                             f"got {self.warmup_prediction!r}")
        if self.quantization not in ("global", "leaf"):
            raise ValueError(f"quantization must be 'global' or 'leaf', "
                             f"got {self.quantization!r}")
        self._validate_nominal()
        self._validate_ranges()

    @property
    def warmup_rows(self) -> int:
        """W, the warm-up length in rows: ``warmup``, or when it is None 1000 with global
        bins (the paper's [GPF19, §5]) and the grace period with per-leaf bins, so that
        the replay of the warm-up ends with the root's first split attempt
        ([SGT-SPEC §5.8])."""
        if self.warmup is not None:
            return int(self.warmup)
        return 1000 if self.quantization == "global" else int(self.grace_period)

    def _validate_nominal(self) -> None:
        if self.nominal is None:
            return
        if not isinstance(self.nominal, Mapping):
            raise ValueError("nominal must be None or a mapping {index: n_categories}")
        for key, count in self.nominal.items():
            if not _is_int(key) or int(key) < 0:
                raise ValueError(f"nominal keys must be feature indices >= 0, got {key!r}")
            if not _is_int(count) or not 2 <= int(count) <= 1_000_000:
                raise ValueError(
                    f"nominal[{key}] must be an int n_categories in [2, 1000000], got {count!r}"
                )

    def _validate_ranges(self) -> None:
        if self.feature_ranges is None:
            return
        if not isinstance(self.feature_ranges, Mapping):
            raise ValueError("feature_ranges must be None or a mapping {index: (low, high)}")
        for key, pair in self.feature_ranges.items():
            if not _is_int(key) or int(key) < 0:
                raise ValueError(f"feature_ranges keys must be feature indices >= 0, got {key!r}")
            if self.nominal is not None and key in self.nominal:
                raise ValueError(f"feature_ranges[{key}]: feature {key} is declared nominal")
            ok = isinstance(pair, (tuple, list)) and len(pair) == 2
            ok = ok and all(_is_real(v) and math.isfinite(float(v)) for v in pair)
            if not ok or not float(pair[0]) < float(pair[1]):
                raise ValueError(
                    f"feature_ranges[{key}] must be a pair (low, high) of finite floats "
                    f"with low < high, got {pair!r}"
                )


MAX_LEAF_CELLS = (2**31 - 1) // 64
"""Most statistics cells a leaf may hold: 1 + bins per numeric feature + K per nominal
feature ([SGT-SPEC §2]). The C library indexes cells with 32-bit integers and keeps a
margin of 64; the limit is checked before any model is built, so wider rows get a
``ValueError`` naming it in both backends (the reference would try to allocate the cells,
the C library refused them with ``MemoryError``)."""


def check_feature_config(params: SGTParams, n_features: int) -> list[int]:
    """Per-feature kinds for ``n_features`` columns: 0 numeric, K for nominal with K values.

    Raises ``ValueError`` if a declared index is outside ``[0, n_features)``, or if a
    leaf would need more than :data:`MAX_LEAF_CELLS` statistics cells.
    """
    kinds = [0] * n_features
    for name, table in (("nominal", params.nominal), ("feature_ranges", params.feature_ranges)):
        for key in table or {}:
            if int(key) >= n_features:
                raise ValueError(
                    f"{name} declares feature {key}, but rows have {n_features} features"
                )
    for key, count in (params.nominal or {}).items():
        kinds[int(key)] = int(count)
    cells = 1 + sum(k if k else int(params.bins) for k in kinds)
    if cells > MAX_LEAF_CELLS:
        raise ValueError(
            f"rows of {n_features} features need {cells:,} statistics cells per leaf "
            f"({params.bins} per numeric feature, K per nominal one), more than the "
            f"{MAX_LEAF_CELLS:,} a leaf can hold: use fewer columns (features) or bins")
    return kinds


def check_row(
    x: Any, n_features: int | None, keys: tuple[Any, ...] | None, kinds: list[int] | None
) -> tuple[list[float], tuple[Any, ...] | None]:
    """Validate one input row; return it as a list of floats plus its key order.

    ``x`` is a 1-D sequence of numbers or a mapping (its keys must be the first row's keys,
    in any order: values are matched by key and taken in the first row's order). Raises
    ``ValueError`` for a wrong dimension, empty row, NaN or infinite values (missing values
    are not supported in this version), non-numeric values, or a nominal value that is not
    an integer in ``[0, K)``.
    """
    new_keys: tuple[Any, ...] | None = None
    if type(x) is not list and isinstance(x, Mapping):
        new_keys = tuple(x.keys())
        if keys is None and n_features is not None:
            raise ValueError("x is a mapping but the model was fitted on sequences")
        if keys is not None and new_keys != keys:
            # matched by name, as the other families do: the same keys in any order
            if len(new_keys) != len(keys) or set(new_keys) != set(keys):
                raise ValueError(f"mapping keys {list(new_keys)} differ from the first row's "
                                 f"keys {list(keys)}")
            new_keys = keys
        values: Any = [x[k] for k in new_keys]
    else:
        values = x
    row = _plain_floats(values)
    if row is not None:
        # fast path, same checks and messages as below for a plain row of numbers
        if n_features is not None and len(row) != n_features:
            raise ValueError(f"x has {len(row)} features, expected {n_features}")
        for v in row:
            if not math.isfinite(v):
                raise ValueError(
                    "x contains NaN or infinite values (missing values are not supported)"
                )
        if kinds is not None and any(kinds):
            _check_nominal(row, kinds)
        return row, new_keys if keys is None else keys
    try:
        if np.asarray(values).dtype.kind in "US":
            raise ValueError("text or bytes values")
        arr = np.asarray(values, dtype=np.float64)
    except OverflowError:
        raise ValueError("x holds a number too large for a float "
                         "(magnitude above 1.8e308)") from None
    except (TypeError, ValueError) as exc:
        raise ValueError(f"x must be a 1-D sequence of numbers: {exc}") from None
    if arr.ndim != 1 or arr.shape[0] == 0:
        raise ValueError(f"x must be a non-empty 1-D sequence, got shape {arr.shape}")
    if n_features is not None and arr.shape[0] != n_features:
        raise ValueError(f"x has {arr.shape[0]} features, expected {n_features}")
    if not np.isfinite(arr).all():
        raise ValueError("x contains NaN or infinite values (missing values are not supported)")
    row = [float(v) for v in arr.tolist()]
    if kinds is not None:
        _check_nominal(row, kinds)
    return row, new_keys if keys is None else keys


def _check_nominal(row: list[float], kinds: list[int]) -> None:
    for a, count in enumerate(kinds):
        if count and not (row[a] == math.floor(row[a]) and 0.0 <= row[a] < count):
            raise ValueError(
                f"nominal feature {a} must be an integer in [0, {count}), got {row[a]!r}"
            )


def check_matrix(X: Any, n_features: int | None, kinds: list[int] | None) -> np.ndarray:
    """Validate a 2-D batch (rows as in :func:`check_row`); return a C-contiguous float64 copy."""
    try:
        if np.asarray(X).dtype.kind in "US":
            raise ValueError("text or bytes values")
        arr = np.array(X, dtype=np.float64, order="C")
    except OverflowError:
        raise ValueError("X holds a number too large for a float "
                         "(magnitude above 1.8e308)") from None
    except (TypeError, ValueError) as exc:
        raise ValueError(f"X must be a 2-D array of numbers: {exc}") from None
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"X must be a non-empty 2-D array, got shape {arr.shape}")
    if n_features is not None and arr.shape[1] != n_features:
        raise ValueError(f"X has {arr.shape[1]} features, expected {n_features}")
    if not np.isfinite(arr).all():
        raise ValueError("X contains NaN or infinite values (missing values are not supported)")
    if kinds is not None:
        for a, count in enumerate(kinds):
            if count:
                col = arr[:, a]
                if not (np.all(col == np.floor(col)) and np.all(col >= 0) and np.all(col < count)):
                    raise ValueError(
                        f"nominal feature {a} must hold integers in [0, {count})"
                    )
    return arr


def check_array(arr: np.ndarray, n_features: int | None, kinds: list[int] | None,
                finite: bool = True) -> None:
    """:func:`check_matrix` of a numeric 2-D array (:func:`reference.batches.array_input`)
    read chunk by chunk, without copying it: the same checks, in the same order, with the
    same messages (``finite=False``: only the shape and the nominal values)."""
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"X must be a non-empty 2-D array, got shape {arr.shape}")
    if n_features is not None and arr.shape[1] != n_features:
        raise ValueError(f"X has {arr.shape[1]} features, expected {n_features}")
    counts = list(kinds or [])
    nominal = [(a, count) for a, count in enumerate(counts) if count]
    finite = finite and arr.dtype.kind == "f"     # booleans and integers are finite
    if not (finite or nominal):
        return
    bad = len(counts)                       # the first nominal column found wrong so far
    for start, stop in chunks(arr.shape[0], chunk_rows(arr.shape[1]), arr):
        if finite and not np.isfinite(arr[start:stop]).all():
            raise ValueError(
                "X contains NaN or infinite values (missing values are not supported)")
        block = as_float64(arr[start:stop]) if nominal else arr
        for a, count in nominal:
            if a < bad:
                col = block[:, a]
                if not (np.all(col == np.floor(col)) and np.all(col >= 0)
                        and np.all(col < count)):
                    bad = a
    if bad < len(counts):
        raise ValueError(f"nominal feature {bad} must hold integers in [0, {counts[bad]})")

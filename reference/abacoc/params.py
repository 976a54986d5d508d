"""Hyper-parameters and input checks shared by both ABACOC backends [DOC15].

One frozen dataclass, :class:`ABACOCParams`, holds every constructor argument of
``ABACOCClassifier`` and validates it once; ``reference`` and ``fast`` both call it, so an
invalid value raises the same ``ValueError`` with the same message in both backends.
The row checks (:func:`as_row`, :func:`as_matrix`) are also shared: bad data is rejected
here, before either backend touches its model state.

Notation
--------
``d``    the fixed intrinsic-dimension estimate of the AUTO family's shrink exponent
         ``-1 / (2 + d)`` [DOC15, Alg. 4].
``C``    the covering constant of the BASE family's dimension check [DOC15, Alg. 2].
``B``    the ball budget of AUTO-ADJ-FIX (``budget``) [DOC15, Eq. 1].
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from reference.rows import plain_floats as _plain_floats

__all__ = [
    "ABACOCParams",
    "VARIANTS",
    "MODES",
    "METRICS",
    "SEARCHES",
    "DEFAULT_BUDGET",
    "METRIC_EUCLIDEAN",
    "METRIC_MANHATTAN",
    "METRIC_MINKOWSKI",
    "as_row",
    "as_matrix",
    "labels_of",
]

VARIANTS = ("base", "base_adj", "auto", "auto_adj")
"""The paper's four named variants; ``budget`` adds the FIX rule to the AUTO family."""

DEFAULT_BUDGET = 10_000
"""The ball budget that ``budget="auto"`` (the default) gives the AUTO family
([ABACOC-SPEC §19]): it keeps the cost of a row bounded on an unbounded stream in any
dimension, and lies above every cover the paper's experiments grow (``budget=None`` is the
paper's unbounded cover)."""

INT63_MAX = 2**63 - 1
"""Largest count the C backend stores (int64)."""

MODES = ("randomized", "majority")
"""BASE prediction modes: Alg. 2's randomized binary rule, or the majority vote."""

METRICS = ("euclidean", "manhattan", "minkowski")
"""Supported distances rho; ``minkowski`` uses the exponent ``p``."""

SEARCHES = ("auto", "scan", "kdtree")
"""Nearest-ball search: the loose kd-tree from ``search_threshold`` balls on while it prunes
(the scan otherwise), always exhaustive, always the loose kd-tree ([ABACOC-SPEC §13])."""

METRIC_EUCLIDEAN = 0
"""Internal metric code: squared distance sum of d*d, rho = sqrt."""
METRIC_MANHATTAN = 1
"""Internal metric code: sum of |d|, rho = the sum itself."""
METRIC_MINKOWSKI = 2
"""Internal metric code: sum of |d|**p, rho = sum**(1/p)."""


def _is_int(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_real(value: object) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_)
    )


@dataclass(frozen=True)
class ABACOCParams:
    """Validated constructor arguments of ``ABACOCClassifier`` (both backends).

    Parameters
    ----------
    variant : {"base", "base_adj", "auto", "auto_adj"}
        The ABACOC instance [DOC15, Alg. 2-4].
    budget : "auto", int or None
        Ball budget B >= 2 (AUTO-ADJ-FIX, [DOC15, Eq. 1]); AUTO family only. ``"auto"``
        is :data:`DEFAULT_BUDGET` for the AUTO family and no budget for the BASE family,
        ``None`` the paper's unbounded cover ([ABACOC-SPEC §19]); see :attr:`ball_budget`.
    d : float
        Dimension estimate in the AUTO radius law, > 0.
    C : float
        Covering constant of the BASE dimension check, > 0.
    mode : {"randomized", "majority"}
        BASE prediction rule (ignored by the other variants).
    labels : tuple
        The ordered pair (label_0, label_1) of randomized BASE.
    metric : {"euclidean", "manhattan", "minkowski"}
        The distance rho.
    p : float
        Minkowski exponent, >= 1 (used only with ``metric="minkowski"``).
    search : {"auto", "scan", "kdtree"}
        Nearest-ball search structure (answers are identical; only speed differs);
        ``"auto"`` drops a tree that does not prune ([ABACOC-SPEC §13]).
    search_threshold : int
        With ``search="auto"``, the kd-tree is used from this many balls on (>= 1).
    leaf_size : int
        Bucket size of the kd-tree leaves, in [2, 1024].
    seed : int
        Seed of the model generator (randomized BASE, FIX deletions).
    """

    variant: str = "auto_adj"
    budget: int | str | None = "auto"
    d: float = 2.0
    C: float = 1.0
    mode: str = "randomized"
    labels: tuple[Hashable, Hashable] = (0, 1)
    metric: str = "euclidean"
    p: float = 2.0
    search: str = "auto"
    search_threshold: int = 256
    leaf_size: int = 16
    seed: int = 1

    def validate(self) -> None:
        """Raise ``ValueError`` naming the first invalid parameter and its allowed range."""
        if self.variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, got {self.variant!r}")
        budget = self.budget
        if budget is not None and not (type(budget) is str and budget == "auto"):
            if not _is_int(budget) or not 2 <= int(budget) <= INT63_MAX:
                raise ValueError(f"budget must be 'auto', None or an integer in "
                                 f"[2, 2**63 - 1], got {self.budget!r}")
            if self.variant not in ("auto", "auto_adj"):
                raise ValueError(
                    "budget is only available for variant 'auto' or 'auto_adj', "
                    f"got variant {self.variant!r}"
                )
        if not _is_real(self.d) or not math.isfinite(self.d) or not self.d > 0:
            raise ValueError(f"d must be a finite number > 0, got {self.d!r}")
        if not _is_real(self.C) or not math.isfinite(self.C) or not self.C > 0:
            raise ValueError(f"C must be a finite number > 0, got {self.C!r}")
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {self.mode!r}")
        labels = self.labels
        if (
            not isinstance(labels, tuple)
            or len(labels) != 2
            or not all(isinstance(v, Hashable) for v in labels)
            or labels[0] == labels[1]
        ):
            raise ValueError(
                f"labels must be a tuple of two distinct hashable labels, got {labels!r}"
            )
        if self.metric not in METRICS:
            raise ValueError(f"metric must be one of {METRICS}, got {self.metric!r}")
        if not _is_real(self.p) or not math.isfinite(self.p) or not self.p >= 1:
            raise ValueError(f"p must be a finite number >= 1, got {self.p!r}")
        if self.search not in SEARCHES:
            raise ValueError(f"search must be one of {SEARCHES}, got {self.search!r}")
        if not _is_int(self.search_threshold) or not 1 <= self.search_threshold <= INT63_MAX:
            raise ValueError(
                f"search_threshold must be an integer in [1, 2**63 - 1], "
                f"got {self.search_threshold!r}"
            )
        if not _is_int(self.leaf_size) or not 2 <= self.leaf_size <= 1024:
            raise ValueError(f"leaf_size must be an integer in [2, 1024], got {self.leaf_size!r}")
        if not _is_int(self.seed):
            raise ValueError(f"seed must be an integer, got {self.seed!r}")

    @property
    def ball_budget(self) -> int | None:
        """The budget B the cover keeps, or None for an unbounded cover ([ABACOC-SPEC §19]).

        ``budget="auto"`` resolves to :data:`DEFAULT_BUDGET` for the AUTO family and to
        None for the BASE family (which has no budget rule); an integer is B itself.
        """
        if isinstance(self.budget, str):
            return DEFAULT_BUDGET if self.variant in ("auto", "auto_adj") else None
        return None if self.budget is None else int(self.budget)

    @property
    def randomized(self) -> bool:
        """True for BASE with the randomized binary prediction rule [DOC15, Alg. 2]."""
        return self.variant == "base" and self.mode == "randomized"

    @property
    def metric_code(self) -> int:
        """Internal metric code: Minkowski with p = 1 or 2 uses the exact special cases."""
        if self.metric == "euclidean" or (self.metric == "minkowski" and float(self.p) == 2.0):
            return METRIC_EUCLIDEAN
        if self.metric == "manhattan" or (self.metric == "minkowski" and float(self.p) == 1.0):
            return METRIC_MANHATTAN
        return METRIC_MINKOWSKI


def _reject_text(values: Any) -> None:
    """Refuse strings and bytes (numpy would parse ``"0.5"``; the other models refuse it)."""
    if isinstance(values, (str, bytes)) or np.asarray(values).dtype.kind in "USO" and any(
        isinstance(v, (str, bytes)) for v in np.asarray(values, dtype=object).ravel()
    ):
        raise ValueError("text or bytes values")


def as_row(
    x: Any, n_features: int | None, keys: tuple[Any, ...] | None
) -> tuple[list[float], tuple[Any, ...] | None]:
    """Check one input row and return it as a list of finite floats, and its key order.

    ``x`` is a 1-D sequence of numbers or a mapping. A mapping's keys fix the feature
    order the first time (``keys is None``) and must match afterwards. Raises
    ``ValueError`` for a non-numeric, empty, non-finite or wrong-length row; nothing is
    changed anywhere before the check passes.
    """
    if type(x) is not list and isinstance(x, Mapping):
        row_keys = tuple(x.keys())
        if keys is None and n_features is not None:
            raise ValueError("x is a mapping but the model was fitted on sequences")
        if keys is not None and set(row_keys) != set(keys):
            raise ValueError(
                f"feature keys {sorted(map(str, row_keys))} differ from the first row's"
            )
        order = keys if keys is not None else row_keys
        values: Any = [x[k] for k in order]
        keys = order
    else:
        values = x
    row = _plain_floats(values)
    if row is not None:
        # fast path, same checks and messages as below for a plain row of numbers
        if n_features is not None and len(row) != n_features:
            raise ValueError(f"x has {len(row)} features, expected {n_features}")
        for v in row:
            if not math.isfinite(v):
                raise ValueError("x contains NaN or infinite values")
        return row, keys
    try:
        _reject_text(values)
        arr = np.asarray(values, dtype=np.float64)
    except OverflowError:
        raise ValueError("x holds a number too large for a float "
                         "(magnitude above 1.8e308)") from None
    except (TypeError, ValueError) as exc:
        raise ValueError(f"x must be a 1-D sequence of numbers: {exc}") from exc
    if arr.ndim != 1:
        raise ValueError(f"x must be 1-D, got an array of shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError("x must not be empty")
    if n_features is not None and arr.shape[0] != n_features:
        raise ValueError(f"x has {arr.shape[0]} features, expected {n_features}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("x contains NaN or infinite values")
    return [float(v) for v in arr], keys


def as_matrix(X: Any, n_features: int | None) -> np.ndarray:
    """Check a 2-D input and return it as a C-contiguous float64 array.

    Raises ``ValueError`` for empty, ragged, non-numeric, non-finite or wrong-width input.
    """
    try:
        _reject_text(X)
        arr = np.ascontiguousarray(np.asarray(X, dtype=np.float64))
    except OverflowError:
        raise ValueError("X holds a number too large for a float "
                         "(magnitude above 1.8e308)") from None
    except (TypeError, ValueError) as exc:
        raise ValueError(f"X must be a 2-D array of numbers: {exc}") from exc
    if arr.ndim != 2:
        raise ValueError(f"X must be 2-D, got an array of shape {arr.shape}")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"X must not be empty, got shape {arr.shape}")
    if n_features is not None and arr.shape[1] != n_features:
        raise ValueError(f"X has {arr.shape[1]} features, expected {n_features}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("X contains NaN or infinite values")
    return arr


def labels_of(y: Any, n_rows: int) -> Sequence[Any]:
    """Check a label vector of length ``n_rows``; every label must be hashable."""
    labels = list(y.tolist() if isinstance(y, np.ndarray) else y)
    if len(labels) != n_rows:
        raise ValueError(f"y has {len(labels)} labels, expected {n_rows}")
    return labels

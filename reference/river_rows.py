"""River rows: features by name, and features that appear and disappear.

A River row is a dict whose keys may come in any order and may change from row to row;
a driftwood model takes a fixed-length row of floats. :class:`FeatureSpace` is the
bridge the River adapters (:mod:`reference.river_adapter`) keep between the two, with one
rule for every family (so it is the same in both backends: the adapter hands both the
same dense rows). The rule is stated in ``docs/river.md`` and in each family's spec
([DT-SPEC §12.1], [SGT-SPEC §16.1], [ABACOC-SPEC §20]):

* **Which features** — the features are the keys of the first row given to learning
  (``learn_one`` / ``learn_many``, even one the model does not learn) whose values
  are present (a value is absent when its key is missing or its value is ``None`` or
  NaN), in **sorted order** (:func:`ordered`), never in the order the keys happen to
  come in: a row with its keys shuffled is the same row.
* **A feature that disappears** — an absent feature takes a *fill value*: by default
  (``missing="mean"``) the running mean of that feature's values in the rows given to
  learning so far (River's ``preprocessing.StatImputer`` rule), else the constant given.
  The row is then learned, and predicted, as if it had that value; the fill value is the
  one before the row is learned (a row's own values enter the means only after it).
  A *nominal* feature of the model (SGT's ``nominal=``) takes, with ``missing="mean"``,
  the running **mode** of its learned values instead (the most frequent category, the
  smallest on a tie): a mean is no category. A constant ``missing`` is used as given
  (the model refuses a value that is not one of its categories: ``ValueError``, the model
  and the adapter unchanged, later rows unaffected).
* **A feature never seen before** — ignored, with every later value of it. The models fix
  their dimension at the first row (the dynamic trees' stored rows and particles' splits,
  SGT's per-feature bin statistics in every leaf, ABACOC's ball centres), and a dimension
  added later would hold no statistics for everything learned before; the adapter keeps
  the learned feature set instead. Pass every feature in the first row (with a value)
  to have it used.

Learning, ``learn_many`` on a data frame (a NaN cell is an absent value) gives the same
dense rows as ``learn_one`` row by row: the running sums are cumulative sums in arrival
order (:func:`numpy.cumsum` adds in order, as the one-row loop does).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Hashable, Iterable, Mapping
from typing import Any

import numpy as np

from reference.rows import INT_EXACT

__all__ = ["FeatureSpace", "ordered"]


def ordered(keys: Iterable[Hashable]) -> list[Hashable]:
    """The feature names in their fixed order: sorted by type name, then by value (or by
    ``repr`` when values of one type do not compare), whatever order they came in."""
    names = list(keys)
    try:
        return sorted(names, key=lambda k: (type(k).__name__, k))
    except TypeError:
        return sorted(names, key=lambda k: (type(k).__name__, repr(k)))


def _absent(value: Any) -> bool:
    return value is None or (isinstance(value, (float, np.floating)) and math.isnan(value))


def _number(name: Hashable, value: Any) -> float:
    """``value`` as a finite float, or ValueError/TypeError naming the feature."""
    if isinstance(value, (str, bytes)):
        raise TypeError(f"feature {name!r}: expected a number, got {type(value).__name__} "
                        f"{value!r:.40}")
    try:
        number = float(value)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"feature {name!r}: expected a number, got "
                        f"{type(value).__name__}") from exc
    if math.isinf(number):
        raise ValueError(f"feature {name!r}: values must be finite, got {number}")
    return number


class _Mode:
    """The running mode of a nominal feature's learned values: the most frequent category,
    the smallest on a tie (counts only grow, so the mode is kept as values arrive)."""

    __slots__ = ("best", "counts", "top")

    def __init__(self) -> None:
        self.counts: dict[float, int] = {}
        self.best = math.nan
        self.top = 0

    def add(self, value: float) -> None:
        count = self.counts.get(value, 0) + 1
        self.counts[value] = count
        if count > self.top or (count == self.top and value < self.best):
            self.best, self.top = value, count

    def copy(self) -> _Mode:
        out = _Mode()
        out.counts, out.best, out.top = dict(self.counts), self.best, self.top
        return out


class FeatureSpace:
    """The learned feature names of a River adapter and their running means.

    Parameters
    ----------
    missing : "mean" or float
        The fill value of an absent feature: the running mean of its learned values, or
        this constant.
    nominal : iterable of int, default ()
        Positions (in the sorted feature order) of the model's nominal features: with
        ``missing="mean"`` an absent one takes the running *mode* of its learned values
        (the most frequent category, the smallest on a tie), never a mean, which would be
        no category.
    """

    def __init__(self, missing: str | float = "mean", nominal: Iterable[int] = ()) -> None:
        self.missing = missing
        self.nominal = frozenset(int(j) for j in nominal)
        self.names: list[Hashable] | None = None
        self.sums: list[float] = []
        self.counts: list[int] = []
        self.modes: dict[int, _Mode] = {}

    def _fill(self, j: int) -> float:
        if self.missing == "mean":
            if j in self.nominal:
                return self.modes[j].best
            return self.sums[j] / self.counts[j]
        return float(self.missing)

    # -- one row -------------------------------------------------------------------------
    def _first_names(self, x: Mapping[Hashable, Any]) -> list[Hashable]:
        names = ordered(k for k, v in x.items() if not _absent(v))
        if not names:
            raise ValueError("the first learned row has no feature with a value")
        return names

    def _complete(self, x: Any) -> list[float] | None:
        """The quick path: ``x`` is a dict holding every learned feature as a finite
        Python float (``v - v == 0.0`` fails for NaN and infinities) or a small int; else
        None (the general path then decides)."""
        names = self.names
        if names is None or type(x) is not dict:
            return None
        try:
            row = list(map(x.__getitem__, names))
        except (KeyError, TypeError):
            return None
        if set(map(type, row)) == {float}:
            total = sum(row)           # NaN or an infinity makes the sum non-finite
            if total - total == 0.0:
                return row
            return None                # (or an overflow: the general path decides)
        for i, v in enumerate(row):
            kind = type(v)
            if kind is float:
                if v - v != 0.0:
                    return None
            elif kind is int and -INT_EXACT <= v <= INT_EXACT:
                row[i] = float(v)
            else:
                return None
        return row

    def row(self, x: Mapping[Hashable, Any]) -> list[float]:
        """The dense row of ``x`` for prediction (nothing is learned). Before the first
        learned row: ``[0.0]`` once ``x``'s values are checked, for an unfitted model
        whose answer does not depend on the row."""
        quick = self._complete(x)
        if quick is not None:
            return quick
        if not isinstance(x, Mapping):
            raise TypeError(f"a River row is a dict, got {type(x).__name__}")
        if self.names is None:
            for k, v in x.items():
                if not _absent(v):
                    _number(k, v)
            return [0.0]
        out = []
        for j, name in enumerate(self.names):
            value = x.get(name)
            out.append(self._fill(j) if _absent(value) else _number(name, value))
        return out

    def take(self, x: Mapping[Hashable, Any]) -> tuple[list[float], Any]:
        """The dense row of ``x`` for learning and the update to :meth:`commit` once the
        model has learned it (nothing changes before)."""
        quick = self._complete(x)
        if quick is not None:
            return quick, (None, quick)
        if not isinstance(x, Mapping):
            raise TypeError(f"a River row is a dict, got {type(x).__name__}")
        names = self.names if self.names is not None else self._first_names(x)
        out: list[float] = []
        present: list[tuple[int, float]] = []
        for j, name in enumerate(names):
            value = x.get(name)
            if _absent(value):
                out.append(self._fill(j))
            else:
                number = _number(name, value)
                out.append(number)
                present.append((j, number))
        return out, (names, present)

    def commit(self, update: Any) -> None:
        """Record a learned row (the second value of :meth:`take`)."""
        names, present = update
        if names is None:              # the quick path: every feature present
            self.sums = list(map(operator.add, self.sums, present))
            self.counts = list(map((1).__add__, self.counts))
            for j in self.nominal:
                if j < len(present):
                    self.modes[j].add(present[j])
            return
        if self.names is None:
            self.names = list(names)
            self.sums = [0.0] * len(names)
            self.counts = [0] * len(names)
            self.modes = {j: _Mode() for j in self.nominal if j < len(names)}
        for j, number in present:
            self.sums[j] += number
            self.counts[j] += 1
            if j in self.modes:
                self.modes[j].add(number)

    # -- data frames ---------------------------------------------------------------------
    def _columns(self, X: Any, names: list[Hashable]) -> np.ndarray:
        """The frame's values of ``names`` as an (n, d) float array, NaN where absent."""
        n = len(X)
        out = np.full((n, len(names)), np.nan)
        columns = set(X.columns)
        for j, name in enumerate(names):
            if name in columns:
                col = X[name]
                if col.dtype.kind in "biuf":
                    values = np.asarray(col.to_numpy(dtype=np.float64, na_value=np.nan))
                    if np.isinf(values).any():
                        raise ValueError(f"feature {name!r}: values must be finite")
                else:   # objects, text, categories: each value by the one-row rule
                    values = np.array([np.nan if _absent(v) else _number(name, v)
                                       for v in col.tolist()], dtype=np.float64)
                out[:, j] = values
        return out

    def frame(self, X: Any) -> np.ndarray:
        """The dense rows of data frame ``X`` for prediction (nothing is learned)."""
        if not hasattr(X, "columns"):
            raise TypeError(f"a River mini-batch is a pandas DataFrame, got {type(X).__name__}")
        if self.names is None:         # an unfitted model: checked, then one zero column
            self._columns(X, list(X.columns))
            return np.zeros((len(X), 1))
        values = self._columns(X, self.names)
        for j in range(len(self.names)):
            fill = self._fill(j)
            col = values[:, j]
            col[np.isnan(col)] = fill
        return values

    def take_frame(self, X: Any) -> tuple[np.ndarray, Any]:
        """The dense rows of ``X`` for learning, each filled as :meth:`take` would after
        the rows before it, and the update to :meth:`commit_frame` afterwards."""
        if not hasattr(X, "columns"):
            raise TypeError(f"a River mini-batch is a pandas DataFrame, got {type(X).__name__}")
        names = self.names
        if names is None:
            if len(X) == 0:
                return np.zeros((0, 0)), None
            first = dict(zip(X.columns, next(X.itertuples(index=False, name=None)),
                             strict=True))
            names = self._first_names(first)
        values = self._columns(X, names)
        n, d = values.shape
        sums = self.sums if self.names is not None else [0.0] * d
        counts = self.counts if self.names is not None else [0] * d
        new_sums, new_counts = [], []
        modes = {j: (self.modes[j].copy() if self.names is not None else _Mode())
                 for j in self.nominal if j < d}
        for j in range(d):
            col = values[:, j]
            present = ~np.isnan(col)
            if j in modes and self.missing == "mean":
                self._fill_by_mode(col, modes[j])
            elif j in modes:
                for value in col[present].tolist():
                    modes[j].add(value)
            running = np.cumsum(np.concatenate(([sums[j]], np.where(present, col, 0.0))))
            seen = counts[j] + np.concatenate(([0], np.cumsum(present)))
            if self.missing == "mean":
                with np.errstate(invalid="ignore", divide="ignore"):
                    fills = running[:-1] / seen[:-1]
            else:
                fills = np.full(n, float(self.missing))
            if not (j in modes and self.missing == "mean"):
                col[~present] = fills[~present]
            new_sums.append(float(running[-1]))
            new_counts.append(int(seen[-1]))
        return values, (names, new_sums, new_counts, modes)

    @staticmethod
    def _fill_by_mode(col: np.ndarray, mode: _Mode) -> None:
        """Fill the absent cells of a nominal column in place, each with the mode of the
        values before it (as ``learn_one`` would, row by row); ``mode`` ends updated."""
        for i, value in enumerate(col.tolist()):
            if math.isnan(value):
                col[i] = mode.best
            else:
                mode.add(value)

    def commit_frame(self, update: Any) -> None:
        """Record the learned rows of a frame (the second value of :meth:`take_frame`)."""
        if update is None:
            return
        names, sums, counts, modes = update
        self.names, self.sums, self.counts, self.modes = list(names), sums, counts, modes

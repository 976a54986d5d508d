"""Classification baselines: the majority class and k nearest neighbours (NN3).

References
----------
[DOC15] R. De Rosa, F. Orabona and N. Cesa-Bianchi, "The ABACOC algorithm: a novel
approach for nonparametric classification of data streams", ICDM 2015, §IV-C.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from reference.evaluation.baselines._inputs import _RowChecker, _rows

__all__ = ["MajorityClass", "NearestNeighbours"]


class MajorityClass:
    """Predict the most frequent label seen so far (classification baseline).

    Ties go to the label seen first. ``predict_proba_one`` gives the label
    frequencies, optionally with additive smoothing ``(count + a) / (n + a K)`` over
    the ``K`` labels known so far. Before any label, ``predict_one`` returns ``None``
    (an abstention, counted as a mistake by
    :func:`reference.evaluation.prequential.prequential`) and ``predict_proba_one`` is
    uniform over ``classes`` if they were given, else empty.

    Parameters
    ----------
    classes : sequence of hashable, optional
        Fix the label set and its order (``classes_``); a label outside it is a
        ``ValueError``. Without it, labels are added in order of first appearance.

    Examples
    --------
    >>> model = MajorityClass()
    >>> model.partial_fit([[0.0], [1.0], [2.0]], ["a", "b", "b"])
    MajorityClass(classes=None, smoothing=0.0)
    >>> model.predict_one([0.0]), model.predict_proba_one([0.0])["b"]
    ('b', 0.6666666666666666)
    """

    def __init__(self, classes: Sequence[Hashable] | None = None, smoothing: float = 0.0) -> None:
        if isinstance(smoothing, bool) or not (
            isinstance(smoothing, (int, float)) and math.isfinite(smoothing) and smoothing >= 0.0
        ):
            raise ValueError(f"smoothing must be a finite float >= 0, got {smoothing!r}")
        self.smoothing = float(smoothing)
        self.classes = None if classes is None else list(classes)
        if self.classes is not None:
            if not self.classes:
                raise ValueError("classes must be None or a non-empty sequence of labels")
            if len(set(self.classes)) != len(self.classes):
                raise ValueError("classes must not contain duplicates")
        self._rows = _RowChecker()
        self.n_seen_ = 0
        self.classes_: list[Hashable] = [] if self.classes is None else list(self.classes)
        self._counts: list[int] = [0] * len(self.classes_)

    @property
    def n_features_in_(self) -> int | None:
        """Number of inputs, fixed by the first row (None before)."""
        return self._rows.n_features_in_

    def learn_one(self, x: Sequence[float] | Mapping[str, float], y: Hashable) -> None:
        """Count one label (``x`` is validated, otherwise unused)."""
        row = self._rows.check(x)
        if y is None:
            raise ValueError("y must be a label, got None")
        y = y.item() if isinstance(y, np.generic) else y
        if y not in self.classes_ and self.classes is not None:
            raise ValueError(f"label {y!r} is not one of classes={self.classes!r}")
        self._rows.fix(x, row)
        if y not in self.classes_:
            self.classes_.append(y)
            self._counts.append(0)
        self._counts[self.classes_.index(y)] += 1
        self.n_seen_ += 1

    def partial_fit(self, X: npt.ArrayLike, y: npt.ArrayLike) -> MajorityClass:
        """Learn the rows of ``X`` in order; returns ``self``."""
        rows = _rows(X)
        labels = list(np.asarray(y, dtype=object).ravel())
        if len(rows) != len(labels):
            raise ValueError(f"X has {len(rows)} rows but y has {len(labels)}")
        if not rows:
            raise ValueError("empty input: X has no rows")
        for row, label in zip(rows, labels, strict=True):
            self.learn_one(row, label)
        return self

    def predict_one(self, x: Sequence[float] | Mapping[str, float]) -> Hashable | None:
        """The most frequent label so far (first seen on ties), ``None`` before any."""
        self._rows.check(x)
        best: Hashable | None = None
        best_count = 0
        for label, count in zip(self.classes_, self._counts, strict=True):
            if count > best_count:
                best, best_count = label, count
        return best

    def predict_proba_one(self, x: Sequence[float] | Mapping[str, float]) -> dict[Hashable, float]:
        """Label frequencies ``{label: (count + a) / (n + a K)}`` in ``classes_`` order.

        Uniform over ``classes_`` before any label (empty if no label is known).
        """
        self._rows.check(x)
        k = len(self.classes_)
        if self.n_seen_ == 0:
            return {label: 1.0 / k for label in self.classes_}
        a = self.smoothing
        denominator = float(self.n_seen_) + a * float(k)
        return {
            label: (float(count) + a) / denominator
            for label, count in zip(self.classes_, self._counts, strict=True)
        }

    def predict(self, X: npt.ArrayLike) -> npt.NDArray[Any]:
        """``predict_one`` for each row of ``X`` (an object array if a row abstains)."""
        labels = [self.predict_one(row) for row in _rows(X)]
        if any(label is None for label in labels):
            return np.asarray(labels, dtype=object)
        return np.asarray(labels)

    def predict_proba(self, X: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Probabilities, one row per input, columns in ``classes_`` order."""
        rows = _rows(X)
        out = np.zeros((len(rows), len(self.classes_)), dtype=np.float64)
        for i, row in enumerate(rows):
            proba = self.predict_proba_one(row)
            for j, label in enumerate(self.classes_):
                out[i, j] = proba[label]
        return out

    def snapshot(self) -> dict[str, Any]:
        """State as plain data (labels as their ``repr`` so that keys stay strings)."""
        return {
            "n_features_in": self.n_features_in_,
            "n_seen": self.n_seen_,
            "classes": [repr(label) for label in self.classes_],
            "counts": list(self._counts),
        }

    def get_params(self) -> dict[str, Any]:
        """Constructor arguments."""
        return {
            "classes": None if self.classes is None else list(self.classes),
            "smoothing": self.smoothing,
        }

    def clone(self) -> MajorityClass:
        """A fresh, untrained copy with the same parameters."""
        return MajorityClass(**self.get_params())

    def __repr__(self) -> str:
        return f"MajorityClass(classes={self.classes!r}, smoothing={self.smoothing!r})"


class NearestNeighbours:
    """k-nearest-neighbour classifier over every example learned (DOC15's NN3 baseline).

    The model stores each learned row and label. A prediction is the majority label of the
    ``k`` stored rows nearest in Euclidean distance (fewer while fewer are stored). Ties are
    broken deterministically: among equally distant rows the earlier-stored one is nearer,
    and among labels with equally many votes the one nearest to ``x`` wins. Before any
    example ``predict_one`` returns ``None`` (an abstention) and ``predict_proba_one`` is
    uniform over the known labels. Combined with the online sub-sampling protocol
    (:func:`reference.evaluation.prequential.prequential` with ``rate``), the stored rows
    are a random sub-sample of the stream, the baseline of [DOC15, §IV-C] at a given model size
    (``n_stored_``).

    The search is brute force, ``O(n_stored d)`` per prediction: an evaluation tool, not
    a production nearest-neighbour index.

    Parameters
    ----------
    k : int, default 3
        Number of neighbours that vote.
    classes : sequence of hashable, optional
        Fix the label set and its order (``classes_``); otherwise labels are added in
        order of first appearance.

    Examples
    --------
    >>> model = NearestNeighbours(k=3)
    >>> model.partial_fit([[0.0], [0.1], [1.0], [1.1], [1.2]], ["a", "a", "b", "b", "b"])
    NearestNeighbours(k=3, classes=None)
    >>> model.predict_one([0.05]), model.predict_one([0.9]), model.n_stored_
    ('a', 'b', 5)
    """

    def __init__(self, k: int = 3, classes: Sequence[Hashable] | None = None) -> None:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"k must be an integer >= 1, got {k!r}")
        self.k = int(k)
        self.classes = None if classes is None else list(classes)
        if self.classes is not None and (not self.classes
                                         or len(set(self.classes)) != len(self.classes)):
            raise ValueError("classes must be None or a non-empty sequence of distinct labels")
        self._rows = _RowChecker()
        self.n_seen_ = 0
        self.classes_: list[Hashable] = [] if self.classes is None else list(self.classes)
        self._X = np.empty((0, 0), dtype=np.float64)
        self._y = np.empty(0, dtype=np.int64)

    @property
    def n_features_in_(self) -> int | None:
        """Number of inputs, fixed by the first row (None before)."""
        return self._rows.n_features_in_

    @property
    def n_stored_(self) -> int:
        """Examples stored (the model size)."""
        return self.n_seen_

    def learn_one(self, x: Sequence[float] | Mapping[str, float], y: Hashable) -> None:
        """Store one example."""
        row = self._rows.check(x)
        if y is None:
            raise ValueError("y must be a label, got None")
        y = y.item() if isinstance(y, np.generic) else y
        if y not in self.classes_ and self.classes is not None:
            raise ValueError(f"label {y!r} is not one of classes={self.classes!r}")
        self._rows.fix(x, row)
        if y not in self.classes_:
            self.classes_.append(y)
        n = self.n_seen_
        if n == len(self._y):                       # grow the buffers geometrically
            grown = max(16, 2 * n)
            X = np.empty((grown, len(row)), dtype=np.float64)
            labels = np.empty(grown, dtype=np.int64)
            if n:
                X[:n] = self._X[:n]
                labels[:n] = self._y[:n]
            self._X, self._y = X, labels
        self._X[n] = row
        self._y[n] = self.classes_.index(y)
        self.n_seen_ = n + 1

    def partial_fit(self, X: npt.ArrayLike, y: npt.ArrayLike) -> NearestNeighbours:
        """Learn the rows of ``X`` in order; returns ``self``."""
        rows = _rows(X)
        labels = list(np.asarray(y, dtype=object).ravel())
        if len(rows) != len(labels):
            raise ValueError(f"X has {len(rows)} rows but y has {len(labels)}")
        if not rows:
            raise ValueError("empty input: X has no rows")
        for row, label in zip(rows, labels, strict=True):
            self.learn_one(row, label)
        return self

    def _votes(self, x: Sequence[float] | Mapping[str, float]) -> tuple[np.ndarray, int]:
        """Vote counts per label index and the label index of the nearest voter."""
        row = np.asarray(self._rows.check(x), dtype=np.float64)
        n = self.n_seen_
        diff = self._X[:n] - row
        d = np.einsum("ij,ij->i", diff, diff)
        k = min(self.k, n)
        cut = np.partition(d, k - 1)[k - 1]
        near = np.flatnonzero(d <= cut)             # every row within the k-th distance
        near = near[np.lexsort((near, d[near]))][:k]  # by distance, then storage order
        votes = np.bincount(self._y[near], minlength=len(self.classes_))
        return votes, int(self._y[near[0]])

    def predict_one(self, x: Sequence[float] | Mapping[str, float]) -> Hashable | None:
        """Majority label of the ``k`` nearest stored rows (``None`` before any example)."""
        if self.n_seen_ == 0:
            self._rows.check(x)
            return None
        votes, nearest = self._votes(x)
        best = np.flatnonzero(votes == votes.max())
        return self.classes_[nearest if nearest in best else int(best[0])]

    def predict_proba_one(self, x: Sequence[float] | Mapping[str, float]) -> dict[Hashable, float]:
        """Vote fractions ``{label: votes / k}`` in ``classes_`` order."""
        if self.n_seen_ == 0:
            self._rows.check(x)
            return {label: 1.0 / len(self.classes_) for label in self.classes_}
        votes, _ = self._votes(x)
        total = float(votes.sum())
        return {label: float(v) / total for label, v in zip(self.classes_, votes, strict=True)}

    def predict(self, X: npt.ArrayLike) -> npt.NDArray[Any]:
        """``predict_one`` for each row of ``X`` (an object array if a row abstains)."""
        labels = [self.predict_one(row) for row in _rows(X)]
        if any(label is None for label in labels):
            return np.asarray(labels, dtype=object)
        return np.asarray(labels)

    def snapshot(self) -> dict[str, Any]:
        """State as plain data (labels as their ``repr``)."""
        n = self.n_seen_
        return {"n_features_in": self.n_features_in_, "n_seen": n,
                "classes": [repr(label) for label in self.classes_],
                "X": self._X[:n].tolist(), "y": self._y[:n].tolist()}

    def get_params(self) -> dict[str, Any]:
        """Constructor arguments."""
        return {"k": self.k, "classes": None if self.classes is None else list(self.classes)}

    def clone(self) -> NearestNeighbours:
        """A fresh, untrained copy with the same parameters."""
        return NearestNeighbours(**self.get_params())

    def __repr__(self) -> str:
        return f"NearestNeighbours(k={self.k!r}, classes={self.classes!r})"

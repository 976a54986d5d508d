"""The SGT classifier: binary logistic or softmax committee [GPF19, §4.1].

A facade (:class:`reference.sgt.facade.SGTFacade`) that maps labels to class indices and
calls its engine (:mod:`reference.sgt.engine`); its label handling is shared with
:mod:`reference.sgt.multi_instance`. Every rejected call raises before any state changes.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np

from reference.batches import (
    LazyColumn,
    chunk_rows,
    chunks,
    distinct_labels,
    first_unknown,
    label_codes,
    label_input,
    take_labels,
)
from reference.estimator import ClassifierEstimatorMixin, check_labels_defined, locks_itself
from reference.feature_names import PLAIN_ROWS, row_by_name
from reference.sgt.atomic import atomic_first_call
from reference.sgt.core import LOSS_LOGISTIC, LOSS_SOFTMAX
from reference.sgt.facade import PARAM_NAMES, SGTFacade, as_list, document

__all__ = ["SGTClassifier"]


class _Classifier(ClassifierEstimatorMixin, SGTFacade):
    """Label handling shared by the classifiers."""

    _labelled = True

    classes_: list[Hashable] | None

    def _index(self, y: Any) -> int:
        assert self.classes_ is not None
        try:
            return self._class_index[y]
        except (KeyError, TypeError):
            raise ValueError(f"unknown label {y!r}; classes are {self.classes_}") from None

    def _set_classes(self, classes: Sequence[Hashable]) -> None:
        labels = list(classes)
        check_labels_defined(labels)
        try:
            index = {label: i for i, label in enumerate(labels)}
        except TypeError:
            raise ValueError(f"classes must hold hashable labels, got {labels!r}") from None
        if len(labels) < 2 or len(index) != len(labels):
            raise ValueError(f"classes must hold at least two distinct labels, got {labels!r}")
        self.classes_ = labels
        self._class_index = index

    def _fixed_classes(self) -> list[Hashable] | None:
        """The class list fixed before any data (None: the first call fixes it)."""
        given: Sequence[Hashable] | None = getattr(self, "classes", None)
        return None if given is None else list(given)

    def _fitted_state(self) -> dict[str, Any]:
        out = super()._fitted_state()
        out["classes"] = None if self.classes_ is None else list(self.classes_)
        return out

    def _restore_classes(self, classes: list[Hashable] | None) -> None:
        if classes is not None:
            self._set_classes(classes)

    def _declare_classes(self, classes: Sequence[Hashable]) -> None:
        values = list(classes)
        if self.classes_ is None:
            self._set_classes(values)
            return
        for label in values:
            try:
                known = label in self._class_index
            except TypeError:
                known = False
            if not known:
                raise ValueError(f"classes {values!r} differ from classes_ {self.classes_!r}")

    def _proba(self, raws: list[float]) -> list[float]:
        raise NotImplementedError

    def _proba_dict(self, raws: list[float]) -> dict[Hashable, float]:
        if self.classes_ is None:
            return {}
        return self._label_dict(self._proba(raws))

    def _argmax(self, probs: list[float]) -> Hashable:
        assert self.classes_ is not None
        best = 0
        for c in range(1, len(probs)):
            if probs[c] > probs[best]:
                best = c
        return self.classes_[best]


@document
class SGTClassifier(_Classifier):
    """Stochastic gradient tree classifier: binary logistic or softmax committee [GPF19, §4.1].

    Binary: one tree with p(``classes_[1]``) = σ(f). k > 2 classes: k-1 trees for
    ``classes_[0..k-2]`` and a fixed score 0 for ``classes_[k-1]``, combined by a
    softmax; each tree is trained on the diagonal of the softmax Hessian.

    Parameters
    ----------
    classes : sequence or None
        The class labels, in order. If None, the first :meth:`partial_fit` fixes them
        in order of first appearance (``learn_one`` before that raises ``ValueError``).
{common}

    Notes
    -----
    Inputs must be finite (missing values are not supported in this version); a
    label outside ``classes_`` raises ``ValueError``.

    Examples
    --------
    >>> model = SGTClassifier(classes=["lo", "hi"], warmup=50, grace_period=50)
    >>> for i in range(600):
    ...     x = [(i * 37 % 100) / 100.0]
    ...     model.learn_one(x, "hi" if x[0] > 0.5 else "lo")
    >>> model.predict_one([0.9]), model.predict_one([0.2])
    ('hi', 'lo')
    """

    def __init__(self, classes: Sequence[Hashable] | None = None, delta: float = 1e-7,
                 grace_period: int = 200, lam: float = 0.1, gamma: float = 1.0,
                 bins: int = 64, warmup: int | None = None,
                 feature_ranges: Mapping[int, tuple[float, float]] | None = None,
                 nominal: Mapping[int, int] | None = None, max_depth: int | None = None,
                 warmup_trains: bool = True, test: str = "two-sided",
                 warmup_prediction: str = "newton", quantization: str = "leaf",
                 n_jobs: int | None = None) -> None:
        self.n_jobs = n_jobs
        self.classes = None if classes is None else list(classes)
        self.classes_ = None
        self._class_index: dict[Hashable, int] = {}
        if self.classes is not None:
            self._set_classes(self.classes)
        super().__init__(delta, grace_period, lam, gamma, bins, warmup, feature_ranges,
                         nominal, max_depth, warmup_trains, test, warmup_prediction,
                         quantization)

    def _param_names(self) -> tuple[str, ...]:
        return ("classes",) + PARAM_NAMES

    def _n_trees(self) -> int:
        return 1 if self.classes_ is None or len(self.classes_) == 2 else len(self.classes_) - 1

    def _loss_kind(self) -> int:
        return LOSS_LOGISTIC if self._n_trees() == 1 else LOSS_SOFTMAX

    def _target(self, index: int) -> float:
        if self._loss_kind() == LOSS_LOGISTIC:
            return 1.0 if index == 1 else 0.0
        return float(index)

    def _proba(self, raws: list[float]) -> list[float]:
        if self._loss_kind() == LOSS_LOGISTIC:
            p = self._engine_class.sigmoid(raws[0])
            return [1.0 - p, p]
        probs: list[float] = self._engine_class.softmax(raws)
        return probs

    @locks_itself
    def learn_one(self, x: Any, y: Hashable) -> None:
        """Learn one labelled row; the class set must be known (``classes=``)."""
        if type(x) not in PLAIN_ROWS:  # a pandas Series: matched by name
            x = row_by_name(self, x)
        lock = self._lock
        lock.acquire()
        try:
            engine = self._engine
            if engine is not None and engine.raw_rows:
                try:
                    index = self._class_index[y]
                except (KeyError, TypeError):
                    index = -1
                if index >= 0 and engine.learn_one_raw(
                        x, self._keys, float(index) if engine.n_trees > 1 else float(index == 1)):
                    self.n_seen_ += 1
                    return
            self._learn_one(x, y)
        finally:
            lock.release()

    @atomic_first_call
    def _learn_one(self, x: Any, y: Hashable) -> None:
        if self.classes_ is None:
            raise ValueError("classes are unknown: pass classes= or call partial_fit first")
        index = self._index(y)
        row, keys, kinds = self._row(x)
        self._commit(len(row), keys, kinds)
        self._learn_rows([row], self._target(index))
        self.n_seen_ += 1

    @atomic_first_call
    def partial_fit(self, X: Any, y: Any,
                    classes: Sequence[Hashable] | None = None) -> SGTClassifier:
        """Learn rows in order; the first call fixes ``classes_`` if not given (``classes``
        here, the scikit-learn convention, or the labels in order of first appearance)."""
        if classes is not None:
            saved = (self.classes_, self._class_index)
            try:
                self._declare_classes(classes)
                return self.partial_fit(X, y)
            except BaseException:
                if self.n_seen_ == 0:
                    self.classes_, self._class_index = saved
                raise
        arr, kinds = self._batch(X)
        assert kinds is not None
        coded = label_input(y) if self._engine_class.array_batches else None
        if coded is not None:
            return self._fit_coded(arr, kinds, coded)
        labels = as_list(y, arr.shape[0])
        if self.classes_ is None:
            seen: dict[Hashable, None] = {}
            for label in labels:
                try:
                    seen.setdefault(label, None)
                except TypeError:
                    raise ValueError(f"labels must be hashable, got {label!r}") from None
            self._first_classes(list(seen), arr.shape[1], kinds)
        targets = [self._target(self._index(label)) for label in labels]
        self._commit(arr.shape[1], None, kinds)
        self._fit_rows(arr, targets)
        return self

    def _first_classes(self, labels: list[Hashable], n_features: int,
                       kinds: list[int]) -> None:
        """Fix ``classes_`` to the distinct ``labels`` of a first batch (at least two) and
        build the model; an allocation failure leaves the class set unknown."""
        if len(labels) < 2:
            raise ValueError("the first partial_fit needs two classes or classes= up front")
        self._set_classes(labels)
        try:
            self._commit(n_features, None, kinds)
        except MemoryError:
            self.classes_, self._class_index = None, {}
            raise

    def _fit_coded(self, arr: np.ndarray, kinds: list[int], y: np.ndarray) -> SGTClassifier:
        """:meth:`partial_fit` of a label array read chunk by chunk
        (:func:`reference.batches.label_input`): the same checks and messages, the labels
        mapped to targets one chunk at a time, never as a list."""
        n = arr.shape[0]
        if y.shape[0] != n:
            raise ValueError(f"y has {y.shape[0]} labels for {n} rows")
        if self.classes_ is None:
            self._first_classes(distinct_labels(y, chunk_rows(1)), arr.shape[1], kinds)
        targets = self._coded_targets(y)
        self._commit(arr.shape[1], None, kinds)
        self._fit_rows(arr, targets)
        return self

    def _coded_targets(self, y: np.ndarray) -> LazyColumn:
        """The targets of a label array, checked chunk by chunk (an unknown label raises
        as :meth:`_index`, on the first one) and then computed a chunk at a time."""
        index = self._class_index
        unknown = first_unknown(y, index, chunk_rows(1))
        if unknown is not None:
            self._index(y[unknown].item())
        logistic = self._loss_kind() == LOSS_LOGISTIC

        def targets(start: int, stop: int) -> np.ndarray:
            codes = label_codes(y[start:stop], index)
            return (codes == 1).astype(np.float64) if logistic else codes.astype(np.float64)

        return LazyColumn(y.shape[0], targets, y)

    @atomic_first_call
    def progressive_predict(self, X: Any, y: Any) -> np.ndarray:
        """Test-then-train over a batch: the label predicted for each row just before
        learning it (prequential evaluation); validated as :meth:`partial_fit`."""
        arr, kinds = self._batch(X)
        assert kinds is not None
        coded = label_input(y) if self._engine_class.array_batches else None
        if coded is not None and coded.shape[0] != arr.shape[0]:
            raise ValueError(f"y has {coded.shape[0]} labels for {arr.shape[0]} rows")
        labels = None if coded is not None else as_list(y, arr.shape[0])
        if self.classes_ is None:
            raise ValueError("classes are unknown: pass classes= or call partial_fit first")
        targets: Any
        if coded is not None:
            targets = self._coded_targets(coded)
        else:
            targets = [self._target(self._index(label)) for label in labels or []]
        self._commit(arr.shape[1], None, kinds)
        return self._progressive_rows(arr, targets)

    def _progressive_rows(self, arr: np.ndarray, targets: Any) -> np.ndarray:
        return self._labels(self._engine.progressive(arr, targets, self._count))

    def _labels(self, raws: np.ndarray) -> np.ndarray:
        """The most probable label of each row of raw scores (first on ties)."""
        assert self.classes_ is not None
        classes = self.classes_
        indices = self._engine.class_indices(raws)
        return take_labels(classes, np.asarray(indices))

    @locks_itself
    def predict_proba_one(self, x: Any) -> dict[Hashable, float]:
        """Class probabilities ``{label: p}`` ({} while the classes are unknown)."""
        if type(x) not in PLAIN_ROWS:  # a pandas Series: matched by name
            x = row_by_name(self, x)
        lock = self._lock
        lock.acquire()
        try:
            engine = self._engine
            if engine is not None and engine.raw_rows:
                probs = engine.proba_one_raw(x, self._keys)
                if probs is not None:
                    return self._label_dict(probs)
            return self._predict_proba_one(x)
        finally:
            lock.release()

    def _predict_proba_one(self, x: Any) -> dict[Hashable, float]:
        return self._proba_dict(self._raws(self._predict_row(x)))

    @locks_itself
    def predict_one(self, x: Any) -> Hashable:
        """Most probable label (first on ties), None while the classes are unknown."""
        if type(x) not in PLAIN_ROWS:  # a pandas Series: matched by name
            x = row_by_name(self, x)
        lock = self._lock
        lock.acquire()
        try:
            engine = self._engine
            if engine is not None and engine.raw_rows:
                k = engine.label_one_raw(x, self._keys)
                if k >= 0:
                    label: Hashable = self.classes_[k]  # type: ignore[index]
                    return label
            return self._predict_one(x)
        finally:
            lock.release()

    def _predict_one(self, x: Any) -> Hashable:
        row = self._predict_row(x)
        if self.classes_ is None:
            return None
        return self._argmax(self._proba(self._raws(row)))

    def predict_proba(self, X: Any) -> np.ndarray:
        """Probabilities, columns in ``classes_`` order."""
        arr, _ = self._batch(X, first=False)
        if self.classes_ is None:
            return np.zeros((arr.shape[0], 0))
        if self._engine is not None and self._engine_class.array_batches:
            out = np.empty((arr.shape[0], len(self.classes_)))
            for start, stop in chunks(arr.shape[0], chunk_rows(arr.shape[1]), arr):
                raws = self._engine.raws_many(arr[start:stop], self._n_jobs)
                out[start:stop] = self._engine.probas(raws)
            return out
        return np.array([self._proba(self._raws(arr[i].tolist())) for i in range(arr.shape[0])])

    def predict(self, X: Any) -> np.ndarray:
        """Most probable labels."""
        arr, _ = self._batch(X, first=False)
        if self._engine is None:
            return np.array([self.predict_one(arr[i].tolist()) for i in range(arr.shape[0])])
        return self._labels(self._engine.raws_many(arr, self._n_jobs))

"""The ABACOC facade: labels, rows, parameters and the public API of ``ABACOCClassifier``.

:class:`ABACOCFacade` validates every input *before* its engine
(:mod:`reference.abacoc.engine`, ``self._engine``) runs, maps user labels to class
indices (registered on the fly in order of first appearance, [ABACOC-SPEC §10]) and
implements the public methods on top of the engine. So a rejected call leaves both
backends unchanged, with the same exception class. The public class, its state and its
documentation are in :mod:`reference.abacoc.model`.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np

from reference.abacoc.columns import (
    BALLS_TAG,
    balls_to_columns,
    column_arrays,
    columns_to_balls,
    is_columns,
)
from reference.abacoc.params import ABACOCParams, as_matrix, as_row, labels_of
from reference.abacoc.state_check import check_cover
from reference.batches import (
    CodedLabels,
    all_finite,
    array_input,
    label_input,
    label_table,
    take_labels,
)
from reference.estimator import ClassifierEstimatorMixin, check_labels_defined, locks_itself
from reference.feature_names import PLAIN_ROWS, row_by_name
from reference.state import VersionedState, as_dict, as_int, as_labels, fail

__all__ = ["ABACOCFacade", "PARAM_NAMES"]

PARAM_NAMES = (
    "variant", "budget", "d", "C", "mode", "labels", "metric", "p",
    "search", "search_threshold", "leaf_size", "seed",
)
"""Constructor arguments, in signature order (``get_params`` and ``clone``)."""


def _distinct(labels: list[Any] | CodedLabels) -> Iterable[Any]:
    """The distinct labels in order of first appearance."""
    if isinstance(labels, CodedLabels):
        return labels.distinct
    return dict.fromkeys(labels)


class ABACOCFacade(ClassifierEstimatorMixin, VersionedState):
    """Shared facade logic of ``ABACOCClassifier`` (both backends)."""

    _engine_class: Any
    _params: ABACOCParams
    _engine: Any
    classes_: list[Any]
    n_features_in_: int | None

    def _init_facade(self, params: ABACOCParams) -> None:
        params.validate()
        self._params = params
        self.classes_ = list(params.labels) if params.randomized else []
        self._class_index: dict[Any, int] = {label: k for k, label in enumerate(self.classes_)}
        self.n_features_in_ = None
        self._feature_keys: tuple[Any, ...] | None = None
        self._engine = self._engine_class(params)

    @property
    def n_seen_(self) -> int:
        """Rows learned."""
        return int(self._engine.n_seen)

    @property
    def n_balls_(self) -> int:
        """Number of live balls ``|S|``."""
        return int(self._engine.n_balls)

    def _learn_transaction(self, X: np.ndarray | list[float], labels: list[Any] | CodedLabels,
                           keys: tuple[Any, ...] | None) -> None:
        """Fix the width, register labels and learn; if that raises (``MemoryError``
        from C) before any row was learned, the facade and the backend are put back.
        ``X`` is a 2-D array of rows, or one row as a list of floats."""
        n_features, old_keys = self.n_features_in_, self._feature_keys
        n_classes, n_seen = len(self.classes_), self.n_seen_
        try:
            if isinstance(X, list):
                self._fix_input(len(X), keys)
                ks = self._register(labels)
                self._engine.learn_row(X, int(ks[0]), len(self.classes_))
            else:
                self._fix_input(X.shape[1], keys)
                ks = self._register(labels)
                self._engine.learn_rows(X, ks, len(self.classes_))
        except BaseException:
            if self.n_seen_ == n_seen:
                for label in self.classes_[n_classes:]:
                    del self._class_index[label]
                del self.classes_[n_classes:]
                self.n_features_in_, self._feature_keys = n_features, old_keys
                self._engine.rollback(n_features or 0, n_classes)
            raise

    # -- data-only model files and checked restores (reference.persist) -------------------
    def _fitted_state(self) -> dict[str, Any]:
        """The facade state a model file stores next to :meth:`snapshot`."""
        keys = self._feature_keys
        return {"n_features_in": self.n_features_in_,
                "keys": None if keys is None else list(keys),
                "classes": list(self.classes_)}

    def _check_state(self, fitted: Any, snapshot: Any) -> None:
        """Raise ``StateFormatError`` naming the field unless ``fitted`` and ``snapshot``
        are a valid state for this model's parameters (:mod:`reference.abacoc.state_check`)."""
        as_dict(fitted, "fitted", ("n_features_in", "keys", "classes"))
        classes = as_labels(fitted["classes"], "fitted.classes")
        if self._params.randomized and classes != list(self._params.labels):
            raise fail("fitted.classes", f"the randomized mode keeps labels "
                       f"{list(self._params.labels)!r}")
        d = fitted["n_features_in"]
        if d is not None:
            as_int(d, "fitted.n_features_in", 1, 2**31 - 1)
        keys = fitted["keys"]
        if keys is not None and (d is None or len(as_labels(keys, "fitted.keys")) != d):
            raise fail("fitted.keys", "expected one name per feature")
        check_cover(snapshot, self._params, d or 0, len(classes))

    def _load_fitted(self, fitted: Any, snapshot: Any) -> None:
        """Check a model file's facade state and snapshot, then restore them into this
        new model."""
        self._check_state(fitted, snapshot)
        self.classes_ = list(fitted["classes"])
        self._class_index = {label: k for k, label in enumerate(self.classes_)}
        self.n_features_in_ = fitted["n_features_in"]
        keys = fitted["keys"]
        self._feature_keys = None if keys is None else tuple(keys)
        if is_columns(snapshot["balls"]) and not getattr(self._engine, "restores_columns",
                                                         False):
            snapshot = {**snapshot, "balls": columns_to_balls(column_arrays(
                snapshot["balls"], "snapshot.balls", snapshot["n_features"],
                snapshot["n_classes"]))}
        self._engine.restore(snapshot)

    def _file_state(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The facade state and snapshot a model file of format 2 stores: the balls as
        columns (:mod:`reference.abacoc.columns`)."""
        fitted = self._fitted_state()
        columns = getattr(self._engine, "snapshot_columns", None)
        if columns is not None:
            return fitted, columns()
        snap = self.snapshot()  # type: ignore[attr-defined]
        snap["balls"] = {BALLS_TAG: balls_to_columns(snap["balls"], snap["n_features"],
                                                     snap["n_classes"])}
        return fitted, snap

    # -- parameters ---------------------------------------------------------------------
    def _constructor_params(self) -> dict[str, Any]:
        """Constructor arguments as a dict (``clone`` passes them back)."""
        return {name: getattr(self._params, name) for name in PARAM_NAMES}

    def clone(self) -> Any:
        """A new, untrained model with the same parameters."""
        return type(self)(**self.get_params())

    # -- label registry ([ABACOC-SPEC §10]) -------------------------------------------------------
    def _check_labels(self, labels: list[Any] | CodedLabels) -> None:
        try:
            # raises TypeError for an unhashable label
            distinct = dict.fromkeys(labels.distinct if isinstance(labels, CodedLabels)
                                     else labels)
        except TypeError as exc:
            raise TypeError(f"labels must be hashable: {exc}") from exc
        check_labels_defined(label for label in distinct if label not in self._class_index)
        if self._params.randomized:
            for label in distinct:
                if label not in self._class_index:
                    raise ValueError(
                        f"label {label!r} is not one of labels={self._params.labels!r} "
                        "(randomized BASE is binary)"
                    )

    def _register(self, labels: list[Any] | CodedLabels) -> Any:
        """Register new labels in order of first appearance; the class index of each
        label (a list, or a column computed a chunk at a time for coded labels)."""
        index = self._class_index
        for label in _distinct(labels):
            if label not in index:
                index[label] = len(self.classes_)
                self.classes_.append(label)
        if isinstance(labels, CodedLabels):
            return labels.codes(index)
        return [index[label] for label in labels]

    def _batch(self, X: Any) -> np.ndarray:
        """A checked 2-D batch: a numeric array as it is when the engine takes arrays
        (``array_batches``, read chunk by chunk, :mod:`reference.batches`), else the
        float64 copy of :func:`reference.abacoc.params.as_matrix`; the same messages."""
        arr = array_input(X) if self._engine_class.array_batches else None
        if arr is None:
            return as_matrix(X, self.n_features_in_)
        if arr.shape[0] == 0 or arr.shape[1] == 0:
            raise ValueError(f"X must not be empty, got shape {arr.shape}")
        if self.n_features_in_ is not None and arr.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {arr.shape[1]} features, expected {self.n_features_in_}")
        if not all_finite(arr):
            raise ValueError("X contains NaN or infinite values")
        return arr

    def _batch_labels(self, y: Any, n_rows: int) -> list[Any] | CodedLabels:
        """The labels of a batch: a list (:func:`reference.abacoc.params.labels_of`), or
        a label array read chunk by chunk when the engine takes arrays."""
        coded = label_input(y) if self._engine_class.array_batches else None
        if coded is None:
            return list(labels_of(y, n_rows))
        if coded.shape[0] != n_rows:
            raise ValueError(f"y has {coded.shape[0]} labels, expected {n_rows}")
        return CodedLabels(coded)

    def _row(self, x: Any) -> list[float]:
        row, _ = as_row(x, self.n_features_in_, self._feature_keys)
        return row

    def _fix_input(self, n_features: int, keys: tuple[Any, ...] | None) -> None:
        if self.n_features_in_ is None:
            self.n_features_in_ = n_features
            self._feature_keys = keys
            self._engine.set_dim(n_features)

    # -- public API ------------------------------------------------------------------------
    @locks_itself
    def learn_one(self, x: Any, y: Hashable) -> Any:
        """Learn one labelled example ([ABACOC-SPEC §3] learn_one); returns ``self``.

        A new label is registered with the next class index. Bad input raises before any
        state changes.
        """
        if type(x) not in PLAIN_ROWS:  # a pandas Series: matched by name
            x = row_by_name(self, x)
        lock = self._lock
        lock.acquire()
        try:
            engine = self._engine
            if engine.raw_rows and self.n_features_in_ is not None:
                try:
                    k = self._class_index[y]
                except (KeyError, TypeError):
                    k = -1
                if k >= 0 and engine.learn_one_raw(x, self._feature_keys, k,
                                                   len(self.classes_)):
                    return self
            return self._learn_one(x, y)
        finally:
            lock.release()

    def _learn_one(self, x: Any, y: Hashable) -> Any:
        row, keys = as_row(x, self.n_features_in_, self._feature_keys)
        self._check_labels([y])
        self._learn_transaction(row, [y], keys)
        return self

    def _declare_classes(self, classes: Sequence[Hashable]) -> None:
        values = list(classes)
        self._check_labels(values)
        self._register(values)

    def partial_fit(self, X: Any, y: Any, classes: Sequence[Hashable] | None = None) -> Any:
        """Learn the rows of ``X`` in order (the fast backend runs the loop in C).

        ``classes`` (the scikit-learn convention) registers those labels first, in the
        given order; otherwise labels are registered in order of first appearance.
        """
        arr = self._batch(X)
        labels = self._batch_labels(y, arr.shape[0])
        self._check_labels(labels)
        if classes is None:
            self._learn_transaction(arr, labels, None)
            return self
        declared = list(classes)
        self._check_labels(declared)
        n_classes = len(self.classes_)
        self._register(declared)
        try:
            self._learn_transaction(arr, labels, None)
        except BaseException:
            if self.n_seen_ == 0:  # nothing learned: the declared labels go too
                for label in self.classes_[n_classes:]:
                    del self._class_index[label]
                del self.classes_[n_classes:]
            raise
        return self

    def _label_of(self, k: int) -> Any:
        return None if k < 0 else self.classes_[k]

    @locks_itself
    def predict_one(self, x: Any) -> Any:
        """The predicted label of ``x``, or ``None`` when the model abstains (no ball).

        Randomized BASE draws one uniform from the model generator per call.
        """
        if type(x) not in PLAIN_ROWS:  # a pandas Series: matched by name
            x = row_by_name(self, x)
        lock = self._lock
        lock.acquire()
        try:
            engine = self._engine
            if engine.raw_rows and self.n_features_in_ is not None:
                k = engine.predict_one_raw(x, self._feature_keys)
                if k is not None:
                    return None if k < 0 else self.classes_[k]
            return self._predict_one(x)
        finally:
            lock.release()

    def _predict_one(self, x: Any) -> Any:
        return self._label_of(self._engine.predict_row(self._row(x)))

    def predict(self, X: Any) -> np.ndarray:
        """Predicted labels of the rows of ``X`` (an object array if the model abstains)."""
        arr = self._batch(X)
        predicted = self._engine.predict_rows(arr, self._n_jobs)
        if self._engine_class.array_batches:
            indices = np.asarray(predicted, dtype=np.int64)
            if indices.min() >= 0 and all(
                    isinstance(self.classes_[k], (int, float, str, np.generic))
                    for k in np.unique(indices).tolist()):
                return take_labels(self.classes_, indices)
        labels = [self._label_of(k) for k in predicted]
        if any(label is None for label in labels) or not all(
            isinstance(label, (int, float, str, np.generic)) for label in labels
        ):
            out = np.empty(len(labels), dtype=object)
            for i, label in enumerate(labels):
                out[i] = label
            return out
        return label_table(labels)

    @locks_itself
    def predict_proba_one(self, x: Any) -> dict[Any, float]:
        """Class frequencies ``n(k)/n`` of the nearest ball, as ``{label: probability}``.

        Empty when the model has no ball; randomized BASE gives ``{label_0: 1-p,
        label_1: p}``. Draws nothing.
        """
        if type(x) not in PLAIN_ROWS:  # a pandas Series: matched by name
            x = row_by_name(self, x)
        lock = self._lock
        lock.acquire()
        try:
            engine = self._engine
            probs = None
            if engine.raw_rows and self.n_features_in_ is not None:
                probs = engine.proba_one_raw(x, self._feature_keys, len(self.classes_))
            return self._predict_proba_one(x) if probs is None else self._as_proba(probs)
        finally:
            lock.release()

    def _predict_proba_one(self, x: Any) -> dict[Any, float]:
        return self._as_proba(self._engine.proba_row(self._row(x), len(self.classes_)))

    def _as_proba(self, probs: list[float]) -> dict[Any, float]:
        """``{label: probability}`` of a frequency list, {} if all are 0 (no ball)."""
        if not probs or max(probs) <= 0.0:      # frequencies are never negative
            return {}
        return self._label_dict(probs)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Rows of class frequencies, columns in ``classes_`` order (zeros with no ball)."""
        arr = self._batch(X)
        out: np.ndarray = self._engine.proba_rows(arr, len(self.classes_), self._n_jobs)
        return out

    # -- evaluation [DOC15, Alg. 5] ----------------------------------------------------------
    def prequential(self, X: Any, y: Any, *, rate: float = 1.0, seed: int = 1) -> dict[str, Any]:
        """Online sub-sampling evaluation protocol [DOC15, Alg. 5] on this model.

        For each row in order: predict (``None`` counts as a mistake), score, then learn the
        example with probability ``rate``. The draws come from a protocol generator
        ``Rng(seed)``, separate from the model's, one ``uniform()`` per example iff
        ``rate < 1``. Labels are registered only when an example is learned. The fast
        backend runs the loop in C, in pieces of rows. Ctrl-C stops the loop between rows
        (pieces) with ``KeyboardInterrupt``; the model keeps the rows learned before.

        Returns
        -------
        dict
            ``accuracy`` (final online accuracy M_T = correct/T), ``n_correct``,
            ``n_examples``, ``n_learned``, ``n_balls`` (final ``|S|``), ``max_balls``
            (largest ``|S|`` during the run), ``model_size`` (``|S|/T``), ``seconds`` and
            ``us_per_example`` (wall time of the loop), ``predictions`` (labels).
        """
        import time

        arr = self._batch(X)
        labels = self._batch_labels(y, arr.shape[0])
        if (
            isinstance(rate, bool)
            or not isinstance(rate, (int, float, np.integer, np.floating))
            or not 0.0 < float(rate) <= 1.0
        ):
            raise ValueError(f"rate must be a number in (0, 1], got {rate!r}")
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise ValueError(f"seed must be an integer, got {seed!r}")
        self._check_labels(labels)
        self._fix_input(arr.shape[1], None)
        table = list(self.classes_)
        position = dict(self._class_index)
        for label in _distinct(labels):
            if label not in position:
                position[label] = len(table)
                table.append(label)
        provisional = (labels.codes(position) if isinstance(labels, CodedLabels)
                       else [position[label] for label in labels])
        n_old = len(self.classes_)
        remap = list(range(n_old)) + [-1] * (len(table) - n_old)
        start = time.perf_counter()
        try:
            preds, correct, learned, max_balls = self._engine.prequential(
                arr, provisional, remap, float(rate), int(seed), len(self.classes_)
            )
        finally:
            # the labels learned so far, also when Ctrl-C stopped the loop between rows
            # (the model then holds the rows learned before it, as after partial_fit)
            for _, j in sorted((remap[j], j) for j in range(n_old, len(table)) if remap[j] >= 0):
                self._register([table[j]])
        seconds = time.perf_counter() - start
        n = arr.shape[0]
        n_balls = self._engine.n_balls
        lookup = np.empty(len(self.classes_) + 1, dtype=object)
        for k, label in enumerate(self.classes_):
            lookup[k] = label
        lookup[-1] = None                           # index -1: the model abstained
        predictions = lookup[np.asarray(preds, dtype=np.int64)]
        return {
            "accuracy": correct / n,
            "n_correct": correct,
            "n_examples": n,
            "n_learned": learned,
            "n_balls": n_balls,
            "max_balls": max_balls,
            "model_size": n_balls / n,
            "seconds": seconds,
            "us_per_example": 1e6 * seconds / n,
            "predictions": predictions,
        }

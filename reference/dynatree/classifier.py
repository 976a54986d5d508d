"""Dynamic tree classification: the public facade [AG13; DT-SPEC §3.3].

``DynamicTreeClassifier`` maps labels to class indices and calls its engine
(:mod:`reference.dynatree.engine`), whose leaves are multinomial with a Dirichlet prior;
everything it shares with the regressor is in :mod:`reference.dynatree.facade`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import numpy as np

from reference.batches import (
    chunk_rows,
    distinct_labels,
    first_unknown,
    has_nan,
    label_codes,
    label_table,
    take_labels,
)
from reference.dynatree import inputs
from reference.dynatree.engine import ArrayRowEngine, RawRowEngine
from reference.dynatree.facade import DynamicTreeFacade
from reference.dynatree.params import DynamicTreeParams
from reference.estimator import ClassifierEstimatorMixin, check_labels_defined, locks_itself
from reference.feature_names import PLAIN_ROWS, row_by_name

__all__ = ["DynamicTreeClassifier"]


class DynamicTreeClassifier(ClassifierEstimatorMixin, DynamicTreeFacade):
    """Dynamic tree classification with multinomial leaves and particle learning [AG13].

    Leaves carry a Dirichlet(1/C, ..., 1/C) prior on the class probabilities ([DT-SPEC §3.3]).
    The class set is given by ``classes`` or fixed by the first ``partial_fit`` call.

    Parameters
    ----------
    classes : sequence of hashable or None
        The labels, in the order of ``classes_``.
    n_particles : int
        Number of particles ``N``.
    alpha, beta : float
        Tree prior ``p_split(d) = alpha (1 + d)^-beta``.
    min_leaf : int or None
        Minimum active points per leaf (``None``: 1).
    nstart : int or None
        Points placed in the root before particle learning (``None``: ``min_leaf``).
    seed : int
        Seed of the generator.
    active_size : int or None
        Size ``w`` of the active pool; when it is full, one point is retired into the leaf
        priors before each new point is learned (``None``: never retire) [AG13, §3].
    retirement : {"random", "historical", "entropy"}
        Which point to retire: uniform, the oldest, or the one of smallest entropy.
    lam : float
        Forgetting factor ``0 < lam <= 1`` of the automatic retirements [AG13, §5].
    lpred_window : int or None, default 10000
        How many per-step log predictive densities ``lpred_`` to keep (dynaTree's
        ``lpred``, [DT-SPEC §5.4]): an int ``k >= 0`` keeps the last ``k`` (``0``: none), so
        that with an active pool memory stays flat on unbounded streams [AG13, §3]; ``None``
        keeps every step, as dynaTree does (opt-in: it grows with the stream).
        ``log_marginal_likelihood_`` sums every step either way.

    n_jobs : int or None, default None
        Threads of the ``fast`` backend: ``None`` or ``1`` one, ``k`` k, ``-1`` one per core.
        The batch predictions (``predict``, ``predict_proba``, ``score``) split their rows
        ([DT-SPEC §8.4]); learning (``partial_fit``, ``fit``, ``learn_one``, automatic
        retirement) splits the particles of each step over ``min(n_jobs, n_particles //
        32)`` threads ([DT-SPEC §8.5]). The results are identical for every value. An
        execution setting, not part of the model: ``set_params(n_jobs=...)`` keeps a fitted
        model, and model files do not store it. The ``reference`` backend computes on one
        thread.
    Examples
    --------
    >>> from reference import DynamicTreeClassifier
    >>> m = DynamicTreeClassifier(classes=["a", "b"], n_particles=20, seed=1)
    >>> for i in range(40):
    ...     x = i / 40.0
    ...     m.learn_one([x], "b" if x > 0.5 else "a")
    >>> m.predict_one([0.9])
    'b'
    """

    def __init__(self, *, classes: Sequence[Hashable] | None = None, n_particles: int = 1000,
                 alpha: float = 0.95, beta: float = 2.0, min_leaf: int | None = None,
                 nstart: int | None = None, seed: int = 0, active_size: int | None = None,
                 retirement: str = "random", lam: float = 1.0,
                 lpred_window: int | None = 10_000, n_jobs: int | None = None) -> None:
        self.n_jobs = n_jobs
        self._params = DynamicTreeParams(
            leaf="class", n_particles=n_particles, alpha=alpha, beta=beta,
            min_leaf=min_leaf, nstart=nstart, seed=seed, active_size=active_size,
            retirement=retirement, lam=lam, lpred_window=lpred_window).validate()
        self._set_classes(classes)
        self._init_classes = None if classes is None else list(classes)
        self._reset()

    def _constructor_params(self) -> dict[str, Any]:
        """Constructor arguments as a dict."""
        p = self._params
        return {"classes": self._init_classes, "n_particles": p.n_particles,
                "alpha": p.alpha, "beta": p.beta, "min_leaf": p.min_leaf,
                "nstart": p.nstart, "seed": p.seed, "active_size": p.active_size,
                "retirement": p.retirement, "lam": p.lam,
                "lpred_window": p.lpred_window}

    def _set_classes(self, classes: Sequence[Hashable] | None) -> None:
        if classes is None:
            self.classes_ = []
            self._index = {}
            return
        values = list(classes)
        check_labels_defined(values)
        if len(values) < 2 or len(set(values)) != len(values):
            raise ValueError("classes must hold at least two distinct labels")
        self.classes_ = values
        self._index = {c: i for i, c in enumerate(values)}

    def _fitted_state(self) -> dict[str, Any]:
        """The facade state a model file stores next to :meth:`snapshot`, with the classes."""
        out = super()._fitted_state()
        out["classes"] = list(self.classes_)
        return out

    def _restore_classes(self, fitted: dict[str, Any]) -> int:
        if fitted["classes"]:
            self._set_classes(fitted["classes"])
        return len(self.classes_)

    def _label(self, y: Any, index: Mapping[Hashable, int]) -> float:
        try:
            return float(index[y])
        except (KeyError, TypeError) as exc:
            raise ValueError(f"unknown label {y!r}; classes are {list(index)!r}") from exc

    @locks_itself
    def learn_one(self, x: Any, y: Any) -> None:
        """Learn one labelled row (the class set must be known, [DT-SPEC §0] item 4)."""
        if type(x) not in PLAIN_ROWS:  # a pandas Series: matched by name
            x = row_by_name(self, x)
        lock = self._lock
        lock.acquire()
        try:
            engine = self._engine
            if engine.raw_rows and self._d is not None:
                raw: RawRowEngine = engine  # type: ignore[assignment]
                try:
                    index = self._index[y]
                except (KeyError, TypeError):
                    index = -1
                if index >= 0 and raw.learn_one_raw(self, x, float(index)):
                    return
            if not self.classes_:
                raise ValueError("classes must be given to the constructor or fixed by the "
                                 "first partial_fit call before learn_one")
            keys = self._keys if self._d is not None else inputs.first_keys(x)
            row = inputs.row_values(x, keys, self._d)
            target = self._label(y, self._index)
            self._learn_checked([row], [target], keys, len(self.classes_))
        finally:
            lock.release()

    def _declare_classes(self, classes: Sequence[Hashable]) -> None:
        values = list(classes)
        if not self.classes_:
            self._set_classes(values)
        elif any(c not in self._index for c in values):
            raise ValueError(f"classes {values!r} differ from classes_ {self.classes_!r}")

    def partial_fit(self, X: Any, y: Any,
                    classes: Sequence[Hashable] | None = None) -> DynamicTreeClassifier:
        """Learn rows in order; a first call fixes the class set: ``classes`` if given (the
        scikit-learn convention), else the labels in order of first appearance. Returns
        ``self``. All rows and labels are validated first.

        The ``fast`` backend reads a numeric 2-D array a chunk at a time, in place if it is
        float64 and C-contiguous: the call needs little memory beyond its input (see
        ``reference.batches``).
        """
        if classes is not None:
            saved = (self.classes_, self._index)
            try:
                self._declare_classes(classes)
                self.partial_fit(X, y)
            except BaseException:
                if self.n_seen_ == 0:
                    self.classes_, self._index = saved
                raise
            return self
        if self._takes_array(X):
            self._checked_table(X)
            if X.shape[0] == 0:
                raise ValueError("X must not be empty")
            chunk_targets = self._table_targets(y, X.shape[0])
            self._learn_table(X, chunk_targets, len(self.classes_), y)
            return self
        rows = inputs.batch_rows(X, self._keys, self._d)
        if not rows:
            raise ValueError("X must not be empty")
        labels = inputs.batch_targets(y, len(rows))
        classes = self._discover(labels)
        index = {c: i for i, c in enumerate(classes)}
        targets = [self._label(v, index) for v in labels]
        keys = self._keys
        if self._d is None:
            first = next(iter(X)) if not isinstance(X, np.ndarray) else None
            keys = inputs.first_keys(first) if isinstance(first, Mapping) else None
        if not self.classes_:
            self._set_classes(classes)
        self._learn_checked(rows, targets, keys, len(self.classes_))
        return self

    def _discover(self, labels: list[Any]) -> list[Hashable]:
        """The class set: ``classes_``, or on a first call ``labels`` in order of first
        appearance (at least two)."""
        classes = list(self.classes_)
        if not classes:
            for label in labels:
                try:
                    seen = label in classes
                except TypeError as exc:
                    raise ValueError(f"labels must be hashable, got {label!r}") from exc
                if not seen:
                    classes.append(label)
            if len(classes) < 2:
                raise ValueError("the first partial_fit call must show at least two classes")
        return classes

    def _table_targets(self, y: Any, n: int) -> Callable[[int, int], np.ndarray]:
        """The class indices of a numeric table's ``n`` labels, checked as the list path
        checks them (and the class set fixed on a first call), as a function of a chunk's
        ``(start, stop)`` giving them in float64. An array of numbers (of at most 64 bits),
        booleans or text (no NaN) is read a chunk at a time, its distinct labels found
        (:func:`reference.batches.distinct_labels`, as the numpy scalars the list path
        holds) and mapped (:func:`reference.batches.label_codes`) a chunk at a time."""
        size = chunk_rows(8)  # np.unique makes a few temporaries of 8 bytes per label
        column = y if not isinstance(y, np.ndarray) or y.ndim == 1 else np.ravel(y)
        if not (isinstance(y, np.ndarray) and y.dtype.kind in "biufUS"
                and (y.dtype.kind in "US" or y.dtype.itemsize <= 8)
                and not has_nan(column, size)):
            labels = inputs.batch_targets(y, n)
            index = {c: i for i, c in enumerate(self._discover(labels))}
            table = np.array([self._label(v, index) for v in labels], dtype=np.float64)
            if not self.classes_:
                self._set_classes(list(index))
            return lambda start, stop: table[start:stop]
        column = inputs.target_column(column, n)
        if not self.classes_:
            classes = self._discover(distinct_labels(column, size, as_items=False))
        else:
            classes = list(self.classes_)
        index = {c: i for i, c in enumerate(classes)}

        unknown = first_unknown(column, index, size)
        if unknown is not None:     # checked before anything is learned
            self._label(column[unknown], index)  # raises, naming the label

        def targets(start: int, stop: int) -> np.ndarray:
            found_targets: np.ndarray = label_codes(column[start:stop], index).astype(
                np.float64)
            return found_targets
        if not self.classes_:
            self._set_classes(classes)
        return targets

    def _probs(self, row: list[float]) -> tuple[list[float], float]:
        probs, entropies = self._probs_rows([row])
        return probs[0], entropies[0]

    def _probs_rows(self, rows: list[list[float]]) -> tuple[list[list[float]], list[float]]:
        """Class probabilities and entropy at each row (before any data: uniform over the
        known classes, entropy log C; none known: [] and 0)."""
        n = len(self.classes_)
        if self._d is None:
            if n == 0:
                return [[] for _ in rows], [0.0] * len(rows)
            return [[1.0 / float(n)] * n for _ in rows], [math.log(float(n))] * len(rows)
        return self._engine.classify_rows(rows)

    def _pool_targets(self, values: list[float]) -> np.ndarray:
        return np.array([self.classes_[int(v)] for v in values])

    @locks_itself
    def predict_proba_one(self, x: Any) -> dict[Hashable, float]:
        """Particle-averaged class probabilities at ``x`` ([DT-SPEC §8.2])."""
        if type(x) not in PLAIN_ROWS:  # a pandas Series: matched by name
            x = row_by_name(self, x)
        lock = self._lock
        lock.acquire()
        try:
            probs = None
            engine = self._engine
            if engine.raw_rows and self._d is not None:
                raw: RawRowEngine = engine  # type: ignore[assignment]
                probs = raw.predict_proba_raw(x, self._keys)
            if probs is None:
                probs = self._probs(self._row(x))[0]
            return self._label_dict(probs)
        finally:
            lock.release()

    @locks_itself
    def predict_one(self, x: Any) -> Hashable:
        """The most probable class at ``x`` (ties: first class in ``classes_``)."""
        if type(x) not in PLAIN_ROWS:  # a pandas Series: matched by name
            x = row_by_name(self, x)
        lock = self._lock
        lock.acquire()
        try:
            engine = self._engine
            if engine.raw_rows and self._d is not None:
                raw: RawRowEngine = engine  # type: ignore[assignment]
                k = raw.predict_label_raw(x, self._keys)
                if k >= 0:
                    return self.classes_[k]
            probs = self._probs(self._row(x))[0]
            if not probs:
                return None
            best = 0
            for k in range(1, len(probs)):
                if probs[k] > probs[best]:
                    best = k
            return self.classes_[best]
        finally:
            lock.release()

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities at the rows of ``X``, columns in ``classes_`` order."""
        if self._d is not None and self._takes_array(X):
            probs, _ = self._classify_table(X, True, False)
            return probs
        rows = inputs.batch_rows(X, self._keys, self._d)
        return np.array(self._probs_rows(rows)[0], dtype=float).reshape(
            len(rows), len(self.classes_))

    def predict(self, X: Any) -> np.ndarray:
        """Most probable classes at the rows of ``X``."""
        if self._d is not None and self._takes_array(X):
            _, best = self._classify_table(X, False, False)
            return take_labels(self.classes_, best)
        rows = inputs.batch_rows(X, self._keys, self._d)
        return label_table([self.predict_one(r) for r in rows])

    def predict_entropy(self, X: Any) -> np.ndarray:
        """Predictive entropy: the average of per-particle entropies ([DT-SPEC §8.2])."""
        if self._d is not None and self._takes_array(X):
            _, entropy = self._classify_table(X, False, True)
            return entropy
        rows = inputs.batch_rows(X, self._keys, self._d)
        return np.array(self._probs_rows(rows)[1], dtype=float)

    def _classify_table(self, X: np.ndarray, keep_probs: bool,
                        keep_entropy: bool) -> tuple[np.ndarray, np.ndarray]:
        """Class probabilities and entropies of a fitted model at the rows of a numeric
        table, a chunk at a time: ``(probs, entropy)`` whole where kept; the second array
        is the index of the first most probable class of each row if ``keep_entropy`` is
        false."""
        n, c = X.shape[0], len(self.classes_)
        engine: ArrayRowEngine = self._engine  # type: ignore[assignment]
        probs = np.empty((n, c) if keep_probs else (0, c), dtype=float)
        second = np.empty(n, dtype=float if keep_entropy else np.intp)

        def fill(rows: np.ndarray, start: int, stop: int) -> None:
            block = probs[start:stop] if keep_probs else np.empty((stop - start, c))
            entropy = second[start:stop] if keep_entropy else np.empty(stop - start)
            engine.classify_array(rows, block, entropy, self._n_jobs)
            if not keep_entropy:
                second[start:stop] = np.argmax(block, axis=1)

        self._predict_table(X, c, fill)
        return probs, second

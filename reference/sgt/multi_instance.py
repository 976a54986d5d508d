"""The multi-instance SGT classifier: a bag is positive iff its best instance is [GPF19, §4.3].

A facade (:class:`reference.sgt.facade.SGTFacade`, labels as in
:mod:`reference.sgt.classifier`) over the engine of :mod:`reference.sgt.engine`. Every
rejected call raises before any state changes.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np

from reference.sgt.atomic import atomic_first_call
from reference.sgt.classifier import _Classifier
from reference.sgt.core import LOSS_BAG
from reference.sgt.facade import PARAM_NAMES, as_list, document
from reference.sgt.params import check_matrix

__all__ = ["SGTMultiInstanceClassifier"]


@document
class SGTMultiInstanceClassifier(_Classifier):
    """Multi-instance SGT: a bag is positive iff its best instance is [GPF19, §4.3].

    The bag score is F = max over the bag's rows of f(x), p(1) = σ(F), trained with
    BCE: the argmax row (first on ties) gets g = σ(F) - y, h = σ(F)(1 - σ(F)); every
    other row is still fed to the tree with (g, h) = (0, 0) [GPF19, Eq. 28-29].
    Labels are 0 and 1 (``classes_ == [0, 1]``).

    Parameters
    ----------
    epochs : int, default 1
        Passes over the bags made by each :meth:`partial_fit` call (the paper's batch
        training uses several).
{common}

    Notes
    -----
    A bag is a non-empty 2-D array of finite rows (missing values are not supported
    in this version). The warm-up counts rows and ends after the bag that reaches
    ``warmup`` rows.

    Examples
    --------
    >>> model = SGTMultiInstanceClassifier(warmup=20, grace_period=20)
    >>> bags = [[[0.1 * (i % 10)], [0.05 * (i % 7)]] for i in range(400)]
    >>> labels = [int(max(r[0] for r in bag) > 0.45) for bag in bags]
    >>> _ = model.partial_fit(bags, labels)
    >>> model.predict_one([[0.8], [0.1]]), model.predict_one([[0.2], [0.1]])
    (1, 0)
    """

    def __init__(self, epochs: int = 1, delta: float = 1e-7, grace_period: int = 200,
                 lam: float = 0.1, gamma: float = 1.0, bins: int = 64, warmup: int | None = None,
                 feature_ranges: Mapping[int, tuple[float, float]] | None = None,
                 nominal: Mapping[int, int] | None = None, max_depth: int | None = None,
                 warmup_trains: bool = True, test: str = "two-sided",
                 warmup_prediction: str = "newton", quantization: str = "leaf",
                 n_jobs: int | None = None) -> None:
        self.n_jobs = n_jobs
        if isinstance(epochs, bool) or not isinstance(epochs, (int, np.integer)) or epochs < 1:
            raise ValueError(f"epochs must be an int >= 1, got {epochs!r}")
        self.epochs = int(epochs)
        self.classes_ = None
        self._class_index = {}
        self._set_classes([0, 1])
        super().__init__(delta, grace_period, lam, gamma, bins, warmup, feature_ranges,
                         nominal, max_depth, warmup_trains, test, warmup_prediction,
                         quantization)

    def _param_names(self) -> tuple[str, ...]:
        return ("epochs",) + PARAM_NAMES

    def _loss_kind(self) -> int:
        return LOSS_BAG

    def _fixed_classes(self) -> list[Hashable] | None:
        return [0, 1]

    _array_input = False  # inputs are bags of rows, not rows

    def _input_tags(self, input_tags: Any) -> Any:
        return input_tags(two_d_array=False, three_d_array=True)

    def __sklearn_tags__(self) -> Any:
        """Honest tags: a binary classifier (labels 0 and 1 only) of bags, not of rows.

        ``X`` is a sequence of bags (each a 2-D array of rows; a 3-D array of equal-sized
        bags is one), so ``two_d_array`` is False and scikit-learn's ``check_estimator``,
        whose checks feed 2-D arrays, runs only the checks that need no data (cloning).
        The protocol this model does honour (clone, get/set_params, fit = a new model's
        partial_fit, score, pickling, cross-validation and grid search over lists of bags)
        is tested on its own in ``tests/common/test_estimator_protocol.py``.
        """
        from sklearn.utils import ClassifierTags

        tags = super().__sklearn_tags__()
        tags.classifier_tags = ClassifierTags(poor_score=True, multi_class=False)
        return tags

    def _proba(self, raws: list[float]) -> list[float]:
        best = raws[0]
        for r in raws:
            if r > best:
                best = r
        p = self._engine_class.sigmoid(best)
        return [1.0 - p, p]

    def _bag(self, bag: Any) -> tuple[np.ndarray, list[int]]:
        if isinstance(bag, Mapping):
            raise ValueError("a bag must be a 2-D array of rows")
        return self._matrix(bag)

    def _bag_raws(self, arr: np.ndarray) -> list[float]:
        return [self._raws(arr[i].tolist())[0] for i in range(arr.shape[0])]

    @atomic_first_call
    def learn_one(self, x: Any, y: Any) -> None:
        """Learn one bag ``x`` (rows) with label ``y`` in {0, 1}."""
        target = float(self._index(y))
        arr, kinds = self._bag(x)
        self._commit(arr.shape[1], None, kinds)
        self._learn_rows([[float(v) for v in r] for r in arr.tolist()], target)
        self.n_seen_ += 1

    @atomic_first_call
    def partial_fit(self, X: Any, y: Any,
                    classes: Sequence[Hashable] | None = None) -> SGTMultiInstanceClassifier:
        """Learn a sequence of bags ``epochs`` times; everything is validated first
        (``classes``, if given, must be labels of ``classes_ = [0, 1]``)."""
        if classes is not None:
            self._declare_classes(classes)
        bags = list(X)
        labels = as_list(y, len(bags))
        if not bags:
            raise ValueError("partial_fit needs at least one bag")
        targets = [float(self._index(label)) for label in labels]
        arrays: list[np.ndarray] = []
        kinds = self._kinds
        for bag in bags:
            if kinds is None:
                arr, kinds = self._bag(bag)
            else:
                arr = check_matrix(bag, arrays[0].shape[1] if arrays else self.n_features_in_,
                                   kinds)
            arrays.append(arr)
        assert kinds is not None
        self._commit(arrays[0].shape[1], None, kinds)
        self._fit_bags(arrays, targets)
        return self

    def _fit_bags(self, arrays: list[np.ndarray], targets: list[float]) -> None:
        self._engine.learn_bags(arrays, targets, self.epochs, self._count)

    def predict_proba_one(self, x: Any) -> dict[Hashable, float]:
        """``{0: 1 - p, 1: p}`` with p = σ(max over the bag of f(x)) [GPF19, Eq. 26]."""
        arr, _ = self._bag(x)
        return self._proba_dict(self._bag_raws(arr))

    def predict_one(self, x: Any) -> Hashable:
        """1 if σ(max f) > 0.5 else 0."""
        arr, _ = self._bag(x)
        return self._argmax(self._proba(self._bag_raws(arr)))

    def predict_proba(self, X: Any) -> np.ndarray:
        """Probabilities of each bag in X, columns ``[0, 1]``."""
        return np.array([self._proba(self._bag_raws(self._bag(b)[0])) for b in X])

    def predict(self, X: Any) -> np.ndarray:
        """Labels of each bag in X."""
        return np.array([self.predict_one(b) for b in X])

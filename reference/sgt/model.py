"""Public SGT models: regression, classification, multi-instance and any loss [GPF19].

Thin facades: they validate inputs (shared with ``fast`` through
:mod:`reference.sgt.params`), map labels to class indices and call a learning core
(:class:`reference.sgt.core.SGTCore` here, the C core in ``fast``). Every rejected call
raises before any state changes.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

from reference.estimator import ClassifierEstimatorMixin, EstimatorMixin
from reference.interrupt import Interruptible
from reference.sgt.core import (
    LOSS_BAG,
    LOSS_CUSTOM,
    LOSS_LOGISTIC,
    LOSS_SOFTMAX,
    LOSS_SQUARED,
    SGTCore,
)
from reference.sgt.losses import BinaryCrossEntropy, SquaredError, sigmoid, softmax
from reference.sgt.params import SGTParams, check_feature_config, check_matrix, check_row
from reference.sgt.state_check import check_core
from reference.state import VersionedState, as_dict, as_int, as_labels, fail

__all__ = ["SGTRegressor", "SGTClassifier", "SGTMultiInstanceClassifier", "SGT"]

_PARAM_NAMES = ("delta", "grace_period", "lam", "gamma", "bins", "warmup", "feature_ranges",
                "nominal", "max_depth", "warmup_trains", "test", "warmup_prediction")

_COMMON_DOC = """    delta : float, default 1e-7
        Significance level δ of the two-sided t-test (apply iff p < δ and the
        penalised mean loss change is negative) [GPF19, §3.3].
    grace_period : int, default 200
        A split attempt runs when a leaf's count since its last reset is a multiple of this.
    lam : float, default 0.1
        λ, per-instance L2 shrinkage of the Newton step Δ = -ḡ/(h̄ + λ) [GPF19, Eq. 13].
    gamma : float, default 1.0
        γ, penalty per child leaf, divided by the leaf count [GPF19, Eq. 5].
    bins : int, default 64
        Equal-width bins per numeric feature [GPF19, §3.2].
    warmup : int, default 1000
        Rows buffered to estimate the bin ranges, then replayed as training data.
    feature_ranges : dict or None
        ``{index: (low, high)}``: known ranges of numeric features (skip estimation).
    nominal : dict or None
        ``{index: n_categories}``: nominal features (values are integers in
        ``[0, n_categories)``), split multiway, at most once per path.
    max_depth : int or None
        Optional depth limit (root = 0); a leaf at the limit only updates its value.
    warmup_trains : bool, default True
        If False, warm-up rows are discarded (the authors' Java behaviour).
    test : {"two-sided", "one-sided"}, default "two-sided"
        Two-sided t-test p-value with the sign check (the authors' rule) or the
        one-sided p = P(T_{n-1} <= t).
    warmup_prediction : {"newton", "zero"}, default "newton"
        What the model predicts before the bin ranges are fixed, while there is no tree
        yet ([SGT-SPEC §5.7]). ``"newton"``: each tree's raw score is one Newton step of
        its root from 0 over the buffered rows, Δ = -ḡ/(h̄ + λ) [GPF19, Eq. 13] (for
        squared error the shrunk mean of the targets seen, for classification the
        smoothed class frequencies). ``"zero"``: raw score 0, as the authors' MOA
        wrapper (prediction 0, or equal class probabilities). A custom loss always
        predicts raw score 0 during the warm-up."""


_Method = TypeVar("_Method", bound=Callable[..., Any])


def _atomic_first_call(method: _Method) -> _Method:
    """On a model without a core yet, undo everything the call did if it raises
    ``MemoryError`` (the C core allocation or the first learn failed), so that a failed
    first call does not fix the width, the feature kinds or the classes."""

    @functools.wraps(method)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        if self._core is not None:
            return method(self, *args, **kwargs)
        saved = dict(self.__dict__)
        try:
            return method(self, *args, **kwargs)
        except MemoryError:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise

    return wrapper  # type: ignore[return-value]


def _document(cls: Any) -> Any:
    """Insert the shared parameter descriptions into a class docstring."""
    cls.__doc__ = cls.__doc__.replace("{common}", _COMMON_DOC)
    return cls


class _SGTBase(EstimatorMixin, VersionedState):
    """Shared facade logic; subclasses fix the loss and the target mapping."""

    _core_class: Any = SGTCore
    _params_added: dict[str, Any] = {"warmup_prediction": "zero"}
    """Parameters added after model files existed, with the value that reproduces the
    older behaviour when a file lacks them (:func:`reference.persist.from_document`)."""

    def __init__(self, delta: float, grace_period: int, lam: float, gamma: float, bins: int,
                 warmup: int, feature_ranges: Mapping[int, tuple[float, float]] | None,
                 nominal: Mapping[int, int] | None, max_depth: int | None,
                 warmup_trains: bool, test: str, warmup_prediction: str) -> None:
        self.delta = delta
        self.grace_period = grace_period
        self.lam = lam
        self.gamma = gamma
        self.bins = bins
        self.warmup = warmup
        self.feature_ranges = (dict(feature_ranges) if isinstance(feature_ranges, Mapping)
                               else feature_ranges)
        self.nominal = dict(nominal) if isinstance(nominal, Mapping) else nominal
        self.max_depth = max_depth
        self.warmup_trains = warmup_trains
        self.test = test
        self.warmup_prediction = warmup_prediction
        self._params = SGTParams(delta, grace_period, lam, gamma, bins, warmup,
                                 self.feature_ranges, self.nominal, max_depth, warmup_trains,
                                 test, warmup_prediction)
        self._params.validate()
        self._core: Any = None
        self._kinds: list[int] | None = None
        self._keys: tuple[Any, ...] | None = None
        self.n_features_in_: int | None = None
        self.n_seen_ = 0

    def _set_state(self, state: dict[str, Any]) -> None:
        if "warmup_prediction" not in state:
            # pickled before ``warmup_prediction`` existed: keep that version's behaviour
            state = dict(state)
            state["warmup_prediction"] = "zero"
            if isinstance(state.get("_params"), SGTParams):
                state["_params"] = dataclasses.replace(state["_params"],
                                                       warmup_prediction="zero")
            core: Any = state.get("_core")
            old = getattr(core, "params", None)
            if isinstance(old, SGTParams) and "warmup_prediction" not in vars(old):
                core.params = dataclasses.replace(old, warmup_prediction="zero")
        super()._set_state(state)

    # -- parameters -------------------------------------------------------------------
    def _constructor_params(self) -> dict[str, Any]:
        """Constructor arguments as a dict."""
        return {name: getattr(self, name) for name in self._param_names()}

    def _param_names(self) -> tuple[str, ...]:
        return _PARAM_NAMES

    def clone(self) -> Any:
        """A new, unfitted model with the same parameters."""
        return type(self)(**self.get_params())

    # -- input handling ---------------------------------------------------------------
    def _row(self, x: Any) -> tuple[list[float], tuple[Any, ...] | None, list[int]]:
        """Validate a row; on the first row also derive the feature kinds (no commit)."""
        if self._kinds is None:
            row, keys = check_row(x, None, None, None)
            kinds = check_feature_config(self._params, len(row))
            check_row(row, len(row), None, kinds)
            return row, keys, kinds
        row, keys = check_row(x, self.n_features_in_, self._keys, self._kinds)
        return row, keys, self._kinds

    def _matrix(self, X: Any) -> tuple[np.ndarray, list[int]]:
        if self._kinds is None:
            arr = check_matrix(X, None, None)
            kinds = check_feature_config(self._params, arr.shape[1])
            check_matrix(arr, arr.shape[1], kinds)
            return arr, kinds
        return check_matrix(X, self.n_features_in_, self._kinds), self._kinds

    def _commit(self, n_features: int, keys: tuple[Any, ...] | None, kinds: list[int]) -> None:
        """Create the core on the first accepted row."""
        if self._core is None:
            self._core = self._core_class(self._params, kinds, self._loss_kind(),
                                          self._n_trees())
            self._kinds = kinds
            self._keys = keys
            self.n_features_in_ = n_features

    def _loss_kind(self) -> int:
        raise NotImplementedError

    def _n_trees(self) -> int:
        return 1

    def _raws(self, row: list[float]) -> list[float]:
        if self._core is None:
            return [0.0] * self._n_trees()
        return list(self._core.raws(row))

    def _predict_row(self, x: Any) -> list[float]:
        row, _, _ = self._row(x)
        return row

    def _fit_rows(self, arr: np.ndarray, targets: list[float]) -> None:
        """Learn validated rows in order (the fast backend runs this loop in C). Ctrl-C
        stops the loop between two rows (:mod:`reference.interrupt`)."""
        with Interruptible() as guard:
            for i in range(arr.shape[0]):
                self._learn_rows([[float(v) for v in arr[i].tolist()]], targets[i])
                self.n_seen_ += 1
                guard.check()

    def _learn_rows(self, rows: list[list[float]], target: float) -> None:
        self._core.learn(rows, target)

    # -- data-only model files (reference.persist) ------------------------------------
    def _fitted_state(self) -> dict[str, Any]:
        """The facade state a model file stores next to the core snapshot."""
        out: dict[str, Any] = {
            "n_features_in": self.n_features_in_,
            "keys": None if self._keys is None else list(self._keys),
            "kinds": None if self._kinds is None else list(self._kinds),
            "n_seen": self.n_seen_,
        }
        if isinstance(self, _Classifier):
            out["classes"] = None if self.classes_ is None else list(self.classes_)
        return out

    def _check_state(self, fitted: Any, snapshot: Any) -> None:
        """Raise ``StateFormatError`` naming the field unless the facade state ``fitted``
        and the snapshot fit this model's parameters (:mod:`reference.sgt.state_check`)."""
        names: tuple[str, ...] = ("n_features_in", "keys", "kinds", "n_seen")
        if isinstance(self, _Classifier):
            names += ("classes",)
        as_dict(fitted, "fitted", names)
        as_dict(snapshot, "snapshot", ("n_seen", "n_features", "core"))
        n_seen = as_int(fitted["n_seen"], "fitted.n_seen", 0, 2**63 - 1)
        if snapshot["n_seen"] != n_seen:
            raise fail("snapshot.n_seen", f"differs from fitted.n_seen ({n_seen})")
        classes = fitted.get("classes")
        if classes is not None:
            as_labels(classes, "fitted.classes")
            if len(classes) < 2:
                raise fail("fitted.classes", "a classifier has at least two classes")
            given = self._fixed_classes() if isinstance(self, _Classifier) else None
            if given is not None and list(given) != classes:
                raise fail("fitted.classes", f"differ from the classes parameter {given!r}")
        core = snapshot["core"]
        if core is None:
            if (n_seen, fitted["n_features_in"], fitted["keys"], fitted["kinds"],
                    snapshot["n_features"]) != (0, None, None, None, 0):
                raise fail("snapshot.core", "a model without a core has seen nothing")
            return
        d = as_int(fitted["n_features_in"], "fitted.n_features_in", 1, 2**31 - 1)
        if snapshot["n_features"] != d:
            raise fail("snapshot.n_features", f"differs from fitted.n_features_in ({d})")
        try:
            kinds = check_feature_config(self._params, d)
        except ValueError as exc:
            raise fail("fitted.n_features_in", str(exc)) from None
        if fitted["kinds"] != kinds:
            raise fail("fitted.kinds", f"the parameters give the feature kinds {kinds}")
        keys = fitted["keys"]
        if keys is not None and len(as_labels(keys, "fitted.keys")) != d:
            raise fail("fitted.keys", f"expected {d} feature names")
        n_classes = 0
        if isinstance(self, _Classifier):
            if classes is None:
                raise fail("fitted.classes", "a classifier that has learned knows its classes")
            n_classes = len(classes)
        loss_kind = self._loss_kind() if n_classes == 0 else (
            LOSS_BAG if self._loss_kind() == LOSS_BAG
            else LOSS_LOGISTIC if n_classes == 2 else LOSS_SOFTMAX)
        n_trees = n_classes - 1 if loss_kind == LOSS_SOFTMAX else 1
        check_core(core, self._params, kinds, loss_kind, n_trees, n_classes)

    def _load_fitted(self, fitted: Any, snapshot: Any) -> None:
        """Check a model file's facade state and core snapshot, then restore them into
        this new model."""
        self._check_state(fitted, snapshot)
        if isinstance(self, _Classifier) and fitted["classes"] is not None:
            self._set_classes(fitted["classes"])
        core = snapshot["core"]
        if core is None:
            return
        keys = fitted["keys"]
        self._commit(fitted["n_features_in"], None if keys is None else tuple(keys),
                     fitted["kinds"])
        self._core.restore(core)
        self.n_seen_ = fitted["n_seen"]


    # -- public state -----------------------------------------------------------------
    @property
    def n_nodes_(self) -> int:
        """Number of nodes over all trees (1 per tree before learning)."""
        return self._n_trees() if self._core is None else int(self._core.n_nodes)

    @property
    def depth_(self) -> int:
        """Largest depth over all trees (root = 0)."""
        return 0 if self._core is None else int(self._core.depth)

    def snapshot(self) -> dict[str, Any]:
        """Full state as plain data (same schema in both backends).

        ``{"n_seen", "n_features", "core"}``; ``core`` is None before the first row,
        else ``{"warm_rows", "frozen", "lo", "hi", "seen", "buffer", "trees"}`` where
        each tree holds its counters and its nodes in creation order (node 0 is the
        root, children are contiguous from ``first_child``); a leaf lists its cells as
        ``[n, Σg, Σh, M_g, M_h, C]`` in layout order (total, then each feature's bins
        or categories) and its mask of nominal features used on the path.
        """
        core = None if self._core is None else self._core.snapshot()
        return {"n_seen": self.n_seen_, "n_features": self.n_features_in_ or 0, "core": core}


class _SingleTarget(_SGTBase):
    """Models with one real target per row (regression and custom losses)."""

    def _target(self, y: Any) -> float:
        try:
            value = float(y)
        except (TypeError, ValueError):
            raise ValueError(f"y must be a real number, got {y!r}") from None
        if isinstance(y, (str, bytes)) or not math.isfinite(value):
            raise ValueError(f"y must be a finite real number, got {y!r}")
        return value

    @_atomic_first_call
    def learn_one(self, x: Any, y: Any) -> None:
        """Learn one row (x, y) (test-then-train order is the caller's)."""
        target = self._target(y)
        row, keys, kinds = self._row(x)
        self._commit(len(row), keys, kinds)
        self._learn_rows([row], target)
        self.n_seen_ += 1

    @_atomic_first_call
    def partial_fit(self, X: Any, y: Any) -> Any:
        """Learn the rows of X in order; the whole batch is validated first."""
        arr, kinds = self._matrix(X)
        targets = [self._target(v) for v in _as_list(y, arr.shape[0])]
        self._commit(arr.shape[1], None, kinds)
        self._fit_rows(arr, targets)
        return self

    @_atomic_first_call
    def progressive_predict(self, X: Any, y: Any) -> np.ndarray:
        """Test-then-train over a batch: the prediction for each row made just before
        learning it (prequential evaluation); validated as :meth:`partial_fit`."""
        arr, kinds = self._matrix(X)
        targets = [self._target(v) for v in _as_list(y, arr.shape[0])]
        self._commit(arr.shape[1], None, kinds)
        return self._progressive_rows(arr, targets)

    def _progressive_rows(self, arr: np.ndarray, targets: list[float]) -> np.ndarray:
        out = np.empty(arr.shape[0])
        for i in range(arr.shape[0]):
            row = [float(v) for v in arr[i].tolist()]
            out[i] = self._transfer(self._raws(row)[0])
            self._learn_rows([row], targets[i])
            self.n_seen_ += 1
        return out

    def _transfer(self, raw: float) -> float:
        return raw

    def predict_one(self, x: Any) -> float:
        """Prediction σ(f(x)) (0 before training)."""
        return self._transfer(self._raws(self._predict_row(x))[0])

    def predict(self, X: Any) -> np.ndarray:
        """Predictions for the rows of X."""
        arr = check_matrix(X, self.n_features_in_, self._kinds)
        return np.array([self.predict_one(arr[i].tolist()) for i in range(arr.shape[0])])


def _as_list(y: Any, n: int) -> list[Any]:
    values = list(y.tolist()) if isinstance(y, np.ndarray) else list(y)
    if len(values) != n:
        raise ValueError(f"y has {len(values)} labels for {n} rows")
    return values


@_document
class SGTRegressor(_SingleTarget):
    """Stochastic gradient tree for regression with squared error [GPF19, §4.2].

    Parameters
    ----------
{common}

    Notes
    -----
    Inputs must be finite: NaN and infinite values raise ``ValueError`` (missing
    values are not supported in this version). The target is not standardised, so λ
    and γ act on the scale of y ([SGT-SPEC §3.1]).

    Examples
    --------
    >>> model = SGTRegressor(warmup=50, grace_period=50)
    >>> for i in range(400):
    ...     x = [(i * 37 % 100) / 100.0]
    ...     model.learn_one(x, 3.0 if x[0] > 0.5 else -3.0)
    >>> round(model.predict_one([0.9]), 2), round(model.predict_one([0.1]), 2)
    (2.73, -3.0)
    """

    def __init__(self, delta: float = 1e-7, grace_period: int = 200, lam: float = 0.1,
                 gamma: float = 1.0, bins: int = 64, warmup: int = 1000,
                 feature_ranges: Mapping[int, tuple[float, float]] | None = None,
                 nominal: Mapping[int, int] | None = None, max_depth: int | None = None,
                 warmup_trains: bool = True, test: str = "two-sided",
                 warmup_prediction: str = "newton") -> None:
        super().__init__(delta, grace_period, lam, gamma, bins, warmup, feature_ranges,
                         nominal, max_depth, warmup_trains, test, warmup_prediction)

    def _loss_kind(self) -> int:
        return LOSS_SQUARED


@_document
class SGT(_SingleTarget):
    """Stochastic gradient tree for any twice-differentiable loss [GPF19, §3.1].

    Parameters
    ----------
    loss : object or None
        Has ``gradient_hessian(y, raw) -> (g, h)`` and ``transfer(raw)``;
        :class:`~reference.sgt.losses.SquaredError` if None. The built-in
        ``SquaredError`` and ``BinaryCrossEntropy`` run in C in ``fast``; any other
        loss (e.g. :class:`~reference.sgt.losses.CustomLoss`) is called from Python.
{common}

    Notes
    -----
    Inputs must be finite (missing values are not supported in this version). A
    custom loss returning a non-finite g or h raises ``ValueError``.

    Examples
    --------
    >>> import math
    >>> from reference.sgt.losses import CustomLoss
    >>> absolute_ish = CustomLoss(lambda y, f: math.tanh(f - y), lambda y, f: 1.0)
    >>> model = SGT(absolute_ish, warmup=10, grace_period=20)
    >>> for i in range(300):
    ...     model.learn_one([i % 10], 5.0)
    >>> model.predict_one([3]) > 0.5
    True
    """

    def __init__(self, loss: Any = None, delta: float = 1e-7, grace_period: int = 200,
                 lam: float = 0.1, gamma: float = 1.0, bins: int = 64, warmup: int = 1000,
                 feature_ranges: Mapping[int, tuple[float, float]] | None = None,
                 nominal: Mapping[int, int] | None = None, max_depth: int | None = None,
                 warmup_trains: bool = True, test: str = "two-sided",
                 warmup_prediction: str = "newton") -> None:
        effective = SquaredError() if loss is None else loss
        if not (callable(getattr(effective, "gradient_hessian", None))
                and callable(getattr(effective, "transfer", None))):
            raise ValueError("loss must have gradient_hessian(y, raw) and transfer(raw) methods")
        self.loss = loss  # as given (None: squared error), so get_params returns it unchanged
        self._loss = effective
        super().__init__(delta, grace_period, lam, gamma, bins, warmup, feature_ranges,
                         nominal, max_depth, warmup_trains, test, warmup_prediction)

    def _param_names(self) -> tuple[str, ...]:
        return ("loss",) + _PARAM_NAMES

    def _set_state(self, state: dict[str, Any]) -> None:
        super()._set_state(state)
        if "_loss" not in self.__dict__:  # pickled before ``loss`` kept the given value
            self._loss = self.loss

    _builtin_losses: dict[type, int] = {SquaredError: LOSS_SQUARED,
                                        BinaryCrossEntropy: LOSS_LOGISTIC}

    def _loss_kind(self) -> int:
        # exact types only: a user subclass that overrides the derivatives is custom
        return self._builtin_losses.get(type(self._loss), LOSS_CUSTOM)

    def _transfer(self, raw: float) -> float:
        return float(self._loss.transfer(raw))

    def _gradients(self, target: float, raw: float) -> tuple[float, float]:
        g, h = self._loss.gradient_hessian(target, raw)
        g, h = float(g), float(h)
        if not (math.isfinite(g) and math.isfinite(h)):
            raise ValueError(f"loss returned non-finite gradient/hessian ({g}, {h})")
        return g, h

    def _learn_rows(self, rows: list[list[float]], target: float) -> None:
        if self._loss_kind() != LOSS_CUSTOM:
            self._core.learn(rows, target)
            return
        core = self._core
        if not core.frozen:
            if core.warmup_push(rows, target):
                for item_rows, item_target in core.take_buffer():
                    if self.warmup_trains:
                        self._train_custom(item_rows[0], item_target)
            return
        self._train_custom(rows[0], target)

    def _train_custom(self, row: list[float], target: float) -> None:
        g, h = self._gradients(target, self._core.raws(row)[0])
        self._core.train_gh(row, [g], [h])


class _Classifier(ClassifierEstimatorMixin, _SGTBase):
    """Label handling shared by the classifiers."""

    classes_: list[Hashable] | None

    def _index(self, y: Any) -> int:
        assert self.classes_ is not None
        try:
            return self._class_index[y]
        except (KeyError, TypeError):
            raise ValueError(f"unknown label {y!r}; classes are {self.classes_}") from None

    def _set_classes(self, classes: Sequence[Hashable]) -> None:
        labels = list(classes)
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
        return dict(zip(self.classes_, self._proba(raws), strict=True))

    def _argmax(self, probs: list[float]) -> Hashable:
        assert self.classes_ is not None
        best = 0
        for c in range(1, len(probs)):
            if probs[c] > probs[best]:
                best = c
        return self.classes_[best]


@_document
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
                 bins: int = 64, warmup: int = 1000,
                 feature_ranges: Mapping[int, tuple[float, float]] | None = None,
                 nominal: Mapping[int, int] | None = None, max_depth: int | None = None,
                 warmup_trains: bool = True, test: str = "two-sided",
                 warmup_prediction: str = "newton") -> None:
        self.classes = None if classes is None else list(classes)
        self.classes_ = None
        self._class_index: dict[Hashable, int] = {}
        if self.classes is not None:
            self._set_classes(self.classes)
        super().__init__(delta, grace_period, lam, gamma, bins, warmup, feature_ranges,
                         nominal, max_depth, warmup_trains, test, warmup_prediction)

    def _param_names(self) -> tuple[str, ...]:
        return ("classes",) + _PARAM_NAMES

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
            p = sigmoid(raws[0])
            return [1.0 - p, p]
        return softmax(raws)

    @_atomic_first_call
    def learn_one(self, x: Any, y: Hashable) -> None:
        """Learn one labelled row; the class set must be known (``classes=``)."""
        if self.classes_ is None:
            raise ValueError("classes are unknown: pass classes= or call partial_fit first")
        index = self._index(y)
        row, keys, kinds = self._row(x)
        self._commit(len(row), keys, kinds)
        self._learn_rows([row], self._target(index))
        self.n_seen_ += 1

    @_atomic_first_call
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
        arr, kinds = self._matrix(X)
        labels = _as_list(y, arr.shape[0])
        if self.classes_ is None:
            seen: dict[Hashable, None] = {}
            for label in labels:
                try:
                    seen.setdefault(label, None)
                except TypeError:
                    raise ValueError(f"labels must be hashable, got {label!r}") from None
            if len(seen) < 2:
                raise ValueError("the first partial_fit needs two classes or classes= up front")
            self._set_classes(list(seen))
            try:
                self._commit(arr.shape[1], None, kinds)
            except MemoryError:
                self.classes_, self._class_index = None, {}
                raise
        targets = [self._target(self._index(label)) for label in labels]
        self._commit(arr.shape[1], None, kinds)
        self._fit_rows(arr, targets)
        return self

    @_atomic_first_call
    def progressive_predict(self, X: Any, y: Any) -> np.ndarray:
        """Test-then-train over a batch: the label predicted for each row just before
        learning it (prequential evaluation); validated as :meth:`partial_fit`."""
        arr, kinds = self._matrix(X)
        labels = _as_list(y, arr.shape[0])
        if self.classes_ is None:
            raise ValueError("classes are unknown: pass classes= or call partial_fit first")
        targets = [self._target(self._index(label)) for label in labels]
        self._commit(arr.shape[1], None, kinds)
        return self._progressive_rows(arr, targets)

    def _progressive_rows(self, arr: np.ndarray, targets: list[float]) -> np.ndarray:
        assert self.classes_ is not None
        out = []
        for i in range(arr.shape[0]):
            row = [float(v) for v in arr[i].tolist()]
            out.append(self._argmax(self._proba(self._raws(row))))
            self._learn_rows([row], targets[i])
            self.n_seen_ += 1
        return np.array(out)

    def predict_proba_one(self, x: Any) -> dict[Hashable, float]:
        """Class probabilities ``{label: p}`` ({} while the classes are unknown)."""
        return self._proba_dict(self._raws(self._predict_row(x)))

    def predict_one(self, x: Any) -> Hashable:
        """Most probable label (first on ties), None while the classes are unknown."""
        row = self._predict_row(x)
        if self.classes_ is None:
            return None
        return self._argmax(self._proba(self._raws(row)))

    def predict_proba(self, X: Any) -> np.ndarray:
        """Probabilities, columns in ``classes_`` order."""
        arr = check_matrix(X, self.n_features_in_, self._kinds)
        if self.classes_ is None:
            return np.zeros((arr.shape[0], 0))
        return np.array([self._proba(self._raws(arr[i].tolist())) for i in range(arr.shape[0])])

    def predict(self, X: Any) -> np.ndarray:
        """Most probable labels."""
        arr = check_matrix(X, self.n_features_in_, self._kinds)
        return np.array([self.predict_one(arr[i].tolist()) for i in range(arr.shape[0])])


@_document
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
                 lam: float = 0.1, gamma: float = 1.0, bins: int = 64, warmup: int = 1000,
                 feature_ranges: Mapping[int, tuple[float, float]] | None = None,
                 nominal: Mapping[int, int] | None = None, max_depth: int | None = None,
                 warmup_trains: bool = True, test: str = "two-sided",
                 warmup_prediction: str = "newton") -> None:
        if isinstance(epochs, bool) or not isinstance(epochs, (int, np.integer)) or epochs < 1:
            raise ValueError(f"epochs must be an int >= 1, got {epochs!r}")
        self.epochs = int(epochs)
        self.classes_ = None
        self._class_index = {}
        self._set_classes([0, 1])
        super().__init__(delta, grace_period, lam, gamma, bins, warmup, feature_ranges,
                         nominal, max_depth, warmup_trains, test, warmup_prediction)

    def _param_names(self) -> tuple[str, ...]:
        return ("epochs",) + _PARAM_NAMES

    def _loss_kind(self) -> int:
        return LOSS_BAG

    def _fixed_classes(self) -> list[Hashable] | None:
        return [0, 1]

    _array_input = False  # inputs are bags of rows, not rows

    def _input_tags(self, input_tags: Any) -> Any:
        return input_tags(two_d_array=False, three_d_array=True)

    def _proba(self, raws: list[float]) -> list[float]:
        best = raws[0]
        for r in raws:
            if r > best:
                best = r
        p = sigmoid(best)
        return [1.0 - p, p]

    def _bag(self, bag: Any) -> tuple[np.ndarray, list[int]]:
        if isinstance(bag, Mapping):
            raise ValueError("a bag must be a 2-D array of rows")
        return self._matrix(bag)

    def _bag_raws(self, arr: np.ndarray) -> list[float]:
        return [self._raws(arr[i].tolist())[0] for i in range(arr.shape[0])]

    @_atomic_first_call
    def learn_one(self, x: Any, y: Any) -> None:
        """Learn one bag ``x`` (rows) with label ``y`` in {0, 1}."""
        target = float(self._index(y))
        arr, kinds = self._bag(x)
        self._commit(arr.shape[1], None, kinds)
        self._learn_rows([[float(v) for v in r] for r in arr.tolist()], target)
        self.n_seen_ += 1

    @_atomic_first_call
    def partial_fit(self, X: Any, y: Any,
                    classes: Sequence[Hashable] | None = None) -> SGTMultiInstanceClassifier:
        """Learn a sequence of bags ``epochs`` times; everything is validated first
        (``classes``, if given, must be labels of ``classes_ = [0, 1]``)."""
        if classes is not None:
            self._declare_classes(classes)
        bags = list(X)
        labels = _as_list(y, len(bags))
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
        for _ in range(self.epochs):
            for arr, target in zip(arrays, targets, strict=True):
                self._learn_rows([[float(v) for v in r] for r in arr.tolist()], target)
                self.n_seen_ += 1

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

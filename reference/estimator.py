"""The scikit-learn estimator protocol, written once for every model of both backends.

Every public model inherits :class:`EstimatorMixin` (through its family's facade), so it
works with ``sklearn.base.clone``, ``Pipeline``, ``GridSearchCV``, ``cross_val_score`` and
``is_classifier`` / ``is_regressor`` without scikit-learn being a dependency: the module
imports nothing from scikit-learn, except inside :meth:`EstimatorMixin.__sklearn_tags__`,
which only scikit-learn itself calls.

Choices where scikit-learn's conventions meet streaming models:

* ``fit(X, y)`` forgets everything and learns the rows of ``X`` in order, exactly as a new
  model's ``partial_fit(X, y)`` would (same state, bit for bit). A classifier's ``fit``
  registers the classes in sorted order (``numpy.unique``), because scikit-learn expects a
  sorted ``classes_``; ``partial_fit`` and ``learn_one`` keep registering labels in order of
  first appearance, unless ``classes=`` is given. ``fit`` is atomic: if it raises, the model
  is the one it was before the call.
* ``set_params(**params)`` validates the new values exactly as the constructor does (same
  exception) and then **restarts** the model with them: a streaming model's state was built
  under its old hyper-parameters and cannot be carried over exactly in either backend.
* Sample weights: the papers define no weighted update, so ``fit`` and ``partial_fit`` take
  no ``sample_weight``; ``score`` accepts one, since a weighted metric is well defined.
* ``n_features_in_`` and ``classes_`` follow each family's streaming conventions (see the
  models' docstrings); the scikit-learn checks that assume otherwise are listed, with their
  reasons, in ``tests/common/test_estimator_protocol.py`` and in the "scikit-learn and River"
  tutorial.
* ``get_params`` returns the objects the constructor was given (validated copies live in
  the model), so ``clone``'s identity check holds for list and dict parameters; a model
  restored from a pickle or a model file reports the validated values it holds.
* Data-frame column names become ``feature_names_in_`` and are checked by later batch calls
  (:mod:`reference.feature_names`); text and missing values in arrays raise ``ValueError``
  (:mod:`reference.array_input`).
"""

from __future__ import annotations

import inspect
import os
import threading
from collections.abc import Callable, Hashable, Sequence
from typing import Any, ClassVar, TypeVar

import numpy as np
import numpy.typing as npt

from reference.array_input import (
    BATCH_METHODS,
    check_array_input,
    checking_arrays,
    warn_column_vector,
)
from reference.feature_names import restore_names
from reference.locking import locks_itself, serialise_class
from reference.parallel import check_n_jobs

__all__ = ["ClassifierEstimatorMixin", "EstimatorMixin", "check_array_input", "locks_itself",
           "to_river"]

_Method = TypeVar("_Method", bound=Callable[..., Any])

FEATURE_NAMES_KEY = "feature_names_in"
"""Where pickles and model files keep ``feature_names_in_`` (a list of str), when set."""

N_JOBS_KEY = "n_jobs"
"""Where a pickle keeps ``n_jobs`` when it is not None (older pickles have no entry)."""

class EstimatorMixin:
    """fit / get_params / set_params / score / repr / tags on top of a model's facade, and
    one lock per model.

    A model provides ``_constructor_params()`` (its constructor arguments as a dict),
    ``partial_fit`` and ``predict``; a classifier also ``_declare_classes``.

    Threads: every public method and property of every subclass (and pickling, copying and
    ``repr``) runs while holding the model's own ``threading.RLock``, so calls on one model
    from several threads are serialised, in both backends alike, and the C code never sees
    two calls on one model at once. Separate models share no lock: the C backend releases
    the GIL inside its calls, so separate models run in parallel in threads. The lock lives
    in a slot, outside the state that is pickled, and every new or unpickled model gets its
    own.
    """

    __slots__ = ("_lock", "_given", "_n_jobs")
    _lock: Any
    _given: dict[str, Any] | None
    _n_jobs: int | None
    _params_added: dict[str, Any] = {"n_jobs": None}
    """Parameters added after model files existed, with the value that reproduces the
    older behaviour when a file lacks them (:func:`reference.persist.from_document`).
    ``n_jobs`` is never written to a model file: it is an execution setting
    (:mod:`reference.parallel`), so a file loads with the default."""
    __signature__: ClassVar[inspect.Signature]
    """Each subclass's constructor signature (set by ``__init_subclass__``)."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        self = super().__new__(cls)
        self._lock = threading.RLock()
        self._given = _given_arguments(cls, args, kwargs)
        self._n_jobs = None
        return self

    @property
    def n_jobs(self) -> int | None:
        """Threads of the batch predictions (:mod:`reference.parallel`): ``None`` or ``1``
        one, ``k`` k, ``-1`` one per core. Never changes a result; assigning it (or
        ``set_params(n_jobs=...)``) keeps the fitted model."""
        return self._n_jobs

    @n_jobs.setter
    def n_jobs(self, value: int | None) -> None:
        value = check_n_jobs(value)
        with self._lock:
            self._n_jobs = value
            if self._given is not None and "n_jobs" in self._given:
                self._given["n_jobs"] = value

    def __getstate__(self) -> Any:
        with self._lock:
            state: dict[str, Any] = super().__getstate__()  # type: ignore[assignment]
            names = self.__dict__.get("feature_names_in_")
            if names is not None:       # the same entry in both backends' pickles
                state[FEATURE_NAMES_KEY] = [str(n) for n in names]
            if self._n_jobs is not None:
                state[N_JOBS_KEY] = self._n_jobs
            return state

    def __setstate__(self, state: Any) -> None:
        # unpickling and copying build the object without constructor arguments: the
        # parameters are then the validated values the restored model holds
        self._given = None
        self._n_jobs = None
        names = None
        n_jobs = None
        if isinstance(state, dict) and N_JOBS_KEY in state:
            state = dict(state)
            n_jobs = state.pop(N_JOBS_KEY)
        if isinstance(state, dict) and FEATURE_NAMES_KEY in state:
            state = dict(state)
            names = state.pop(FEATURE_NAMES_KEY)
            state.pop("feature_names_in_", None)
        super().__setstate__(state)  # type: ignore[misc]
        restore_names(self, names, FEATURE_NAMES_KEY)
        try:
            self._n_jobs = check_n_jobs(n_jobs)
        except ValueError as exc:
            from reference.state import StateFormatError

            raise StateFormatError(f"cannot restore {type(self).__name__}: {exc}") from None

    _estimator_type: str = "regressor"
    _array_input: bool = True
    """False for models whose inputs are not rows (multi-instance bags)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in BATCH_METHODS:
            method = cls.__dict__.get(name)
            if method is not None and not getattr(method, "_checks_arrays", False):
                setattr(cls, name, checking_arrays(method))
        serialise_class(cls)
        # The class's call signature is its ``__init__``'s. ``inspect.signature`` finds that
        # by itself, but documentation tools that look at ``__new__`` first (Sphinx's
        # autodoc) would show the lock-creating ``__new__(*args, **kwargs)`` above.
        # (A subclass that keeps its parent's ``__init__`` inherits the attribute as well.)
        init = inspect.signature(cls.__init__)
        signature = init.replace(
            parameters=list(init.parameters.values())[1:],
            return_annotation=inspect.Signature.empty,
        )
        if getattr(cls, "__signature__", None) != signature:
            cls.__signature__ = signature

    # -- data-only model files -------------------------------------------------------------
    def save(self, path: str | os.PathLike[str], compress: bool = True) -> None:
        """Write the model to ``path`` as a data-only model file.

        The file holds numbers, strings, lists and typed arrays only (a JSON header and
        little-endian arrays, see :mod:`reference.persist`); ``load(path)`` from either
        backend reads it back, bit for bit, checking every field first. Prefer it to
        pickle for sharing models: unpickling runs code and is for trusted files only.
        The file is replaced atomically (a failed write leaves any previous file
        intact); an existing file keeps its permission bits, a symbolic link its target,
        and a path that is not a regular file is refused.

        Parameters
        ----------
        path : str or path-like
            Where to write (conventionally ``*.dwm``).
        compress : bool, default True
            Deflate the arrays (zlib, fast level): files a few times smaller, saving
            and loading a little slower.

        Raises
        ------
        ValueError
            If the model holds something that is not data (a custom SGT loss, labels or
            feature names other than str, int, float, bool, None or tuples of these).
        FileExistsError
            If ``path`` exists and is not a regular file (a FIFO, a device node).
        IsADirectoryError
            If ``path`` is a directory.
        """
        from reference.persist import save

        save(self, path, compress)

    def _fitted_state(self) -> dict[str, Any]:
        """The facade state (besides ``snapshot()``) that a model file stores."""
        raise NotImplementedError

    def _load_fitted(self, fitted: Any, snapshot: Any) -> None:
        """Check then restore a model file's facade state and snapshot into this new model."""
        raise NotImplementedError

    def _check_state(self, fitted: Any, snapshot: Any) -> None:
        """Raise ``StateFormatError`` naming the field unless ``fitted`` and ``snapshot``
        are a valid state for this model's parameters (each family's ``state_check``)."""
        raise NotImplementedError

    def _check_restored(self) -> None:
        """After unpickling or copying: the checks of a model file, on the restored state
        (a tampered pickle can break the state in any way, so any failure to read it back
        is a ``StateFormatError`` too)."""
        from reference.state import StateFormatError

        try:
            fitted, snapshot = self._fitted_state(), self.snapshot()  # type: ignore[attr-defined]
        except StateFormatError:
            raise
        except Exception as exc:
            raise StateFormatError(f"cannot restore {type(self).__name__}: the pickled state "
                                   f"is inconsistent ({type(exc).__name__}: {exc})") from None
        self._check_state(fitted, snapshot)

    # -- parameters ------------------------------------------------------------------------
    def _constructor_params(self) -> dict[str, Any]:
        raise NotImplementedError

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Constructor arguments as a dict (``deep`` is accepted for scikit-learn; the models
        have no nested estimators).

        Parameters
        ----------
        deep : bool, default True
            Ignored: no parameter is itself an estimator.

        Returns
        -------
        dict
            The very objects the constructor was given (scikit-learn's convention, which
            ``clone`` checks by identity), defaults included. A model restored from a pickle
            or a model file reports the validated values it holds instead. Passing either
            back to the constructor builds an equivalent unfitted model.
        """
        del deep
        given = getattr(self, "_given", None)
        if given is not None:
            return dict(given)
        params = dict(self._constructor_params())
        if "n_jobs" in _init_signature(type(self)).parameters:
            params["n_jobs"] = self._n_jobs
        return params

    def set_params(self, **params: Any) -> Any:
        """Set constructor arguments; the model restarts with them (it forgets its data).

        The values are validated by the constructor: a bad value raises the constructor's
        exception and leaves the model unchanged. ``n_jobs`` alone is the exception: it
        changes how batch predictions are computed, never what they are, so setting only
        it keeps the fitted model.

        Returns
        -------
        self
        """
        if not params:
            return self
        current = self.get_params()
        unknown = sorted(set(params) - set(current))
        if unknown:
            raise ValueError(
                f"invalid parameter(s) {unknown} for {type(self).__name__}; "
                f"valid parameters: {sorted(current)}"
            )
        if set(params) == {"n_jobs"}:
            self.n_jobs = params["n_jobs"]
            return self
        fresh = type(self)(**{**current, **params})
        self._adopt(fresh)
        return self

    def _adopt(self, other: Any) -> None:
        """Become ``other`` (a model of the same class), dropping the old model state.

        Attributes that the model itself does not create (for instance those a framework
        attaches to an estimator) are kept, and so is the model's own lock: a thread
        waiting for it (or holding it, as the caller does) serialises with this model
        still, whatever it becomes.
        """
        foreign = {k: v for k, v in self.__dict__.items()
                   if (k not in other.__dict__ and k != "feature_names_in_") or k == "_lock"}
        self.__dict__.clear()
        self.__dict__.update(other.__dict__)
        self.__dict__.update(foreign)
        self._given = getattr(other, "_given", None)
        self._n_jobs = getattr(other, "_n_jobs", None)

    def __repr__(self) -> str:
        try:
            signature = inspect.signature(type(self).__init__)
        except (TypeError, ValueError):  # pragma: no cover - classes always have one
            return f"{type(self).__name__}()"
        shown = []
        for name, value in self.get_params().items():
            parameter = signature.parameters.get(name)
            default = parameter.default if parameter is not None else inspect.Parameter.empty
            if default is inspect.Parameter.empty or not _same(value, default):
                shown.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(shown)})"

    # -- fitting -----------------------------------------------------------------------------
    def fit(self, X: npt.ArrayLike, y: npt.ArrayLike) -> Any:
        """Forget everything, then learn the rows of ``X`` in order.

        Equivalent to ``partial_fit(X, y)`` on a new model with the same parameters (for a
        classifier: with ``classes=numpy.unique(y)``). Atomic: if it raises, the model is
        unchanged.

        Returns
        -------
        self
        """
        owner = type(self).__name__
        if y is None:
            raise ValueError(f"{owner} requires y to be passed, but the target y is None")
        if not isinstance(y, (list, tuple, np.ndarray)) and hasattr(y, "__array__"):
            y = np.asarray(y)
        if isinstance(y, np.ndarray):
            if y.dtype.kind == "c":
                raise ValueError("Complex data not supported")
            if y.ndim == 2 and y.shape[1] == 1:
                warn_column_vector(owner)
                y = y.ravel()
        fresh = type(self)(**self.get_params())
        fresh._fit_fresh(X, y)
        self._adopt(fresh)
        return self

    def _fit_fresh(self, X: Any, y: Any) -> None:
        self.partial_fit(X, y)  # type: ignore[attr-defined]

    def __sklearn_is_fitted__(self) -> bool:
        return int(getattr(self, "n_seen_", 0)) > 0

    # -- scoring -----------------------------------------------------------------------------
    def score(
        self, X: npt.ArrayLike, y: npt.ArrayLike, sample_weight: npt.ArrayLike | None = None
    ) -> float:
        """R² of the predictions (regressors) or their accuracy (classifiers).

        Parameters
        ----------
        X : array-like of shape (n, d)
        y : array-like of shape (n,)
        sample_weight : array-like of shape (n,), optional
            Weights of the rows in the metric.

        Returns
        -------
        float
        """
        predicted = np.asarray(self.predict(X))  # type: ignore[attr-defined]
        truth = np.asarray(y)
        weights = None if sample_weight is None else _weights(sample_weight, len(truth))
        if weights is not None and not np.sum(weights) > 0.0:
            # scikit-learn's metrics refuse weights that sum to zero with a ValueError
            raise ValueError("sample_weight must not sum to zero: no row counts in the score")
        if self._estimator_type == "classifier":
            pairs = zip(predicted.tolist(), truth.tolist(), strict=True)
            hits = np.array([p == t for p, t in pairs], dtype=float)
            return float(np.average(hits, weights=weights))
        truth = truth.astype(float)
        residual = np.average((truth - predicted.astype(float)) ** 2, weights=weights)
        spread = np.average((truth - np.average(truth, weights=weights)) ** 2, weights=weights)
        if spread == 0.0:
            return 1.0 if residual == 0.0 else 0.0
        return float(1.0 - residual / spread)

    # -- scikit-learn's tags (imported only when scikit-learn asks) ---------------------------
    def __sklearn_tags__(self) -> Any:
        from sklearn.utils import ClassifierTags, InputTags, RegressorTags, Tags, TargetTags

        classifier = self._estimator_type == "classifier"
        return Tags(
            estimator_type=self._estimator_type,
            target_tags=TargetTags(required=True),
            # streaming trees need more rows than scikit-learn's small check sets hold
            classifier_tags=ClassifierTags(poor_score=True) if classifier else None,
            regressor_tags=None if classifier else RegressorTags(poor_score=True),
            input_tags=self._input_tags(InputTags),
        )

    def _input_tags(self, input_tags: Any) -> Any:
        return input_tags(dict=True)


class ClassifierEstimatorMixin(EstimatorMixin):
    """The classifier side: sorted classes in ``fit``, ``classes=`` in ``partial_fit``."""

    _estimator_type = "classifier"

    def _fit_fresh(self, X: Any, y: Any) -> None:
        labels = list(y) if not isinstance(y, np.ndarray) else y.tolist()
        try:
            classes = sorted(set(labels))
        except TypeError:  # labels of mixed types (or unhashable): first appearance order
            try:
                classes = list(dict.fromkeys(labels))
            except TypeError as exc:
                raise ValueError(f"labels must be hashable: {exc}") from None
        check_labels_defined(classes)
        if len(classes) < 2:
            raise ValueError(
                f"y has {len(classes)} class(es): {type(self).__name__} needs at least two "
                "(one class cannot be learned)"
            )
        self.partial_fit(X, y, classes=classes)  # type: ignore[attr-defined]

    def _declare_classes(self, classes: Sequence[Hashable]) -> None:
        raise NotImplementedError

    def _label_dict(self, probs: Sequence[float]) -> dict[Any, float]:
        """``{label: p}`` in ``classes_`` order. ``probs`` holds one value per class by
        construction, so zip is called without ``strict=``, whose keyword argument alone
        costs about 0.4 us: this runs once per ``predict_proba_one``."""
        return dict(zip(self.classes_, probs))  # type: ignore[attr-defined]  # noqa: B905


def check_labels_defined(labels: Any) -> None:
    """``ValueError`` for a label that is NaN or infinite (a float or numpy float, or a
    missing value such as ``pandas.NA``), on every path that may register a class: ``fit``,
    ``partial_fit``, ``learn_one``, ``classes=``.

    NaN never equals itself, so each NaN would be a class of its own (and a model that can
    never be loaded: its class labels would not be distinct)."""
    for label in labels:
        try:
            undefined = bool(label != label)
        except (TypeError, ValueError):  # pandas.NA: its comparisons are themselves missing
            undefined = True
        if undefined or (isinstance(label, (float, np.floating)) and not np.isfinite(label)):
            raise ValueError(f"labels must not be NaN or infinite, got {label!r}")


def _weights(sample_weight: Any, n: int) -> np.ndarray:
    """``sample_weight`` as finite non-negative floats, one per row; ``ValueError`` otherwise
    (scikit-learn's ``_check_sample_weight``)."""
    try:
        weights = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("sample_weight must hold numbers") from None
    if weights.ndim == 0:
        weights = np.full(n, float(weights))
    if weights.shape != (n,):
        raise ValueError(f"sample_weight.shape == {weights.shape}, expected ({n},)!")
    if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise ValueError("sample_weight must be finite and non-negative")
    return weights


def _given_arguments(cls: type, args: tuple[Any, ...],
                     kwargs: dict[str, Any]) -> dict[str, Any] | None:
    """The constructor's arguments as given, defaults filled in (None if they do not bind:
    ``__init__`` then raises its own ``TypeError``)."""
    try:
        bound = _init_signature(cls).bind(None, *args, **kwargs)
    except TypeError:
        return None
    bound.apply_defaults()
    given = dict(bound.arguments)
    given.pop(next(iter(given)))                       # self
    return given


_SIGNATURES: dict[type, inspect.Signature] = {}


def _init_signature(cls: type) -> inspect.Signature:
    signature = _SIGNATURES.get(cls)
    if signature is None:
        signature = _SIGNATURES[cls] = inspect.signature(cls.__init__)  # type: ignore[misc]
    return signature


def _same(value: Any, default: Any) -> bool:
    try:
        return bool(value == default) and type(value) is type(default)
    except Exception:  # arrays and other objects without a plain truth value
        return value is default


def to_river(model: Any, missing: str | float = "mean") -> Any:
    """The model as a River estimator (``river.base.MiniBatchRegressor`` or
    ``MiniBatchClassifier``).

    Imports River (a separate install) on first use; see :mod:`reference.river_adapter`
    and the documentation's River page (features matched by name, absent features filled,
    labels learned as they arrive).

    Parameters
    ----------
    model : driftwood model
        Any regressor or classifier of either backend, unfitted.
    missing : "mean" or float, default "mean"
        The value of a feature absent from a River row: the running mean of its learned
        values, or this constant.

    Returns
    -------
    river.base.Regressor or river.base.Classifier
        An adapter with River's one-row and mini-batch methods (``learn_one``,
        ``predict_one``, ``predict_proba_one``, ``learn_many``, ``predict_many``,
        ``predict_proba_many``).

    Examples
    --------
    >>> from reference import SGTRegressor, to_river
    >>> to_river(SGTRegressor())  # doctest: +SKIP
    RiverRegressor(SGTRegressor())
    """
    from reference.river_adapter import wrap

    return wrap(model, missing)

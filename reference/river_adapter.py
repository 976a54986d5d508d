"""River adapters: any driftwood model inside River's pipelines, metrics and evaluation.

River decides whether a model may be scored by a metric, or put at the end of a
``river.compose.Pipeline``, by checking that it is a ``river.base.Regressor`` or
``river.base.Classifier``. The adapters below are those (and River's mini-batch
``MiniBatchRegressor`` / ``MiniBatchClassifier``), and they pass River's own estimator
checks (``river.checks.yield_checks``). This module imports River, so it is imported only
when :func:`to_river` is first called: River is not a dependency of driftwood.

Use :func:`reference.to_river` (or :func:`fast.to_river`, the same function)::

    from river import evaluate, metrics, preprocessing
    model = preprocessing.StandardScaler() | fast.to_river(fast.ABACOCClassifier())
    evaluate.progressive_val_score(dataset, model, metrics.Accuracy())

Rows (:mod:`reference.river_rows`; [DT-SPEC §12.1], [SGT-SPEC §16.1], [ABACOC-SPEC §20]):
features are matched by name in sorted order; an absent feature takes the running mean of
its learned values (a nominal feature of SGT's ``nominal=``: their running mode), or the
constant ``missing``; a feature first seen after the first learned row is ignored. The
rules for values and targets are the same for ``learn_one`` and ``learn_many``: text is
never a number (``TypeError`` for a feature, ``ValueError`` for a regression target).

Failures: every learning call is atomic. ``learn_one`` on a known label is the model's own
atomic ``learn_one``; one that adds a label builds the grown model as a new one, lets it
learn the row, and only then adopts it (under the model's lock); every ``learn_many``
that learns in one batch call (no new label in it) is the model's own atomic
``partial_fit``; one that adds labels learns in several batch calls, so it holds the
model's lock, copies the model first (``copy.deepcopy``, one copy per such call) and puts
the copy back if it raises, so
the model, its classes, the adapter's labels and feature means are as before and the
adapter stays usable. Holding the lock also means that no other thread sees a class being
added half-way.

Labels: ABACOC registers classes as they appear ([ABACOC-SPEC §10]). An SGT or
dynamic-tree classifier built with ``classes=None`` learns its labels as they arrive
through the adapter: the rows before a second distinct label are not learned (a model of
one class has nothing to learn: its only class has probability 1, which the adapter
predicts); at the second label the model is started with the two labels in order of
arrival; each later new label joins the model as its family's spec states
([SGT-SPEC §16.2], [DT-SPEC §12.2]). ``classes=[...]`` keeps a fixed class set, and a label
outside it is a ``ValueError``, as in the model itself.
"""

from __future__ import annotations

import contextlib
import copy
import math
from collections.abc import Hashable, Iterator
from typing import Any

import numpy as np
from river import base

from reference.river_rows import FeatureSpace

__all__ = ["RiverClassifier", "RiverRegressor", "wrap"]

_GROWING = ("SGTClassifier", "DynamicTreeClassifier")
"""Classifiers whose class set is fixed at the start (grown by the adapter)."""


def _check_missing(missing: Any) -> None:
    if isinstance(missing, str):
        if missing != "mean":
            raise ValueError(f"missing must be 'mean' or a finite number, got {missing!r}")
        return
    if isinstance(missing, bool) or not isinstance(missing, (int, float, np.number)) \
            or not math.isfinite(float(missing)):
        raise ValueError(f"missing must be 'mean' or a finite number, got {missing!r}")


def _backends() -> list[Any]:
    import reference

    out = [reference]
    try:
        import fast
    except (ImportError, OSError):  # pragma: no cover - the C library is not built
        return out
    out.append(fast)
    return out


class _Adapter:
    """What both adapters share: the wrapped model, its feature space, River's
    parameters protocol (``_get_params``, ``clone``) and the repr."""

    model: Any
    missing: Any
    _space: FeatureSpace
    _model_params: dict[str, Any]

    def _setup(self, model: Any, missing: Any) -> None:
        _check_missing(missing)
        self.model = model
        self.missing = missing
        self._model_params = dict(model.get_params())
        nominal = self._model_params.get("nominal") or {}
        self._space = FeatureSpace(missing, nominal=list(nominal))

    # -- River's parameter protocol --------------------------------------------------------
    def _get_params(self) -> dict[str, Any]:
        """The adapter's parameters; the model as River's ``(class, parameters)`` pair of
        the parameters it was wrapped with (so ``clone`` builds it unfitted, and River's
        ``seed_params`` reaches a ``seed``)."""
        return {"model": (type(self.model), dict(self._model_params)),
                "missing": self.missing}

    def clone(self, new_params: dict[str, Any] | None = None,
              include_attributes: bool = False) -> Any:
        """A new adapter around an unfitted model with the same parameters (River's
        ``clone``). ``new_params`` may replace ``missing`` or the model: a model, a
        ``(class, parameters)`` pair, or a dict of the model's parameters to change.
        ``include_attributes=True`` returns a deep copy of the adapter as it is (learned
        model, feature means and labels included)."""
        if include_attributes:
            if new_params:
                raise ValueError("clone(include_attributes=True) copies the adapter as it "
                                 "is, its learned model included: new_params cannot apply")
            return copy.deepcopy(self)
        params = self._get_params()
        for name, value in (new_params or {}).items():
            if name not in params:
                raise ValueError(f"{name!r} is not a parameter of {type(self).__name__}")
            if name == "model" and isinstance(value, dict):
                value = (type(self.model), {**self._model_params, **value})
            params[name] = value
        model = params["model"]
        if isinstance(model, tuple):
            cls, kwargs = model
            model = cls(**kwargs)
        else:
            model = copy.deepcopy(model)
        return type(self)(model, missing=params["missing"])  # type: ignore[call-arg]

    def __repr__(self) -> str:
        shown = type(self.model)(**self._model_params)
        extra = "" if self.missing == "mean" else f", missing={self.missing!r}"
        return f"{type(self).__name__}({shown!r}{extra})"


class RiverRegressor(_Adapter, base.MiniBatchRegressor):
    """A driftwood regressor as a River ``MiniBatchRegressor``.

    Parameters
    ----------
    model : driftwood regressor
        ``DynamicTreeRegressor``, ``SGTRegressor`` or ``SGT`` of either backend, unfitted:
        the adapter feeds it rows in its own feature order.
    missing : "mean" or float, default "mean"
        The value an absent feature takes: the running mean of its learned values, or
        this constant (:mod:`reference.river_rows`).
    """

    def __init__(self, model: Any, missing: str | float = "mean") -> None:
        self._setup(model, missing)

    @classmethod
    def _unit_test_params(cls) -> Iterator[dict[str, Any]]:
        """Small, fast models of each regressor family, in each backend."""
        for backend in _backends():
            yield {"model": backend.SGTRegressor(warmup=20, grace_period=50, bins=8)}
            yield {"model": backend.DynamicTreeRegressor(n_particles=3, active_size=30)}

    def learn_one(self, x: dict[Hashable, Any], y: Any, **kwargs: Any) -> None:
        """Learn one row (River's protocol). Atomic: if it raises, the model and the
        adapter are as before."""
        row, update = self._space.take(x)
        self.model.learn_one(row, _real(y))
        self._space.commit(update)

    def predict_one(self, x: dict[Hashable, Any], **kwargs: Any) -> float:
        """The model's prediction at ``x``."""
        return float(self.model.predict_one(self._space.row(x)))

    def learn_many(self, X: Any, y: Any, **kwargs: Any) -> None:
        """Learn the rows of data frame ``X`` in order (the model's batch path); the same
        model as ``learn_one`` row by row, with the same type rules. Atomic: if it raises,
        the model and the adapter are as before."""
        rows, update = self._space.take_frame(X)
        targets = [_real(v) for v in list(y)]
        if len(targets) != len(rows):
            raise ValueError(f"{len(rows)} rows and {len(targets)} targets")
        if len(rows):          # one batch call: the model's own partial_fit is atomic
            self.model.partial_fit(rows, np.asarray(targets, dtype=np.float64))
        self._space.commit_frame(update)

    def predict_many(self, X: Any, **kwargs: Any) -> Any:
        """The model's predictions at the rows of data frame ``X`` (a ``pandas.Series``)."""
        import pandas as pd

        rows = self._space.frame(X)
        values = self.model.predict(rows) if len(rows) else np.zeros(0)
        return pd.Series(np.asarray(values, dtype=np.float64), index=X.index)


class RiverClassifier(_Adapter, base.MiniBatchClassifier):
    """A driftwood classifier as a River ``MiniBatchClassifier``.

    Parameters
    ----------
    model : driftwood classifier
        ``DynamicTreeClassifier``, ``SGTClassifier`` or ``ABACOCClassifier`` of either
        backend, unfitted. With ``classes=None`` the first two come to know their labels
        as they arrive (module doc); with ``classes=[...]`` they keep that set.
    missing : "mean" or float, default "mean"
        The value an absent feature takes (:mod:`reference.river_rows`).
    """

    _labels: list[Any]

    def __init__(self, model: Any, missing: str | float = "mean") -> None:
        self._setup(model, missing)
        # a model whose classes are fixed (given, or by an earlier partial_fit) keeps them
        self._grows = (type(model).__name__ in _GROWING
                       and self._model_params.get("classes") is None
                       and not _classes(model))
        self._labels = []

    @classmethod
    def _unit_test_params(cls) -> Iterator[dict[str, Any]]:
        """Small, fast models of each classifier family, in each backend."""
        for backend in _backends():
            yield {"model": backend.SGTClassifier(warmup=20, grace_period=50, bins=8)}
            yield {"model": backend.DynamicTreeClassifier(n_particles=3, active_size=30)}
            yield {"model": backend.ABACOCClassifier()}
            yield {"model": backend.ABACOCClassifier(variant="base", mode="randomized",
                                                     labels=(False, True))}

    @property
    def _multiclass(self) -> bool:
        """False for a binary-only model (River then checks it on binary data only):
        randomized BASE (ABACOC), and a model given a fixed set of two classes."""
        params = getattr(self.model, "_params", None)
        binary = (getattr(params, "variant", None) in ("base", "base_adj")
                  and getattr(params, "mode", None) == "randomized")
        given = self._model_params.get("classes")
        return not binary and not (given is not None and len(list(given)) == 2)

    # -- labels as they arrive ------------------------------------------------------------
    def _started(self) -> bool:
        return not self._grows or len(self._labels) >= 2

    def _learn_labelled(self, rows: Any, labels: list[Any]) -> None:
        """Learn a batch of ``rows`` whose labels are known to the model."""
        if len(labels):
            self.model.partial_fit(rows, labels)

    def _grown(self, y: Any) -> Any:
        """A new model: the model with new label ``y`` (at least one label known); the
        model itself is not changed."""
        if len(self._labels) == 1:
            return type(self.model)(**{**self.model.get_params(),
                                       "classes": [self._labels[0], y]})
        return _with_new_class(self.model, y)

    def _grow(self, y: Any) -> bool:
        """Register new label ``y`` (a growing model only; called holding the model's
        lock); False while the model cannot learn yet (fewer than two labels)."""
        if len(self._labels) == 0:
            self._labels.append(y)
            return False
        if not _add_class(self.model, y):
            self.model._adopt(self._grown(y))
        self._labels.append(y)
        return True

    def _learn_segments(self, rows: Any, labels: list[Any]) -> None:
        """Learn labelled rows in order, growing the class set at each new label: the rows
        between new labels go to the model's batch path. The caller restores the model
        and the labels if this raises."""
        start = 0
        for i, label in enumerate(labels):
            if label in self._labels:
                if len(self._labels) < 2:
                    start = i + 1
                continue
            if start < i:
                self._learn_labelled(rows[start:i], labels[start:i])
            start = i if self._grow(label) else i + 1
        if start < len(labels):
            self._learn_labelled(rows[start:], labels[start:])

    def learn_one(self, x: dict[Hashable, Any], y: Any, **kwargs: Any) -> None:
        """Learn one labelled row (River's protocol). Atomic: if it raises, the model, its
        classes and the adapter's labels are as before (a label is registered only with
        its row learned)."""
        row, update = self._space.take(x)
        y = _label(y)
        if not self._grows:
            self.model.learn_one(row, y)
        elif y in self._labels:
            if len(self._labels) >= 2:
                self.model.learn_one(row, y)
        elif not self._labels:
            self._labels.append(y)          # one label: nothing to learn yet
        else:
            # the grown model is a new one (the model itself is not touched) until it has
            # learned the row: then it is adopted, under the model's lock
            with self.model._lock:
                if _add_class(self.model, y):         # in place (SGT from 3 classes, DT)
                    seen = getattr(self.model, "n_seen_", None)
                    try:
                        self.model.learn_one(row, y)
                    except BaseException:
                        if seen is not None and self.model.n_seen_ != seen:
                            self._labels.append(y)    # learned, then interrupted: kept
                        else:
                            _drop_class(self.model)
                        raise
                else:
                    grown = self._grown(y)
                    grown.learn_one(row, y)
                    self.model._adopt(grown)
                self._labels.append(y)
        self._space.commit(update)

    def predict_proba_one(self, x: dict[Hashable, Any], **kwargs: Any) -> dict[Any, float]:
        """The model's class probabilities at ``x`` (``{label: 1.0}`` while a growing
        model has met one label, ``{}`` before any)."""
        if not self._started():
            self._space.row(x)     # the same errors for a bad row
            return {label: 1.0 for label in self._labels}
        return dict(self.model.predict_proba_one(self._space.row(x)))

    def predict_one(self, x: dict[Hashable, Any], **kwargs: Any) -> Any:
        """The model's predicted label at ``x`` (``None`` before any label is known)."""
        if not self._started():
            self._space.row(x)
            return self._labels[0] if self._labels else None
        return self.model.predict_one(self._space.row(x))

    def learn_many(self, X: Any, y: Any, **kwargs: Any) -> None:
        """Learn the rows of data frame ``X`` with labels ``y`` in order (the model's batch
        path between new labels); the same model as ``learn_one`` row by row, with the same
        type rules. Atomic: if it raises, the model, its classes and the adapter are as
        before."""
        rows, update = self._space.take_frame(X)
        labels = [_label(v) for v in list(y)]
        if len(labels) != len(rows):
            raise ValueError(f"{len(rows)} rows and {len(labels)} labels")
        # a batch with a new label learns in several batch calls: only then is a copy taken
        # to undo them (one batch call is the model's own atomic partial_fit)
        several = self._grows and any(label not in self._labels for label in labels)
        with _all_or_nothing(self.model, several), _kept(self._labels):
            if self._grows:
                self._learn_segments(rows, labels)
            elif labels:
                self.model.partial_fit(rows, labels)
        self._space.commit_frame(update)

    def predict_proba_many(self, X: Any, **kwargs: Any) -> Any:
        """The class probabilities at the rows of data frame ``X`` (a ``pandas.DataFrame``
        with one column per class)."""
        import pandas as pd

        rows = self._space.frame(X)
        if not self._started():
            return pd.DataFrame({label: np.ones(len(rows)) for label in self._labels},
                                index=X.index)
        classes = _classes(self.model)
        if not len(rows) or not classes:
            probs = [self.model.predict_proba_one(list(r)) for r in rows]
            return pd.DataFrame(probs, index=X.index)
        return pd.DataFrame(np.asarray(self.model.predict_proba(rows)), columns=classes,
                            index=X.index)

    def predict_many(self, X: Any, **kwargs: Any) -> Any:
        """The predicted labels at the rows of data frame ``X`` (a ``pandas.Series``)."""
        import pandas as pd

        rows = self._space.frame(X)
        if not self._started():
            label = self._labels[0] if self._labels else None
            return pd.Series([label] * len(rows), index=X.index, dtype=object)
        if not len(rows) or not _classes(self.model):
            return pd.Series([self.model.predict_one(list(r)) for r in rows],
                             index=X.index, dtype=object)
        return pd.Series(list(self.model.predict(rows)), index=X.index, dtype=object)


@contextlib.contextmanager
def _all_or_nothing(model: Any, copied: bool = True) -> Iterator[None]:
    """Hold the model's lock for the block (so that no other thread sees a class being
    added half-way) and, with ``copied``, put the model back as it was if the block
    raises: a copy is taken first (``copy.deepcopy``, the model's own state) and adopted
    on failure. Without ``copied`` the block must be one atomic call of the model."""
    with model._lock:
        if not copied:
            yield
            return
        before = copy.deepcopy(model)
        try:
            yield
        except BaseException:
            model._adopt(before)
            raise


@contextlib.contextmanager
def _kept(labels: list[Any]) -> Iterator[None]:
    """Put the adapter's label list back as it was if the block raises."""
    before = list(labels)
    try:
        yield
    except BaseException:
        labels[:] = before
        raise


def _real(y: Any) -> float:
    """A regression target as the models' ``learn_one`` takes it, for ``learn_one`` and
    ``learn_many`` alike: a real number (``bool`` and numpy numbers included), never text
    (``ValueError``, the models' class for a bad target)."""
    if isinstance(y, (str, bytes)):
        raise ValueError(f"y must be a finite real number, got {y!r:.40}")
    try:
        value = float(y)
    except (TypeError, ValueError):
        raise ValueError(f"y must be a real number, got {y!r:.40}") from None
    if not math.isfinite(value):
        raise ValueError(f"y must be a finite real number, got {y!r}")
    return value


def _classes(model: Any) -> list[Any]:
    """The model's ``classes_`` as a list (empty when it has none yet)."""
    classes = getattr(model, "classes_", None)
    return [] if classes is None else list(classes)


def _label(y: Any) -> Any:
    """A label as the adapter compares it: hashable (else TypeError) and not NaN (else
    ValueError: NaN equals nothing, so it could never be found again among the classes)."""
    try:
        hash(y)
    except TypeError as exc:
        raise TypeError(f"labels must be hashable: {exc}") from None
    if isinstance(y, (float, np.floating)) and math.isnan(y):
        raise ValueError("a label must not be NaN")
    return y


def _add_class(model: Any, label: Any) -> bool:
    """Grow ``model`` by ``label`` in place where its family can (amortised constant time
    per label): SGT from three classes (:func:`reference.sgt.new_class.add_class`), a
    dynamic-tree classifier from two (:func:`reference.dynatree.new_class.add_class`);
    False if not."""
    name = type(model).__name__
    if name == "SGTClassifier":
        from reference.sgt.new_class import add_class
    elif name == "DynamicTreeClassifier":
        from reference.dynatree.new_class import add_class
    else:
        return False
    return add_class(model, label)


def _drop_class(model: Any) -> None:
    if type(model).__name__ == "SGTClassifier":
        from reference.sgt.new_class import drop_class
    else:
        from reference.dynatree.new_class import drop_class
    drop_class(model)


def _with_new_class(model: Any, label: Any) -> Any:
    if type(model).__name__ == "SGTClassifier":
        from reference.sgt.new_class import with_new_class
    else:
        from reference.dynatree.new_class import with_new_class
    return with_new_class(model, label)


def wrap(model: Any, missing: str | float = "mean") -> Any:
    """The River adapter of ``model``: :class:`RiverClassifier` or :class:`RiverRegressor`."""
    if getattr(model, "_array_input", True) is False:
        raise TypeError(f"to_river takes models of rows; {type(model).__name__} learns bags, "
                        "which are not River rows")
    if getattr(model, "_estimator_type", None) == "classifier":
        return RiverClassifier(model, missing)
    if getattr(model, "_estimator_type", None) == "regressor":
        return RiverRegressor(model, missing)
    raise TypeError(f"to_river needs a driftwood model, got {type(model).__name__}")


"""River adapters: any driftwood model inside River's pipelines, metrics and evaluation.

River decides whether a model may be scored by a metric, or put at the end of a
``river.compose.Pipeline``, by checking that it is a ``river.base.Regressor`` or
``river.base.Classifier``. The adapters below are those, and forward every call to the
wrapped model, which already speaks River's one-row protocol (``learn_one`` / ``predict_one``
/ ``predict_proba_one`` with dict inputs). This module imports River, so it is imported only
when :func:`to_river` is first called: River is not a dependency of driftwood.

Use :func:`reference.to_river` (or :func:`fast.to_river`, the same function)::

    from river import evaluate, metrics, preprocessing
    model = preprocessing.StandardScaler() | fast.to_river(fast.ABACOCClassifier())
    evaluate.progressive_val_score(dataset, model, metrics.Accuracy())

Notes
-----
River registers classes as they appear. ABACOC does too; the dynamic-tree and SGT
classifiers need their class set before the first ``learn_one`` (multinomial leaves and the
softmax committee have one parameter block per class), so pass ``classes=[...]`` to their
constructors when they are used one row at a time.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from river import base

__all__ = ["RiverClassifier", "RiverRegressor", "wrap"]


class _Forwarding:
    """What both adapters share: the wrapped model, ``learn_one``, ``clone`` and the repr."""

    model: Any

    def learn_one(self, x: dict[Hashable, float], y: Any) -> None:
        """Learn one example (River's protocol): ``model.learn_one(x, y)``."""
        self.model.learn_one(x, y)

    def clone(self, new_params: dict[str, Any] | None = None,
              include_attributes: bool = False) -> Any:
        """A new adapter around an unfitted copy of the model (River's ``clone``)."""
        if include_attributes:
            import copy

            return copy.deepcopy(self)
        params = dict(new_params or {})
        model = params.pop("model", None)
        return type(self)(model if model is not None else self.model.clone())  # type: ignore[call-arg]

    def _get_params(self) -> dict[str, Any]:
        return {"model": self.model}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.model!r})"


class RiverRegressor(_Forwarding, base.Regressor):
    """A driftwood regressor as a ``river.base.Regressor``.

    Parameters
    ----------
    model : driftwood regressor
        ``DynamicTreeRegressor``, ``SGTRegressor`` or ``SGT`` of either backend.
    """

    def __init__(self, model: Any) -> None:
        self.model = model

    def predict_one(self, x: dict[Hashable, float]) -> float:
        """The model's prediction at ``x``."""
        return float(self.model.predict_one(x))


class RiverClassifier(_Forwarding, base.Classifier):
    """A driftwood classifier as a ``river.base.Classifier``.

    Parameters
    ----------
    model : driftwood classifier
        ``DynamicTreeClassifier``, ``SGTClassifier`` or ``ABACOCClassifier`` of either backend.
    """

    def __init__(self, model: Any) -> None:
        self.model = model

    @property
    def _multiclass(self) -> bool:
        # randomized BASE (ABACOC) is binary; every other driftwood classifier is multiclass
        params = getattr(self.model, "_params", None)
        binary = (getattr(params, "variant", None) in ("base", "base_adj")
                  and getattr(params, "mode", None) == "randomized")
        return not binary

    def predict_one(self, x: dict[Hashable, float], **kwargs: Any) -> Any:
        """The model's predicted label at ``x`` (``None`` before any label is known)."""
        return self.model.predict_one(x)

    def predict_proba_one(self, x: dict[Hashable, float], **kwargs: Any) -> dict[Any, float]:
        """The model's class probabilities at ``x``."""
        return dict(self.model.predict_proba_one(x))


def wrap(model: Any) -> Any:
    """The River adapter of ``model``: :class:`RiverClassifier` or :class:`RiverRegressor`."""
    if getattr(model, "_estimator_type", None) == "classifier":
        return RiverClassifier(model)
    if getattr(model, "_estimator_type", None) == "regressor":
        return RiverRegressor(model)
    raise TypeError(f"to_river needs a driftwood model, got {type(model).__name__}")

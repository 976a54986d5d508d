"""Labels and values of every kind, alike on every path and in both backends.

NaN labels are refused by ``fit``, ``partial_fit`` and ``learn_one`` (each NaN would be a
class of its own and the model file could not be loaded); ``score`` with weights summing to
zero raises scikit-learn's ``ValueError``; a row value no float can hold (``10**400``)
raises ``ValueError``, not ``OverflowError``.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

CLASSIFIERS = [("SGTClassifier", {}), ("DynamicTreeClassifier", {"n_particles": 4}),
               ("ABACOCClassifier", {})]
MODELS = [("SGTRegressor", {}, [1.0, 2.0]),
          ("DynamicTreeRegressor", {"n_particles": 4}, [1.0, 2.0]),
          ("ABACOCClassifier", {}, [0, 1])]


def _fitted(backend: ModuleType, name: str, kw: dict[str, Any]) -> Any:
    model = getattr(backend, name)(**kw)
    model.partial_fit([[0.1, 0.2], [0.3, 0.4], [0.5, 0.1]], [0, 1, 0])
    return model


@pytest.mark.parametrize("name, kw", CLASSIFIERS)
@pytest.mark.parametrize("nan", [float("nan"), np.float64("nan"), np.float32("nan")])
def test_nan_labels_are_refused_on_every_path(backend: ModuleType, name: str,
                                              kw: dict[str, Any], nan: Any) -> None:
    X = [[0.1, 0.2], [0.3, 0.4], [0.5, 0.1]]
    with pytest.raises(ValueError, match="NaN"):
        getattr(backend, name)(**kw).partial_fit(X, [0, 1, nan])
    with pytest.raises(ValueError, match="NaN"):
        getattr(backend, name)(**kw).fit(X, [0, 1, nan])
    with pytest.raises(ValueError, match="NaN"):
        getattr(backend, name)(**kw).partial_fit(X, [0, 1, 0], classes=[0, 1, nan])
    model = _fitted(backend, name, kw)
    before = (model.snapshot(), list(model.classes_))
    for call in (lambda: model.learn_one([0.2, 0.2], nan),
                 lambda: model.partial_fit([[0.2, 0.2]], [nan]),
                 lambda: model.partial_fit(np.array([[0.2, 0.2]]), np.array([nan]))):
        with pytest.raises(ValueError):
            call()
    assert list(model.classes_) == before[1]
    assert model.n_seen_ == 3


@pytest.mark.parametrize("name, kw, y", MODELS)
def test_score_with_weights_summing_to_zero_raises_value_error(
        backend: ModuleType, name: str, kw: dict[str, Any], y: list[Any]) -> None:
    model = getattr(backend, name)(**kw).fit([[0.1, 0.2], [0.3, 0.4]], y)
    with pytest.raises(ValueError, match="sum to zero"):
        model.score([[0.1, 0.2], [0.3, 0.4]], y, sample_weight=[0.0, 0.0])
    assert np.isfinite(model.score([[0.1, 0.2], [0.3, 0.4]], y, sample_weight=[0.0, 1.0]))


@pytest.mark.parametrize("name, kw, y", MODELS)
def test_a_value_no_float_can_hold_raises_value_error(
        backend: ModuleType, name: str, kw: dict[str, Any], y: list[Any]) -> None:
    model = getattr(backend, name)(**kw).fit([[0.1, 0.2], [0.3, 0.4]], y)
    before = model.snapshot()
    for call in (lambda: model.learn_one([10**400, 1.0], y[0]),
                 lambda: model.partial_fit([[10**400, 1.0]], [y[0]]),
                 lambda: model.predict_one([-(10**400), 1.0]),
                 lambda: model.predict([[10**400, 1.0]])):
        with pytest.raises(ValueError, match="too large for a float"):
            call()
    assert model.snapshot() == before

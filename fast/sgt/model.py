"""SGT models on the C engine: the facades of :mod:`reference.sgt.model`,
:mod:`reference.sgt.classifier` and :mod:`reference.sgt.multi_instance` with
:class:`fast.sgt.engine.CSGTEngine` plugged in."""

from __future__ import annotations

import reference.sgt.classifier as _classifier
import reference.sgt.model as _model
import reference.sgt.multi_instance as _multi_instance
from fast.sgt.engine import CSGTEngine
from fast.sgt.losses import BinaryCrossEntropy, CustomLoss, SquaredError

__all__ = ["SGTRegressor", "SGTClassifier", "SGTMultiInstanceClassifier", "SGT", "SquaredError",
           "BinaryCrossEntropy", "CustomLoss"]

CCore = CSGTEngine
"""The engine's name in pickles written before the engines existed."""


class SGTRegressor(_model.SGTRegressor):
    __doc__ = _model.SGTRegressor.__doc__
    _engine_class = CSGTEngine


class SGT(_model.SGT):
    __doc__ = _model.SGT.__doc__
    _engine_class = CSGTEngine


class SGTClassifier(_classifier.SGTClassifier):
    __doc__ = _classifier.SGTClassifier.__doc__
    _engine_class = CSGTEngine


class SGTMultiInstanceClassifier(_multi_instance.SGTMultiInstanceClassifier):
    __doc__ = _multi_instance.SGTMultiInstanceClassifier.__doc__
    _engine_class = CSGTEngine

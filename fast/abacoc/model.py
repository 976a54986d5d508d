"""``fast.ABACOCClassifier``: the class of :mod:`reference.abacoc.model` on the C engine
(:class:`fast.abacoc.engine.CABACOCEngine`)."""

from __future__ import annotations

import reference.abacoc.model as _model
from fast.abacoc.engine import CABACOCEngine

__all__ = ["ABACOCClassifier"]


class ABACOCClassifier(_model.ABACOCClassifier):
    __doc__ = _model.ABACOCClassifier.__doc__
    _engine_class = CABACOCEngine

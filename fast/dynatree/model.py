"""``fast`` dynamic trees: the facades of ``reference.dynatree`` on the C engine.

Each public class is the reference facade with ``_engine_class`` set to
:class:`fast.dynatree.engine.CDynamicTreeEngine` (all model mathematics in C,
``csrc/dynatree/*.c``); validation, labels, the public methods and their documentation are the
reference's, written once.
"""

from __future__ import annotations

from fast.dynatree.engine import CDynamicTreeEngine
from fast.dynatree.engine import _RowBuffers as _RowBuffers  # pickles before 2026-11 name it here
from reference.dynatree import classifier as _classifier
from reference.dynatree import model as _regressor

__all__ = ["DynamicTreeClassifier", "DynamicTreeRegressor"]


class DynamicTreeRegressor(_regressor.DynamicTreeRegressor):
    __doc__ = _regressor.DynamicTreeRegressor.__doc__
    _engine_class = CDynamicTreeEngine


class DynamicTreeClassifier(_classifier.DynamicTreeClassifier):
    __doc__ = _classifier.DynamicTreeClassifier.__doc__
    _engine_class = CDynamicTreeEngine

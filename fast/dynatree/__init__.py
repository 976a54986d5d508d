"""Dynamic trees with particle learning, C engine (same API as ``reference.dynatree``)."""

from fast.dynatree.model import DynamicTreeClassifier, DynamicTreeRegressor

__all__ = ["DynamicTreeClassifier", "DynamicTreeRegressor"]

"""Dynamic trees with particle learning [AG13; TGP11] (``dynamic_trees.md``)."""

from reference.dynatree.model import DynamicTreeClassifier, DynamicTreeRegressor

__all__ = ["DynamicTreeClassifier", "DynamicTreeRegressor"]

"""Dynamic trees with particle learning [AG13; TGP11] ([DT-SPEC §0])."""

from reference.dynatree.model import DynamicTreeClassifier, DynamicTreeRegressor

__all__ = ["DynamicTreeClassifier", "DynamicTreeRegressor"]

"""Dynamic trees with particle learning [AG13; TGP11] ([DT-SPEC §0])."""

from reference.dynatree.classifier import DynamicTreeClassifier
from reference.dynatree.model import DynamicTreeRegressor

__all__ = ["DynamicTreeClassifier", "DynamicTreeRegressor"]

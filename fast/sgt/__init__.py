"""Stochastic gradient trees [GPF19] on the C engine; same public names as ``reference.sgt``.

The built-in loss classes compute their derivatives in C (and a model given either
backend's built-in loss runs it entirely in C); any other loss is called from Python.
"""

import reference.sgt as _reference_sgt
from fast.sgt.losses import BinaryCrossEntropy as BinaryCrossEntropy
from fast.sgt.losses import CustomLoss as CustomLoss
from fast.sgt.losses import PseudoHuber as PseudoHuber
from fast.sgt.losses import SquaredError as SquaredError
from fast.sgt.model import SGT as SGT
from fast.sgt.model import SGTClassifier as SGTClassifier
from fast.sgt.model import SGTMultiInstanceClassifier as SGTMultiInstanceClassifier
from fast.sgt.model import SGTRegressor as SGTRegressor

__all__ = list(_reference_sgt.__all__)
"""The same public names as ``reference.sgt``."""

"""Stochastic gradient trees [GPF19] on the C engine; same public names as ``reference.sgt``.

The built-in loss classes compute their derivatives in C (and a model given either
backend's built-in loss runs it entirely in C); any other loss is called from Python.
"""

from fast.sgt.losses import BinaryCrossEntropy, CustomLoss, PseudoHuber, SquaredError
from fast.sgt.model import SGT, SGTClassifier, SGTMultiInstanceClassifier, SGTRegressor

__all__ = [
    "SGTRegressor",
    "SGTClassifier",
    "SGTMultiInstanceClassifier",
    "SGT",
    "SquaredError",
    "BinaryCrossEntropy",
    "PseudoHuber",
    "CustomLoss",
]

"""driftwood ``fast``: the C backend (cffi), same public API as ``reference``.

Swap backends by changing one import::

    from reference import SGTRegressor      # readable Python
    from fast import SGTRegressor           # the same model in C
"""

from fast.abacoc import ABACOCClassifier
from fast.dynatree import DynamicTreeClassifier, DynamicTreeRegressor
from fast.estimator import to_river
from fast.persist import load
from fast.rng import Rng
from fast.sgt import (
    SGT,
    BinaryCrossEntropy,
    CustomLoss,
    PseudoHuber,
    SGTClassifier,
    SGTMultiInstanceClassifier,
    SGTRegressor,
    SquaredError,
)
from reference.state import StateFormatError

__all__ = [
    "Rng",
    "DynamicTreeRegressor",
    "DynamicTreeClassifier",
    "SGTRegressor",
    "SGTClassifier",
    "SGTMultiInstanceClassifier",
    "SGT",
    "SquaredError",
    "BinaryCrossEntropy",
    "PseudoHuber",
    "CustomLoss",
    "ABACOCClassifier",
    "to_river",
    "load",
    "StateFormatError",
]
backend = "fast"

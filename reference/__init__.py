"""driftwood ``reference``: the readable pure-Python backend (the specification).

Every model here follows its paper equation by equation; ``fast`` runs the same
algorithms in C with the same public API and bit-identical results.
"""

from reference._version import __version__ as __version__
from reference.abacoc import ABACOCClassifier
from reference.dynatree import DynamicTreeClassifier, DynamicTreeRegressor
from reference.estimator import to_river
from reference.persist import load
from reference.rng import Rng
from reference.sgt import (
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
backend = "reference"

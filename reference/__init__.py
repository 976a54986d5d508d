"""driftwood ``reference``: the readable pure-Python backend (the specification).

Every model here follows its paper equation by equation; ``fast`` runs the same
algorithms in C with the same public API and bit-identical results.
"""

from reference.abacoc import ABACOCClassifier
from reference.rng import Rng

__all__ = [
    "Rng",
    "ABACOCClassifier",
]
backend = "reference"

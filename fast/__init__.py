"""driftwood ``fast``: the C backend (cffi), same public API as ``reference``.

Swap backends by changing one import::

    from reference import ABACOCClassifier      # readable Python
    from fast import ABACOCClassifier           # the same model in C
"""

from fast.abacoc import ABACOCClassifier
from fast.rng import Rng

__all__ = [
    "Rng",
    "ABACOCClassifier",
]
backend = "fast"

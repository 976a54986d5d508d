"""driftwood ``fast``: the C backend (cffi), same public API as ``reference``.

Swap backends by changing one import::

    from reference import SGTRegressor      # readable Python
    from fast import SGTRegressor           # the same model in C
"""

import reference as _reference
from fast.abacoc import ABACOCClassifier as ABACOCClassifier
from fast.dynatree import DynamicTreeClassifier as DynamicTreeClassifier
from fast.dynatree import DynamicTreeRegressor as DynamicTreeRegressor
from fast.estimator import to_river as to_river
from fast.persist import load as load
from fast.rng import Rng as Rng
from fast.sgt import SGT as SGT
from fast.sgt import BinaryCrossEntropy as BinaryCrossEntropy
from fast.sgt import CustomLoss as CustomLoss
from fast.sgt import PseudoHuber as PseudoHuber
from fast.sgt import SGTClassifier as SGTClassifier
from fast.sgt import SGTMultiInstanceClassifier as SGTMultiInstanceClassifier
from fast.sgt import SGTRegressor as SGTRegressor
from fast.sgt import SquaredError as SquaredError
from reference.state import StateFormatError as StateFormatError

__all__ = list(_reference.__all__)
"""The same public names as ``reference`` (every one imported above, explicitly re-exported)."""
backend = "fast"
__version__ = _reference.__version__
"""The distribution's version (one source: ``reference/_version.py``)."""

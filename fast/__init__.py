"""driftwood ``fast``: the C backend (cffi), same public API as ``reference``.

Swap backends by changing one import::

    from reference import Rng      # readable Python
    from fast import Rng           # the same generator in C
"""

from fast.rng import Rng

# -- models: one import line per model module, kept in this order --
# (dynamic trees)
# (sgt)
# (abacoc)

__all__ = [
    "Rng",
    # (dynamic trees names)
    # (sgt names)
    # (abacoc names)
]
backend = "fast"

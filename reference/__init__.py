"""driftwood ``reference``: the readable pure-Python backend (the specification).

Every model here follows its paper equation by equation; ``fast`` runs the same
algorithms in C with the same public API and bit-identical results.
"""

from reference.rng import Rng

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
backend = "reference"

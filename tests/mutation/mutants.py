"""All mutants: single-formula changes applied to the Python *and* its C twin at once.

Lockstep cannot see a mutant that changes both backends alike; each mutant names the
oracle test that computes the formula by another route and must fail on it. The mutants
live one module per family; :class:`~tests.mutation.mutant.Mutant` documents the format.
"""

from __future__ import annotations

from tests.mutation.mutant import Mutant
from tests.mutation.mutants_abacoc import ABACOC_MUTANTS
from tests.mutation.mutants_dynatree import DYNATREE_MUTANTS
from tests.mutation.mutants_rules import RULE_MUTANTS
from tests.mutation.mutants_sgt import SGT_MUTANTS

MUTANTS: list[Mutant] = [*SGT_MUTANTS, *DYNATREE_MUTANTS, *ABACOC_MUTANTS, *RULE_MUTANTS]

__all__ = ["MUTANTS", "Mutant"]

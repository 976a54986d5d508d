"""Exercises on the project's random generator (tutorial 1, [DET-SPEC §1]).

Five functions of :mod:`reference.rng`, each checked by its two routes: on randomized
64-bit words with the edge cases (zero, all ones, the top bit, words whose low bits matter)
and plugged into :class:`reference.rng.Rng` inside a small reference
``DynamicTreeRegressor``, whose every split and resampling draws from the generator, run
beside the ``fast`` model whose generator is the C twin. A wrong generator shows as a
divergence at the first draw it changes (usually ``snapshot.rng_state`` at step 0).

* ``rng-splitmix64``: one splitmix64 step [SLF14], Eqs. ``eq-splitmix-counter`` and
  ``eq-splitmix-mix`` of the tutorial;
* ``rng-seed-state``: the four state words of a seed;
* ``rng-xoshiro-step``: one xoshiro256** output and state update [BV21];
* ``rng-uniform``: the double uniform on [0, 1) from the 53 high bits;
* ``rng-below``: an integer below ``n`` by bitmask rejection, and how many outputs it
  consumed.

Every mistake here is a slip students make with 64-bit words in Python (a missing
``& MASK``, a signed shift, the scrambler on the updated word, dividing by 2**64, a
modulo); the mutation harness carries no generator mutants, so ``Mistake.mutant`` is empty.

References
----------
[BV21] D. Blackman and S. Vigna, "Scrambled linear pseudorandom number generators",
ACM Trans. Math. Softw. 47(4), 2021.
[SLF14] G. Steele, D. Lea and C. Flood, "Fast splittable pseudorandom number generators",
OOPSLA 2014.
"""

from __future__ import annotations

from reference.exercises.catalog import Exercise, load_family
from reference.exercises.determinism._shared import STREAM

__all__ = ['EXERCISES', 'ORDER', 'STREAM']

ORDER = (
    "rng_splitmix64",
    "rng_seed_state",
    "rng_xoshiro_step",
    "rng_uniform",
    "rng_below",
)
"""The exercise folders in course order (every folder here must be listed)."""

EXERCISES: tuple[Exercise, ...] = load_family(__name__, ORDER)
"""The exercises, in the order of :data:`ORDER`."""

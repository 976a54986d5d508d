"""Exercises on ABACOC [DOC15]: nearest ball, radius law, centre update, FIX draw, vote.

Each exercise asks for one rule of :mod:`reference.abacoc` with plain values in its
signature (lists of coordinates, counts, a ``below`` draw); the
:class:`~reference.exercises.catalog.Plug` adapters read the ball records and the cover
state for it, so a short seeded stream can run the student's rule inside the reference
model beside the ``fast`` model (which runs every rule in C).

The floating-point operations are prescribed by the specification ([ABACOC-SPEC §11]:
squared distances summed left to right, ``c + (x - c)/u``, ``R * pow(m, -1/(2+d))``), so
every exercise is checked exactly.
"""

from __future__ import annotations

from reference.exercises.abacoc.ab_fix_deletion.exercise import Below
from reference.exercises.catalog import Exercise, load_family

__all__ = ['EXERCISES', 'ORDER', 'Below']

ORDER = (
    "ab_nearest_ball",
    "ab_randomized_vote",
    "ab_centre_update",
    "ab_radius_law",
    "ab_fix_deletion",
)
"""The exercise folders in course order (every folder here must be listed)."""

EXERCISES: tuple[Exercise, ...] = load_family(__name__, ORDER)
"""The exercises, in the order of :data:`ORDER`."""

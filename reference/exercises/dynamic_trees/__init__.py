"""Exercises on dynamic trees with particle learning [TGP11; AG11; AG13].

One exercise per key equation of ``tutorials/02_dynamic_trees.md`` and
``tutorials/05_data_retirement.md``: the tree prior (split and leaf terms), the constant
leaf's evidence and predictive, the class leaf's evidence and predictive, the move
probabilities, residual resampling, the pooled summary of a leaf with retired data,
retiring a point into the prior, a grown child's share of it, forgetting (constant, linear
and class leaves), and the two retirement statistics (a leaf's ALC and entropy). Each
reference answer is a thin adapter around the function of :mod:`reference.dynatree` that
the model calls, and each plug puts the student's function in that function's place (the
``fast`` model, in C, is untouched), so that a short seeded stream shows the first step
where the student's model departs.

The originals are kept in the private dict ``_REAL``, taken at import: while a plug is in
place the module attribute (``leaf_models.regression_log_evidence``) *is* the plug, so a
plug's fallback for the leaf kinds its exercise does not cover must call the original
through ``_REAL``, not through the module.
"""

from __future__ import annotations

from reference.exercises.catalog import Exercise, load_family

__all__ = ['EXERCISES', 'ORDER']

ORDER = (
    "dt_split_prob",
    "dt_leaf_prob",
    "dt_constant_evidence",
    "dt_constant_predictive",
    "dt_class_evidence",
    "dt_class_probability",
    "dt_move_probabilities",
    "dt_residual_resample",
    "dt_retired_summary",
    "dt_retire_point",
    "dt_retired_share",
    "dt_forgetting",
    "dt_forgetting_linear",
    "dt_forgetting_class",
    "dt_leaf_alc",
    "dt_leaf_entropy",
)
"""The exercise folders in course order (every folder here must be listed)."""

EXERCISES: tuple[Exercise, ...] = load_family(__name__, ORDER)
"""The exercises, in the order of :data:`ORDER`."""

"""Exercises on stochastic gradient trees [GPF19]: losses, Newton step, split test, bins.

Each exercise asks for one formula of :mod:`reference.sgt` with plain values in its
signature; the :class:`~reference.exercises.catalog.Plug` adapters put the student's
function inside the reference model (a method of a loss, a function of ``grad_hess``,
``splits`` or ``quantizer``) so a short seeded stream can run it beside the ``fast`` model,
which never calls Python for these formulas.

The exercises, in course order: the gradient and Hessian of the squared error, of the
binary cross-entropy, of the softmax committee [GPF19, Eq. 19-29] and of the pseudo-Huber
loss ([SGT-SPEC §3.5]); Welford's update of a leaf's statistics and Chan's merge of two
cells ([SGT-SPEC §4.2], [SGT-SPEC §4.3]); the Newton leaf value [GPF19, Eq. 13]; the mean
and variance of the per-instance loss change [GPF19, Eq. 17-18]; the split gain, pooled over a
candidate's children ([SGT-SPEC §7.3]); the split test's p-value [GPF19, Eq. 16]; the
equal-width bin index ([SGT-SPEC §5.6]).

Tolerances: exact where the specification fixes the operations (every loss, the cell
updates, the Newton step, the bin); relative 1e-12 for the loss-change moments, the pooled
split gain and the p-value, where a student may reasonably group the terms differently.
"""

from __future__ import annotations

from reference.exercises.catalog import Exercise, load_family

__all__ = ['EXERCISES', 'ORDER']

ORDER = (
    "sgt_squared_error_gradient",
    "sgt_logistic_gradient",
    "sgt_softmax_gradients",
    "sgt_pseudo_huber_gradient",
    "sgt_leaf_statistics",
    "sgt_merge_cells",
    "sgt_newton_step",
    "sgt_loss_change_moments",
    "sgt_split_gain",
    "sgt_split_test",
    "sgt_bin_index",
)
"""The exercise folders in course order (every folder here must be listed)."""

EXERCISES: tuple[Exercise, ...] = load_family(__name__, ORDER)
"""The exercises, in the order of :data:`ORDER`."""

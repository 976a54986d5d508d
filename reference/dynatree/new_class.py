"""A label never seen before joins the class leaves ([DT-SPEC §12.2]).

A class leaf of a model with C classes has the Dirichlet(1/C, ..., 1/C) prior of
[DT-SPEC §3.3]: a symmetric prior of total mass 1. When class C (the new one, appended to
``classes_``) joins, every leaf of every particle extends its counts with 0 (and its
retired counts with 0.0), the prior becomes Dirichlet(1/(C+1), ..., 1/(C+1)) (the same
rule: symmetric, total mass 1, the new class's share 1/(C+1)), and each leaf's cached log
evidence is recomputed with it ([DT-SPEC §3.3]).

What this does to the particles: nothing is resampled and no past weight is revisited.
The particles are equally weighted after every particle-learning step ([DT-SPEC §5]), so
the grown cloud is the same set of trees; from the next row on, the resampling weights are
the predictive probabilities of the C + 1-class leaves,
``(c_k + g_k + 1/(C+1)) / (n + nu + 1)``, under which the new class has the mass
``1/(C+1) / (n + nu + 1)`` in every leaf, and each old class slightly less prior mass
than before. The stored rows, their class indices and the random state are unchanged.
This is not the model that would have known C + 1 classes from the start (its past
weights used the other prior); ``classes=`` given to the constructor keeps the paper's
fixed-C model exactly.

The grown model is built through the model's own state (``_fitted_state`` / ``snapshot``
then ``_load_fitted``, the path of a model file), so it is the same in both backends.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from reference.dynatree.leaf_models import class_log_evidence
from reference.dynatree.leaf_stats import CLASS, LeafConfig, stats_from_list

__all__ = ["grown_leaf", "with_new_class"]


def grown_leaf(record: list[Any], n_classes: int) -> list[Any]:
    """Leaf record ``[depth, -1, points, stats, ell]`` of a ``n_classes``-class leaf, with
    the new class appended: counts and retired counts extended by zero, ``ell`` recomputed
    under the Dirichlet(1/(C+1)) prior."""
    depth, marker, points, stats, _ = record
    c = n_classes
    nu = stats[0]
    counts = list(stats[1:1 + c]) + [0]
    gcounts = list(stats[1 + c:1 + 2 * c]) + [0.0]
    values = [nu, *counts, *gcounts]
    cfg = LeafConfig(kind=CLASS, p=0, augmented=False, delta=0, n_classes=c + 1,
                     nu0=0.0, s20=0.0)
    st = stats_from_list(values, len(points), 0.0, cfg)
    return [depth, marker, list(points), values, class_log_evidence(st, cfg)]


def with_new_class(model: Any, label: Hashable) -> Any:
    """A new DynamicTreeClassifier of ``model``'s backend: ``model`` with ``label``
    appended to its classes as stated in the module doc (``model`` is not changed)."""
    classes = list(model.classes_)
    if len(classes) < 2:
        raise ValueError("a class joins a model of at least two classes")
    if label in classes:
        raise ValueError(f"label {label!r} is already a class")
    with model._lock:
        params = dict(model.get_params())
        fitted = dict(model._fitted_state())
        snapshot = dict(model.snapshot())
    grown = classes + [label]
    params["classes"] = grown
    fitted["classes"] = list(grown)
    if snapshot.get("particles") is not None:
        snapshot["particles"] = [
            [grown_leaf(rec, len(classes)) if len(rec) == 5 and rec[1] == -1 else list(rec)
             for rec in particle]
            for particle in snapshot["particles"]]
    new = type(model)(**params)
    new._load_fitted(fitted, snapshot)
    return new

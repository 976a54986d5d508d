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

Two ways to the same model
--------------------------
:func:`with_new_class` builds the grown model through the model's own state
(``_fitted_state`` / ``snapshot``, each leaf record grown by :func:`grown_leaf`, then
``_load_fitted``: the path of a model file), so it is the same in both backends. It is the
specification of growth, and it costs a whole snapshot and reload: time proportional to
leaves x classes plus the rows, per label (quadratic total time for labels arriving one
by one).

:func:`add_class` grows the model in place instead, with the same result bit for bit
(the same leaves, counts, retired counts, log evidences, random state and subsequent
predictions; ``tests/dynatree/test_class_growth_in_place.py``): every distinct leaf
statistics record appends a zero count and a zero retired count (a list append; in C,
``dt_model_add_class`` in ``csrc/dynatree/new_class.c``, whose per-leaf class slots have a
capacity that doubles when full, so the leaves' blocks are copied O(log C) times over C
labels) and recomputes its log evidence with :func:`grown_evidence`. The evidence is
recomputed term by term as :func:`~reference.dynatree.leaf_models.class_log_evidence`
sums it (``-lgamma(n + nu + 1) + sum_k lgamma(c_k + g_k + 1/C) - C lgamma(1/C)``, in class
order), because that is the double every other path (a fresh leaf, the loader, the other
backend) computes; changing that sum to skip the classes a leaf has never seen would
change the last bits of every classifier's evidences and of the stored model files, so it
is kept: the recomputation reads each of the leaf's C + 1 slots once (in C the zero slots
cost a table lookup, no log-gamma). A new label therefore costs one pass over the leaves'
statistics, proportional to the model's size (leaves x classes, as large as the model's
own statistics), without any snapshot, check or reload, and amortised constant work per
slot.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import replace
from typing import Any

from reference.dynatree.leaf_models import class_log_evidence
from reference.dynatree.leaf_stats import CLASS, LeafConfig, LeafStats, stats_from_list
from reference.dynatree.tree import Node, preorder

__all__ = ["add_class", "drop_class", "grow_leaves", "grown_evidence", "grown_leaf",
           "shrink_leaves", "with_new_class"]


def grown_evidence(st: LeafStats, cfg: LeafConfig) -> float:
    """``ell`` of the leaf statistics ``st`` under the prior of ``cfg`` (its
    ``n_classes`` classes): the Dirichlet-multinomial evidence of [DT-SPEC §3.3], the same
    double as :func:`~reference.dynatree.leaf_models.class_log_evidence`."""
    return class_log_evidence(st, cfg)


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
    return [depth, marker, list(points), values, grown_evidence(st, cfg)]


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


def _distinct_stats(roots: list[Node]) -> tuple[list[LeafStats], list[LeafStats]]:
    """The distinct statistics records of the trees ``roots``: those held by a leaf, then
    those held by internal nodes only (kept from before a split, never read again)."""
    held: dict[int, tuple[LeafStats, bool]] = {}
    for root in roots:
        for node in preorder(root):
            known = held.get(id(node.stats))
            held[id(node.stats)] = (node.stats, node.var < 0 or (known is not None
                                                                 and known[1]))
    leaf_stats = [st for st, at_leaf in held.values() if at_leaf]
    inner = [st for st, at_leaf in held.values() if not at_leaf]
    return leaf_stats, inner


def _resize(roots: list[Node], cfg: LeafConfig, new: LeafConfig) -> LeafConfig:
    """Every distinct statistics record of ``roots`` from ``cfg.n_classes`` class slots to
    ``new.n_classes`` (one more: a zero count and a zero retired count appended; one
    fewer: the last slot dropped), each leaf's ``ell`` recomputed under ``new``'s prior.
    All or nothing: if anything raises half-way (``MemoryError``, Ctrl-C), every record
    is put back as it was before the exception propagates."""
    leaf_stats, inner = _distinct_stats(roots)
    saved = [st.log_evidence for st in leaf_stats]
    c = cfg.n_classes
    try:
        for st in inner + leaf_stats:
            if new.n_classes > c:
                st.counts.append(0)
                st.gcounts.append(0.0)
            else:
                del st.counts[c - 1:], st.gcounts[c - 1:]
        for st in leaf_stats:
            st.log_evidence = grown_evidence(st, new)
    except BaseException:
        for st in inner + leaf_stats:
            if new.n_classes > c:
                del st.counts[c:], st.gcounts[c:]
            else:                           # the slots dropped were zero (drop_class)
                if len(st.counts) < c:
                    st.counts.append(0)
                if len(st.gcounts) < c:
                    st.gcounts.append(0.0)
        for st, ell in zip(leaf_stats, saved, strict=True):
            st.log_evidence = ell
        raise
    return new


def grow_leaves(roots: list[Node], cfg: LeafConfig) -> LeafConfig:
    """Append a class to every leaf of ``roots`` in place (a zero count and a zero retired
    count, ``ell`` recomputed under the Dirichlet(1/(C+1)) prior); the grown config."""
    return _resize(roots, cfg, replace(cfg, n_classes=cfg.n_classes + 1))


def shrink_leaves(roots: list[Node], cfg: LeafConfig) -> LeafConfig:
    """Undo :func:`grow_leaves` (the last class has no count or retired count in any
    leaf): drop the last class slot, ``ell`` recomputed under the Dirichlet(1/(C-1))
    prior (the double it held before the growth); the shrunk config. ``ValueError``,
    nothing changed, if a leaf holds a count or a retired count of the last class."""
    for root in roots:
        for node in preorder(root):
            if node.var < 0 and (node.stats.counts[-1] != 0 or node.stats.gcounts[-1] != 0.0):
                raise ValueError("the last class has data: it cannot be dropped")
    return _resize(roots, cfg, replace(cfg, n_classes=cfg.n_classes - 1))


def add_class(model: Any, label: Hashable) -> bool:
    """Append ``label`` to ``model``'s classes in place, the model :func:`with_new_class`
    would build, bit for bit (the caller holds the model's lock). False, with nothing
    changed, for a model of fewer than two classes (then a new model is made with the
    two classes). A ``MemoryError`` leaves the model as it was."""
    classes = model.classes_
    if len(classes) < 2:
        return False
    if label in model._index:
        raise ValueError(f"label {label!r} is already a class")
    given = model._init_classes
    if model._d is not None:
        model._engine.add_class()           # raises MemoryError before any change
    classes.append(label)
    model._index[label] = len(classes) - 1
    if given is not None and len(given) == len(classes) - 1:
        given.append(label)                 # the classes parameter get_params reports
    else:
        model._init_classes = list(classes)
    if model._given is not None:            # the constructor arguments get_params reports
        model._given["classes"] = model._init_classes
    return True


def drop_class(model: Any) -> None:
    """Undo :func:`add_class` (the row that brought the label was refused, so the new
    class has no count anywhere): the model as it was before. ``ValueError``, nothing
    changed, if the last class has data (a row of it was learned)."""
    if len(model.classes_) < 3:
        raise ValueError("a class is dropped from a model of at least three classes")
    if model._d is not None:
        model._engine.drop_class()
    label = model.classes_.pop()
    del model._index[label]
    model._init_classes.pop()

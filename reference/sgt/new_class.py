"""A label never seen before joins the softmax committee ([SGT-SPEC §16.2]).

The committee of K classes has K - 1 trees: tree c scores class c and the last class is
pinned at the raw score 0 ([GPF19, Eq. 19]); two classes are one logistic tree scoring the
second class against the first ([GPF19, Eq. 26], the same model: σ(f) is the softmax of
``(0, f)``). A new class K joins as GPF19's one tree per class suggests, with a member
that starts at zero:

* the new class is appended to ``classes_`` and becomes the pinned class (raw score 0);
* the class that was pinned gets a tree of its own, a *fresh* tree (one leaf predicting 0,
  no statistics): its raw score stays 0, as it was; from two classes to three, that is
  class 0's tree, inserted before the logistic tree (which scores class 1);
* every other tree, the quantizer's ranges and the warm-up buffer (whose targets are class
  indices, unchanged) are kept as they are.

So at the moment a class joins, the committee's raw scores are unchanged and the new class
scores 0: its probability is ``1 / (1 + sum_c exp(f_c))`` over the old scores with the
pinned one counted as exp(0). Nothing is revisited: the old trees were trained on a softmax
without the new class. ``classes=`` given to the constructor keeps the fixed-K model.

The grown model is built through the model's own state (``_fitted_state`` / ``snapshot``
then ``_load_fitted``, the path of a model file), so it is the same in both backends.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

__all__ = ["fresh_tree", "with_new_class"]


def fresh_tree(core: dict[str, Any], kinds: list[int], model_params: dict[str, Any]) -> Any:
    """The snapshot of an SGT tree that has learned nothing, for a core in state ``core``
    (its quantizer ranges and whether they are frozen) of a model with ``model_params``."""
    from reference.sgt.model import SGTRegressor
    from reference.sgt.quantizer import Quantizer
    from reference.sgt.tree import Tree

    keep = {k: v for k, v in model_params.items() if k in SGTRegressor.__signature__.parameters}
    params = SGTRegressor(**keep)._params
    ranges = {int(k): (float(v[0]), float(v[1]))
              for k, v in (params.feature_ranges or {}).items()}
    quantizer = Quantizer(kinds, int(params.bins), ranges, params.quantization == "leaf")
    quantizer.lo = [float(v) for v in core["lo"]]
    quantizer.hi = [float(v) for v in core["hi"]]
    quantizer.seen = [int(v) for v in core["seen"]]
    quantizer.frozen = bool(core["frozen"])
    tree = Tree(quantizer, params)
    if quantizer.frozen:
        tree.seed_root()
    return tree.snapshot()


def with_new_class(model: Any, label: Hashable) -> Any:
    """A new SGTClassifier of ``model``'s backend: ``model`` with ``label`` appended to its
    classes as stated in the module doc (``model`` itself is not changed)."""
    classes = list(model.classes_)
    if len(classes) < 2:
        raise ValueError("a class joins a committee of at least two classes")
    if label in classes:
        raise ValueError(f"label {label!r} is already a class")
    with model._lock:
        params = dict(model.get_params())
        fitted = dict(model._fitted_state())
        snapshot = dict(model.snapshot())
    grown = classes + [label]
    params["classes"] = grown
    fitted["classes"] = list(grown)
    core = snapshot.get("core")
    if core is not None:
        core = dict(core)
        trees = list(core["trees"])
        tree = fresh_tree(core, list(fitted["kinds"]), params)
        if len(classes) == 2:
            trees.insert(0, tree)     # class 0's tree; the logistic tree scores class 1
        else:
            trees.append(tree)        # the formerly pinned class K - 1
        core["trees"] = trees
        snapshot["core"] = core
    new = type(model)(**params)
    new._load_fitted(fitted, snapshot)
    return new

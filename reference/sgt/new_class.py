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
That costs time proportional to the model, which grows with its classes: labels arriving
one by one would cost quadratic time. From three classes on, :func:`add_class` grows the
model in place instead, with the same result bit for bit: the new tree is appended to the
committee (``SGTCore.add_tree``, a list append; in C ``sgt_model_add_tree``, whose trees
array and per-tree buffers double when full), the label appended to ``classes_``, its
index and the ``classes`` parameter: amortised constant time per label. The step from two
classes to three changes the loss (one logistic tree to a softmax committee) and inserts
a tree before the others, so it takes the path through the state, once.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

__all__ = ["add_class", "drop_class", "fresh_tree", "with_new_class"]


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


def add_class(model: Any, label: Hashable) -> bool:
    """Append ``label`` to ``model``'s classes in place, as :func:`with_new_class` would
    (the caller holds the model's lock); False, with nothing changed, where the in-place
    step does not apply (fewer than three classes, or no tree yet): then
    :func:`with_new_class` is the way."""
    engine = getattr(model, "_engine", None)
    classes = model.classes_
    if engine is None or classes is None or len(classes) < 3:
        return False
    if label in model._class_index:
        raise ValueError(f"label {label!r} is already a class")
    engine.add_tree()
    classes.append(label)
    model._class_index[label] = len(classes) - 1
    if isinstance(model.classes, list) and len(model.classes) == len(classes) - 1:
        model.classes.append(label)
    else:
        model.classes = list(classes)
    if model._given is not None:          # the constructor arguments get_params reports
        model._given["classes"] = model.classes
    return True


def drop_class(model: Any) -> None:
    """Undo :func:`add_class` (the row that brought the label was refused)."""
    label = model.classes_.pop()
    del model._class_index[label]
    if isinstance(model.classes, list) and model.classes and model.classes[-1] == label:
        model.classes.pop()
    if model._given is not None:
        model._given["classes"] = model.classes
    model._engine.drop_tree()

"""The learning core shared by every SGT model: warm-up buffer, committee, gradients.

:class:`SGTCore` owns the quantizer, the warm-up buffer and one tree per output
(one for regression, binary classification, multi-instance learning and custom losses;
k-1 for the softmax committee). The public classes call it through
:class:`reference.sgt.engine.PythonSGTEngine`, which adds the batch loops; the ``fast``
backend plugs in the C engine instead. C twin: ``csrc/sgt/core.c``.

Learning one item ([SGT-SPEC §2], [SGT-SPEC §5.6]): during the warm-up the rows only widen
the feature ranges and are buffered; when ``warmup`` rows have been seen the ranges freeze and the
buffer is replayed in arrival order (gradients computed at replay time), unless
``warmup_trains`` is False. After that, each item is routed, its gradients computed
from the raw scores of the tree(s) as they stand, and every tree learns its (g, h).

Predicting during the warm-up ([SGT-SPEC §5.7]): there are no bins and no tree yet. With
``warmup_prediction == "newton"`` (built-in losses) each tree's raw score is one Newton
step of its root from 0 over the buffered items, Δ_c = -ḡ_c / (h̄_c + λ + ε) with the
gradients taken at raw score 0 [GPF19, Eq. 13] (:mod:`reference.sgt.warmup`); the trees
themselves are untouched, so the model after the warm-up does not depend on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reference.sgt.losses import (
    LOSS_BAG,
    LOSS_CUSTOM,
    LOSS_LOGISTIC,
    LOSS_PSEUDO_HUBER,
    LOSS_SOFTMAX,
    LOSS_SQUARED,
    BinaryCrossEntropy,
    PseudoHuber,
    SquaredError,
    bag_gradients,
    softmax_gradients,
)
from reference.sgt.params import SGTParams
from reference.sgt.quantizer import Quantizer
from reference.sgt.tree import Tree
from reference.sgt.warmup import Item, newton_step_from_zero

__all__ = ["SGTCore", "LOSS_SQUARED", "LOSS_LOGISTIC", "LOSS_SOFTMAX", "LOSS_BAG", "LOSS_CUSTOM"]



class SGTCore:
    """Quantizer + warm-up buffer + trees of one SGT model.

    Parameters
    ----------
    params : SGTParams
        Validated hyper-parameters.
    kinds : sequence of int
        Per feature: 0 numeric, K for nominal with K categories.
    loss_kind : int
        One of the ``LOSS_*`` constants.
    n_trees : int
        Trees in the committee (k-1 for softmax, else 1).
    """

    def __init__(self, params: SGTParams, kinds: Sequence[int], loss_kind: int,
                 n_trees: int) -> None:
        ranges = {int(k): (float(v[0]), float(v[1]))
                  for k, v in (params.feature_ranges or {}).items()}
        self.params = params
        self.loss_kind = loss_kind
        self.quantizer = Quantizer(kinds, int(params.bins), ranges,
                                   params.quantization == "leaf")
        self.trees = [Tree(self.quantizer, params) for _ in range(n_trees)]
        self.warm_rows = 0
        self.buffer: list[Item] = []

    def add_tree(self) -> None:
        """A class joins the softmax committee in place ([SGT-SPEC §16.2]): a fresh tree
        (one leaf predicting 0, the quantizer's current ranges, seeded when frozen) is
        appended after the others; nothing else changes (the same model as
        :func:`reference.sgt.new_class.with_new_class` builds through the state). A list
        append: amortised constant time."""
        if self.loss_kind != LOSS_SOFTMAX:
            raise ValueError("a tree joins a softmax committee (three classes or more)")
        tree = Tree(self.quantizer, self.params)
        if self.quantizer.frozen:
            tree.seed_root()
        self.trees.append(tree)

    def drop_tree(self) -> None:
        """Undo :meth:`add_tree` (the row that brought the class was refused)."""
        if self.loss_kind != LOSS_SOFTMAX or len(self.trees) <= 2:
            raise ValueError("no added tree to drop")
        self.trees.pop()

    @property
    def frozen(self) -> bool:
        """True once the bin ranges are fixed (after the warm-up, or known up front)."""
        return self.quantizer.frozen

    def raws(self, x: Sequence[float]) -> list[float]:
        """Raw score f_c(x) of every tree (the warm-up scores before the bins exist)."""
        if self.predicts_warmup_step:
            return self.warmup_raws()
        return [tree.raw(x) for tree in self.trees]

    @property
    def predicts_warmup_step(self) -> bool:
        """True while predictions are the warm-up Newton step ([SGT-SPEC §5.7])."""
        return (not self.frozen and self.params.warmup_prediction == "newton"
                and self.loss_kind != LOSS_CUSTOM)

    def warmup_raws(self) -> list[float]:
        """The warm-up prediction of every tree ([SGT-SPEC §5.7],
        :func:`reference.sgt.warmup.newton_step_from_zero`)."""
        return newton_step_from_zero(self.buffer, self.loss_kind, len(self.trees),
                                     float(self.params.lam))

    def warmup_push(self, rows: list[list[float]], target: float) -> bool:
        """Buffer one item, widen the ranges; return True when the warm-up just ended."""
        q = self.quantizer
        if self.warm_rows + len(rows) >= self.params.warmup_rows:
            # the ranges before this item and each root's, for warmup_undo (kept only until
            # the replay ends)
            roots = [(list(t.nodes[0].lo), list(t.nodes[0].hi)) for t in self.trees]
            self.ranges_before_end = (list(q.lo), list(q.hi), list(q.seen), roots)
        for row in rows:
            q.observe(row)
        self.warm_rows += len(rows)
        self.buffer.append((rows, target))
        if self.warm_rows >= self.params.warmup_rows:
            q.frozen = True
            for tree in self.trees:
                tree.seed_root()
            return True
        return False

    def take_buffer(self) -> list[Item]:
        """Remove and return the buffered warm-up items (arrival order)."""
        items = self.buffer
        self.clear_buffer()
        return items

    def buffered_items(self) -> list[Item]:
        """The buffered warm-up items (arrival order), left in the buffer."""
        return list(self.buffer)

    def clear_buffer(self) -> None:
        """Empty the warm-up buffer once its replay has succeeded."""
        self.buffer = []
        self.__dict__.pop("ranges_before_end", None)

    def warmup_undo(self, n_rows: int) -> None:
        """Undo the push of the item (``n_rows`` rows) that ended the warm-up, and whatever
        part of the replay ran: the ranges as before the push, the item out of the buffer,
        fresh trees. A replay that fails half-way (a custom loss raising) leaves the model as
        it was before the call."""
        q = self.quantizer
        q.lo, q.hi, q.seen, roots = self.__dict__.pop("ranges_before_end")
        q.frozen = False
        self.warm_rows -= n_rows
        self.buffer.pop()
        self.trees = [Tree(q, self.params) for _ in self.trees]
        if q.per_leaf:
            for tree, (lo, hi) in zip(self.trees, roots, strict=True):
                tree.nodes[0].with_ranges(lo, hi)

    def learn(self, rows: list[list[float]], target: float) -> None:
        """Learn one item with a built-in loss, handling warm-up and replay ([SGT-SPEC §5.6])."""
        if not self.frozen:
            if self.warmup_push(rows, target):
                for item_rows, item_target in self.take_buffer():
                    if self.params.warmup_trains:
                        self.train(item_rows, item_target)
            return
        self.train(rows, target)

    def train(self, rows: list[list[float]], target: float) -> None:
        """Gradients of a built-in loss at the current scores, then every tree learns."""
        if self.loss_kind == LOSS_BAG:
            tree = self.trees[0]
            raws = [tree.raw(row) for row in rows]
            grads, hess = bag_gradients(raws, target)
            for i, row in enumerate(rows):
                self.train_gh(row, [grads[i]], [hess[i]])
            return
        x = rows[0]
        raws = self.raws(x)
        if self.loss_kind == LOSS_SQUARED:
            g, h = SquaredError().gradient_hessian(target, raws[0])
            grads, hess = [g], [h]
        elif self.loss_kind == LOSS_LOGISTIC:
            g, h = BinaryCrossEntropy().gradient_hessian(target, raws[0])
            grads, hess = [g], [h]
        elif self.loss_kind == LOSS_PSEUDO_HUBER:
            g, h = PseudoHuber().gradient_hessian(target, raws[0])
            grads, hess = [g], [h]
        else:
            grads, hess = softmax_gradients(raws, int(target))
        self.train_gh(x, grads, hess)

    def train_gh(self, x: Sequence[float], grads: Sequence[float],
                 hess: Sequence[float]) -> None:
        """Tree c learns (grads[c], hess[c]) at x; bins are computed once for all trees
        (with per-leaf quantization each tree bins x at its leaf, [SGT-SPEC §5.8])."""
        if self.quantizer.per_leaf:
            for c, tree in enumerate(self.trees):
                tree.learn_row(x, grads[c], hess[c])
            return
        codes = self.quantizer.codes(x)
        for c, tree in enumerate(self.trees):
            tree.learn(codes, grads[c], hess[c])

    def snapshot(self) -> dict[str, object]:
        """Plain-data state: ranges, warm-up buffer and trees."""
        q = self.quantizer
        return {
            "warm_rows": self.warm_rows,
            "frozen": int(q.frozen),
            "lo": list(q.lo),
            "hi": list(q.hi),
            "seen": list(q.seen),
            "buffer": [{"rows": [list(r) for r in rows], "target": float(target)}
                       for rows, target in self.buffer],
            "trees": [tree.snapshot() for tree in self.trees],
        }

    def restore(self, snap: dict[str, Any]) -> None:
        """Inverse of :meth:`snapshot` on a new core (``snap`` checked by
        :func:`reference.sgt.state_check.check_core`)."""
        q = self.quantizer
        self.warm_rows = int(snap["warm_rows"])
        q.frozen = bool(snap["frozen"])
        q.lo = [float(v) for v in snap["lo"]]
        q.hi = [float(v) for v in snap["hi"]]
        q.seen = [int(v) for v in snap["seen"]]
        self.buffer = [([[float(v) for v in row] for row in item["rows"]], float(item["target"]))
                       for item in snap["buffer"]]
        for tree, tree_snap in zip(self.trees, snap["trees"], strict=True):
            tree.restore(tree_snap)

    @property
    def n_nodes(self) -> int:
        """Nodes over all trees."""
        total = 0
        for tree in self.trees:
            total += len(tree.nodes)
        return total

    @property
    def depth(self) -> int:
        """Largest depth over all trees (root = 0)."""
        deepest = 0
        for tree in self.trees:
            deepest = max(deepest, tree.depth)
        return deepest

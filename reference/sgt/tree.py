"""One stochastic gradient tree: routing, leaf statistics, split attempts [GPF19, §3].

The tree is an arena of nodes in creation order (node 0 is the root; a split appends
its children contiguously). A leaf holds its value, its statistics cells (layout of
:class:`~reference.sgt.quantizer.Quantizer`) and the mask of nominal features used on
its path. :meth:`Tree.learn` adds one (g, h) pair to the leaf that a row reaches
(routed by its bins/categories) and runs a split attempt every ``grace_period``
instances ([SGT-SPEC §2], [SGT-SPEC §10]); :meth:`Tree.apply` performs the winning update
([SGT-SPEC §9]).

Per-leaf quantization ([SGT-SPEC §5.8], ``quantizer.per_leaf``): every node holds its own
bin range per numeric feature (``lo``, ``hi``), a leaf also the range of the values added
since its statistics were last emptied (``obs_lo``, ``obs_hi``, valid while its count is
positive). A value update re-bins the leaf to its observed range; a split gives each child
the parent's observed ranges, the split feature's cut at the chosen bin's upper edge; an
internal node keeps the range it routes with.
C twin: ``csrc/sgt/tree.c``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reference.sgt.grad_hess import GradHessStats
from reference.sgt.params import SGTParams
from reference.sgt.quantizer import Quantizer, bin_index, split_edge
from reference.sgt.splits import Candidate, best_candidate, passes_test

__all__ = ["Node", "Tree"]


class Node:
    """A tree node: a leaf (``feature == -1``) or a split on ``feature``.

    ``threshold`` is the bin k of a numeric split (left iff bin <= k) or -1 for a
    nominal multiway split; children are ``first_child .. first_child + n_children - 1``.
    With per-leaf quantization ``lo``, ``hi`` are the node's bin ranges and ``obs_lo``,
    ``obs_hi`` a leaf's observed ranges (one entry per feature, 0.0 for nominal ones);
    otherwise they are empty.
    """

    __slots__ = ("feature", "threshold", "first_child", "n_children", "depth", "value",
                 "cells", "used", "lo", "hi", "obs_lo", "obs_hi")

    def __init__(self, depth: int, value: float, n_cells: int, used: list[int]) -> None:
        self.feature = -1
        self.threshold = -1
        self.first_child = -1
        self.n_children = 0
        self.depth = depth
        self.value = value
        self.cells = [GradHessStats() for _ in range(n_cells)]
        self.used = used
        self.lo: list[float] = []
        self.hi: list[float] = []
        self.obs_lo: list[float] = []
        self.obs_hi: list[float] = []

    def with_ranges(self, lo: list[float], hi: list[float]) -> Node:
        """Give the node bin ranges (per-leaf quantization) and empty observed ranges."""
        self.lo = lo
        self.hi = hi
        self.obs_lo = [0.0] * len(lo)
        self.obs_hi = [0.0] * len(lo)
        return self


class Tree:
    """A single SGT with initial prediction 0 ([SGT-SPEC §10]).

    Parameters
    ----------
    quantizer : Quantizer
        The shared feature binning and cell layout.
    params : SGTParams
        Validated hyper-parameters.
    """

    def __init__(self, quantizer: Quantizer, params: SGTParams) -> None:
        self.quantizer = quantizer
        self.params = params
        self.nodes = [Node(0, 0.0, quantizer.n_cells, [0] * len(quantizer.kinds))]
        if quantizer.per_leaf:
            self.nodes[0].with_ranges(list(quantizer.lo), list(quantizer.hi))
        self.n_splits = 0
        self.n_updates = 0
        self.depth = 0

    def seed_root(self) -> None:
        """Per-leaf quantization: the root (still empty) takes the global ranges, when the
        warm-up has just fixed them ([SGT-SPEC §5.8])."""
        q = self.quantizer
        if q.per_leaf:
            self.nodes[0].with_ranges(list(q.lo), list(q.hi))

    def node_code(self, node: Node, x: Sequence[float], a: int) -> int:
        """Bin (numeric) or category (nominal) of feature a of x at ``node``: the node's own
        range with per-leaf quantization, else the global one."""
        q = self.quantizer
        if q.per_leaf and not q.kinds[a]:
            return bin_index(x[a], node.lo[a], node.hi[a], q.bins)
        return q.code(x, a)

    def leaf_of(self, x: Sequence[float]) -> int:
        """Index of the leaf x is routed to; bins are computed only where needed."""
        i = 0
        node = self.nodes[0]
        while node.feature >= 0:
            code = self.node_code(node, x, node.feature)
            if node.threshold >= 0:
                i = node.first_child if code <= node.threshold else node.first_child + 1
            else:
                i = node.first_child + code
            node = self.nodes[i]
        return i

    def leaf_of_codes(self, codes: Sequence[int]) -> int:
        """Index of the leaf for a row whose bins/categories are ``codes`` (same leaf as
        :meth:`leaf_of`, with the bins computed once for all features)."""
        i = 0
        node = self.nodes[0]
        while node.feature >= 0:
            code = codes[node.feature]
            if node.threshold >= 0:
                i = node.first_child if code <= node.threshold else node.first_child + 1
            else:
                i = node.first_child + code
            node = self.nodes[i]
        return i

    def raw(self, x: Sequence[float]) -> float:
        """The raw score f(x): the value of x's leaf."""
        return self.nodes[self.leaf_of(x)].value

    def learn(self, codes: Sequence[int], g: float, h: float) -> None:
        """Add (g, h) to the row's leaf, its total and one cell per feature ([SGT-SPEC §2] step
        3-4)."""
        leaf = self.nodes[self.leaf_of_codes(codes)]
        leaf.cells[0].add(g, h)
        offsets = self.quantizer.offsets
        for a, code in enumerate(codes):
            leaf.cells[offsets[a] + code].add(g, h)
        if leaf.cells[0].n % self.params.grace_period == 0:
            self.attempt(leaf)

    def learn_row(self, x: Sequence[float], g: float, h: float) -> None:
        """Per-leaf quantization: add (g, h) at x to its leaf, binned with the leaf's own
        ranges, after widening the leaf's observed ranges ([SGT-SPEC §5.8])."""
        leaf = self.nodes[self.leaf_of(x)]
        kinds = self.quantizer.kinds
        first = leaf.cells[0].n == 0
        for a, kind in enumerate(kinds):
            if kind:
                continue
            v = x[a]
            if first:
                leaf.obs_lo[a] = v
                leaf.obs_hi[a] = v
            elif v < leaf.obs_lo[a]:
                leaf.obs_lo[a] = v
            elif v > leaf.obs_hi[a]:
                leaf.obs_hi[a] = v
        leaf.cells[0].add(g, h)
        offsets = self.quantizer.offsets
        for a in range(len(kinds)):
            leaf.cells[offsets[a] + self.node_code(leaf, x, a)].add(g, h)
        if leaf.cells[0].n % self.params.grace_period == 0:
            self.attempt(leaf)

    def attempt(self, leaf: Node) -> None:
        """Score the candidates, test the best and apply it if it passes ([SGT-SPEC §8])."""
        p = self.params
        may_split = p.max_depth is None or leaf.depth < p.max_depth
        best = best_candidate(leaf.cells, self.quantizer.kinds, self.quantizer.offsets,
                              leaf.used, may_split, float(p.lam), float(p.gamma))
        if passes_test(best, leaf.cells[0].n, float(p.delta), p.test == "one-sided"):
            self.apply(leaf, best)

    def apply(self, leaf: Node, best: Candidate) -> None:
        """Null candidate: v += Δ_0 and reset; split: children with v + Δ_j ([SGT-SPEC §9])."""
        n_cells = self.quantizer.n_cells
        if best.feature < 0:
            leaf.value = leaf.value + best.deltas[0]
            if self.quantizer.per_leaf:   # re-bin to the values seen since the last reset
                leaf.lo = list(leaf.obs_lo)
                leaf.hi = list(leaf.obs_hi)
            leaf.cells = [GradHessStats() for _ in range(n_cells)]
            self.n_updates += 1
            return
        used = list(leaf.used)
        if best.threshold < 0:
            used[best.feature] = 1
        leaf.feature = best.feature
        leaf.threshold = best.threshold
        leaf.first_child = len(self.nodes)
        leaf.n_children = len(best.deltas)
        for j, delta in enumerate(best.deltas):
            child = Node(leaf.depth + 1, leaf.value + delta, n_cells, list(used))
            if self.quantizer.per_leaf:
                child.with_ranges(*self.child_ranges(leaf, best, j))
            self.nodes.append(child)
        leaf.cells = []
        leaf.used = []
        self.n_splits += 1
        if leaf.depth + 1 > self.depth:
            self.depth = leaf.depth + 1

    def child_ranges(self, leaf: Node, best: Candidate, j: int) -> tuple[list[float],
                                                                         list[float]]:
        """Bin ranges of child j of a split of ``leaf`` ([SGT-SPEC §5.8]): the leaf's
        observed ranges; on a numeric split feature the left child's upper end and the
        right child's lower end become the chosen bin's upper edge when that narrows them."""
        lo = list(leaf.obs_lo)
        hi = list(leaf.obs_hi)
        a = best.feature
        if best.threshold >= 0:
            edge = split_edge(leaf.lo[a], leaf.hi[a], best.threshold, self.quantizer.bins)
            if j == 0 and edge < hi[a]:
                hi[a] = edge
            if j == 1 and edge > lo[a]:
                lo[a] = edge
        return lo, hi

    def snapshot(self) -> dict[str, object]:
        """Plain-data state: counters and nodes in creation order (with per-leaf
        quantization each node also has ``range``: lo, hi, obs_lo, obs_hi concatenated)."""
        nodes: list[dict[str, object]] = []
        for node in self.nodes:
            nodes.append({
                "feature": node.feature,
                "threshold": node.threshold,
                "first_child": node.first_child,
                "n_children": node.n_children,
                "depth": node.depth,
                "value": node.value,
                "used": list(node.used),
                "cells": [cell.as_list() for cell in node.cells],
            })
            if self.quantizer.per_leaf:
                nodes[-1]["range"] = node.lo + node.hi + node.obs_lo + node.obs_hi
        return {"n_splits": self.n_splits, "n_updates": self.n_updates, "depth": self.depth,
                "nodes": nodes}

    def restore(self, snap: dict[str, Any]) -> None:
        """Inverse of :meth:`snapshot` (``snap`` checked by :mod:`reference.sgt.state_check`)."""
        nodes = []
        for rec in snap["nodes"]:
            node = Node(int(rec["depth"]), float(rec["value"]), 0, [int(u) for u in rec["used"]])
            node.feature = int(rec["feature"])
            node.threshold = int(rec["threshold"])
            node.first_child = int(rec["first_child"])
            node.n_children = int(rec["n_children"])
            node.cells = [GradHessStats.from_list(cell) for cell in rec["cells"]]
            if self.quantizer.per_leaf:
                d = len(self.quantizer.kinds)
                r = [float(v) for v in rec["range"]]
                node.lo, node.hi = r[:d], r[d:2 * d]
                node.obs_lo, node.obs_hi = r[2 * d:3 * d], r[3 * d:]
            nodes.append(node)
        self.nodes = nodes
        self.n_splits = int(snap["n_splits"])
        self.n_updates = int(snap["n_updates"])
        self.depth = int(snap["depth"])

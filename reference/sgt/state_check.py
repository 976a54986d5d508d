"""Checks of a restored SGT state before anything is built from it (both backends).

A state comes from a pickle or a data-only model file (:mod:`reference.persist`); either
may be corrupted or tampered with. :func:`check_core` walks the plain-data core snapshot
(schema of :meth:`reference.sgt.core.SGTCore.snapshot`) against the model's parameters
and raises :class:`~reference.state.StateFormatError` naming the first bad field. What
it guarantees, so that the C core can trust the state:

- every tree is an arena whose node 0 is the root and whose other nodes are each the
  child of exactly one earlier node (children contiguous from ``first_child``), so the
  routing of any row ends in a leaf of the arena;
- a numeric split has 2 children and a bin threshold in ``[0, bins-1]``; a nominal split
  has one child per category, ``threshold = -1``, and uses a feature not used above it;
  a leaf's ``used`` mask is exactly the nominal features split on along its path;
- depths are the parents' plus one, within ``max_depth``; the tree counters match;
- a leaf holds one cell per layout slot, ``[n, Σg, Σh, M_g, M_h, C]`` with ``n`` a count
  and numbers (sums may overflow to infinity on extreme but legal inputs, and an
  overflowed moment then becomes NaN (``inf - inf``), so values and sums need not be
  finite), and every feature's cells add up to the leaf total count;
- with per-leaf quantization every node has ``range``, 4 d numbers (its bin ranges and
  observed ranges; a split edge may overflow, so they need not be finite; any value bins
  safely, a reversed or NaN range sending every value to bin 0);
- every counter (cell counts, ``n_updates``, ``warm_rows``, rows seen) is at most
  :data:`~reference.state.COUNTER_MAX` (2**53), so the C ``int64_t`` counters cannot
  overflow and convert exactly to ``double`` where the statistics divide by them;
- the quantizer ranges are finite, ordered where seen, and equal to the given ranges;
- warm-up rows have the model's width, nominal values are categories, targets suit the
  loss (squared-error targets of magnitude at most ``GRADIENT_BOUND`` = 1e70, the bound
  learning enforces); a frozen model buffers nothing.

A tree whose nodes are columns (:mod:`reference.sgt.columns`, model files of format 2
and the fast backend's pickles) is checked alike: the node structure by the same walk
over its (few) nodes, the cells of all leaves at once, vectorised with numpy.

No C twin: the check runs in Python before a state reaches C.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from reference.sgt.columns import column_arrays, columns_to_nodes, is_columns
from reference.sgt.core import LOSS_BAG, LOSS_LOGISTIC, LOSS_SOFTMAX
from reference.sgt.losses import LOSS_SQUARED
from reference.sgt.params import SGTParams
from reference.sgt.splits import GRADIENT_BOUND
from reference.state import (
    COUNTER_MAX,
    as_counter,
    as_dict,
    as_float,
    as_int,
    as_list,
    fail,
)

__all__ = ["check_core"]

CORE_KEYS = ("warm_rows", "frozen", "lo", "hi", "seen", "buffer", "trees")
TREE_KEYS = ("n_splits", "n_updates", "depth", "nodes")
NODE_KEYS = ("feature", "threshold", "first_child", "n_children", "depth", "value", "used",
             "cells")


def _check_row(row: Any, where: str, kinds: Sequence[int]) -> None:
    values = as_list(row, where, len(kinds))
    for a, kind in enumerate(kinds):
        v = as_float(values[a], f"{where}[{a}]")
        if kind and not (v == int(v) and 0 <= v < kind):
            raise fail(f"{where}[{a}]", f"nominal feature {a} takes categories 0..{kind - 1}, "
                       f"found {v}")


def _check_target(value: Any, where: str, loss_kind: int, n_classes: int) -> None:
    target = as_float(value, where)
    if loss_kind == LOSS_SQUARED and abs(target) > GRADIENT_BOUND:
        # the bound learning enforces on squared-error targets ([SGT-SPEC], splits.py)
        raise fail(where, f"a squared-error target has magnitude at most "
                   f"{GRADIENT_BOUND:.0e}, found {target!r}")
    if loss_kind in (LOSS_LOGISTIC, LOSS_BAG) and target not in (0.0, 1.0):
        raise fail(where, f"a binary target is 0 or 1, found {target}")
    if loss_kind == LOSS_SOFTMAX and not (target == int(target) and 0 <= target < n_classes):
        raise fail(where, f"a class index is in 0..{n_classes - 1}, found {target}")


def _check_tree(tree: Any, where: str, params: SGTParams, kinds: Sequence[int],
                offsets: Sequence[int], n_cells: int) -> None:
    as_dict(tree, where, TREE_KEYS)
    d = len(kinds)
    per_leaf = params.quantization == "leaf"
    cols = None
    if is_columns(tree["nodes"]):
        cols = column_arrays(tree["nodes"], f"{where}.nodes", d, n_cells, per_leaf)
        nodes = columns_to_nodes(cols, per_leaf, cells=False)
    else:
        nodes = as_list(tree["nodes"], f"{where}.nodes")
    n = len(nodes)
    if n == 0:
        raise fail(f"{where}.nodes", "a tree has at least its root")
    parent = [-1] * n
    path_used: list[list[int]] = [[0] * d for _ in range(n)]
    depth_of = [0] * n
    splits = 0
    deepest = 0
    for i, node in enumerate(nodes):
        at = f"{where}.nodes[{i}]"
        as_dict(node, at, NODE_KEYS + ("range",) if per_leaf else NODE_KEYS)
        if per_leaf and cols is None:
            for k, v in enumerate(as_list(node["range"], f"{at}.range", 4 * d)):
                as_float(v, f"{at}.range[{k}]", finite=False)
        if i > 0 and parent[i] < 0:
            raise fail(at, "no earlier node has it as a child")
        depth = as_int(node["depth"], f"{at}.depth", 0)
        if depth != depth_of[i]:
            raise fail(f"{at}.depth", f"expected {depth_of[i]} (its parent's depth + 1), "
                       f"found {depth}")
        deepest = max(deepest, depth)
        as_float(node["value"], f"{at}.value", finite=False)
        feature = as_int(node["feature"], f"{at}.feature", -1, d - 1)
        threshold = as_int(node["threshold"], f"{at}.threshold", -1, int(params.bins) - 1)
        first = as_int(node["first_child"], f"{at}.first_child", -1, n - 1)
        count = as_int(node["n_children"], f"{at}.n_children", 0, n)
        if feature < 0:
            if threshold != -1 or first != -1 or count != 0:
                raise fail(at, "a leaf has threshold -1, first_child -1 and no children")
            if params.max_depth is not None and depth > int(params.max_depth):
                raise fail(f"{at}.depth", f"{depth} is deeper than max_depth")
            used = as_list(node["used"], f"{at}.used", d)
            if [as_int(u, f"{at}.used", 0, 1) for u in used] != path_used[i]:
                raise fail(f"{at}.used", f"expected the nominal features split on above it, "
                           f"{path_used[i]}")
            if cols is not None:
                continue          # the cells: below, on the columns
            cells = as_list(node["cells"], f"{at}.cells", n_cells)
            counts = []
            for c, cell in enumerate(cells):
                cw = f"{at}.cells[{c}]"
                values = as_list(cell, cw, 6)
                counts.append(as_counter(values[0], f"{cw}[0]"))
                for k in range(1, 6):  # sums may overflow on extreme but legal inputs
                    as_float(values[k], f"{cw}[{k}]", finite=False)
            for a, kind in enumerate(kinds):
                width = kind if kind else int(params.bins)
                total = sum(counts[offsets[a]:offsets[a] + width])
                if total != counts[0]:
                    raise fail(f"{at}.cells", f"feature {a}'s cells count {total} rows, the "
                               f"leaf total counts {counts[0]}")
            continue
        splits += 1
        if node["used"] != [] or node["cells"] != []:
            raise fail(at, "an internal node has no used mask and no cells")
        kind = kinds[feature]
        if kind == 0:
            if threshold < 0 or count != 2:
                raise fail(at, "a numeric split has a bin threshold and 2 children")
        else:
            if threshold != -1 or count != kind:
                raise fail(at, f"a nominal split on feature {feature} has threshold -1 and "
                           f"{kind} children")
            if path_used[i][feature]:
                raise fail(f"{at}.feature", f"nominal feature {feature} is split on twice "
                           "on one path")
        if first <= i or first + count > n:
            raise fail(f"{at}.first_child", f"children {first}..{first + count - 1} must come "
                       f"after node {i} and inside the tree of {n} nodes")
        below = list(path_used[i])
        if kind:
            below[feature] = 1
        for child in range(first, first + count):
            if parent[child] >= 0:
                raise fail(f"{at}.first_child", f"node {child} already has parent "
                           f"{parent[child]}")
            parent[child] = i
            depth_of[child] = depth + 1
            path_used[child] = below
    if cols is not None:
        _check_cell_columns(cols, f"{where}.nodes", params, kinds, offsets)
    if as_int(tree["n_splits"], f"{where}.n_splits", 0) != splits:
        raise fail(f"{where}.n_splits", f"the tree has {splits} internal nodes")
    as_counter(tree["n_updates"], f"{where}.n_updates")
    if as_int(tree["depth"], f"{where}.depth", 0) != deepest:
        raise fail(f"{where}.depth", f"the deepest node has depth {deepest}")


def _check_cell_columns(cols: dict[str, np.ndarray], where: str, params: SGTParams,
                        kinds: Sequence[int], offsets: Sequence[int]) -> None:
    """The cell checks of the leaves of a tree in columns, all leaves at once: counts
    in ``0..COUNTER_MAX`` and every feature's cells adding up to the leaf total (the
    sums may be any number, as in the list form)."""
    counts = cols["counts"]
    if counts.size and (int(counts.min()) < 0 or int(counts.max()) > COUNTER_MAX):
        raise fail(f"{where}.counts", f"cell counts are in 0..{COUNTER_MAX}")
    for a, kind in enumerate(kinds):
        width = kind if kind else int(params.bins)
        block = counts[:, offsets[a]:offsets[a] + width]
        # width * 2**53 < 2**63 keeps int64 sums exact; wider blocks sum as Python ints
        total = block.sum(axis=1) if width < 1024 else np.array(
            [sum(row) for row in block.tolist()], dtype=object)
        bad = np.flatnonzero(total != counts[:, 0])
        if bad.size:
            raise fail(f"{where}.counts", f"leaf {int(bad[0])}: feature {a}'s cells count "
                       f"{total[bad[0]]} rows, the leaf total counts {counts[bad[0], 0]}")


def check_core(core: Any, params: SGTParams, kinds: Sequence[int], loss_kind: int,
               n_trees: int, n_classes: int, where: str = "snapshot.core") -> None:
    """Raise :class:`~reference.state.StateFormatError` unless ``core`` is a valid core
    snapshot for a model with these parameters, feature kinds and loss."""
    as_dict(core, where, CORE_KEYS)
    d = len(kinds)
    offsets = []
    offset = 1
    for kind in kinds:
        offsets.append(offset)
        offset += kind if kind else int(params.bins)
    n_cells = offset
    fixed = {int(k): (float(v[0]), float(v[1])) for k, v in (params.feature_ranges or {}).items()}
    warm_rows = as_counter(core["warm_rows"], f"{where}.warm_rows")
    frozen = as_int(core["frozen"], f"{where}.frozen", 0, 1)
    lo = as_list(core["lo"], f"{where}.lo", d)
    hi = as_list(core["hi"], f"{where}.hi", d)
    seen = as_list(core["seen"], f"{where}.seen", d)
    for a in range(d):
        low = as_float(lo[a], f"{where}.lo[{a}]")
        high = as_float(hi[a], f"{where}.hi[{a}]")
        flag = as_int(seen[a], f"{where}.seen[{a}]", 0, 1)
        if a in fixed and (low, high) != fixed[a]:
            raise fail(f"{where}.lo[{a}]", f"feature {a} has the given range {fixed[a]}")
        if (flag or a in fixed) and not low <= high:
            raise fail(f"{where}.lo[{a}]", f"range [{low}, {high}] is reversed")
    if not frozen and all(kinds[a] or a in fixed for a in range(d)):
        raise fail(f"{where}.frozen", "every range is known up front, so the model is frozen")
    buffer = as_list(core["buffer"], f"{where}.buffer")
    if frozen and buffer:
        raise fail(f"{where}.buffer", "a frozen model buffers no warm-up rows")
    buffered = 0
    for j, item in enumerate(buffer):
        at = f"{where}.buffer[{j}]"
        as_dict(item, at, ("rows", "target"))
        rows = as_list(item["rows"], f"{at}.rows")
        if not rows or (loss_kind != LOSS_BAG and len(rows) != 1):
            raise fail(f"{at}.rows", "an item holds one row (a bag: at least one)")
        for r, row in enumerate(rows):
            _check_row(row, f"{at}.rows[{r}]", kinds)
        _check_target(item["target"], f"{at}.target", loss_kind, n_classes)
        buffered += len(rows)
    if not frozen:
        if buffered != warm_rows:
            raise fail(f"{where}.warm_rows", f"the buffer holds {buffered} rows")
        if warm_rows >= params.warmup_rows:
            raise fail(f"{where}.warm_rows", "a warm-up that long has ended (frozen = 1)")
    trees = as_list(core["trees"], f"{where}.trees", n_trees)
    for c, tree in enumerate(trees):
        _check_tree(tree, f"{where}.trees[{c}]", params, kinds, offsets, n_cells)

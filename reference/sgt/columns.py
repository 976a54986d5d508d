"""The nodes of an SGT tree as columns: flat typed arrays for model files and pickles
(both backends).

A tree's ``nodes`` in a core snapshot is a list of node dicts (keys ``feature``,
``threshold``, ``first_child``, ``n_children``, ``depth``, ``value``, ``used``, ``cells``
and, with per-leaf quantization, ``range``; see :mod:`reference.sgt.state_check`). The
same content as columns, ``N`` nodes of which ``L`` leaves (``feature < 0``), ``C``
cells per leaf and ``d`` features:

=============== ======= ============ ===================================================
key             dtype   shape        content
=============== ======= ============ ===================================================
``feature``     int64   (N,)         split feature, ``-1`` for a leaf
``threshold``   int64   (N,)         bin threshold (``-1``: nominal split or leaf)
``first_child`` int64   (N,)         first child (``-1`` for a leaf)
``n_children``  int64   (N,)         number of children
``depth``       int64   (N,)         depth (root 0)
``value``       float64 (N,)         leaf value (0 for an internal node)
``used``        int64   (L, d)       each leaf's mask of nominal features used above it
``counts``      int64   (L, C)       each leaf's cell counts ``n``
``sums``        float64 (L, 5 C)     each leaf's ``Σg, Σh, M_g, M_h, C`` per cell
``range``       float64 (N, 4 d)     each node's ranges (per-leaf quantization only)
=============== ======= ============ ===================================================

An internal node has no ``used`` and no cells (``[]`` in the list form). In a file a
tree's ``nodes`` is ``{"__nodes__": {key: array, ...}}`` (:mod:`reference.container`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from reference.state import fail

__all__ = ["NODES_TAG", "NotColumns", "is_columns", "nodes_to_columns", "column_arrays",
           "columns_to_nodes", "core_to_columns", "core_to_nodes", "CELLS_IN_COLUMNS"]

NODES_TAG = "__nodes__"
INT_KEYS = ("feature", "threshold", "first_child", "n_children", "depth")
CELLS_IN_COLUMNS = "checked on the columns"
"""What :func:`columns_to_nodes` puts in a leaf's ``cells`` (and every node's ``range``)
when the checks read them from the columns, vectorised."""


class NotColumns(ValueError):
    """Nodes that columns cannot hold exactly (not the shape of a written state)."""


def is_columns(value: Any) -> bool:
    """Whether a tree's ``nodes`` is the tagged columns form."""
    return isinstance(value, dict) and len(value) == 1 and NODES_TAG in value


def _int(v: Any) -> bool:
    return type(v) is int and -2**63 <= v < 2**63


def _num(v: Any) -> bool:
    return type(v) is float or (type(v) is int and abs(v) < 2**1000)


def nodes_to_columns(nodes: Any, d: int, per_leaf: bool) -> dict[str, np.ndarray]:
    """The columns of a tree's ``nodes`` (as ``snapshot()`` writes them); raises
    :class:`NotColumns` for nodes columns cannot hold exactly (only a tampered state has
    them)."""
    if not isinstance(nodes, list):
        raise NotColumns("nodes are a list")
    ints: dict[str, list[int]] = {k: [] for k in INT_KEYS}
    value: list[float] = []
    used: list[list[int]] = []
    counts: list[list[int]] = []
    sums: list[list[float]] = []
    ranges: list[list[float]] = []
    width = None
    keys = {"feature", "threshold", "first_child", "n_children", "depth", "value", "used",
            "cells"} | ({"range"} if per_leaf else set())
    for node in nodes:
        if not isinstance(node, dict) or set(node) != keys or not all(
                _int(node[k]) for k in INT_KEYS) or not _num(node["value"]):
            raise NotColumns("a node of the written shape")
        for k in INT_KEYS:
            ints[k].append(node[k])
        value.append(float(node["value"]))
        if per_leaf:
            if not isinstance(node["range"], list) or len(node["range"]) != 4 * d or not all(
                    _num(v) for v in node["range"]):
                raise NotColumns("a range of 4 d numbers")
            ranges.append([float(v) for v in node["range"]])
        if node["feature"] >= 0:
            if node["used"] != [] or node["cells"] != []:
                raise NotColumns("an internal node has no used mask and no cells")
            continue
        cells = node["cells"]
        if not isinstance(node["used"], list) or len(node["used"]) != d or not all(
                _int(u) for u in node["used"]) or not isinstance(cells, list):
            raise NotColumns("a leaf's used mask")
        width = len(cells) if width is None else width
        if len(cells) != width or not all(
                isinstance(c, list) and len(c) == 6 and _int(c[0]) and all(
                    _num(v) for v in c[1:]) for c in cells):
            raise NotColumns("cells [n, five numbers], as many in every leaf")
        used.append(node["used"])
        counts.append([c[0] for c in cells])
        sums.append([float(v) for c in cells for v in c[1:]])
    n_cells = width or 0
    out: dict[str, np.ndarray] = {k: np.array(v, dtype=np.int64) for k, v in ints.items()}
    out["value"] = np.array(value, dtype=np.float64)
    out["used"] = np.array(used, dtype=np.int64).reshape(len(used), d)
    out["counts"] = np.array(counts, dtype=np.int64).reshape(len(counts), n_cells)
    out["sums"] = np.array(sums, dtype=np.float64).reshape(len(sums), 5 * n_cells)
    if per_leaf:
        out["range"] = np.array(ranges, dtype=np.float64).reshape(len(ranges), 4 * d)
    return out


def column_arrays(value: Any, where: str, d: int, n_cells: int,
                  per_leaf: bool) -> dict[str, np.ndarray]:
    """The columns of a tagged ``{"__nodes__": {...}}`` value, checked for keys, dtypes
    and shapes (``d`` features, ``n_cells`` cells per leaf); ``StateFormatError``
    otherwise."""
    cols = value[NODES_TAG] if is_columns(value) else None
    keys = INT_KEYS + ("value", "used", "counts", "sums") + (("range",) if per_leaf else ())
    if not isinstance(cols, dict) or set(cols) != set(keys):
        raise fail(where, f"expected the columns {list(keys)}")
    for key in keys:
        arr = cols[key]
        floats = key in ("value", "sums", "range")
        two = key in ("used", "counts", "sums", "range")
        if not isinstance(arr, np.ndarray) or arr.ndim != (2 if two else 1) or (
                arr.dtype != np.float64 if floats else arr.dtype.kind not in "iu"):
            raise fail(f"{where}.{key}", "expected an array of " + (
                "float64" if floats else "integers") + (" with two axes" if two else ""))
    n = cols["feature"].shape[0]
    n_leaves = int(np.count_nonzero(cols["feature"] < 0))
    shapes: dict[str, tuple[int, ...]] = {k: (n,) for k in INT_KEYS + ("value",)}
    shapes.update(used=(n_leaves, d), counts=(n_leaves, n_cells),
                  sums=(n_leaves, 5 * n_cells))
    if per_leaf:
        shapes["range"] = (n, 4 * d)
    for key, shape in shapes.items():
        if cols[key].shape != shape:
            raise fail(f"{where}.{key}", f"expected shape {shape}, found {cols[key].shape}")
    return {k: np.asarray(v, dtype=np.int64) if k in INT_KEYS + ("used", "counts") else v
            for k, v in cols.items()}


def columns_to_nodes(cols: dict[str, np.ndarray], per_leaf: bool,
                     cells: bool = True) -> list[dict[str, Any]]:
    """The node dicts of checked columns (:func:`column_arrays`): with each leaf's cells
    as ``snapshot()`` writes them if ``cells``, else :data:`CELLS_IN_COLUMNS` in their
    place (and in every ``range``), for the checks of the node structure."""
    ints = {k: cols[k].tolist() for k in INT_KEYS}
    value = cols["value"].tolist()
    used = cols["used"].tolist()
    n_cells = cols["counts"].shape[1]
    counts = cols["counts"].tolist() if cells else []
    sums = cols["sums"].tolist() if cells else []
    ranges = cols["range"].tolist() if per_leaf and cells else []
    out: list[dict[str, Any]] = []
    leaf = 0
    for i in range(len(value)):
        node: dict[str, Any] = {k: ints[k][i] for k in INT_KEYS}
        node["value"] = value[i]
        if ints["feature"][i] < 0:
            node["used"] = used[leaf]
            node["cells"] = [[counts[leaf][c], *sums[leaf][5 * c:5 * c + 5]]
                             for c in range(n_cells)] if cells else CELLS_IN_COLUMNS
            leaf += 1
        else:
            node["used"] = []
            node["cells"] = []
        if per_leaf:
            node["range"] = ranges[i] if cells else CELLS_IN_COLUMNS
        out.append(node)
    return out


def core_to_columns(core: dict[str, Any], d: int, per_leaf: bool) -> dict[str, Any]:
    """A core snapshot (list form) with every tree's nodes as tagged columns."""
    trees = [{**tree, "nodes": {NODES_TAG: nodes_to_columns(tree["nodes"], d, per_leaf)}}
             for tree in core["trees"]]
    return {**core, "trees": trees}


def core_to_nodes(core: dict[str, Any], d: int, n_cells: int,
                  per_leaf: bool) -> dict[str, Any]:
    """A checked core snapshot with every tree's tagged columns as node dicts (for an
    engine that reads the list form)."""
    trees = []
    for c, tree in enumerate(core["trees"]):
        nodes = tree["nodes"]
        if is_columns(nodes):
            cols = column_arrays(nodes, f"snapshot.core.trees[{c}].nodes", d, n_cells,
                                 per_leaf)
            nodes = columns_to_nodes(cols, per_leaf)
        trees.append({**tree, "nodes": nodes})
    return {**core, "trees": trees}

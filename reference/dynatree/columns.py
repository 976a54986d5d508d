"""The particles of a dynamic tree as columns: flat typed arrays for model files, pickles
and copies (both backends).

A snapshot's ``particles`` is a list of particles, each a list of preorder records
``[depth, var, value]`` (a split) or ``[depth, -1, points, stats, ell]`` (a leaf; see
:mod:`reference.dynatree.state_check`). The same content as columns, one array each:

========== ========= ================ ==============================================
key        dtype     shape            content
========== ========= ================ ==============================================
``sizes``  int32     (P,)             records of each particle, in particle order
``depth``  int32     (N,)             every record's depth, particles one after another
``var``    int32     (N,)             split variable, ``-1`` for a leaf
``value``  float64   (N,)             split value (``0.0`` for a leaf)
``npoints`` int32    (L,)             points of each leaf, leaves in record order
``points`` int32     (M,)             every leaf's points, one leaf after another
``stats``  float64   (L, k)           each leaf's statistics (``LeafStats.as_list``;
                                      a classifier's class counts as exact doubles)
``ell``    float64   (L,)             each leaf's log evidence
========== ========= ================ ==============================================

In a file the snapshot's ``particles`` is ``{"__records__": {key: array, ...}}``
(:mod:`reference.container`). :func:`records_to_columns` and :func:`columns_to_records`
convert; :func:`column_arrays` checks the columns' keys, types and shapes (the first
thing done with columns from a file or a pickle), and
:func:`reference.dynatree.state_check.check_engine_columns` everything else, with the
same outcome as the checks of the records.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from reference.state import COUNTER_MAX, fail

__all__ = ["COLUMN_KEYS", "RECORDS_TAG", "NotColumns", "records_to_columns",
           "columns_to_records", "column_arrays", "is_columns"]

COLUMN_KEYS = ("sizes", "depth", "var", "value", "npoints", "points", "stats", "ell")
RECORDS_TAG = "__records__"
INT_KEYS = ("sizes", "depth", "var", "npoints", "points")


class NotColumns(ValueError):
    """Records that columns cannot hold exactly (not the shape of a written state)."""


def is_columns(value: Any) -> bool:
    """Whether a snapshot's ``particles`` is the tagged columns form."""
    return isinstance(value, dict) and len(value) == 1 and RECORDS_TAG in value


def _int(v: Any) -> bool:
    return type(v) is int and -2**31 <= v < 2**31


def _num(v: Any) -> bool:
    return type(v) is float or (type(v) is int and abs(v) < 2**1000)


def records_to_columns(particles: list[Any], classifier: bool) -> dict[str, np.ndarray]:
    """The columns of ``particles`` (records as written by ``snapshot()``); raises
    :class:`NotColumns` for records that columns cannot hold exactly (a record of the
    wrong length or type, statistics of unequal lengths, a class count that is not an
    integer): such records only come from a tampered state."""
    sizes: list[int] = []
    depth: list[int] = []
    var: list[int] = []
    value: list[float] = []
    npoints: list[int] = []
    points: list[int] = []
    stats: list[list[Any]] = []
    ell: list[float] = []
    for tree in particles:
        if not isinstance(tree, list):
            raise NotColumns("a particle is a list of records")
        sizes.append(len(tree))
        for rec in tree:
            if not isinstance(rec, list) or len(rec) not in (3, 5) or not _int(rec[0]) \
                    or not _int(rec[1]):
                raise NotColumns("a record is [depth, var, value] or a leaf record")
            depth.append(rec[0])
            var.append(rec[1])
            if len(rec) == 3:
                if rec[1] < 0 or not _num(rec[2]):
                    raise NotColumns("a split has a variable and a number")
                value.append(float(rec[2]))
                continue
            if rec[1] != -1 or not isinstance(rec[2], list) or not isinstance(rec[3], list) \
                    or not all(_int(p) for p in rec[2]) or not _num(rec[4]):
                raise NotColumns("a leaf is [depth, -1, points, stats, ell]")
            value.append(0.0)
            npoints.append(len(rec[2]))
            points += rec[2]
            stats.append(rec[3])
            ell.append(float(rec[4]))
    width = len(stats[0]) if stats else 0
    counts = range(1, 1 + (width - 1) // 2) if classifier else range(0)
    for row in stats:
        if len(row) != width or not all(_num(v) for v in row) or any(
                type(row[j]) is not int or not 0 <= row[j] <= COUNTER_MAX for j in counts):
            raise NotColumns("leaf statistics of one length, class counts as integers")
    return {"sizes": np.array(sizes, dtype=np.int32), "depth": np.array(depth, dtype=np.int32),
            "var": np.array(var, dtype=np.int32), "value": np.array(value, dtype=np.float64),
            "npoints": np.array(npoints, dtype=np.int32),
            "points": np.array(points, dtype=np.int32),
            "stats": np.array(stats, dtype=np.float64).reshape(len(stats), width),
            "ell": np.array(ell, dtype=np.float64)}


def column_arrays(value: Any, where: str) -> dict[str, np.ndarray]:
    """The columns of a tagged ``{"__records__": {...}}`` value, checked for keys, dtypes
    (integer columns converted to int32 after a range check), shapes and the totals that
    tie them together (records, leaves and points); ``StateFormatError`` otherwise."""
    cols = value[RECORDS_TAG] if is_columns(value) else None
    if not isinstance(cols, dict) or set(cols) != set(COLUMN_KEYS):
        raise fail(where, f"expected the columns {list(COLUMN_KEYS)}")
    out: dict[str, np.ndarray] = {}
    for key in COLUMN_KEYS:
        arr = cols[key]
        at = f"{where}.{key}"
        if not isinstance(arr, np.ndarray) or arr.ndim != (2 if key == "stats" else 1):
            raise fail(at, "expected an array of " + ("two axes" if key == "stats" else "one"))
        if key in INT_KEYS:
            if arr.dtype.kind not in "iu":
                raise fail(at, f"expected integers, found {arr.dtype}")
            if arr.size and (int(arr.min()) < -2**31 or int(arr.max()) >= 2**31):
                raise fail(at, "values outside the 32-bit range")
            arr = np.require(arr, dtype=np.int32, requirements=("C", "A"))
        else:
            if arr.dtype != np.float64:
                raise fail(at, f"expected float64, found {arr.dtype}")
            arr = np.require(arr, requirements=("C", "A"))   # C reads them: contiguous, aligned
        out[key] = arr
    n_nodes = out["depth"].shape[0]
    if out["var"].shape[0] != n_nodes or out["value"].shape[0] != n_nodes:
        raise fail(where, "depth, var and value hold one entry per record")
    if int(out["sizes"].astype(np.int64).sum()) != n_nodes or (out["sizes"] < 0).any():
        raise fail(f"{where}.sizes", f"the particles' sizes add up to {n_nodes} records")
    n_leaves = int(np.count_nonzero(out["var"] == -1))
    if out["npoints"].shape[0] != n_leaves or out["ell"].shape[0] != n_leaves or \
            out["stats"].shape[0] != n_leaves:
        raise fail(where, f"npoints, stats and ell hold one entry per leaf ({n_leaves})")
    if (out["npoints"] < 0).any() or \
            int(out["npoints"].astype(np.int64).sum()) != out["points"].shape[0]:
        raise fail(f"{where}.npoints", "the leaves' point counts add up to the points")
    return out


def columns_to_records(cols: dict[str, np.ndarray], classifier: bool) -> list[Any]:
    """The records of checked columns (:func:`column_arrays`), as ``snapshot()`` writes
    them (a classifier's class counts as integers when they are whole numbers)."""
    depth, var = cols["depth"].tolist(), cols["var"].tolist()
    value, ell = cols["value"].tolist(), cols["ell"].tolist()
    points = cols["points"].tolist()
    stats = cols["stats"].tolist()
    width = cols["stats"].shape[1]
    counts = range(1, 1 + (width - 1) // 2) if classifier else range(0)
    for row in stats:
        for j in counts:
            if row[j] == row[j] and abs(row[j]) <= COUNTER_MAX and row[j] == int(row[j]):
                row[j] = int(row[j])
    out: list[Any] = []
    a = leaf = pt = 0
    npoints = cols["npoints"].tolist()
    for size in cols["sizes"].tolist():
        tree: list[Any] = []
        for _ in range(size):
            if var[a] != -1:
                tree.append([depth[a], var[a], value[a]])
            else:
                cnt = npoints[leaf]
                tree.append([depth[a], -1, points[pt:pt + cnt], stats[leaf], ell[leaf]])
                pt += cnt
                leaf += 1
            a += 1
        out.append(tree)
    return out

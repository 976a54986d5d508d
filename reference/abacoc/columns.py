"""The balls of an ABACOC cover as columns: flat typed arrays for model files (both
backends).

A snapshot's ``balls`` is a list of ball dicts ``{"id", "center", "counts", "u", "R",
"eps", "m"}`` (see :mod:`reference.abacoc.state_check`). The same content as columns,
``B`` balls, ``d`` features and ``C`` classes: ``id``, ``u``, ``m`` (int64, ``(B,)``),
``R``, ``eps`` (float64, ``(B,)``), ``center`` (float64, ``(B, d)``) and ``counts``
(int64, ``(B, C)``). In a file the snapshot's ``balls`` is ``{"__balls__": {key: array,
...}}`` (:mod:`reference.container`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from reference.state import fail

__all__ = ["BALLS_TAG", "NotColumns", "is_columns", "balls_to_columns", "column_arrays",
           "columns_to_balls"]

BALLS_TAG = "__balls__"
INT_KEYS = ("id", "u", "m")
FLOAT_KEYS = ("R", "eps")
BALL_KEYS = ("id", "center", "counts", "u", "R", "eps", "m")


class NotColumns(ValueError):
    """Balls that columns cannot hold exactly (not the shape of a written state)."""


def is_columns(value: Any) -> bool:
    """Whether a snapshot's ``balls`` is the tagged columns form."""
    return isinstance(value, dict) and len(value) == 1 and BALLS_TAG in value


def _int(v: Any) -> bool:
    return type(v) is int and -2**63 <= v < 2**63


def _num(v: Any) -> bool:
    return type(v) is float or (type(v) is int and abs(v) < 2**1000)


def balls_to_columns(balls: Any, d: int, n_classes: int) -> dict[str, np.ndarray]:
    """The columns of ``balls`` (as ``snapshot()`` writes them); raises
    :class:`NotColumns` for balls columns cannot hold exactly."""
    if not isinstance(balls, list):
        raise NotColumns("balls are a list")
    for ball in balls:
        if not isinstance(ball, dict) or set(ball) != set(BALL_KEYS) or not all(
                _int(ball[k]) for k in INT_KEYS) or not all(
                _num(ball[k]) for k in FLOAT_KEYS) or not isinstance(
                ball["center"], list) or len(ball["center"]) != d or not all(
                _num(v) for v in ball["center"]) or not isinstance(
                ball["counts"], list) or len(ball["counts"]) != n_classes or not all(
                _int(v) for v in ball["counts"]):
            raise NotColumns("a ball of the written shape")
    out: dict[str, np.ndarray] = {k: np.array([b[k] for b in balls], dtype=np.int64)
                                  for k in INT_KEYS}
    out.update({k: np.array([float(b[k]) for b in balls], dtype=np.float64)
                for k in FLOAT_KEYS})
    out["center"] = np.array([[float(v) for v in b["center"]] for b in balls],
                             dtype=np.float64).reshape(len(balls), d)
    out["counts"] = np.array([b["counts"] for b in balls], dtype=np.int64).reshape(
        len(balls), n_classes)
    return out


def column_arrays(value: Any, where: str, d: int, n_classes: int) -> dict[str, np.ndarray]:
    """The columns of a tagged ``{"__balls__": {...}}`` value, checked for keys, dtypes and
    shapes; ``StateFormatError`` otherwise."""
    cols = value[BALLS_TAG] if is_columns(value) else None
    if not isinstance(cols, dict) or set(cols) != set(BALL_KEYS):
        raise fail(where, f"expected the columns {list(BALL_KEYS)}")
    n = None
    for key in BALL_KEYS:
        arr = cols[key]
        floats = key in FLOAT_KEYS + ("center",)
        two = key in ("center", "counts")
        if not isinstance(arr, np.ndarray) or arr.ndim != (2 if two else 1) or (
                arr.dtype != np.float64 if floats else arr.dtype.kind not in "iu"):
            raise fail(f"{where}.{key}", "expected an array of " + (
                "float64" if floats else "integers") + (" with two axes" if two else ""))
        n = arr.shape[0] if n is None else n
        width = d if key == "center" else n_classes if key == "counts" else None
        if arr.shape[0] != n or (width is not None and arr.shape[1] != width):
            raise fail(f"{where}.{key}", f"expected {n} rows" + (
                f" of {width}" if width is not None else ""))
    if any(cols[k].dtype.kind == "u" and cols[k].size and int(cols[k].max()) >= 2**63
           for k in INT_KEYS + ("counts",)):
        raise fail(where, "integers above 2**63 - 1")
    return {k: np.ascontiguousarray(v, dtype=np.int64 if k in INT_KEYS + ("counts",)
                                    else np.float64) for k, v in cols.items()}


def columns_to_balls(cols: dict[str, np.ndarray]) -> list[dict[str, Any]]:
    """The ball dicts of checked columns (:func:`column_arrays`)."""
    lists = {k: v.tolist() for k, v in cols.items()}
    return [{k: lists[k][s] for k in BALL_KEYS} for s in range(len(lists["id"]))]

"""Input rows: the quick path shared by the model facades of both backends.

Every model validates a row the same way in both backends ([DET-SPEC §4], "Errors"). The
general path goes through ``numpy.asarray``; for the common case of a short list of
plain floats that costs more than the C model itself, so :func:`plain_floats` recognises
that case with a Python loop and returns exactly what the numpy path would have produced.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["plain_floats"]

INT_EXACT = 2**53
"""Largest integer magnitude that converts to float64 without rounding."""


def plain_floats(values: Any) -> list[float] | None:
    """The row as Python floats if it is a non-empty list, tuple or 1-D float64 array
    of plain floats and small ints (exactly what ``numpy.asarray(values, float64)``
    would give); None for anything else, which takes the general numpy path."""
    kind = type(values)
    if kind is np.ndarray:
        if values.ndim != 1 or values.dtype != np.float64:
            return None
        values = values.tolist()
    elif kind is not list and kind is not tuple:
        return None
    if not values:
        return None
    for v in values:
        if type(v) is not float:
            break
    else:
        return list(values)
    row: list[float] = []
    append = row.append
    for v in values:
        t = type(v)
        if t is float:
            append(v)
        elif t is int and -INT_EXACT <= v <= INT_EXACT:
            append(float(v))
        else:
            return None
    return row

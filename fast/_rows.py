"""The one-row calls of the ``fast`` models: a plain row goes straight to C.

``learn_one``, ``predict_one`` and ``predict_proba_one`` are called once per row by River
users and by anyone serving predictions, so their cost is mostly the facade's. Every
``fast`` model therefore first tries a lean path:

1. :func:`c_row` recognises, without building anything per value, the rows that need no
   conversion: a list or tuple of Python floats (and ints of magnitude at most 2**53), a
   1-D float64 numpy array, or a dict whose keys are exactly the model's feature names in
   the same order. It returns something cffi passes to a ``const double *`` parameter (the
   list or tuple itself, the array's values, the dict's values), or None.
2. One C call (``*_row`` in ``csrc/``) checks the width and the values (finite; nominal
   codes for SGT) and does the work, returning a status code.
3. ``ST_OK``: done. ``ST_ENOMEM``: ``MemoryError``, the model unchanged (the C calls
   secure memory before any state changes). Anything else, and every input
   :func:`c_row` does not recognise, takes the general path of the facade, which
   validates the input as the reference does and raises the same exception with the same
   message.

So the lean path only ever handles inputs the general path accepts, with the same values,
and results stay bit-identical to the reference. The methods hold the model's lock
themselves (:func:`locks_itself`), as the general path does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from fast._ffi import lib
from reference.estimator import locks_itself

__all__ = ["ST_ENOMEM", "c_row", "locks_itself"]

INT_EXACT = 2**53
"""Largest integer magnitude that converts to float64 without rounding."""

ST_ENOMEM: int = lib.ST_ENOMEM
"""The C status of a failed allocation (the one failure the lean path raises itself)."""

_FLOAT64 = np.dtype(np.float64)

_Method = TypeVar("_Method", bound=Callable[..., Any])


def c_row(x: Any, keys: Sequence[Any] | None) -> list[Any] | tuple[Any, ...] | None:
    """``x`` ready for a C ``const double *`` argument, or None for the general path.

    Parameters
    ----------
    x : object
        The row given to a one-row call.
    keys : tuple or list or None
        The model's feature names (the first dict row's keys), None if it learned from
        sequences.

    Returns
    -------
    list or tuple or None
        The row's values, exact as float64, in feature order; None if ``x`` is anything
        else (the general path then converts it or raises). The width is not checked
        here: the C call checks it.
    """
    row: list[Any] | tuple[Any, ...]
    kind = type(x)
    if kind is list or kind is tuple:
        row = x
    elif kind is np.ndarray:
        if x.ndim != 1 or x.dtype != _FLOAT64:
            return None
        values: list[Any] = x.tolist()
        return values
    elif kind is dict:
        if keys is None or (tuple(x) if type(keys) is tuple else list(x)) != keys:
            return None
        row = tuple(x.values())
    else:
        return None
    for v in row:
        if type(v) is not float and (type(v) is not int or not -INT_EXACT <= v <= INT_EXACT):
            return None
    return row


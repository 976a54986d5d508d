"""The one-row calls of the ``fast`` models: a plain row goes straight to C.

``learn_one``, ``predict_one`` and ``predict_proba_one`` are called once per row by River
users and by anyone serving predictions, so their cost is mostly the facade's. Every
``fast`` model therefore first tries a lean path:

1. Its engine holds a :func:`plain_row` buffer (a ``RowBuffer``) of the model's width.
   Its ``pack(x, keys)`` (``csrc/common/rows.c``, the one C file written against the
   Python C API, built as ``fast._rows_ext``) copies ``x`` into the buffer and returns
   True for the rows that need no conversion: a list or tuple of Python floats (and
   ints of magnitude at most 2**53) of the model's width, a 1-D float64 numpy array of
   that width, or a dict whose keys are exactly the model's feature names in the same
   order. These are the rows
   :func:`reference.rows.plain_floats` recognises, with the same values. No Python code
   runs and nothing is allocated per call.
2. One C call (``*_row`` in ``csrc/``) on the buffer checks the values (finite; nominal
   codes for SGT) and does the work, returning a status code.
3. ``ST_OK``: done. ``ST_ENOMEM``: ``MemoryError``, the model unchanged (the C calls
   secure memory before any state changes). Anything else, and every input ``pack``
   refuses, takes the general path of the facade, which validates the input as the
   reference does and raises the same exception with the same message.

The stochastic gradient trees go one step further: their engine binds its C calls to the
buffer (``RowBuffer.bind``), so that ``learn``, ``score``, ``label`` and ``proba`` of the
buffer pack the row and call the library in one Python call, with the GIL held (right
only for calls of about a microsecond; see ``csrc/common/rows.c``).

So the lean path only ever handles inputs the general path accepts, with the same values,
and results stay bit-identical to the reference. The methods hold the model's lock
themselves (:func:`locks_itself`), as the general path does, and the buffer is only
used under that lock.

Why a few lines of Python C API next to cffi: packing a row in Python cost a loop over
its values (to refuse bools, strings and other types the general path treats
differently) and then cffi's generic conversion of a list into a ``double[]`` (about
20 ns per value); the two were most of a one-row call. ``pack`` does both in one pass.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fast._ffi import ffi, lib, missing_build
from reference.estimator import locks_itself

try:
    from fast._rows_ext import RowBuffer
except ImportError as exc:  # pragma: no cover - exercised only without a build
    raise missing_build("fast._rows_ext", exc) from exc

__all__ = ["INT_EXACT", "ST_ENOMEM", "Pack", "RowBuffer", "address", "plain_row",
           "locks_itself"]

INT_EXACT = 2**53
"""Largest integer magnitude that converts to float64 without rounding."""

ST_ENOMEM: int = lib.ST_ENOMEM
"""The C status of a failed allocation (the one failure the lean path raises itself)."""

Pack = Callable[[Any, Sequence[Any] | None], bool]
"""``pack(x, keys) -> bool``: copy a plain row into the buffer (see the module doc)."""


def address(cdata: Any) -> int:
    """The address of a cffi pointer, array or ``lib`` function, as an int (for
    :meth:`RowBuffer.bind`)."""
    return int(ffi.cast("uintptr_t", cdata))


def plain_row(width: int) -> tuple[Pack, Any]:
    """A row buffer of ``width`` doubles for the lean one-row calls.

    Parameters
    ----------
    width : int
        The model's number of features.

    Returns
    -------
    pack : callable
        ``pack(x, keys)`` copies a plain row ``x`` into the buffer and returns True, or
        returns False (buffer contents unspecified) for any other input; ``keys`` are the
        model's feature names (the first dict row's keys) or None.
    ptr : cdata ``double *``
        The buffer, for the C library's ``*_row`` calls. It stays valid as long as
        ``pack`` (a bound method of the buffer's owner) is alive.
    """
    buffer = RowBuffer(width, np.ndarray)
    return buffer.pack, ffi.cast("double *", buffer.address)


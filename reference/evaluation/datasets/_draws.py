"""Shared pieces of the synthetic streams: the normal draw and the row collectors.

Every synthetic stream is drawn from the project's generator :class:`reference.rng.Rng`
(never ``numpy.random``), so a stream is the same on every machine and for both backends.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import numpy.typing as npt

from reference.rng import Rng

__all__ = ["ClassRow", "FloatArray", "Row", "normal"]


FloatArray = npt.NDArray[np.float64]
Row = tuple[list[float], float]
ClassRow = tuple[list[float], int]


TWO_PI = 2.0 * math.pi


# ---------------------------------------------------------------------------
# draws
# ---------------------------------------------------------------------------


def normal(rng: Rng) -> float:
    """A standard normal draw by the Box-Muller transform.

    ``z = sqrt(-2 log(1 - u1)) * cos(2π u2)``; ``1 - u1`` lies in (0, 1], so the
    logarithm is finite. The sine twin of the pair is discarded (one normal per call).

    Parameters
    ----------
    rng : Rng
        The generator.

    Returns
    -------
    float

    Notes
    -----
    Random draws: ``u1 = rng.uniform()``, then ``u2 = rng.uniform()`` (two outputs).

    Examples
    --------
    >>> z = normal(Rng(0))
    >>> -5.0 < z < 5.0
    True
    """
    u1 = rng.uniform()
    u2 = rng.uniform()
    return math.sqrt(-2.0 * math.log(1.0 - u1)) * math.cos(TWO_PI * u2)


def _check_n(n: int) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"n must be an int >= 0, got {n!r}")


def _collect(
    rows: Iterator[tuple[list[float], float]], n: int, d: int
) -> tuple[FloatArray, FloatArray]:
    _check_n(n)
    X = np.empty((n, d), dtype=np.float64)
    y = np.empty(n, dtype=np.float64)
    for t in range(n):
        x, target = next(rows)
        X[t] = x
        y[t] = target
    return X, y


def _collect_classes(
    rows: Iterator[tuple[list[float], int]], n: int, d: int
) -> tuple[FloatArray, npt.NDArray[np.int64]]:
    _check_n(n)
    X = np.empty((n, d), dtype=np.float64)
    y = np.empty(n, dtype=np.int64)
    for t in range(n):
        x, label = next(rows)
        X[t] = x
        y[t] = label
    return X, y

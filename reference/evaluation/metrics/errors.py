"""Point-wise errors: RMSE and MAE of a regression, accuracy of a classifier."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

__all__ = ["accuracy", "mae", "rmse"]


FloatArray = npt.NDArray[np.float64]


def _pair(y_true: npt.ArrayLike, y_pred: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
    a = np.asarray(y_true, dtype=np.float64).ravel()
    b = np.asarray(y_pred, dtype=np.float64).ravel()
    if a.shape != b.shape:
        raise ValueError(f"y_true has {a.size} values but y_pred has {b.size}")
    if a.size == 0:
        raise ValueError("empty input: need at least one value")
    return a, b


def rmse(y_true: npt.ArrayLike, y_pred: npt.ArrayLike) -> float:
    """Root mean squared error ``sqrt(mean((y - ŷ)²))``.

    Examples
    --------
    >>> rmse([0.0, 0.0], [3.0, 4.0])  # sqrt((9 + 16) / 2)
    3.5355339059327378
    """
    a, b = _pair(y_true, y_pred)
    d = a - b
    return float(math.sqrt(float(np.mean(d * d))))


def mae(y_true: npt.ArrayLike, y_pred: npt.ArrayLike) -> float:
    """Mean absolute error ``mean(|y - ŷ|)``.

    Examples
    --------
    >>> mae([1.0, 2.0, 3.0], [2.0, 2.0, 1.0])
    1.0
    """
    a, b = _pair(y_true, y_pred)
    return float(np.mean(np.abs(a - b)))


def accuracy(y_true: npt.ArrayLike, y_pred: npt.ArrayLike) -> float:
    """Fraction of predictions equal to the label (``None`` predictions count as wrong).

    Examples
    --------
    >>> accuracy([0, 1, 1, 2], [0, 1, 0, None])
    0.5
    """
    a = list(np.asarray(y_true, dtype=object).ravel())
    b = list(np.asarray(y_pred, dtype=object).ravel())
    if len(a) != len(b):
        raise ValueError(f"y_true has {len(a)} values but y_pred has {len(b)}")
    if not a:
        raise ValueError("empty input: need at least one value")
    correct = 0
    for label, guess in zip(a, b, strict=True):
        if guess is not None and guess == label:
            correct += 1
    return correct / len(a)

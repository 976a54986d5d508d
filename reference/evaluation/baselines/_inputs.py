"""Input rows of the baselines: validation before any state change, batch rows."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

__all__: list[str] = []


class _RowChecker:
    """Validation of input rows shared by the baselines (before any state change)."""

    def __init__(self) -> None:
        self.n_features_in_: int | None = None
        self.feature_names_in_: list[str] | None = None

    def check(self, x: Sequence[float] | Mapping[str, float]) -> list[float]:
        """The row as a list of floats; raise ``ValueError``/``TypeError`` if it is bad."""
        if isinstance(x, Mapping):
            keys = [str(k) for k in x.keys()]
            if self.feature_names_in_ is not None and keys != self.feature_names_in_:
                raise ValueError(
                    f"x has keys {keys}, expected {self.feature_names_in_} (from the first row)"
                )
            values = list(x.values())
        else:
            if isinstance(x, (str, bytes)):
                raise TypeError("x must be a sequence of numbers or a mapping, not a string")
            values = np.ravel(x).tolist() if isinstance(x, np.ndarray) else list(x)
        row: list[float] = []
        for value in values:
            if isinstance(value, (str, bytes)) or value is None:
                raise TypeError(f"x must be numeric, got {value!r}")
            number = float(value)
            if not math.isfinite(number):
                raise ValueError(
                    f"x contains a non-finite value ({number}); missing values are not supported"
                )
            row.append(number)
        if self.n_features_in_ is not None and len(row) != self.n_features_in_:
            raise ValueError(f"x has {len(row)} features, expected {self.n_features_in_}")
        if self.n_features_in_ is None and not row:
            raise ValueError("x is empty: need at least one feature")
        return row

    def fix(self, x: Sequence[float] | Mapping[str, float], row: list[float]) -> None:
        """Fix the dimension (and keys) after the first accepted row."""
        if self.n_features_in_ is None:
            self.n_features_in_ = len(row)
            if isinstance(x, Mapping):
                self.feature_names_in_ = [str(k) for k in x.keys()]


def _rows(X: npt.ArrayLike | Sequence[Mapping[str, float]]) -> list[Any]:
    if isinstance(X, np.ndarray):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D, got {X.ndim}-D")
        return list(X)
    rows = list(X)  # type: ignore[arg-type]
    return rows

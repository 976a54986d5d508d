"""Running (streaming) metrics: ``update(...)`` one example, ``get()`` the value so far.

Each takes an optional ``window`` for a sliding window instead of the whole past.
"""

from __future__ import annotations

import math
from collections import deque

__all__ = ["RunningAccuracy", "RunningMAE", "RunningMean", "RunningRMSE"]


class _Running:
    """Mean of per-example values, over everything seen or over a sliding window."""

    def __init__(self, window: int | None = None) -> None:
        if window is not None and (isinstance(window, bool) or window < 1):
            raise ValueError(f"window must be None or an int >= 1, got {window!r}")
        self.window = window
        self._values: deque[float] = deque()
        self._total = 0.0
        self.n = 0

    def _add(self, value: float) -> None:
        self._total += value
        self.n += 1
        if self.window is not None:
            self._values.append(value)
            if len(self._values) > self.window:
                self._total -= self._values.popleft()
                self.n -= 1

    def _mean(self) -> float:
        return self._total / self.n if self.n else math.nan


class RunningMean(_Running):
    """Running mean of a value, e.g. of log predictive densities (ALPD).

    Examples
    --------
    >>> m = RunningMean(window=2)
    >>> for v in (1.0, 2.0, 4.0):
    ...     m.update(v)
    >>> m.get()
    3.0
    """

    def update(self, value: float) -> None:
        """Add one value."""
        self._add(float(value))

    def get(self) -> float:
        """The mean so far (NaN before the first value)."""
        return self._mean()


class RunningRMSE(_Running):
    """Streaming RMSE (cumulative, or over the last ``window`` examples).

    Examples
    --------
    >>> m = RunningRMSE()
    >>> m.update(0.0, 3.0); m.update(0.0, 4.0)
    >>> round(m.get(), 6)
    3.535534
    """

    def update(self, y_true: float, y_pred: float) -> None:
        """Add one example."""
        d = float(y_true) - float(y_pred)
        self._add(d * d)

    def get(self) -> float:
        """The RMSE so far (NaN before the first example)."""
        return math.sqrt(self._mean()) if self.n else math.nan


class RunningMAE(_Running):
    """Streaming MAE (cumulative, or over the last ``window`` examples).

    Examples
    --------
    >>> m = RunningMAE()
    >>> m.update(1.0, 3.0); m.update(0.0, 0.0)
    >>> m.get()
    1.0
    """

    def update(self, y_true: float, y_pred: float) -> None:
        """Add one example."""
        self._add(abs(float(y_true) - float(y_pred)))

    def get(self) -> float:
        """The MAE so far (NaN before the first example)."""
        return self._mean()


class RunningAccuracy(_Running):
    """Streaming accuracy, the online accuracy ``M_t`` of [DOC15, Alg. 5].

    Examples
    --------
    >>> m = RunningAccuracy()
    >>> for label, guess in [(1, 1), (0, 1), (1, None), (0, 0)]:
    ...     m.update(label, guess)
    >>> m.get()
    0.5
    """

    def update(self, y_true: object, y_pred: object) -> None:
        """Add one example; a ``None`` prediction (abstention) counts as wrong."""
        self._add(1.0 if (y_pred is not None and y_pred == y_true) else 0.0)

    def get(self) -> float:
        """The accuracy so far (NaN before the first example)."""
        return self._mean()

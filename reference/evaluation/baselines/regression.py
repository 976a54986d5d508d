"""The regression baseline: the running mean of the targets seen so far."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from reference.evaluation.baselines._inputs import _RowChecker, _rows

__all__ = ["RunningMean"]


class RunningMean:
    """Predict the running mean of the targets seen so far (regression baseline).

    ``ŷ_t = (1/n) Σ_{s<t} y_s``, updated as ``mean += (y - mean) / n``; before any
    target, the prediction is 0.0. It also keeps the running variance (Welford), so
    :meth:`predict_dist_one` gives a Gaussian predictive for log-density scores.

    Examples
    --------
    >>> model = RunningMean()
    >>> for x, y in [([0.0], 1.0), ([1.0], 3.0)]:
    ...     model.learn_one(x, y)
    >>> model.predict_one([5.0]), model.n_seen_
    (2.0, 2)
    """

    def __init__(self) -> None:
        self._rows = _RowChecker()
        self.n_seen_ = 0
        self.mean_ = 0.0
        self._m2 = 0.0

    @property
    def n_features_in_(self) -> int | None:
        """Number of inputs, fixed by the first row (None before)."""
        return self._rows.n_features_in_

    def learn_one(self, x: Sequence[float] | Mapping[str, float], y: float) -> None:
        """Update the mean with one target (``x`` is validated, otherwise unused)."""
        row = self._rows.check(x)
        if isinstance(y, (str, bytes)) or y is None:
            raise TypeError(f"y must be a number, got {y!r}")
        target = float(y)
        if not math.isfinite(target):
            raise ValueError(f"y must be finite, got {target}")
        self._rows.fix(x, row)
        self.n_seen_ += 1
        delta = target - self.mean_
        self.mean_ += delta / float(self.n_seen_)
        self._m2 += delta * (target - self.mean_)

    def partial_fit(self, X: npt.ArrayLike, y: npt.ArrayLike) -> RunningMean:
        """Learn the rows of ``X`` in order; returns ``self``."""
        rows = _rows(X)
        targets = list(np.asarray(y).ravel())
        if len(rows) != len(targets):
            raise ValueError(f"X has {len(rows)} rows but y has {len(targets)}")
        if not rows:
            raise ValueError("empty input: X has no rows")
        for row, target in zip(rows, targets, strict=True):
            self.learn_one(row, target)
        return self

    def predict_one(self, x: Sequence[float] | Mapping[str, float]) -> float:
        """The mean of the targets so far (0.0 before any)."""
        self._rows.check(x)
        return self.mean_

    def predict(self, X: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """``predict_one`` for each row of ``X``."""
        return np.asarray([self.predict_one(row) for row in _rows(X)], dtype=np.float64)

    def predict_dist_one(self, x: Sequence[float] | Mapping[str, float]) -> dict[str, float]:
        """Gaussian predictive ``{"mean", "variance"}`` from the running moments.

        The variance is the unbiased sample variance times ``1 + 1/n`` (the predictive
        variance of a new draw under a plug-in normal); infinite with fewer than two
        targets.
        """
        self._rows.check(x)
        if self.n_seen_ < 2:
            return {"mean": self.mean_, "variance": math.inf}
        n = float(self.n_seen_)
        variance = self._m2 / (n - 1.0) * (1.0 + 1.0 / n)
        return {"mean": self.mean_, "variance": variance}

    def snapshot(self) -> dict[str, Any]:
        """State as plain data."""
        return {
            "n_features_in": self.n_features_in_,
            "n_seen": self.n_seen_,
            "mean": self.mean_,
            "m2": self._m2,
        }

    def get_params(self) -> dict[str, Any]:
        """Constructor arguments (none)."""
        return {}

    def clone(self) -> RunningMean:
        """A fresh, untrained copy with the same parameters."""
        return RunningMean(**self.get_params())

    def __repr__(self) -> str:
        return "RunningMean()"

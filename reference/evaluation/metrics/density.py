"""Log predictive densities: Gaussian, of a class, and their average (ALPD).

References
----------
[AG13] C. Anagnostopoulos and R. B. Gramacy, Entropy 15(12), 2013, §4.5 and §5.2.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping

import numpy as np
import numpy.typing as npt

__all__ = ["average_log_density", "class_log_density", "gaussian_log_density"]


LOG_2PI = math.log(2.0 * math.pi)


def gaussian_log_density(y: float, mean: float, variance: float) -> float:
    """``log N(y; mean, variance)``; ``-inf`` for infinite variance is not returned: a
    non-finite or non-positive variance raises ``ValueError``.

    Examples
    --------
    >>> round(gaussian_log_density(0.0, 0.0, 1.0), 6)
    -0.918939
    """
    if not (variance > 0.0 and math.isfinite(variance)):
        raise ValueError(f"variance must be finite and > 0, got {variance!r}")
    d = y - mean
    return -0.5 * (LOG_2PI + math.log(variance) + d * d / variance)


def class_log_density(proba: Mapping[Hashable, float], label: Hashable) -> float:
    """``log p(label)`` from a predicted distribution; ``-inf`` if its probability is 0
    or the label is missing from ``proba``.

    Examples
    --------
    >>> class_log_density({"a": 0.25, "b": 0.75}, "a") == math.log(0.25)
    True
    >>> class_log_density({"a": 1.0}, "b")
    -inf
    """
    p = float(proba.get(label, 0.0))
    return math.log(p) if p > 0.0 else -math.inf


def average_log_density(log_densities: npt.ArrayLike) -> float:
    """The average log predictive density (ALPD) of [AG13, §4.5]: mean of
    ``log p(y_t | past)``; higher is better.

    Examples
    --------
    >>> average_log_density([-1.0, -2.0, -3.0])
    -2.0
    """
    values = np.asarray(log_densities, dtype=np.float64).ravel()
    if values.size == 0:
        raise ValueError("empty input: need at least one value")
    return float(np.mean(values))

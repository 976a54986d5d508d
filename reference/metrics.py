"""Evaluation metrics: batch functions on arrays and running (streaming) versions.

Metrics are evaluation code, not model math, so numpy is used freely here
([DET-SPEC §2] restricts numpy only inside models).

Public functions (signatures):

- ``rmse(y_true, y_pred) -> float``, ``mae(y_true, y_pred) -> float``.
- ``accuracy(y_true, y_pred) -> float``.
- ``auc(y_true, scores, pos_label=1) -> float``: area under the ROC curve by ranks
  (Mann-Whitney), ties counted as one half.
- ``h_measure(y_true, scores, pos_label=1, alpha=2.0, beta=2.0) -> float``: Hand's
  H-measure [Han09] with a Beta(α, β) cost prior, Beta(2, 2) by default.
- ``roc_convex_hull(y_true, scores, pos_label=1) -> (fpr, tpr)``.
- ``gaussian_log_density(y, mean, variance) -> float``,
  ``class_log_density(proba, label) -> float``.
- ``average_log_density(log_densities) -> float``: the average log predictive
  density (ALPD) used in [AG13, Fig. 2].
- Running versions (``update(...)`` one example, ``get()`` the value so far,
  optional ``window`` for a sliding window): ``RunningRMSE``, ``RunningMAE``,
  ``RunningAccuracy``, ``RunningMean``.

References
----------
[Han09] D. J. Hand, "Measuring classifier performance: a coherent alternative to the
area under the ROC curve", Machine Learning 77, 103-123, 2009.
[AG13] C. Anagnostopoulos and R. B. Gramacy, Entropy 15(12), 2013, §4.5 and §5.2.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Hashable, Mapping

import numpy as np
import numpy.typing as npt

__all__ = [
    "RunningAccuracy",
    "RunningMAE",
    "RunningMean",
    "RunningRMSE",
    "accuracy",
    "auc",
    "average_log_density",
    "class_log_density",
    "gaussian_log_density",
    "h_measure",
    "mae",
    "rmse",
    "roc_convex_hull",
]

FloatArray = npt.NDArray[np.float64]

LOG_2PI = math.log(2.0 * math.pi)


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


def _binary(
    y_true: npt.ArrayLike, scores: npt.ArrayLike, pos_label: Hashable
) -> tuple[npt.NDArray[np.bool_], FloatArray]:
    labels = np.asarray(y_true).ravel()
    s = np.asarray(scores, dtype=np.float64).ravel()
    if labels.shape != s.shape:
        raise ValueError(f"y_true has {labels.size} values but scores has {s.size}")
    if not np.all(np.isfinite(s)):
        raise ValueError("scores must be finite")
    positive = labels == pos_label
    n_pos = int(positive.sum())
    if n_pos == 0 or n_pos == labels.size:
        raise ValueError("need both classes (pos_label and another) in y_true")
    return positive, s


def _average_ranks(s: FloatArray) -> FloatArray:
    """1-based ranks of ``s``; tied values share the average of their ranks.

    A value with ``lo`` values strictly below it and ``hi`` values at or below it holds
    ranks ``lo + 1, ..., hi``, whose mean is ``(lo + 1 + hi) / 2``.
    """
    ordered = np.sort(s)
    lo = np.searchsorted(ordered, s, side="left")
    hi = np.searchsorted(ordered, s, side="right")
    return (lo + 1 + hi) / 2.0


def auc(y_true: npt.ArrayLike, scores: npt.ArrayLike, pos_label: Hashable = 1) -> float:
    """Area under the ROC curve from ranks (Mann-Whitney U), ties averaged.

    ``AUC = (R₊ - n₊(n₊ + 1)/2) / (n₊ n₋)`` where ``R₊`` is the sum of the (average)
    ranks of the positive examples' scores: the probability that a random positive
    scores above a random negative, a tie counting one half.

    Parameters
    ----------
    y_true : array_like of labels
    scores : array_like of float
        Higher means more likely ``pos_label``.
    pos_label : hashable, default 1
        The positive class; every other label is negative.

    Examples
    --------
    >>> auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    >>> auc([0, 1], [0.5, 0.5])
    0.5
    """
    positive, s = _binary(y_true, scores, pos_label)
    ranks = _average_ranks(s)
    n_pos = float(positive.sum())
    n_neg = float(s.size) - n_pos
    rank_sum = float(ranks[positive].sum())
    return (rank_sum - n_pos * (n_pos + 1.0) / 2.0) / (n_pos * n_neg)


def roc_convex_hull(
    y_true: npt.ArrayLike, scores: npt.ArrayLike, pos_label: Hashable = 1
) -> tuple[FloatArray, FloatArray]:
    """Vertices of the ROC convex hull, from (0, 0) to (1, 1) by increasing FPR.

    ROC points are taken at every distinct score (predict positive when
    ``score >= threshold``), so tied scores move together; the hull is the upper
    concave envelope (Andrew's monotone chain).

    Returns
    -------
    fpr, tpr : ndarrays
        Hull vertices, ``fpr`` non-decreasing, first ``(0, 0)``, last ``(1, 1)``.

    Examples
    --------
    >>> fpr, tpr = roc_convex_hull([0, 1, 0, 1], [0.1, 0.9, 0.2, 0.8])
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 1.0], [0.0, 1.0, 1.0])
    """
    positive, s = _binary(y_true, scores, pos_label)
    order = np.argsort(-s, kind="mergesort")
    sorted_s = s[order]
    pos_sorted = positive[order]
    tp = np.cumsum(pos_sorted)
    fp = np.cumsum(~pos_sorted)
    last_of_block = np.append(sorted_s[1:] != sorted_s[:-1], True)
    n_pos = float(tp[-1])
    n_neg = float(fp[-1])
    fpr_pts = np.concatenate(([0.0], fp[last_of_block] / n_neg))
    tpr_pts = np.concatenate(([0.0], tp[last_of_block] / n_pos))
    hull_f: list[float] = []
    hull_t: list[float] = []
    for f, t in zip(fpr_pts.tolist(), tpr_pts.tolist(), strict=True):
        while len(hull_f) >= 2:
            # drop the middle point unless it turns clockwise (keeps the upper hull)
            cross = (hull_f[-1] - hull_f[-2]) * (t - hull_t[-2]) - (hull_t[-1] - hull_t[-2]) * (
                f - hull_f[-2]
            )
            if cross >= 0.0:
                hull_f.pop()
                hull_t.pop()
            else:
                break
        hull_f.append(f)
        hull_t.append(t)
    return np.asarray(hull_f), np.asarray(hull_t)


def _beta_partial_moments(a: float, b: float, alpha: float, beta: float) -> tuple[float, float]:
    """``∫_a^b u(c) dc`` and ``∫_a^b c u(c) dc`` for the Beta(α, β) density ``u``.

    Uses ``c u(c) = α/(α+β) · Beta(α+1, β) density`` and the regularised incomplete beta
    of :mod:`reference.special`.
    """
    from reference.special import betainc

    mass = betainc(alpha, beta, b) - betainc(alpha, beta, a)
    first = alpha / (alpha + beta) * (betainc(alpha + 1.0, beta, b) - betainc(alpha + 1.0, beta, a))
    return mass, first


def h_measure(
    y_true: npt.ArrayLike,
    scores: npt.ArrayLike,
    pos_label: Hashable = 1,
    alpha: float = 2.0,
    beta: float = 2.0,
) -> float:
    """Hand's H-measure [Han09] with a Beta(α, β) prior on the cost ``c``.

    Let π₀, π₁ be the class proportions (negative, positive), ``c ∈ [0, 1]`` the cost of
    misclassifying a negative and ``1 - c`` that of a positive. With the optimal
    threshold for ``c`` the loss is ``Q(c) = min_i [c π₀ F_i + (1 - c) π₁ (1 - T_i)]``
    over the ROC points ``(F_i, T_i)`` (the minimum is attained on the convex hull);
    the trivial classifier loses ``Q_max(c) = min(c π₀, (1 - c) π₁)``. Then

        ``H = 1 - ∫ Q(c) u(c) dc / ∫ Q_max(c) u(c) dc``,

    ``u`` the Beta(α, β) density, Beta(2, 2) in [Han09]. Between hull vertices the
    optimal vertex changes at ``c = π₁ ΔT / (π₀ ΔF + π₁ ΔT)``; on each piece ``Q`` is
    linear in ``c``, so the integrals are exact through incomplete beta functions.

    Parameters
    ----------
    y_true : array_like of labels
    scores : array_like of float
        Higher means more likely ``pos_label``.
    pos_label : hashable, default 1
    alpha, beta : float, default 2.0
        Parameters of the Beta cost prior.

    Returns
    -------
    float
        In [0, 1]: 1 for perfect separation, 0 for a classifier no better than the
        trivial one. H looks at the ROC convex hull, so a classifier whose scores
        are reversed also gets 0 (its AUC would be below 0.5).

    Notes
    -----
    Deviation: the R package ``hmeasure`` later defaulted to a prior with severity
    ratio π₁/π₀ (Hand and Anagnostopoulos, 2014); we keep the Beta(2, 2) of [Han09]
    unless ``alpha``/``beta`` are given.

    Examples
    --------
    >>> h_measure([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9])
    1.0
    >>> h_measure([0, 1, 0, 1], [0.5, 0.5, 0.5, 0.5])
    0.0
    """
    if not (alpha > 0.0 and beta > 0.0):
        raise ValueError(f"alpha and beta must be > 0, got {alpha!r}, {beta!r}")
    labels = np.asarray(y_true).ravel()
    fpr, tpr = roc_convex_hull(labels, scores, pos_label)
    pi1 = float(np.mean(labels == pos_label))
    pi0 = 1.0 - pi1
    # vertex i (by increasing FPR) is optimal on [c_i, c_{i-1}], c_{-1} = 1, c_last = 0
    m = fpr.size
    breaks = [1.0]
    for i in range(m - 1):
        d_f = float(fpr[i + 1] - fpr[i])
        d_t = float(tpr[i + 1] - tpr[i])
        breaks.append(pi1 * d_t / (pi0 * d_f + pi1 * d_t))
    breaks.append(0.0)
    loss = 0.0
    for i in range(m):
        hi, lo = breaks[i], breaks[i + 1]
        if hi <= lo:
            continue
        mass, first = _beta_partial_moments(lo, hi, alpha, beta)
        # Q(c) = π₁(1 - T_i) + c (π₀ F_i - π₁ (1 - T_i))
        miss = pi1 * (1.0 - float(tpr[i]))
        slope = pi0 * float(fpr[i]) - miss
        loss += miss * mass + slope * first
    # trivial classifier: Q_max(c) = c π₀ for c <= π₁ (all positive), (1 - c) π₁ above
    _, first_lo = _beta_partial_moments(0.0, pi1, alpha, beta)
    mass_hi, first_hi = _beta_partial_moments(pi1, 1.0, alpha, beta)
    loss_max = pi0 * first_lo + pi1 * (mass_hi - first_hi)
    return float(max(0.0, 1.0 - loss / loss_max))


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

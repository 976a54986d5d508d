"""Ranking metrics of binary scores: AUC, the ROC convex hull and the H-measure.

References
----------
[Han09] D. J. Hand, "Measuring classifier performance: a coherent alternative to the
area under the ROC curve", Machine Learning 77, 103-123, 2009.
"""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np
import numpy.typing as npt

from reference.evaluation.metrics.errors import FloatArray

__all__ = ["auc", "h_measure", "roc_convex_hull"]


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

"""Metrics of ``reference.evaluation.metrics`` against hand values and independent computations."""

from __future__ import annotations

import math

import numpy as np
import pytest

from reference.evaluation.metrics import (
    RunningAccuracy,
    RunningMAE,
    RunningMean,
    RunningRMSE,
    accuracy,
    auc,
    average_log_density,
    class_log_density,
    gaussian_log_density,
    h_measure,
    mae,
    rmse,
    roc_convex_hull,
)


def test_regression_metrics_by_hand() -> None:
    y = [1.0, 2.0, 3.0, 4.0]
    p = [1.0, 4.0, 2.0, 4.0]
    assert rmse(y, p) == math.sqrt((0 + 4 + 1 + 0) / 4)
    assert mae(y, p) == (0 + 2 + 1 + 0) / 4
    with pytest.raises(ValueError):
        rmse([1.0], [1.0, 2.0])
    with pytest.raises(ValueError):
        mae([], [])


def test_accuracy_by_hand() -> None:
    assert accuracy([0, 1, 1, 0, 2], [0, 1, 0, 0, 1]) == 3 / 5
    assert accuracy(["a", "b"], ["a", None]) == 0.5
    with pytest.raises(ValueError):
        accuracy([], [])


def pairwise_auc(labels: np.ndarray, scores: np.ndarray) -> float:
    """P(score of a positive > score of a negative) + ½ P(tie), by counting pairs."""
    pos = scores[labels == 1]
    neg = scores[labels != 1]
    wins = 0.0
    for s in pos:
        for r in neg:
            wins += 1.0 if s > r else (0.5 if s == r else 0.0)
    return wins / (len(pos) * len(neg))


def test_auc_by_hand() -> None:
    # positives 0.35, 0.8 vs negatives 0.1, 0.4: pairs won 1 + 0 + 1 + 1 = 3 of 4
    assert auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]) == 0.75
    assert auc([0, 1, 0, 1], [0.5, 0.5, 0.1, 0.9]) == (0.5 + 1 + 1 + 1) / 4
    assert auc([0, 0, 1, 1], [0.1, 0.2, 0.3, 0.4]) == 1.0
    assert auc([0, 0, 1, 1], [0.4, 0.3, 0.2, 0.1]) == 0.0
    assert auc(["n", "p"], [0.2, 0.7], pos_label="p") == 1.0


@pytest.mark.parametrize("seed", range(5))
def test_auc_equals_pair_counting_with_ties(seed: int) -> None:
    rs = np.random.default_rng(seed)
    labels = rs.integers(0, 2, 150)
    scores = np.round(rs.normal(size=150) + labels, 1)  # many ties
    assert auc(labels, scores) == pytest.approx(pairwise_auc(labels, scores), abs=1e-12)


def test_auc_needs_both_classes() -> None:
    with pytest.raises(ValueError, match="both classes"):
        auc([1, 1], [0.2, 0.3])
    with pytest.raises(ValueError):
        auc([0, 1], [0.2, math.nan])


def test_roc_convex_hull() -> None:
    # sorted by score: 1 0 1 1 0 0 -> ROC points (0,0) (0,1/3) (1/3,1/3) (1/3,2/3) (1/3,1)
    # (2/3,1) (1,1); the upper hull keeps (0,0) (0,1/3) (1/3,1) (1,1)
    fpr, tpr = roc_convex_hull([0, 1, 0, 1, 1, 0], [0.1, 0.9, 0.7, 0.6, 0.3, 0.2])
    np.testing.assert_allclose(fpr, [0.0, 0.0, 1 / 3, 1.0], rtol=0, atol=1e-15)
    np.testing.assert_allclose(tpr, [0.0, 1 / 3, 1.0, 1.0], rtol=0, atol=1e-15)
    # tied scores move together: one point for the block of equal scores
    fpr, tpr = roc_convex_hull([0, 1, 0, 1], [0.5, 0.5, 0.5, 0.5])
    assert fpr.tolist() == [0.0, 1.0] and tpr.tolist() == [0.0, 1.0]


def h_by_integration(labels: np.ndarray, scores: np.ndarray, a: float, b: float) -> float:
    """Independent H-measure: minimum over *all* ROC points, midpoint rule in c."""
    pi1 = float(np.mean(labels == 1))
    pi0 = 1.0 - pi1
    thresholds = np.concatenate((np.unique(scores), [np.inf]))
    F = np.array([np.mean(scores[labels != 1] >= t) for t in thresholds])
    T = np.array([np.mean(scores[labels == 1] >= t) for t in thresholds])
    m = 40000
    c = (np.arange(m) + 0.5) / m
    log_u = (a - 1) * np.log(c) + (b - 1) * np.log1p(-c)
    u = np.exp(log_u - log_u.max())  # normalisation cancels in the ratio
    Q = np.min(c[:, None] * pi0 * F[None, :] + (1 - c[:, None]) * pi1 * (1 - T[None, :]), axis=1)
    Q_max = np.minimum(c * pi0, (1 - c) * pi1)
    return float(1.0 - np.sum(Q * u) / np.sum(Q_max * u))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(("a", "b"), [(2.0, 2.0), (1.0, 1.0), (3.0, 1.5)])
def test_h_measure_equals_numerical_integration(seed: int, a: float, b: float) -> None:
    rs = np.random.default_rng(100 + seed)
    n = 120 + 40 * seed
    labels = (rs.random(n) < 0.3 + 0.1 * seed).astype(int)
    scores = np.round(rs.normal(size=n) + 1.2 * labels, 2)
    expected = h_by_integration(labels, scores, a, b)
    assert h_measure(labels, scores, alpha=a, beta=b) == pytest.approx(expected, abs=1e-6)


def test_h_measure_special_values() -> None:
    labels = np.array([0, 0, 0, 1, 1])
    assert h_measure(labels, [0.1, 0.2, 0.3, 0.8, 0.9]) == pytest.approx(1.0, abs=1e-12)
    assert h_measure(labels, [0.5] * 5) == pytest.approx(0.0, abs=1e-12)
    # a reversed classifier's ROC hull is the diagonal: H = 0 (AUC would be 0)
    assert h_measure(labels, [0.9, 0.8, 0.7, 0.2, 0.1]) == pytest.approx(0.0, abs=1e-12)
    # invariant under strictly increasing transforms of the scores
    rs = np.random.default_rng(1)
    y = rs.integers(0, 2, 200)
    s = rs.normal(size=200) + y
    assert h_measure(y, s) == pytest.approx(h_measure(y, np.exp(3 * s)), abs=1e-12)
    with pytest.raises(ValueError):
        h_measure(y, s, alpha=0.0)


def test_h_measure_depends_on_the_cost_prior() -> None:
    rs = np.random.default_rng(7)
    y = (rs.random(300) < 0.2).astype(int)
    s = rs.normal(size=300) + y
    assert h_measure(y, s) != pytest.approx(h_measure(y, s, alpha=1.0, beta=1.0), abs=1e-6)


def test_log_densities() -> None:
    y, mean, var = 1.3, 0.4, 2.5
    expected = -0.5 * math.log(2 * math.pi * var) - (y - mean) ** 2 / (2 * var)
    assert gaussian_log_density(y, mean, var) == pytest.approx(expected, rel=1e-14)
    with pytest.raises(ValueError):
        gaussian_log_density(0.0, 0.0, 0.0)
    assert class_log_density({0: 0.2, 1: 0.8}, 1) == math.log(0.8)
    assert class_log_density({0: 1.0, 1: 0.0}, 1) == -math.inf
    assert class_log_density({0: 1.0}, 5) == -math.inf
    assert average_log_density([-1.0, -3.0]) == -2.0


def test_running_metrics_equal_batch_metrics() -> None:
    rs = np.random.default_rng(2)
    y = rs.normal(size=500)
    p = y + rs.normal(size=500)
    r_all, r_win = RunningRMSE(), RunningRMSE(window=50)
    m_all, m_win = RunningMAE(), RunningMAE(window=50)
    for a, b in zip(y, p, strict=True):
        r_all.update(a, b)
        r_win.update(a, b)
        m_all.update(a, b)
        m_win.update(a, b)
    assert r_all.get() == pytest.approx(rmse(y, p), rel=1e-12)
    assert r_win.get() == pytest.approx(rmse(y[-50:], p[-50:]), rel=1e-10)
    assert m_all.get() == pytest.approx(mae(y, p), rel=1e-12)
    assert m_win.get() == pytest.approx(mae(y[-50:], p[-50:]), rel=1e-10)
    labels = rs.integers(0, 3, 300)
    guesses = rs.integers(0, 3, 300)
    acc, acc_w = RunningAccuracy(), RunningAccuracy(window=30)
    for a, b in zip(labels.tolist(), guesses.tolist(), strict=True):
        acc.update(a, b)
        acc_w.update(a, b)
    assert acc.get() == accuracy(labels, guesses)
    assert acc_w.get() == pytest.approx(accuracy(labels[-30:], guesses[-30:]), abs=1e-12)
    mean = RunningMean()
    assert math.isnan(mean.get())
    with pytest.raises(ValueError):
        RunningMean(window=0)

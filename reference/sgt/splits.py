"""Candidate updates of a leaf, their scores and the t-test [GPF19, §3.1-3.3].

At a split attempt a leaf scores the null candidate (shift its value), every binary
split of each numeric feature at a bin boundary and one multiway split per nominal
feature not yet used on its path ([SGT-SPEC §6]). Each candidate gets the pooled mean and
variance of the per-instance loss change over its children ([SGT-SPEC §7.3]), the mean is
penalised by γ|Q_u|/n ([SGT-SPEC §7.4]), and only the best candidate is tested with the
two-sided one-sample t-test plus a sign check ([SGT-SPEC §8]). C twin: ``csrc/sgt/splits.c``.

Notation
--------
``n``       leaf count since its last reset.
``m, s2``   pooled mean and variance of the loss change L_i.
``Q``       number of children of a candidate (|Q_u|).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from reference.sgt.grad_hess import (
    GradHessStats,
    delta_prediction,
    loss_change_moments,
    merge,
)

GRADIENT_BOUND = 1e70
"""Largest gradient magnitude the split test carries: the variance of a leaf's loss change
([GPF19, Eq. 18]) grows with the fourth power of the gradients (``(g Δ)²`` with ``Δ`` of
the order of ``g``), so its sums overflow to ``inf`` (and the test never passes: the tree
never learns) once ``|g|`` nears ``1e77``. ``1e70`` leaves a factor ``1e28`` for the
number of rows summed. With squared error ``g = f - y``, so regression targets are
bounded alike; larger targets, and custom-loss gradients, raise ``ValueError`` (the C
library refuses them too, ``SGT_GRADIENT_BOUND``)."""

__all__ = [
    "Candidate",
    "pool_children",
    "null_candidate",
    "numeric_candidate",
    "nominal_candidate",
    "best_candidate",
    "t_test_p_value",
    "one_sided_p_value",
    "passes_test",
]


@dataclass
class Candidate:
    """A scored update: ``feature == -1`` for the null candidate, ``threshold == -1``
    for a nominal multiway split; ``deltas`` holds one Δ_j per child."""

    feature: int
    threshold: int
    deltas: list[float]
    mean: float
    variance: float


def pool_children(
    children: Sequence[GradHessStats], lam: float
) -> tuple[list[float], float, float]:
    """Deltas and pooled (mean, variance) of the loss change over children ([SGT-SPEC §7.3]).

    m = Σ_j n_j m_j / n and s² = [Σ_j (n_j - 1) s_j² + Σ_j n_j (m_j - m)²] / (n - 1),
    over the children with n_j > 0; s² = 0 when n < 2. An empty child gets
    Δ = -0/(0 + λ + ε) and contributes nothing.
    """
    deltas: list[float] = []
    moments: list[tuple[float, float]] = []
    n = 0
    total = 0.0
    for child in children:
        delta = delta_prediction(child, lam)
        deltas.append(delta)
        moments.append(loss_change_moments(child, delta))
        if child.n > 0:
            n += child.n
            total += float(child.n) * moments[-1][0]
    mean = total / float(n)
    within = 0.0
    between = 0.0
    for child, (m_j, s2_j) in zip(children, moments, strict=True):
        if child.n > 0:
            count = float(child.n)
            within += (count - 1.0) * s2_j
            diff = m_j - mean
            between += count * (diff * diff)
    variance = (within + between) / (float(n) - 1.0) if n >= 2 else 0.0
    return deltas, mean, variance


def null_candidate(total: GradHessStats, lam: float) -> Candidate:
    """Shift the leaf value by Δ_0 of the leaf total; no γ penalty ([SGT-SPEC §6] item 1,
    [SGT-SPEC §7.4])."""
    delta = delta_prediction(total, lam)
    mean, variance = loss_change_moments(total, delta)
    return Candidate(-1, -1, [delta], mean, variance)


def penalty(gamma: float, n_children: int, n_leaf: int) -> float:
    """γ |Q_u| / n, the per-instance complexity cost of a split ([SGT-SPEC §7.4]) [GPF19, Eq. 5]."""
    return gamma * float(n_children) / float(n_leaf)


def numeric_candidate(
    cells: Sequence[GradHessStats], feature: int, lam: float, gamma: float, n_leaf: int
) -> Candidate:
    """Best binary split of one numeric feature over its B bins ([SGT-SPEC §6] item 2,
    [SGT-SPEC §7.5]).

    Left = bins 0..k, right = bins k+1..B-1, for k = 0..B-2. Left sides are prefix
    merges in ascending bin order, right sides suffix merges in descending order (no
    subtraction, [SGT-SPEC §4.3]). Thresholds are compared on the penalised mean, the first
    of equal scores wins; a threshold whose bin k is empty repeats threshold k-1 and is
    skipped.
    """
    bins = len(cells)
    prefix = [cells[0].copy()]
    for k in range(1, bins - 1):
        prefix.append(merge(prefix[k - 1], cells[k]))
    suffix: list[GradHessStats] = [cells[bins - 1].copy()] * bins
    for k in range(bins - 2, 0, -1):
        suffix[k] = merge(cells[k], suffix[k + 1])
    cost = penalty(gamma, 2, n_leaf)
    best: Candidate | None = None
    for k in range(bins - 1):
        if k > 0 and cells[k].n == 0:
            # bin k empty: prefix[k] and suffix[k] are copies of prefix[k-1] and
            # suffix[k+1], so threshold k has the children (and score) of k-1: skip it
            continue
        deltas, mean, variance = pool_children([prefix[k], suffix[k + 1]], lam)
        score = mean + cost
        if best is None or score < best.mean:
            best = Candidate(feature, k, deltas, score, variance)
    assert best is not None
    return best


def nominal_candidate(
    cells: Sequence[GradHessStats], feature: int, lam: float, gamma: float, n_leaf: int
) -> Candidate:
    """Multiway split with one child per declared category ([SGT-SPEC §6] item 3)."""
    deltas, mean, variance = pool_children(cells, lam)
    return Candidate(feature, -1, deltas, mean + penalty(gamma, len(cells), n_leaf), variance)


def best_candidate(
    cells: Sequence[GradHessStats],
    kinds: Sequence[int],
    offsets: Sequence[int],
    used: Sequence[int],
    may_split: bool,
    lam: float,
    gamma: float,
) -> Candidate:
    """The candidate with the smallest penalised mean ([SGT-SPEC §7.5]).

    Order: the null candidate, then features in index order; strict ``<`` so the
    first of equal scores wins. ``may_split`` is False at the depth limit (null
    candidate only); a nominal feature used on the path (``used[a]``) is skipped.
    """
    n_leaf = cells[0].n
    best = null_candidate(cells[0], lam)
    if not may_split:
        return best
    for a, kind in enumerate(kinds):
        start = offsets[a]
        if kind:
            if used[a]:
                continue
            cand = nominal_candidate(cells[start : start + kind], a, lam, gamma, n_leaf)
        else:
            width = offsets[a + 1] - start if a + 1 < len(offsets) else len(cells) - start
            cand = numeric_candidate(cells[start : start + width], a, lam, gamma, n_leaf)
        if cand.mean < best.mean:
            best = cand
    return best


def t_test_p_value(mean: float, variance: float, n: int) -> float:
    """Two-sided p-value of the one-sample t-test of mean 0 [GPF19, Eq. 16] ([SGT-SPEC §8]).

    With F = t² = n m² / s² and ν = n - 1: p = P(F_{1,ν} >= F) = I_{ν/(ν+F)}(ν/2, 1/2),
    the regularised incomplete beta. Degenerate rules ([SGT-SPEC §8]): n < 2 gives 1; a
    non-finite mean or variance gives 1; s² = 0 gives 0 when m < 0, else 1.

    Examples
    --------
    >>> round(t_test_p_value(3.0, 200.0, 200) * 1e3, 6)   # t = 3, n = 200
    3.044827
    """
    from reference.special import betainc

    if n < 2 or not math.isfinite(mean) or not math.isfinite(variance):
        return 1.0
    if variance == 0.0:
        return 0.0 if mean < 0.0 else 1.0
    f_stat = float(n) * mean * mean / variance
    nu = float(n) - 1.0
    # [GPF19, Eq. 16] two-sided p of t = m √n / s via the incomplete beta
    return betainc(0.5 * nu, 0.5, nu / (nu + f_stat))


def one_sided_p_value(mean: float, variance: float, n: int) -> float:
    """One-sided p = P(T_{n-1} <= t) of the same t statistic ([SGT-SPEC §8], option).

    Half the two-sided p-value when m < 0, one minus that half otherwise.
    """
    p = t_test_p_value(mean, variance, n)
    return 0.5 * p if mean < 0.0 else 1.0 - 0.5 * p


def passes_test(candidate: Candidate, n: int, delta: float, one_sided: bool = False) -> bool:
    """Apply iff p < δ and the penalised mean is negative ([SGT-SPEC §8], two-sided + sign)."""
    if not candidate.mean < 0.0:
        return False
    if one_sided:
        return one_sided_p_value(candidate.mean, candidate.variance, n) < delta
    return t_test_p_value(candidate.mean, candidate.variance, n) < delta

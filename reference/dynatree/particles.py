"""Particle learning: resample, propagate, evidence and predictive averages [AG13, §2.3].

The cloud is a list of ``N`` equally weighted particles (trees). One PL step with a new
point ([DT-SPEC §5]): weights ``w_i = p(y_t | x_t, T_i)`` (leaf predictive, natural scale),
``lpred_t = log(sum_i w_i / N)``, residual resampling if the weights are not all equal,
then :func:`~reference.dynatree.moves.propagate` on every particle in index order, each
from its slot's own random stream (:func:`pl_step`). C twin: ``csrc/dynatree/particles.c``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from reference.dynatree.leaf_models import (
    CLASS,
    LeafConfig,
    class_probability,
    regression_density,
    regression_predictive,
)
from reference.dynatree.moves import propagate
from reference.dynatree.tree import Node, copy_tree, find_leaf
from reference.rng import Rng, stream_seed
from reference.special import log_or_neg_inf, student_t_ppf

STREAM_RULE = 2
"""The random-stream rule of particle learning ([DT-SPEC §0] item 6) that this version
implements, stored in pickles and model files (``fitted["stream_rule"]``): 1 (driftwood
0.1) drew the propagation of every particle from the model's generator, one particle
after the other; 2 (since 0.2) gives each particle slot its own stream per step
(:func:`pl_step`). States without the field were written under rule 1; they load, and
continue under rule 2 with a :class:`StreamRuleWarning`."""


class StreamRuleWarning(UserWarning):
    """A pickle or model file written under random-stream rule 1 (driftwood 0.1) was
    loaded: its state is restored exactly, but the rows it learns from now on draw
    under rule 2 (:data:`STREAM_RULE`), so they differ from what driftwood 0.1 would have
    computed from the same state (the distribution of the model is the same)."""


def particle_weight(root: Node, x: Sequence[float], y: float,
                    cfg: LeafConfig) -> tuple[float, bool]:
    """``w = p(y | x, T)`` from the leaf containing ``x`` and whether it is proper (§5.2)."""
    leaf = find_leaf(root, x)
    if cfg.kind == CLASS:
        return class_probability(leaf.stats, cfg, int(y)), True
    return regression_density(leaf.stats, cfg, x, y)


def residual_resample(weights: Sequence[float], rng: Rng) -> list[int]:
    """Residual resampling of ``N`` indices from normalised ``weights`` ([DT-SPEC §5.2] item 4).

    ``E_i = N w_i``, ``k_i = floor(E_i)`` deterministic copies (index order), then
    ``R = N - sum k_i`` draws from ``r_i = (E_i - k_i)/R`` by inverse CDF (the first ``j``
    with ``u < c_j``, found by bisection; the last cumulative value is forced to 1).

    Random draws: ``R`` ``uniform()`` values, one per residual draw, in order.
    """
    n = len(weights)
    out: list[int] = []
    expected = [float(n) * w for w in weights]
    counts = [int(math.floor(e)) for e in expected]
    for i in range(n):
        for _ in range(counts[i]):
            out.append(i)
    r = n - len(out)
    if r <= 0:
        return out
    cumulative = [0.0] * n
    c = 0.0
    for i in range(n):
        c = c + (expected[i] - float(counts[i])) / float(r)
        cumulative[i] = c
    cumulative[n - 1] = 1.0
    for _ in range(r):
        u = rng.uniform()
        lo = 0
        hi = n
        while lo < hi:  # bisection for the first j with u < c_j
            mid = (lo + hi) // 2
            if u < cumulative[mid]:
                hi = mid
            else:
                lo = mid + 1
        out.append(lo)
    return out


def resample(roots: list[Node], x: Sequence[float], y: float, cfg: LeafConfig,
             rng: Rng) -> tuple[list[Node], float]:
    """Weights, ``lpred`` and residual resampling of the cloud ([DT-SPEC §5.2]).

    ``lpred = log(sum w) - log(N)``; it is 0 when ``N = 1`` or no particle has a proper
    predictive (§0 item 3). Normalised weights are uniform if ``sum w`` is 0 or not finite.
    Resampling happens only if the weights are not all equal and their variance
    ``sum(wbar^2)/N - 1/N^2`` is positive. First occurrences keep the original tree;
    further copies are explicit deep copies.

    Random draws: those of :func:`residual_resample`, only when resampling happens.

    Deviation: exactly equal weights count as zero variance (the rounded variance of
    equal normalised weights can be a tiny positive number); a zero or non-finite sum of
    weights skips resampling instead of printing a message and using uniform weights.
    """
    n = len(roots)
    if n == 1:
        return roots, 0.0
    weights = [0.0] * n
    any_proper = False
    for i in range(n):
        weights[i], proper = particle_weight(roots[i], x, y, cfg)
        any_proper = any_proper or proper
    if not any_proper:
        return roots, 0.0
    total = 0.0
    for w in weights:
        total = total + w
    lpred = log_or_neg_inf(total) - math.log(float(n))
    if not (total > 0.0 and math.isfinite(total)):
        return roots, lpred
    equal = True
    for w in weights:
        if w != weights[0]:
            equal = False
            break
    if equal:
        return roots, lpred
    normalised = [w / total for w in weights]
    s2 = 0.0
    for w in normalised:
        s2 = s2 + w * w
    inv_n = 1.0 / float(n)
    if not s2 * inv_n - inv_n * inv_n > 0.0:
        return roots, lpred
    chosen = residual_resample(normalised, rng)
    used = [False] * n
    new_roots: list[Node] = []
    for i in chosen:
        if used[i]:
            new_roots.append(copy_tree(roots[i]))
        else:
            used[i] = True
            new_roots.append(roots[i])
    return new_roots, lpred


def pl_step(roots: list[Node], index: int, X: Sequence[Sequence[float]],
            y: Sequence[float], cfg: LeafConfig, minp: int, alpha: float, beta: float,
            rng: Rng) -> tuple[list[Node], float]:
    """One particle-learning step: resample then propagate every particle ([DT-SPEC §5]).

    Random draws ([DT-SPEC §0] item 6, stream rule :data:`STREAM_RULE`): resampling draws
    from the model's generator ``rng`` (item 6 (a)), then one ``next_u64()`` from it, the
    step key; the particle in slot ``k`` (its index after resampling) is propagated with its
    own generator ``Rng(stream_seed(key, k))`` (item 6 (b)), whichever particle resampling
    copied into the slot. The slots are independent of each other, which is what lets the
    fast backend propagate them on several threads with the same draws.
    """
    roots, lpred = resample(roots, X[index], y[index], cfg, rng)
    key = rng.next_u64()
    for k in range(len(roots)):
        slot_rng = Rng(stream_seed(key, k))
        roots[k] = propagate(roots[k], index, X, y, cfg, minp, alpha, beta, slot_rng)
    return roots, lpred


def regression_summaries(roots: Sequence[Node], x: Sequence[float],
                         cfg: LeafConfig) -> tuple[float, float, float, float, float]:
    """Particle averages ``(mean, var, q05, q95, df)`` of the predictive at ``x`` ([DT-SPEC §8.1]).

    ``mean = avg mu_i``; ``var = avg(sigma_i^2 df_i/(df_i - 2)) + max(0, avg mu_i^2 - mean^2)``;
    quantiles are averages of per-particle Student-t quantiles (``T^-1(0.95) = -T^-1(0.05)``);
    ``df = avg df_i``. A particle with ``df <= 2`` has infinite variance; an improper one
    infinite variance and infinite quantiles (§0 item 3).
    """
    n = float(len(roots))
    s_mu = 0.0
    s_mu2 = 0.0
    s_var = 0.0
    s_q1 = 0.0
    s_q2 = 0.0
    s_df = 0.0
    for root in roots:
        leaf = find_leaf(root, x)
        loc, scale, df, proper = regression_predictive(leaf.stats, cfg, x)
        s_mu = s_mu + loc
        s_mu2 = s_mu2 + loc * loc
        s_df = s_df + df
        if proper:
            if df > 2.0:
                s_var = s_var + scale * scale * df / (df - 2.0)
            else:
                s_var = math.inf
            t05 = student_t_ppf(0.05, df)
            s_q1 = s_q1 + (loc + scale * t05)
            s_q2 = s_q2 + (loc - scale * t05)
        else:
            s_var = math.inf
            s_q1 = -math.inf
            s_q2 = math.inf
    mean = s_mu / n
    vmean = s_mu2 / n - mean * mean
    if vmean < 0.0:
        vmean = 0.0
    var = s_var / n + vmean
    return mean, var, s_q1 / n, s_q2 / n, s_df / n


def regression_mean(roots: Sequence[Node], x: Sequence[float], cfg: LeafConfig) -> float:
    """The ``mean`` of :func:`regression_summaries` alone ([DT-SPEC §8.1]): the same sum of
    the particles' locations in the same order, so the same bits, without the per-particle
    Student-t quantile (what ``predict`` needs)."""
    s_mu = 0.0
    for root in roots:
        loc, _, _, _ = regression_predictive(find_leaf(root, x).stats, cfg, x)
        s_mu = s_mu + loc
    return s_mu / float(len(roots))


def class_summaries(roots: Sequence[Node], x: Sequence[float],
                    cfg: LeafConfig) -> tuple[list[float], float]:
    """Particle-averaged class probabilities and average per-particle entropy ([DT-SPEC §8.2])."""
    n = float(len(roots))
    probs = [0.0] * cfg.n_classes
    entropy = 0.0
    for root in roots:
        leaf = find_leaf(root, x)
        h = 0.0
        for k in range(cfg.n_classes):
            pk = class_probability(leaf.stats, cfg, k)
            probs[k] = probs[k] + pk
            h = h - pk * math.log(pk)
        entropy = entropy + h
    for k in range(cfg.n_classes):
        probs[k] = probs[k] / n
    return probs, entropy / n

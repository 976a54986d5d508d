"""The SGT exercises accept a solution written from the paper and catch a wrong one.

Each solution below is an independent re-implementation of one formula, written from
[GPF19] and the specification's operation order (as a student would, from the skeleton's
docstring), not by calling :mod:`reference.sgt`. The checker must accept it on both routes
(the cases, and the function plugged into the reference model beside ``fast``); the first
registered mistake must make the plugged model diverge from ``fast`` at a definite step,
and plugging must leave the ``fast`` model itself untouched.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from typing import Any

import pytest

from reference.exercises.checker import plugged
from reference.exercises.sgt import EXERCISES
from tests.exercises._routes import (
    assert_first_mistake_is_named_and_diverges,
    assert_solution_passes,
)

EPS = sys.float_info.min
BY_NAME = {ex.name: ex for ex in EXERCISES}


def squared_error_gradient_hessian(y: float, raw: float) -> tuple[float, float]:
    # l = (f - y)²/2: dl/df = f - y, d²l/df² = 1 [GPF19, Eq. 24-25]
    return raw - y, 1.0


def logistic_gradient_hessian(y: float, raw: float) -> tuple[float, float]:
    # ŷ = σ(f) once; dl/df = ŷ - y, d²l/df² = ŷ(1 - ŷ) [GPF19, Eq. 28-29]
    if raw < 0.0:
        z = math.exp(raw)
        p = z / (1.0 + z)
    else:
        p = 1.0 / (1.0 + math.exp(-raw))
    return p - y, p * (1.0 - p)


def softmax_gradients(raws: list[float], label: int) -> tuple[list[float], list[float]]:
    # k - 1 trees plus the fixed f_k = 0; diagonal Newton terms [GPF19, Eq. 19-22]
    scores = [*raws, 0.0]
    shift = max(scores)
    weights = [math.exp(s - shift) for s in scores]
    norm = 0.0
    for w in weights:
        norm += w
    probs = [w / norm for w in weights]
    g = [probs[c] - float(c == label) for c in range(len(raws))]
    h = [probs[c] * (1.0 - probs[c]) for c in range(len(raws))]
    return g, h


def pseudo_huber_gradient_hessian(y: float, raw: float) -> tuple[float, float]:
    # l = √(1 + r²) - 1: g = r/√q, h = (√q - r²/√q)/q = 1/(q√q) with q = 1 + r²
    r = raw - y
    q = r * r + 1.0
    s = math.sqrt(q)
    return r / s, 1.0 / (s * q)


def merge_cells(a: list[float], b: list[float]) -> list[float]:
    # pooled centred sums: own spreads plus the spread of the two means [SGT-SPEC §4.3]
    if not a[0] or not b[0]:
        return list(b if not a[0] else a)
    na, nb = int(a[0]), int(b[0])
    n = na + nb
    dg = b[1] / nb - a[1] / na
    dh = b[2] / nb - a[2] / na
    w = float(na) * float(nb) / float(n)
    return [n, a[1] + b[1], a[2] + b[2], a[3] + b[3] + dg * dg * w,
            a[4] + b[4] + dh * dh * w, a[5] + b[5] + dg * dh * w]


def welford_add(cell: list[float], g: float, h: float) -> list[float]:
    # Welford's co-moment update [SGT-SPEC §4.2]
    n, sg, sh, mg, mh, c = cell
    old_g = sg / n if n else 0.0
    old_h = sh / n if n else 0.0
    n, sg, sh = int(n) + 1, sg + g, sh + h
    new_g, new_h = sg / n, sh / n
    return [n, sg, sh, mg + (g - old_g) * (g - new_g), mh + (h - old_h) * (h - new_h),
            c + (g - old_g) * (h - new_h)]


def newton_step(n: int, sum_g: float, sum_h: float, lam: float) -> float:
    # per-instance Newton step -ḡ/(h̄ + λ + ε) [GPF19, Eq. 13; SGT-SPEC §7.1]
    g_bar, h_bar = (sum_g / n, sum_h / n) if n else (0.0, 0.0)
    return -g_bar / (h_bar + lam + EPS)


def loss_change_moments(delta: float, n: int, sum_g: float, sum_h: float, m_g: float,
                        m_h: float, c: float) -> tuple[float, float]:
    # L = gΔ + hΔ²/2 with Δ fixed: mean and Var(aG + bH), a = Δ, b = Δ²/2, grouped
    # differently from the reference (the tolerance is relative 1e-12)
    g_bar = sum_g / n if n else 0.0
    h_bar = sum_h / n if n else 0.0
    var_g, var_h, cov = (m_g / (n - 1), m_h / (n - 1), c / (n - 1)) if n > 1 else (0.0,) * 3
    a, b = delta, delta ** 2 / 2
    mean = a * g_bar + b * h_bar
    variance = a ** 2 * var_g + b ** 2 * var_h + 2 * a * b * cov
    return mean, max(0.0, variance)


def split_gain(children: list[list[float]], lam: float) -> tuple[float, float]:
    # every child's (n_j, m_j, s_j²), then the pooled sample of [SGT-SPEC §7.3]
    parts = []
    for child in children:
        n_j = int(child[0])
        if n_j == 0:
            continue
        delta = newton_step(n_j, child[1], child[2], lam)
        parts.append((n_j, *loss_change_moments(delta, *child)))
    n = sum(p[0] for p in parts)
    mean = sum(n_j / n * m_j for n_j, m_j, _ in parts)
    if n < 2:
        return mean, 0.0
    squares = sum((n_j - 1) * s2_j + n_j * (m_j - mean) ** 2 for n_j, m_j, s2_j in parts)
    return mean, squares / (n - 1)


def t_test_p_value(mean: float, variance: float, n: int,
                   betainc: Callable[[float, float, float], float]) -> float:
    # P(|T_{n-1}| >= |t|) = I_{ν/(ν + t²)}(ν/2, 1/2) [GPF19, Eq. 16; SGT-SPEC §8]
    if n < 2 or math.isnan(mean) or math.isinf(mean) or math.isnan(variance) \
            or math.isinf(variance):
        return 1.0
    if variance == 0.0:
        return 0.0 if mean < 0.0 else 1.0
    f = n * mean * mean / variance
    nu = n - 1.0
    return betainc(nu / 2.0, 0.5, nu / (nu + f))


def bin_index(x: float, lo: float, hi: float, bins: int) -> int:
    # ⌊B (x - min)/(max - min)⌋ clipped to [0, B - 1] [SGT-SPEC §5.6]
    if hi <= lo:
        return 0
    position = bins * (x - lo) / (hi - lo)
    if math.isnan(position) or position < 0.0:
        return 0
    return min(bins - 1, math.floor(position)) if position < bins else bins - 1


SOLUTIONS: dict[str, Callable[..., Any]] = {
    "sgt-squared-error-gradient": squared_error_gradient_hessian,
    "sgt-logistic-gradient": logistic_gradient_hessian,
    "sgt-softmax-gradients": softmax_gradients,
    "sgt-pseudo-huber-gradient": pseudo_huber_gradient_hessian,
    "sgt-leaf-statistics": welford_add,
    "sgt-merge-cells": merge_cells,
    "sgt-newton-step": newton_step,
    "sgt-loss-change-moments": loss_change_moments,
    "sgt-split-gain": split_gain,
    "sgt-split-test": t_test_p_value,
    "sgt-bin-index": bin_index,
}


def test_every_sgt_exercise_has_an_independent_solution_here() -> None:
    assert set(SOLUTIONS) == set(BY_NAME)
    assert len(EXERCISES) >= 6


@pytest.mark.parametrize("name", sorted(SOLUTIONS))
def test_independent_solution_passes_both_routes(name: str) -> None:
    assert_solution_passes(BY_NAME[name], SOLUTIONS[name])


@pytest.mark.parametrize("name", sorted(SOLUTIONS))
def test_first_mistake_diverges_inside_the_model(name: str) -> None:
    assert_first_mistake_is_named_and_diverges(BY_NAME[name])


def _fast_snapshots(exercise: Any, steps: int) -> list[Any]:
    import fast

    stream = exercise.stream
    model = getattr(fast, stream.model)(**dict(stream.params))
    X, y = stream.data()
    out = []
    for x, target in list(zip(X, y, strict=True))[:steps]:
        model.learn_one(x, target)
        out.append(model.snapshot())
    return out


@pytest.mark.parametrize("name", ["sgt-squared-error-gradient", "sgt-softmax-gradients",
                                  "sgt-pseudo-huber-gradient", "sgt-leaf-statistics",
                                  "sgt-bin-index"])
def test_plugging_a_wrong_formula_leaves_the_fast_model_alone(name: str) -> None:
    exercise = BY_NAME[name]
    before = _fast_snapshots(exercise, 80)
    with plugged(exercise.plugs, exercise.mistakes[0].function):
        during = _fast_snapshots(exercise, 80)
    assert during == before


def test_split_gain_solution_agrees_with_a_brute_force_pool() -> None:
    # the pooled moments are the sample moments of every instance's loss change
    pairs = [[(-1.0, 1.0), (-2.0, 1.0), (0.5, 1.0)], [(1.5, 0.25), (0.5, 0.2)]]
    children = []
    losses = []
    for child in pairs:
        cell: list[float] = [0, 0.0, 0.0, 0.0, 0.0, 0.0]
        for g, h in child:
            cell = welford_add(cell, g, h)
        children.append(cell)
        delta = newton_step(int(cell[0]), cell[1], cell[2], 0.1)
        losses += [g * delta + 0.5 * h * delta * delta for g, h in child]
    mean, variance = split_gain(children, 0.1)
    direct_mean = sum(losses) / len(losses)
    direct_var = sum((v - direct_mean) ** 2 for v in losses) / (len(losses) - 1)
    assert mean == pytest.approx(direct_mean, rel=1e-12)
    assert variance == pytest.approx(direct_var, rel=1e-12)

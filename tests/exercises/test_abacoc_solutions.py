"""The ABACOC exercises accept a solution written from the paper and catch a wrong one.

Each solution below is an independent re-implementation of one rule, written from [DOC15]
and the specification's floating-point rules ([ABACOC-SPEC §11]), not by calling
:mod:`reference.abacoc`: the nearest ball by a (squared distance, id) key, the FIX draw by
bisecting the cumulative weights. The checker must accept each on both routes; the first
registered mistake must make the plugged reference model diverge from ``fast`` at a
definite step, and plugging must leave the ``fast`` model itself untouched.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable
from itertools import accumulate
from typing import Any

import pytest

from reference.exercises.abacoc import EXERCISES, Below
from reference.exercises.checker import plugged
from tests.exercises._routes import (
    assert_first_mistake_is_named_and_diverges,
    assert_solution_passes,
)

BY_NAME = {ex.name: ex for ex in EXERCISES}


def nearest_ball(x: list[float], centres: list[list[float]],
                 ids: list[int]) -> tuple[int, float]:
    # argmin of (squared distance, id), the sum taken left to right [ABACOC-SPEC T1]
    if not centres:
        return -1, math.inf
    keys = []
    for slot, centre in enumerate(centres):
        total = 0.0
        for xj, cj in zip(x, centre, strict=True):
            total += (xj - cj) * (xj - cj)
        keys.append((total, ids[slot], slot))
    raw, _, slot = min(keys)
    return slot, math.sqrt(raw)


def randomized_probability(n1: int, n: int) -> float:
    # Laplace estimate, band half-width, clipped linear vote [DOC15, Alg. 2]
    q = (n1 + 1) / (n + 2)
    gamma = 1 / (2 * math.sqrt(n + 2))
    return min(1.0, max(0.0, 0.5 + (q - 0.5) / (2 * gamma)))


def move_center(center: list[float], x: list[float], u: int) -> tuple[int, list[float]]:
    # running mean of the absorbed points: c + (x - c)/u with the new u [DOC15, Alg. 3-4]
    u += 1
    return u, [c + (xj - c) / u for c, xj in zip(center, x, strict=True)]


def shrink_radius(R: float, eps: float, m: int, d: float) -> tuple[int, float]:
    # ε = R m^(-1/(2+d)) with the mistake counted first [DOC15, Alg. 4]
    m += 1
    return m, R * m ** (-1 / (2 + d))


def fix_victim(mistakes: list[int], below: Callable[[int], int]) -> int:
    # P(v = i) ∝ m_i + 1, drawn with one below(W) and the cumulative weights [DOC15, Eq. 1]
    cumulative = list(accumulate(m + 1 for m in mistakes))
    return bisect_right(cumulative, below(cumulative[-1]))


SOLUTIONS: dict[str, Callable[..., Any]] = {
    "ab-nearest-ball": nearest_ball,
    "ab-randomized-vote": randomized_probability,
    "ab-centre-update": move_center,
    "ab-radius-law": shrink_radius,
    "ab-fix-deletion": fix_victim,
}


def test_every_abacoc_exercise_has_an_independent_solution_here() -> None:
    assert set(SOLUTIONS) == set(BY_NAME)
    assert len(EXERCISES) >= 4


@pytest.mark.parametrize("name", sorted(SOLUTIONS))
def test_independent_solution_passes_both_routes(name: str) -> None:
    assert_solution_passes(BY_NAME[name], SOLUTIONS[name])


@pytest.mark.parametrize("name", sorted(SOLUTIONS))
def test_first_mistake_diverges_inside_the_model(name: str) -> None:
    assert_first_mistake_is_named_and_diverges(BY_NAME[name])


@pytest.mark.parametrize("name", sorted(SOLUTIONS))
def test_plugging_a_wrong_rule_leaves_the_fast_model_alone(name: str) -> None:
    import fast

    exercise = BY_NAME[name]
    stream = exercise.stream
    X, y = stream.data()

    def run() -> list[Any]:
        model = getattr(fast, stream.model)(**dict(stream.params))
        out = []
        for x, label in zip(X, y, strict=True):
            out.append(model.predict_one(x))
            model.learn_one(x, label)
            out.append(model.snapshot())
        return out

    before = run()
    with plugged(exercise.plugs, exercise.mistakes[0].function):
        during = run()
    assert during == before


def test_nearest_ball_cases_hold_a_tie_only_the_squared_sums_break() -> None:
    # the case behind the "compares rho" mistake: equal roots, different squared sums
    case = next(c for c in BY_NAME["ab-nearest-ball"].cases() if "one ulp" in c.label)
    x, centres, ids = case.args
    raws = [sum((a - b) ** 2 for a, b in zip(x, c, strict=True)) for c in centres]
    assert raws[0] != raws[1] and math.sqrt(raws[0]) == math.sqrt(raws[1])
    assert nearest_ball(x, centres, ids)[0] == raws.index(min(raws))


def test_below_stand_in_is_a_pure_uniform_draw() -> None:
    draw = Below(9)
    assert [draw(7) for _ in range(3)] == [draw(7)] * 3
    assert all(0 <= draw(n) < n for n in range(1, 200))
    assert len({Below(s)(1000) for s in range(50)}) > 40
    with pytest.raises(ValueError):
        draw(0)

"""Oracle: ABACOC's update rules against the paper's algorithm boxes run by hand.

A tiny AUTO-ADJ stream is worked through here from [DOC15, Alg. 4] with the project's
documented choices ([ABACOC-SPEC A12]: the radius stays ``R`` until the first mistake),
and the balls each backend reports are compared with the hand computation: the
initialisation radius ``R = ρ(c_1, x_2)``, the online K-means centre step
``c <- c + (x - c) / u`` after a correct prediction, and the radius law
``eps = R m^(-1/(2 + d))`` after the ``m``-th mistake. The randomized BASE rule
([DOC15, Alg. 2], Feder-Merhav-Gutman) is checked against ``q = (n1 + 1)/(n + 2)``,
``γ = 1/(2 sqrt(n + 2))``, ``p = clip(1/2 + (q - 1/2)/(2γ), 0, 1)`` written out here.
"""

from __future__ import annotations

import math
from types import ModuleType

import pytest


def test_auto_adj_balls_follow_algorithm_4_by_hand(backend: ModuleType) -> None:
    d = 2.0
    model = backend.ABACOCClassifier(variant="auto_adj", d=d)
    # x1 founds ball 1; x2 (new label, distance 1) founds ball 2 and sets R = eps = 1
    model.learn_one([0.0, 0.0], "a")
    model.learn_one([1.0, 0.0], "b")
    balls = model.balls_
    assert balls["radii"].tolist() == [1.0, 1.0]
    # x3 inside ball 1, predicted "a" correctly: u = 2, c = c + (x - c)/2
    model.learn_one([0.3, 0.0], "a")
    assert model.balls_["centers"][0].tolist() == [0.15, 0.0]
    # x4 inside ball 1, mistake 1: eps = R * 1^(-1/(2+d)) = R (no shrink; A12: the radius
    # stays R until the first mistake)
    model.learn_one([0.2, 0.0], "b")
    assert model.balls_["radii"][0] == 1.0
    assert model.balls_["mistakes"][0] == 1
    # x5 inside ball 1, counts a=2, b=1 so the majority "a" is wrong again: mistake 2
    model.learn_one([0.1, 0.1], "b")
    assert model.balls_["mistakes"][0] == 2
    assert model.balls_["radii"][0] == pytest.approx(2.0 ** (-1.0 / (2.0 + d)), rel=1e-15)
    # the centre moved only on the correct prediction; counts a=2 (x1, x3), b=2 (x4, x5)
    assert model.balls_["centers"][0].tolist() == [0.15, 0.0]
    assert model.balls_["counts"][0].tolist() == [2, 2]


def _by_hand(n1: int, n: int) -> float:
    q = (n1 + 1.0) / (n + 2.0)
    gamma = 1.0 / (2.0 * math.sqrt(n + 2.0))
    return min(1.0, max(0.0, 0.5 + (q - 0.5) / (2.0 * gamma)))


@pytest.mark.parametrize(("n1", "n"), [(0, 0), (1, 1), (0, 1), (2, 3), (5, 9), (1, 10),
                                       (40, 50), (3, 30)])
def test_randomized_base_probability_is_algorithm_2(backend: ModuleType, n1: int,
                                                    n: int) -> None:
    if backend.__name__ == "reference":
        from reference.abacoc.balls import randomized_probability

        value = randomized_probability(n1, n)
    else:
        from fast._ffi import lib

        value = lib.ab_randomized_probability(n1, n)
    assert value == pytest.approx(_by_hand(n1, n), rel=1e-15, abs=1e-15)


def test_centre_step_divides_by_the_correct_prediction_count(backend: ModuleType) -> None:
    """``c <- c + (x - c)/u`` with ``u`` = 1 + correct predictions of the ball, not its
    point count (5) nor its count of the label (3): after three mistakes and one correct
    prediction ``u = 2`` ([DOC15, Alg. 4 ADJ]), worked by hand."""
    model = backend.ABACOCClassifier(variant="auto_adj", d=2.0)
    model.learn_one([0.0, 0.0], "a")   # founds ball 1
    model.learn_one([1.0, 0.0], "b")   # founds ball 2; R = eps = 1
    model.learn_one([0.2, 0.0], "b")   # ball 1 says "a": mistake 1 (eps = 1)
    model.learn_one([0.1, 0.0], "b")   # a=1, b=1 tie -> "a": mistake 2 (eps = 2^-1/4)
    model.learn_one([0.05, 0.0], "a")  # a=1, b=2 -> "b": mistake 3 (eps = 3^-1/4 = 0.76)
    assert model.balls_["centers"][0].tolist() == [0.0, 0.0]   # no correct prediction yet
    model.learn_one([0.3, 0.0], "a")   # a=2, b=2 tie -> "a": correct, u = 2
    assert model.balls_["mistakes"][0] == 3
    assert model.balls_["counts"][0].tolist() == [3, 2]
    assert model.balls_["centers"][0].tolist() == [0.15, 0.0]  # 0 + (0.3 - 0) / 2

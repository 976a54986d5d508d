"""Exercise ``dt-move-probabilities``: Stay / prune / grow probabilities (log-sum-exp).

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from reference.dynatree import moves
from reference.exercises.catalog import (
    Case,
    Exercise,
    Mistake,
    Plug,
    Stream,
    Tolerance,
    folder_file,
    folder_hints,
)
from reference.exercises.dynamic_trees._shared import (
    _REAL,
    A_MOVES,
    _regression_data,
)

MOVES_SKELETON = folder_file(__file__, "skeleton.py")


def _moves_reference(l_stay: float, l_prune: float,
                     l_grow: float) -> tuple[float, float, float]:
    if not math.isfinite(l_grow) and not math.isfinite(l_prune):
        return 1.0, 0.0, 0.0
    w_stay, w_prune, w_grow = _REAL["move_weights"](l_stay, l_prune, l_grow)
    z = (w_stay + w_prune) + w_grow
    return w_stay / z, w_prune / z, w_grow / z


_moves_reference.__name__ = "move_probabilities"


NEG_INF = -math.inf


def _moves_cases() -> list[Case]:
    rng = random.Random(20_505)
    cases = [
        Case((-10.0, -10.0, -10.0), "ties: three equal scores"),
        Case((-3.5, NEG_INF, NEG_INF), "neither prune nor grow possible: stay is certain"),
        Case((NEG_INF, NEG_INF, NEG_INF), "no finite score at all: stay is certain"),
        Case((-12.0, NEG_INF, -11.0), "the root leaf: no prune"),
        Case((-12.0, -13.0, NEG_INF), "a leaf too small to grow"),
        Case((NEG_INF, -5.0, -7.0), "an improper stay subtree (score -inf)"),
        Case((0.0, -800.0, -1e4), "scores far apart (exp(-800) underflows)"),
        Case((-1e4, 0.0, -1e4 + 1.0), "scores far apart, prune dominant"),
        Case((-2500.25, -2500.5, -2499.75), "large scores close together"),
        Case((1e-300, 0.0, -1e-300), "tiny differences"),
    ]
    for _ in range(80):
        base = rng.uniform(-3000.0, 50.0)
        scores = [base + rng.gauss(0.0, 3.0) for _ in range(3)]
        if rng.random() < 0.2:
            scores[1] = NEG_INF
        if rng.random() < 0.2:
            scores[2] = NEG_INF
        cases.append(Case(tuple(scores)))
    return cases


def _moves_plug(student: Callable[..., Any]) -> Callable[..., Any]:
    def choose_move(l_stay: float, l_prune: float, l_grow: float, rng: Any) -> int:
        if not math.isfinite(l_grow) and not math.isfinite(l_prune):
            return moves.STAY       # no draw: the order of random draws is not the exercise
        p_stay, p_prune, _ = student(l_stay, l_prune, l_grow)
        u = rng.uniform()
        if u < p_stay:
            return moves.STAY
        if u < p_stay + p_prune:
            return moves.PRUNE
        return moves.GROW
    return choose_move


def _moves_variant(*, normalise: bool = True, order: str = "spg", with_grow: bool = True,
                   minimum: bool = False) -> Callable[..., tuple[float, float, float]]:
    def move_probabilities(l_stay: float, l_prune: float,
                           l_grow: float) -> tuple[float, float, float]:
        if not math.isfinite(l_grow) and not math.isfinite(l_prune):
            return 1.0, 0.0, 0.0
        scores = (l_stay, l_prune, l_grow)
        finite = [s for s in scores if math.isfinite(s)]
        ref = min(finite) if minimum else max(finite)
        try:
            w = [math.exp(s - ref) if math.isfinite(s) else 0.0 for s in scores]
        except OverflowError:
            return 1.0, 0.0, 0.0    # dynaTree's overflow silently forces a stay
        z = (w[0] + w[1]) + (w[2] if with_grow else 0.0)
        p = [v / z for v in w] if normalise else w
        if order == "sgp":
            return p[0], p[2], p[1]
        return p[0], p[1], p[2]
    return move_probabilities


MOVE_PROBABILITIES = Exercise(
    name="dt-move-probabilities",
    title="Stay / prune / grow probabilities (log-sum-exp)",
    family="dynamic_trees",
    tag="[AG13, Eq. 2]; [DT-SPEC §4.4]",
    anchor=A_MOVES,
    function_name="move_probabilities",
    skeleton=MOVES_SKELETON,
    reference=_moves_reference,
    cases=_moves_cases,
    tolerance=Tolerance("rel", 1e-9, why=(
        "exp(L - L_max)/Z and exp(L - logsumexp(L)) are equal up to rounding, but exp "
        "multiplies the rounding of a difference of scores of magnitude |L| by |L|, and "
        "scores reach several thousand")),
    plugs=(Plug("reference.dynatree.moves.choose_move", _moves_plug),),
    stream=Stream("DynamicTreeRegressor", {"n_particles": 10, "seed": 1},
                  _regression_data(1)),
    mistakes=(
        Mistake("not-normalised",
                "These are the weights exp(L_k - L_max); divide by their sum to get "
                "probabilities.",
                A_MOVES, _moves_variant(normalise=False)),
        Mistake("minimum-normalisation",
                "Subtracting the smallest score (as dynaTree does) overflows once two scores "
                "differ by more than about 709 and then forces a stay; subtract the largest "
                "finite score.",
                A_MOVES, _moves_variant(minimum=True)),
        Mistake("grow-prune-swapped",
                "The order of the result is (stay, prune, grow): prune and grow are swapped.",
                A_MOVES, _moves_variant(order="sgp")),
        Mistake("normaliser-without-grow",
                "The normaliser Z sums all three weights, grow included.",
                A_MOVES, _moves_variant(with_grow=False)),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=15,
)



EXERCISE = MOVE_PROBABILITIES

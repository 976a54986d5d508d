"""Exercise ``ab-randomized-vote``: BASE's randomized vote: Laplace estimate and band.

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from reference.exercises.abacoc._shared import (
    _RANDOMIZED_PROBABILITY,
    BASE,
    Fn,
    _jittered_data,
)
from reference.exercises.catalog import (
    EXACT,
    Case,
    Exercise,
    Mistake,
    Plug,
    Stream,
    folder_file,
    folder_hints,
)

VOTE_SKELETON = folder_file(__file__, "skeleton.py")


def randomized_probability(n1: int, n: int) -> float:
    """The reference: :func:`reference.abacoc.balls.randomized_probability`."""
    return _RANDOMIZED_PROBABILITY(n1, n)


def _vote_cases() -> list[Case]:
    rng = random.Random(5005)
    cases = [
        Case((0, 0), "no point: 1/2"),
        Case((1, 1), "one point of label 1"),
        Case((0, 1), "one point of label 0"),
        Case((3, 6), "balanced ball"),
        Case((10, 10), "pure ball: clipped to 1"),
        Case((0, 10), "pure ball of label 0: clipped to 0"),
        Case((500_000, 1_000_000), "huge balanced ball"),
        Case((500_500, 1_000_000), "huge ball, just inside the band"),
    ]
    for i in range(60):
        n = rng.choice([rng.randint(0, 10), rng.randint(0, 200), rng.randint(0, 20000)])
        share = rng.random()
        n1 = int(share * n + rng.gauss(0.0, 0.5 * math.sqrt(n)))
        cases.append(Case((min(n, max(0, n1)), n), f"random {i}"))
    return cases


def _vote_plugs() -> tuple[Plug, ...]:
    def adapt(student: Fn) -> Fn:
        def plugged(n1: int, n: int) -> float:
            return float(student(int(n1), int(n)))
        return plugged
    return (Plug("reference.abacoc.balls.randomized_probability", adapt),)


def _vote_mistake(laplace: Callable[[int, int], float] = lambda n1, n: (n1 + 1) / (n + 2),
                  band: Callable[[int], float] = lambda n: 1.0 / (2.0 * math.sqrt(n + 2.0)),
                  clip: bool = True) -> Fn:
    def wrong(n1: int, n: int) -> float:
        p = 0.5 + (laplace(n1, n) - 0.5) / (2.0 * band(n))
        if clip:
            p = min(1.0, max(0.0, p))
        return p
    return wrong


def _vote_simplified(n1: int, n: int) -> float:
    q = (n1 + 1) / (n + 2)
    return min(1.0, max(0.0, 0.5 + (q - 0.5) * math.sqrt(n + 2)))


VOTE = Exercise(
    name="ab-randomized-vote",
    title="BASE's randomized vote: Laplace estimate and band",
    family="abacoc",
    tag="[DOC15, Alg. 2]; [ABACOC-SPEC §4]",
    anchor=BASE,
    function_name="randomized_probability",
    skeleton=VOTE_SKELETON,
    reference=randomized_probability,
    cases=_vote_cases,
    tolerance=EXACT,
    plugs=_vote_plugs(),
    stream=Stream("ABACOCClassifier", {"variant": "base", "seed": 8},
                  lambda: _jittered_data(23)),
    mistakes=(
        Mistake(
            "vote-laplace",
            "Your Laplace estimate divides by n + 3: adding one pseudo-point of each label "
            "gives (n1 + 1)/(n + 2).",
            BASE,
            _vote_mistake(laplace=lambda n1, n: (n1 + 1) / (n + 3)),
            mutant="ab-laplace",
        ),
        Mistake(
            "vote-band-width",
            "Your band half-width is 1/(2√(n + 1)): it is 1/(2√(n + 2)), the same n + 2 as "
            "the Laplace estimate.",
            BASE,
            _vote_mistake(band=lambda n: 1.0 / (2.0 * math.sqrt(n + 1.0))),
            mutant="ab-band-width",
        ),
        Mistake(
            "vote-frequency",
            "You used the raw frequency n1/n: the rule uses the Laplace estimate "
            "(n1 + 1)/(n + 2), defined for an empty ball too.",
            BASE,
            _vote_mistake(laplace=lambda n1, n: n1 / n if n else 0.5),
        ),
        Mistake(
            "vote-simplified-band",
            "(q - 1/2)·√(n + 2) equals (q - 1/2)/(2γ) in real arithmetic but not in floating "
            "point: compute γ and divide by 2γ, as the specification does.",
            BASE,
            _vote_simplified,
        ),
        Mistake(
            "vote-no-clip",
            "Your probability leaves [0, 1]: outside the band the vote is certain, "
            "p = min(1, max(0, ...)).",
            BASE,
            _vote_mistake(clip=False),
        ),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=10,
)



EXERCISE = VOTE

"""Exercise ``ab-centre-update``: The ADJ centre update: an online K-means step.

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from reference.abacoc import balls as _balls
from reference.exercises.abacoc._shared import (
    _MOVE_CENTER,
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

CENTRE_SKELETON = folder_file(__file__, "skeleton.py")


def move_center(center: list[float], x: list[float], u: int) -> tuple[int, list[float]]:
    """The reference: :func:`reference.abacoc.balls.move_center` on a copy of the ball."""
    ball = _balls.Ball(0, list(center), 0, 0.0)
    ball.u = int(u)
    _MOVE_CENTER(ball, list(x))
    return ball.u, ball.center


def _centre_cases() -> list[Case]:
    rng = random.Random(3003)
    cases = [
        Case(([0.0, 0.0], [1.0, 2.0], 1), "first move: half way"),
        Case(([1.0, 1.0], [1.0, 1.0], 4), "x on the centre"),
        Case(([0.5], [-0.5], 99), "a late move: a small step"),
        Case(([1e300, -1e300], [-1e300, 1e300], 1), "huge coordinates"),
        Case(([1e-300, 0.0], [3e-300, 1e-310], 2), "tiny coordinates"),
    ]
    for i in range(60):
        dim = rng.randint(1, 5)
        centre = [rng.gauss(0.0, 2.0) for _ in range(dim)]
        x = [rng.gauss(0.0, 2.0) for _ in range(dim)]
        cases.append(Case((centre, x, rng.randint(1, 300)), f"random {i}"))
    return cases


def _centre_plugs() -> tuple[Plug, ...]:
    def adapt(student: Fn) -> Fn:
        def plugged(ball: Any, x: list[float]) -> None:
            u, centre = student(list(ball.center), list(x), int(ball.u))
            ball.u = int(u)
            ball.center[:] = [float(v) for v in centre]
        return plugged
    return (Plug("reference.abacoc.balls.move_center", adapt),)


def _centre_mistake(divisor: Callable[[int], int] = lambda u: u + 1, sign: float = 1.0) -> Fn:
    def wrong(center: list[float], x: list[float], u: int) -> tuple[int, list[float]]:
        step = float(divisor(u))
        return u + 1, [c + sign * (xj - c) / step for c, xj in zip(center, x, strict=True)]
    return wrong


def _centre_weighted(center: list[float], x: list[float], u: int) -> tuple[int, list[float]]:
    u += 1
    return u, [((u - 1) * c + xj) / u for c, xj in zip(center, x, strict=True)]


CENTRE = Exercise(
    name="ab-centre-update",
    title="The ADJ centre update: an online K-means step",
    family="abacoc",
    tag="[DOC15, Alg. 3-4]; [ABACOC-SPEC §6]",
    anchor=BASE,
    function_name="move_center",
    skeleton=CENTRE_SKELETON,
    reference=move_center,
    cases=_centre_cases,
    tolerance=EXACT,
    plugs=_centre_plugs(),
    stream=Stream("ABACOCClassifier", {"variant": "auto_adj", "seed": 4},
                  lambda: _jittered_data(17)),
    mistakes=(
        Mistake(
            "centre-old-counter",
            "You divided by the counter before incrementing it: the first move of a new ball "
            "(u = 1) would jump onto x instead of half way.",
            BASE,
            _centre_mistake(divisor=lambda u: u),
        ),
        Mistake(
            "centre-step-u-plus-one",
            "Your step is (x - c)/(u + 1) with the new counter: the running mean of u points "
            "moves by (x - c)/u.",
            BASE,
            _centre_mistake(divisor=lambda u: u + 2),
            mutant="ab-centre-step",
        ),
        Mistake(
            "centre-moves-away",
            "Your centre moves away from the point: c + (x - c)/u moves towards x.",
            BASE,
            _centre_mistake(sign=-1.0),
        ),
        Mistake(
            "centre-weighted-mean",
            "((u - 1) c + x)/u is the same mean in real arithmetic but not in floating point: "
            "the specification prescribes the incremental form c + (x - c)/u.",
            BASE,
            _centre_weighted,
        ),
        Mistake(
            "centre-fixed-half",
            "You always move half way: the step shrinks as 1/u, so the centre is the mean of "
            "all the points absorbed, not an exponential average.",
            BASE,
            _centre_mistake(divisor=lambda u: 2),
        ),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=10,
)



EXERCISE = CENTRE

"""Exercise ``ab-radius-law``: AUTO's radius law: a ball shrinks with its own mistakes.

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from reference.abacoc import balls as _balls
from reference.exercises.abacoc._shared import (
    _SHRINK_RADIUS,
    AUTO,
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

RADIUS_SKELETON = folder_file(__file__, "skeleton.py")


def shrink_radius(R: float, eps: float, m: int, d: float) -> tuple[int, float]:
    """The reference: :func:`reference.abacoc.balls.shrink_radius` on a ball."""
    ball = _balls.Ball(0, [0.0], 0, R)
    ball.eps, ball.m = eps, int(m)
    _SHRINK_RADIUS(ball, d)
    return ball.m, ball.eps


def _radius_cases() -> list[Case]:
    rng = random.Random(2002)
    cases = [
        Case((1.0, 1.0, 0, 2.0), "first mistake: the radius stays R"),
        Case((1.0, 1.0, 1, 2.0), "second mistake"),
        Case((2.0, 1.0, 15, 2.0), "16th mistake with d = 2: the radius halves"),
        Case((0.5, 0.1, 999, 2.0), "many mistakes"),
        Case((3.0, 3.0, 0, 0.5), "small d"),
        Case((1e-300, 1e-300, 5, 2.0), "tiny radius"),
        Case((1e300, 1e300, 5, 2.0), "huge radius"),
    ]
    for i in range(60):
        R = math.exp(rng.uniform(-5.0, 5.0))
        m = rng.randint(0, 200)
        d = rng.choice([2.0, 1.0, 3.0, rng.uniform(0.1, 10.0)])
        eps = R * math.pow(max(m, 1), -1.0 / (2.0 + d))
        cases.append(Case((R, eps, m, d), f"random {i}"))
    return cases


def _radius_plugs() -> tuple[Plug, ...]:
    def adapt(student: Fn) -> Fn:
        def plugged(ball: Any, d: float) -> None:
            m, eps = student(float(ball.R), float(ball.eps), int(ball.m), float(d))
            ball.m, ball.eps = int(m), float(eps)
        return plugged
    return (Plug("reference.abacoc.balls.shrink_radius", adapt),)


def _radius_mistake(exponent: Callable[[float], float] = lambda d: -1.0 / (2.0 + d),
                    old_count: bool = False, compound: bool = False) -> Fn:
    def wrong(R: float, eps: float, m: int, d: float) -> tuple[int, float]:
        new_m = m + 1
        count = max(m, 1) if old_count else new_m
        base = eps if compound else R
        return new_m, base * math.pow(float(count), exponent(d))
    return wrong


def _radius_divided(R: float, eps: float, m: int, d: float) -> tuple[int, float]:
    return m + 1, R / math.pow(float(m + 1), 1.0 / (2.0 + d))


RADIUS = Exercise(
    name="ab-radius-law",
    title="AUTO's radius law: a ball shrinks with its own mistakes",
    family="abacoc",
    tag="[DOC15, Alg. 4]; [ABACOC-SPEC §6]",
    anchor=AUTO,
    function_name="shrink_radius",
    skeleton=RADIUS_SKELETON,
    reference=shrink_radius,
    cases=_radius_cases,
    tolerance=EXACT,
    plugs=_radius_plugs(),
    stream=Stream("ABACOCClassifier", {"variant": "auto", "seed": 3},
                  lambda: _jittered_data(13)),
    mistakes=(
        Mistake(
            "radius-compounds",
            "You shrink the current radius ε: the law starts from the initial radius R every "
            "time, ε = R m^(-1/(2+d)), so it does not compound.",
            AUTO,
            _radius_mistake(compound=True),
        ),
        Mistake(
            "radius-exponent-1-plus-d",
            "Your exponent is -1/(1 + d): the radius law is m^(-1/(2 + d)).",
            AUTO,
            _radius_mistake(exponent=lambda d: -1.0 / (1.0 + d)),
            mutant="ab-radius-exponent",
        ),
        Mistake(
            "radius-old-count",
            "You used the count before the mistake: count it first, then shrink with the new m.",
            AUTO,
            _radius_mistake(old_count=True),
        ),
        Mistake(
            "radius-divides-by-root",
            "R / m^(1/(2+d)) is the same radius in real arithmetic but not in floating point: "
            "the specification prescribes R * pow(m, -1/(2+d)), which both backends compute.",
            AUTO,
            _radius_divided,
        ),
        Mistake(
            "radius-exponent-sign",
            "Your radius grows with the mistakes: the exponent is negative, -1/(2 + d).",
            AUTO,
            _radius_mistake(exponent=lambda d: 1.0 / (2.0 + d)),
        ),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=10,
)



EXERCISE = RADIUS

"""An instructor's own exercise: the running mean, updated one point at a time.

This folder is the worked example of the teaching page ("Writing your own exercise"):
``driftwood exercise list --catalog docs/teaching/instructor-exercises`` lists it beside
the package's exercises, and ``start``, ``check``, ``hint`` and ``grade`` take the same
option.
"""

from __future__ import annotations

import random

from reference.exercises.catalog import (
    Case,
    Exercise,
    Mistake,
    Tolerance,
    folder_file,
    folder_hints,
)

ANCHOR = "teaching.md#writing-your-own-exercise"


def running_mean(mean: float, n: int, x: float) -> float:
    """The answer: the mean of n points and one more, ``mean + (x - mean) / (n + 1)``."""
    return mean + (x - mean) / (n + 1)


def cases() -> list[Case]:
    """Edge cases first (the first point, a point at the mean, huge values), then 60
    seeded random ones: the same list on every call."""
    rng = random.Random(2024)
    found = [
        Case((0.0, 0, 3.0), "first point"),
        Case((2.5, 4, 2.5), "a point at the mean"),
        Case((1e308, 3, 1e308), "huge values"),
    ]
    found += [Case((rng.uniform(-5, 5), rng.randrange(1, 1000), rng.uniform(-5, 5)))
              for _ in range(60)]
    return found


def divides_by_n(mean: float, n: int, x: float) -> float:
    """A typical slip: the count before the new point."""
    return mean + (x - mean) / max(n, 1)


def sums_then_divides(mean: float, n: int, x: float) -> float:
    """Right on paper, wrong on huge values: ``mean * n + x`` overflows first."""
    return (mean * n + x) / (n + 1)


EXERCISE = Exercise(
    name="course-running-mean",
    title="the running mean, one point at a time",
    family="course",
    tag="[Welford 1962]",
    anchor=ANCHOR,
    function_name="running_mean",
    skeleton=folder_file(__file__, "skeleton.py"),
    reference=running_mean,
    cases=cases,
    tolerance=Tolerance("rel", 1e-12, "a student may order the operations differently"),
    mistakes=(
        Mistake("course-divides-by-n", "The update divides by n, the count before the new "
                "point; the new mean counts n + 1 points.", ANCHOR, divides_by_n),
        Mistake("course-sum-overflows", "Multiplying the mean back into a sum overflows for "
                "huge values; update the mean by its difference to x instead.", ANCHOR,
                sums_then_divides),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=5,
)

"""Helpers shared by the abacoc exercises.

Moved from the family module when it was split into one folder per exercise."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from reference.abacoc import balls as _balls
from reference.abacoc import variants as _variants

TUTORIAL = "tutorials/04_abacoc.md"


BASE = f"{TUTORIAL}#base-one-shrinking-radius-and-a-randomized-vote"


AUTO = f"{TUTORIAL}#auto-a-radius-per-ball-shrinking-with-its-own-mistakes"


BUDGET = f"{TUTORIAL}#the-budget-rule-auto-adj-fix"


Fn = Callable[..., Any]


_SHRINK_RADIUS = _balls.shrink_radius


_MOVE_CENTER = _balls.move_center


_FIX_VICTIM = _variants.fix_victim


_RANDOMIZED_PROBABILITY = _balls.randomized_probability


def _jittered_data(seed: int, n: int = 200) -> tuple[list[list[float]], list[int]]:
    """``n`` points in the square [0, 6]², labelled by a circle, 15 % of the labels flipped."""
    rng = random.Random(seed)
    rows, labels = [], []
    for _ in range(n):
        x = [rng.uniform(0.0, 6.0), rng.uniform(0.0, 6.0)]
        inside = (x[0] - 3.0) ** 2 + (x[1] - 3.0) ** 2 <= 5.0
        rows.append(x)
        labels.append(int(inside != (rng.random() < 0.15)))
    return rows, labels


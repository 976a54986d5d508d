"""Nearest-ball search, the plain version: the distance rho and an exhaustive scan.

ABACOC classifies by nearest neighbour over the ball *centres* [DOC15, Sec. III]: the
ball minimising the computed distance sum, ties going to the smallest ball id (tie rule
T1 [ABACOC-SPEC T1], [ABACOC-SPEC §11]). The acceleration structure that returns the same
ball faster, a loose kd-tree, is in :mod:`reference.abacoc.kdtree`.

C twin: ``csrc/abacoc/search.c``.

Notation
--------
``raw``   the distance sum before the final root: sum of ``d*d`` (Euclidean), of
          ``|d|`` (Manhattan) or of ``|d|**p`` (Minkowski); comparisons use ``raw``.
``rho``   the distance itself, ``sqrt(raw)``, ``raw`` or ``raw**(1/p)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from reference.abacoc.balls import Ball
from reference.abacoc.params import METRIC_EUCLIDEAN, METRIC_MANHATTAN

__all__ = [
    "pow_or_inf",
    "distance_term",
    "raw_distance",
    "rho",
    "better",
    "scan_nearest",
    "INF",
]

INF = math.inf


def pow_or_inf(base: float, exponent: float) -> float:
    """``math.pow`` that returns inf on overflow, like C's ``pow`` ([DET-SPEC §2])."""
    try:
        return math.pow(base, exponent)
    except OverflowError:
        return INF


def distance_term(diff: float, metric: int, p: float) -> float:
    """One coordinate's contribution to ``raw``: ``diff*diff``, ``|diff|`` or ``|diff|**p``."""
    if metric == METRIC_EUCLIDEAN:
        return diff * diff
    if metric == METRIC_MANHATTAN:
        return abs(diff)
    return pow_or_inf(abs(diff), p)


def raw_distance(x: Sequence[float], center: Sequence[float], metric: int, p: float) -> float:
    """The distance sum between ``x`` and a centre, accumulated left to right
    ([ABACOC-SPEC §11])."""
    total = 0.0
    for j in range(len(center)):
        total += distance_term(x[j] - center[j], metric, p)
    return total


def rho(raw: float, metric: int, p: float) -> float:
    """The distance rho(x, c) from its sum ``raw``: ``sqrt``, identity or ``raw**(1/p)``."""
    if metric == METRIC_EUCLIDEAN:
        return math.sqrt(raw)
    if metric == METRIC_MANHATTAN:
        return raw
    return pow_or_inf(raw, 1.0 / p)


def better(raw: float, ball_id: int, best_raw: float, best_id: int) -> bool:
    """Tie rule T1 [ABACOC-SPEC T1]: smaller distance sum wins, then the smaller ball id (``best_id
    = -1``: none)."""
    if best_id < 0:
        return True
    return raw < best_raw or (raw == best_raw and ball_id < best_id)


def scan_nearest(
    balls: Sequence[Ball], x: Sequence[float], metric: int, p: float
) -> tuple[int, float]:
    """Exhaustive nearest centre: ``(slot, raw)``, ``(-1, inf)`` for no ball.

    Walks the slots in order; the result does not depend on the order (tie rule T1
    [ABACOC-SPEC T1]).
    """
    best_slot = -1
    best_raw = INF
    best_id = -1
    for slot in range(len(balls)):
        ball = balls[slot]
        raw = raw_distance(x, ball.center, metric, p)
        if better(raw, ball.id, best_raw, best_id):
            best_slot = slot
            best_raw = raw
            best_id = ball.id
    return best_slot, best_raw


def __getattr__(name: str) -> Any:
    """``BallIndex`` and ``LooseKDTree`` lived here before they moved to
    :mod:`reference.abacoc.kdtree`; pickles written then still name this module."""
    if name in ("BallIndex", "LooseKDTree"):
        from reference.abacoc import kdtree

        return getattr(kdtree, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

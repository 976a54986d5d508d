"""The ball record of ABACOC and its local update rules [DOC15, Alg. 2-4].

A ball is a centre ``c`` with class counts ``n(k)``; the AUTO family adds its own radius
``eps`` (shrinking from the initial radius ``R`` with the mistake count ``m``), and the ADJ
variants a centre-update counter ``u``. Every rule here touches one ball only; the
model-level logic (which ball, when to add or delete) lives in ``variants.py``.
C twin: ``csrc/abacoc/balls.c``.

Notation
--------
``c``      centre, a list of D floats.
``n(k)``   count of training points of class k absorbed by the ball (``counts[k]``).
``u``      centre-update counter, starts at 1 (ADJ variants).
``R``      initial radius; ``eps`` the current radius (AUTO family).
``m``      mistake counter, starts at 0 (AUTO family, FIX weights).
``q``      Laplace estimate of P(y = label_1) in the ball; ``gamma`` the band half-width.
"""

from __future__ import annotations

import math

__all__ = [
    "Ball",
    "add_count",
    "count_of",
    "total_count",
    "majority",
    "move_center",
    "shrink_radius",
    "randomized_probability",
]


class Ball:
    """One ball of the cover: the record of [DOC15] section 2 ([ABACOC-SPEC §2]).

    Parameters
    ----------
    ball_id : int
        Creation index, never reused (nearest-ball ties go to the smallest id, tie rule T1
        [ABACOC-SPEC T1]).
    center : list of float
        The founding point; copied.
    label : int
        Class index of the founding point (``n(label) = 1``).
    radius : float
        Initial radius ``R = eps`` (AUTO family; 0.0 for the BASE family, whose radius is global).
    """

    __slots__ = ("id", "center", "counts", "u", "R", "eps", "m")

    def __init__(self, ball_id: int, center: list[float], label: int, radius: float) -> None:
        self.id = ball_id
        self.center = list(center)
        self.counts: list[int] = []
        add_count(self, label)
        self.u = 1
        self.R = radius
        self.eps = radius
        self.m = 0


def add_count(ball: Ball, k: int) -> None:
    """``n(k) <- n(k) + 1`` [DOC15, Alg. 2 UpdateBall]; the count row widens lazily."""
    while len(ball.counts) <= k:
        ball.counts.append(0)
    ball.counts[k] += 1


def count_of(ball: Ball, k: int) -> int:
    """``n(k)``; a class the ball has never seen counts 0 ([ABACOC-SPEC §10])."""
    if k < len(ball.counts):
        return ball.counts[k]
    return 0


def total_count(ball: Ball) -> int:
    """``n = sum_k n(k)``, the number of points absorbed by the ball."""
    n = 0
    for value in ball.counts:
        n += value
    return n


def majority(ball: Ball) -> int:
    """The majority label ``maj(s)`` of the ball [DOC15, Alg. 3-4 prediction].

    Deviation: ties (not covered by the paper) go to the smallest class index, i.e. the
    label registered first (tie rule T2 [ABACOC-SPEC T2]).
    """
    best = 0
    best_count = -1
    for k in range(len(ball.counts)):
        if ball.counts[k] > best_count:
            best = k
            best_count = ball.counts[k]
    return best


def move_center(ball: Ball, x: list[float]) -> None:
    """Online K-means step ``u <- u + 1; c <- c + (x - c)/u`` [DOC15, Alg. 3-4 ADJ].

    Called only when the ball's prediction for ``x`` was correct, so ``c`` is the running
    mean of the founding point and the correctly classified points absorbed.
    """
    ball.u += 1
    u = float(ball.u)
    center = ball.center
    for j in range(len(center)):
        center[j] = center[j] + (x[j] - center[j]) / u


def shrink_radius(ball: Ball, d: float) -> None:
    """Charge a mistake: ``m <- m + 1; eps <- R * m**(-1/(2+d))`` [DOC15, Alg. 4 UpdateRadius].

    Deviation: with ``m = 0`` the law is undefined; the radius stays ``R`` until the first
    mistake (ambiguity A12 [ABACOC-SPEC A12]), so the first mistake does not shrink the ball.
    """
    ball.m += 1
    exponent = -1.0 / (2.0 + d)
    ball.eps = ball.R * math.pow(float(ball.m), exponent)


def randomized_probability(n1: int, n: int) -> float:
    """Probability of predicting label_1 in a ball with ``n1`` of ``n`` points of label_1.

    [DOC15, Alg. 2 lines 5-8] (Feder-Merhav-Gutman rule): Laplace estimate
    ``q = (n1 + 1)/(n + 2)`` (P1), band half-width ``gamma = 1/(2 sqrt(n + 2))`` (P2),
    [ABACOC-SPEC §4]
    ``p = clip(1/2 + (q - 1/2)/(2 gamma), 0, 1)`` (P3). ``n = n1 = 0`` gives 1/2. [ABACOC-SPEC §4]
    """
    q = float(n1 + 1) / float(n + 2)
    gamma = 1.0 / (2.0 * math.sqrt(float(n + 2)))
    p = 0.5 + (q - 0.5) / (2.0 * gamma)
    if p < 0.0:
        return 0.0
    if p > 1.0:
        return 1.0
    return p

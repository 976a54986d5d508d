"""The ABACOC variants: the template of [DOC15, Alg. 1] with BASE, BASE-ADJ (Alg. 2-3),
AUTO, AUTO-ADJ (Alg. 4) and the FIX budget rule (Sec. VII, Eq. 1).

:class:`CoverState` is the model-level state of [ABACOC-SPEC §2] (balls in slot order,
the creation counter, the BASE phase state, the AUTO initialisation state and the RNG).
The functions below are the variants' prediction and training steps; they see class
*indices* only (the facade in ``model.py`` maps user labels). C twin: ``csrc/abacoc/variants.c``.

Notation
--------
``S``        the live balls (``state.balls``), slot order.
``i, t_i``   BASE phase index and steps in the phase; ``d_i`` the dimension estimate;
             ``eps`` the global radius of the BASE family.
``delta``    rho(x, c_s), the distance to the nearest centre.
``y_hat``    maj(s), the prequential prediction of the deterministic variants.
``B``        the budget of AUTO-ADJ-FIX; ``W = sum_i (m_i + 1)`` the FIX weight total.
"""

from __future__ import annotations

import math

from reference.abacoc.balls import (
    Ball,
    add_count,
    count_of,
    majority,
    move_center,
    randomized_probability,
    shrink_radius,
    total_count,
)
from reference.abacoc.kdtree import BallIndex
from reference.abacoc.params import ABACOCParams
from reference.abacoc.search import pow_or_inf, raw_distance, rho
from reference.rng import Rng

__all__ = [
    "ABSTAIN",
    "Found",
    "CoverState",
    "nearest_ball",
    "fix_victim",
    "base_add_ball",
    "base_learn",
    "auto_add_ball",
    "auto_learn",
    "predict_index",
    "class_distribution",
    "learn",
]

ABSTAIN = -1
"""Class index returned when the model has no ball to predict with (facade: ``None``)."""

Found = tuple[int, float]
"""A nearest-ball search result ``(slot, delta)``, see :func:`nearest_ball`."""


class CoverState:
    """Model-level state of an ABACOC cover ([ABACOC-SPEC §2]).

    Parameters
    ----------
    params : ABACOCParams
        Validated hyper-parameters.
    """

    def __init__(self, params: ABACOCParams) -> None:
        self.params = params
        self.n_features = 0
        self.n_classes = 2 if params.randomized else 0
        self.n_seen = 0
        self.balls: list[Ball] = []
        self.next_id = 0
        # BASE family phase state [DOC15, Alg. 2]: i = 1, t_i = 0, d_1 = 1, eps = 1 (ambiguity A6,
        # [ABACOC-SPEC A6]).
        self.phase = 1
        self.phase_steps = 0
        self.phase_dim = 1.0
        self.radius = 1.0
        # AUTO family initialisation state [DOC15, Alg. 4 InitProcedure].
        self.init_done = False
        self.first_label = ABSTAIN
        self.rng = Rng(int(params.seed))
        self.index = BallIndex(
            params.search, int(params.search_threshold), int(params.leaf_size),
            params.metric_code, float(params.p),
        )

    @property
    def adjusts(self) -> bool:
        """True for the ADJ variants, whose centres move towards correct points."""
        return self.params.variant in ("base_adj", "auto_adj")

    @property
    def is_auto(self) -> bool:
        """True for the AUTO family (per-ball radii)."""
        return self.params.variant in ("auto", "auto_adj")


def nearest_ball(state: CoverState, x: list[float]) -> tuple[int, float]:
    """Slot of the ball whose centre is nearest to ``x`` and ``delta = rho(x, c_s)``.

    Tie rule T1 [ABACOC-SPEC T1]: smallest computed distance, then smallest ball id; ``(-1, inf)``
    if S is empty.
    """
    slot, raw = state.index.nearest(state.balls, x)
    return slot, rho(raw, state.params.metric_code, float(state.params.p))


def _new_ball(state: CoverState, x: list[float], k: int, radius: float) -> Ball:
    ball = Ball(state.next_id, x, k, radius)
    state.next_id += 1
    return ball


def _append_ball(state: CoverState, ball: Ball) -> None:
    state.balls.append(ball)
    state.index.inserted(state.balls, len(state.balls) - 1)


# -- BASE and BASE-ADJ [DOC15, Alg. 2-3] ------------------------------------------------
def base_add_ball(state: CoverState, x: list[float], k: int) -> None:
    """AddBall with the dimension check of [DOC15, Alg. 2 lines 15-18]
    (steps D1-D4 of [ABACOC-SPEC §4]).

    If ``|S| + 1 > C 2^{d_i} eps^{-d_i}``, the estimate becomes
    ``d_{i+1} = log((|S| + 1)/C) / log(2/eps)`` and phase ``i + 1`` starts with S empty
    (every ball discarded, ambiguity A24 [ABACOC-SPEC A24]); then the new ball is inserted.
    """
    size = float(len(state.balls) + 1)
    capacity = state.params.C * pow_or_inf(2.0, state.phase_dim)
    capacity = capacity * pow_or_inf(state.radius, -state.phase_dim)
    if size > capacity:
        state.phase_dim = math.log(size / state.params.C) / math.log(2.0 / state.radius)
        state.balls.clear()
        state.index.cleared()
        state.phase += 1
        state.phase_steps = 0
    _append_ball(state, _new_ball(state, x, k, 0.0))


def base_learn(state: CoverState, x: list[float], k: int, found: Found | None = None) -> None:
    """One training step of BASE / BASE-ADJ [DOC15, Alg. 1-3].

    Inside the nearest ball (``delta <= eps``, tie rule T3 [ABACOC-SPEC T3]) the ball absorbs the
    point; for
    BASE-ADJ a correct majority prediction also moves the centre (U1, with the counter
    [ABACOC-SPEC §5]
    ``u``, ambiguity A10 [ABACOC-SPEC A10]). Outside, a ball is added. Then UpdateRadius:
    ``t_i <- t_i + 1; eps <- t_i^{-1/(2 + d_i)}`` (E1-E2, ambiguity A5 [ABACOC-SPEC A5]). ``found``
    is [ABACOC-SPEC §4]
    the nearest-ball search for ``x`` if the caller already ran it on this state.
    """
    slot, delta = nearest_ball(state, x) if found is None else found
    if slot >= 0 and delta <= state.radius:
        ball = state.balls[slot]
        if state.adjusts and majority(ball) == k:
            move_center(ball, x)
            state.index.moved(state.balls, slot)
        add_count(ball, k)
    else:
        base_add_ball(state, x, k)
    state.phase_steps += 1
    state.radius = pow_or_inf(float(state.phase_steps), -1.0 / (2.0 + state.phase_dim))


# -- AUTO, AUTO-ADJ and FIX [DOC15, Alg. 4, Eq. 1] -------------------------------------
def fix_victim(state: CoverState) -> int:
    """Slot of the ball deleted by the budget rule [DOC15, Eq. 1] (tie rule T5 [ABACOC-SPEC T5]).

    ``P(v = i) = (m_i + 1)/(sum_j m_j + |S|)``, sampled exactly in integers:
    ``r = below(W)`` with ``W = sum_i (m_i + 1)``, then the first slot whose running sum
    of ``m_i + 1`` exceeds ``r``.

    Random draws: one ``below(W)`` from the model generator.
    """
    weight_total = 0
    for ball in state.balls:
        weight_total += ball.m + 1
    r = state.rng.below(weight_total)
    running = 0
    for slot in range(len(state.balls)):
        running += state.balls[slot].m + 1
        if running > r:
            return slot
    raise AssertionError("unreachable: the walk always ends before the last slot")


def auto_add_ball(state: CoverState, x: list[float], k: int, delta: float) -> None:
    """AddBall of the AUTO family: radius ``R = eps = delta`` [DOC15, Alg. 4 line 29].

    With a budget B and ``|S| = B``, a victim drawn by :func:`fix_victim` is removed first
    and the new ball takes its slot (F1-F2, ambiguity A19 [ABACOC-SPEC A19]); ``R`` still comes
    from the [ABACOC-SPEC §7]
    nearest ball before the deletion.

    Random draws: one ``below(W)`` iff the budget is full.
    """
    budget = state.params.ball_budget
    if budget is not None and len(state.balls) == budget:
        victim = fix_victim(state)
        state.index.deleted(victim)
        state.balls[victim] = _new_ball(state, x, k, delta)
        state.index.inserted(state.balls, victim)
        return
    _append_ball(state, _new_ball(state, x, k, delta))


def _auto_initialise(state: CoverState, x: list[float], k: int) -> None:
    """InitProcedure of [DOC15, Alg. 4]: wait for a second label (I1-I3, tie rule T6
    [ABACOC-SPEC T6]). [ABACOC-SPEC §6]

    The first point founds ball 1 (no radius yet). A later point with the first label,
    or at distance 0 from ball 1, is dropped (ambiguities A13 and A14, [ABACOC-SPEC A13]
    [ABACOC-SPEC A14]). A point with a new label founds
    ball 2, and both balls get ``R = eps = rho(c_1, x)``.
    """
    if not state.balls:
        _append_ball(state, _new_ball(state, x, k, 0.0))
        state.first_label = k
        return
    first = state.balls[0]
    r = rho(
        raw_distance(x, first.center, state.params.metric_code, float(state.params.p)),
        state.params.metric_code, float(state.params.p),
    )
    if k == state.first_label or r == 0.0:
        return
    first.R = r
    first.eps = r
    _append_ball(state, _new_ball(state, x, k, r))
    state.init_done = True


def auto_learn(state: CoverState, x: list[float], k: int, found: Found | None = None) -> None:
    """One training step of AUTO / AUTO-ADJ(-FIX) [DOC15, Alg. 1 and 4].

    Inside the nearest ball (``delta <= eps_s``, tie rule T3, [ABACOC-SPEC T3]): a mistake of its
    majority
    ``y_hat = maj(s)`` (computed before the counts change, ambiguity A11 [ABACOC-SPEC A11]) shrinks
    its radius
    (U1); a correct prediction moves the centre for AUTO-ADJ (U2); the count of ``y``
    [ABACOC-SPEC §6]
    grows (U3). Outside: a new ball of radius ``delta`` (no mistake charged, ambiguity A18
    [ABACOC-SPEC A18]). [ABACOC-SPEC §6]

    Random draws: one ``below(W)`` iff a ball is added with the budget full.
    """
    if not state.init_done:
        _auto_initialise(state, x, k)
        return
    slot, delta = nearest_ball(state, x) if found is None else found
    ball = state.balls[slot]
    if delta <= ball.eps:
        if majority(ball) != k:
            shrink_radius(ball, float(state.params.d))
        elif state.adjusts:
            move_center(ball, x)
            state.index.moved(state.balls, slot)
        add_count(ball, k)
    else:
        auto_add_ball(state, x, k, delta)


def learn(state: CoverState, x: list[float], k: int, found: Found | None = None) -> None:
    """One call of learn_one on class index ``k`` (already registered by the facade).

    Runs the variant's step, then lets the search structure switch or rebuild. ``found``
    may carry the nearest-ball search of ``x`` made on this very state ([ABACOC-SPEC §3]: the
    cached values equal a fresh search, since nothing changed in between).
    """
    if k >= state.n_classes:
        state.n_classes = k + 1
    if state.is_auto:
        auto_learn(state, x, k, found)
    else:
        base_learn(state, x, k, found)
    state.index.maintain(state.balls, state.n_features)
    state.n_seen += 1


# -- prediction [DOC15, Alg. 1 OutputPrediction] ----------------------------------------
def predict_index(state: CoverState, x: list[float], found: Found | None = None) -> int:
    """Predicted class index for ``x``, or :data:`ABSTAIN` ([ABACOC-SPEC §3] predict_one).

    Randomized BASE draws ``U`` and predicts class 1 iff ``U < p`` (P4, tie rule T4
    [ABACOC-SPEC T4]), with [ABACOC-SPEC §4]
    ``p`` from the nearest ball (1/2 when S is empty, ambiguity A25 [ABACOC-SPEC A25]). The AUTO
    family predicts the
    first label until its initialisation finishes; every other case is ``maj(s)``.

    ``found`` optionally carries the nearest-ball search of ``x`` on this state.

    Random draws: one ``uniform()`` for randomized BASE, none otherwise.
    """
    if state.params.randomized:
        slot, _ = nearest_ball(state, x) if found is None else found
        if slot < 0:
            probability = randomized_probability(0, 0)
        else:
            ball = state.balls[slot]
            probability = randomized_probability(count_of(ball, 1), total_count(ball))
        return 1 if state.rng.uniform() < probability else 0
    if not state.balls:
        return ABSTAIN
    if state.is_auto and not state.init_done:
        return state.first_label
    slot, _ = nearest_ball(state, x) if found is None else found
    return majority(state.balls[slot])


def class_distribution(state: CoverState, x: list[float]) -> list[float]:
    """``p_s(k) = n(k)/n`` of the nearest ball over all classes; ``[]`` with no ball.

    Randomized BASE gives ``[1 - p, p]``. Draws nothing.
    """
    if state.params.randomized:
        slot, _ = nearest_ball(state, x)
        if slot < 0:
            probability = randomized_probability(0, 0)
        else:
            ball = state.balls[slot]
            probability = randomized_probability(count_of(ball, 1), total_count(ball))
        return [1.0 - probability, probability]
    if not state.balls:
        return []
    if state.is_auto and not state.init_done:
        slot = 0
    else:
        slot, _ = nearest_ball(state, x)
    ball = state.balls[slot]
    n = float(total_count(ball))
    return [float(count_of(ball, k)) / n for k in range(state.n_classes)]

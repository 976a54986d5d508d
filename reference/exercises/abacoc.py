"""Exercises on ABACOC [DOC15]: nearest ball, radius law, centre update, FIX draw, vote.

Each exercise asks for one rule of :mod:`reference.abacoc` with plain values in its
signature (lists of coordinates, counts, a ``below`` draw); the
:class:`~reference.exercises.catalog.Plug` adapters read the ball records and the cover
state for it, so a short seeded stream can run the student's rule inside the reference
model beside the ``fast`` model (which runs every rule in C).

The floating-point operations are prescribed by the specification ([ABACOC-SPEC §11]:
squared distances summed left to right, ``c + (x - c)/u``, ``R * pow(m, -1/(2+d))``), so
every exercise is checked exactly.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from reference.abacoc import balls as _balls
from reference.abacoc import variants as _variants
from reference.abacoc.params import ABACOCParams
from reference.exercises.catalog import EXACT, Case, Exercise, Mistake, Plug, Stream

__all__ = ["EXERCISES", "Below"]

TUTORIAL = "tutorials/04_abacoc.md"
TEMPLATE = f"{TUTORIAL}#the-template"
BASE = f"{TUTORIAL}#base-one-shrinking-radius-and-a-randomized-vote"
AUTO = f"{TUTORIAL}#auto-a-radius-per-ball-shrinking-with-its-own-mistakes"
BUDGET = f"{TUTORIAL}#the-budget-rule-auto-adj-fix"
NEAREST = f"{TUTORIAL}#finding-the-nearest-ball-exactly"

Fn = Callable[..., Any]

# The reference rules, captured at import: the checker replaces the originals inside the
# ``reference.abacoc`` modules while a student's function runs in the model, never here.
_NEAREST_BALL = _variants.nearest_ball
_SHRINK_RADIUS = _balls.shrink_radius
_MOVE_CENTER = _balls.move_center
_FIX_VICTIM = _variants.fix_victim
_RANDOMIZED_PROBABILITY = _balls.randomized_probability


# -- streams ---------------------------------------------------------------------------
def _lattice_data(seed: int, n: int = 200, noise: float = 0.15
                  ) -> tuple[list[list[float]], list[int]]:
    """``n`` points of a 7 x 7 integer lattice, labelled by a circle, some labels flipped.

    Lattice points make exact distance ties between centres common, and the flipped
    labels make balls err (so radii shrink and the budget rule weighs mistakes).
    """
    rng = random.Random(seed)
    rows, labels = [], []
    for _ in range(n):
        x = [float(rng.randint(0, 6)), float(rng.randint(0, 6))]
        inside = (x[0] - 3.0) ** 2 + (x[1] - 3.0) ** 2 <= 5.0
        rows.append(x)
        labels.append(int(inside != (rng.random() < noise)))
    return rows, labels


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


# == 1. nearest ball =====================================================================
NEAREST_SKELETON = r'''import math


def nearest_ball(x: list[float], centres: list[list[float]],
                 ids: list[int]) -> tuple[int, float]:
    r"""The ball whose centre is nearest to ``x``, and the distance to it [DOC15, Alg. 1].

    Every step of ABACOC starts with the nearest centre under the Euclidean distance:

    .. math::

        s_t = \arg\min_{s \in S} \rho(x_t, c_s), \qquad
        \rho(x, c) = \sqrt{\textstyle\sum_j (x_j - c_j)^2}.

    Determinism ([ABACOC-SPEC §11], tie rule [ABACOC-SPEC T1]): compare the balls by the
    squared distance :math:`\sum_j (x_j - c_j)^2`, accumulated left to right over the
    coordinates with a plain loop (from Python 3.12 on, ``sum()`` compensates the
    rounding and may differ in the last bit) of products ``d * d`` (``d ** 2`` raises
    ``OverflowError`` where the product gives ``inf``); among exactly equal squared
    distances the ball with the smallest id (creation order) wins, wherever it sits in
    the list. Return the distance as ``math.sqrt`` of the winner's squared distance
    (``** 0.5`` may differ from the square root in the last bit). Mind the case where
    every squared distance is ``inf``: there is still a nearest ball.
    Tutorial: "Finding the nearest ball, exactly" (tutorials/04_abacoc.md).

    Parameters
    ----------
    x : list of float
        The point, D coordinates.
    centres : list of lists of float
        The centres of the live balls, in slot order (possibly empty).
    ids : list of int
        ``ids[i]`` is the creation id of the ball in slot ``i`` (distinct; a ball that
        replaced a deleted one has a larger id than its neighbours).

    Returns
    -------
    tuple
        ``(slot, distance)``: the position in ``centres`` of the nearest ball and
        :math:`\rho(x, c_{slot})`; ``(-1, math.inf)`` when there is no ball.
    """
    raise NotImplementedError
'''


def nearest_ball(x: list[float], centres: list[list[float]], ids: list[int]
                 ) -> tuple[int, float]:
    """The reference: :func:`reference.abacoc.variants.nearest_ball` on these balls."""
    state = _variants.CoverState(ABACOCParams(variant="auto", search="scan"))
    state.n_features = len(x)
    state.balls = [_balls.Ball(int(i), list(c), 0, 0.0) for c, i in zip(centres, ids, strict=True)]
    return _NEAREST_BALL(state, list(x))


def _rho_tie_case() -> Case:
    """Two centres whose squared distances differ by one ulp but whose square roots are
    equal; the smaller squared distance belongs to the ball with the larger id."""
    rng = random.Random(4242)
    while True:
        a = [rng.uniform(0.5, 2.0), rng.uniform(0.5, 2.0)]
        raw_a = a[0] * a[0] + a[1] * a[1]
        b0 = a[0]
        b1 = math.sqrt(math.nextafter(raw_a, math.inf) - b0 * b0)
        raw_b = b0 * b0 + b1 * b1
        if raw_b != raw_a and math.sqrt(raw_b) == math.sqrt(raw_a):
            low, high = (a, [b0, b1]) if raw_a < raw_b else ([b0, b1], a)
            return Case(([0.0, 0.0], [high, low], [3, 7]),
                        "equal distances, squared distances one ulp apart")


def _nearest_cases() -> list[Case]:
    rng = random.Random(1001)
    cases = [
        Case(([0.5, 0.5], [], []), "no ball"),
        Case(([0.5, 0.5], [[1.0, 2.0]], [0]), "one ball"),
        Case(([1.0, 2.0], [[0.0, 0.0], [1.0, 2.0]], [0, 1]), "x on a centre (distance 0)"),
        Case(([0.0, 0.0], [[1.0, 0.0], [0.0, 1.0]], [0, 1]), "tie: smaller id first"),
        Case(([0.0, 0.0], [[1.0, 0.0], [0.0, 1.0]], [5, 2]), "tie: smaller id in the last slot"),
        Case(([0.0, 0.0], [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]], [4, 9, 1]),
             "three-way tie, ids out of slot order"),
        Case(([0.0], [[2.0], [-2.0], [3.0]], [7, 6, 2]), "one dimension, tie"),
        Case(([0.0, 0.0], [[1e200, 0.0], [0.0, -1e200]], [3, 1]),
             "huge coordinates: both squared distances overflow to inf"),
        Case(([0.0, 0.0], [[1e-200, 0.0], [0.0, 2e-200]], [3, 1]),
             "tiny coordinates: both squared distances underflow to 0"),
        _rho_tie_case(),
    ]
    for i in range(80):
        dim = rng.randint(1, 4)
        size = rng.randint(1, 12)
        lattice = rng.random() < 0.5
        def point(dim: int = dim, lattice: bool = lattice) -> list[float]:
            if lattice:
                return [float(rng.randint(-2, 2)) for _ in range(dim)]
            return [rng.gauss(0.0, 1.0) for _ in range(dim)]
        ids = rng.sample(range(3 * size), size)
        cases.append(Case((point(), [point() for _ in range(size)], ids),
                          f"random {'lattice' if lattice else 'normal'} {i}"))
    return cases


def _nearest_plugs() -> tuple[Plug, ...]:
    def adapt(student: Fn) -> Fn:
        def plugged(state: Any, x: list[float]) -> tuple[int, float]:
            slot, distance = student(list(x), [list(b.center) for b in state.balls],
                                     [b.id for b in state.balls])
            return int(slot), float(distance)
        return plugged
    return (Plug("reference.abacoc.variants.nearest_ball", adapt),)


def _nearest_mistake(squared: bool = False, tie: str = "id", compare_rho: bool = False) -> Fn:
    def wrong(x: list[float], centres: list[list[float]], ids: list[int]
              ) -> tuple[int, float]:
        best, best_key, best_id = -1, math.inf, -1
        for slot, centre in enumerate(centres):
            raw = 0.0
            for j in range(len(centre)):
                raw += (x[j] - centre[j]) * (x[j] - centre[j])
            key = math.sqrt(raw) if compare_rho else raw
            if best < 0:
                take = True
            elif tie == "first":
                take = key < best_key
            elif tie == "last":
                take = key <= best_key
            else:
                take = key < best_key or (key == best_key and ids[slot] < best_id)
            if take:
                best, best_key, best_id = slot, key, ids[slot]
        if best < 0:
            return -1, math.inf
        raw = 0.0
        for j in range(len(centres[best])):
            raw += (x[j] - centres[best][j]) * (x[j] - centres[best][j])
        return best, raw if squared else math.sqrt(raw)
    return wrong


NEAREST_BALL = Exercise(
    name="ab-nearest-ball",
    title="The nearest ball: distance, argmin and the tie rule",
    family="abacoc",
    tag="[DOC15, Alg. 1]; [ABACOC-SPEC §11], [ABACOC-SPEC T1]",
    anchor=NEAREST,
    function_name="nearest_ball",
    skeleton=NEAREST_SKELETON,
    reference=nearest_ball,
    cases=_nearest_cases,
    tolerance=EXACT,
    plugs=_nearest_plugs(),
    # AUTO with a budget of 6 balls on lattice points: ties are frequent, and every new
    # ball takes a deleted ball's slot, so ids are not in slot order.
    stream=Stream("ABACOCClassifier", {"variant": "auto", "budget": 6, "seed": 5},
                  lambda: _lattice_data(7)),
    mistakes=(
        Mistake(
            "nearest-first-slot",
            "On a tie you keep the first slot: the tie rule picks the smallest ball id, and "
            "after a FIX deletion a new ball (large id) sits in an early slot.",
            NEAREST,
            _nearest_mistake(tie="first"),
        ),
        Mistake(
            "nearest-squared-distance",
            "You returned the squared distance: ρ is its square root (the radius test "
            "compares ρ with ε).",
            NEAREST,
            _nearest_mistake(squared=True),
            mutant="ab-euclidean-root",
        ),
        Mistake(
            "nearest-last-on-tie",
            "With <= the last of equal distances wins: a tie goes to the smallest ball id.",
            NEAREST,
            _nearest_mistake(tie="last"),
        ),
        Mistake(
            "nearest-compares-rho",
            "You compared the rounded distances √(Σ d²): two different squared sums can "
            "round to the same root; compare the squared sums themselves.",
            NEAREST,
            _nearest_mistake(compare_rho=True),
        ),
    ),
    hints=(
        "Loop over the balls, keep the best one so far, and think about what 'best' means "
        "when two distances are equal.",
        "Compare squared distances (no square root inside the loop); on exact equality "
        "compare ids, not positions.",
        "Keep (best_slot, best_raw, best_id); replace when raw < best_raw, or raw == best_raw "
        "and the id is smaller; return (best_slot, math.sqrt(best_raw)) or (-1, math.inf).",
    ),
    minutes=15,
)


# == 2. the AUTO radius law ==============================================================
RADIUS_SKELETON = r'''import math


def shrink_radius(R: float, eps: float, m: int, d: float) -> tuple[int, float]:
    r"""Charge a mistake to a ball of the AUTO family and shrink its radius [DOC15, Alg. 4].

    Each ball :math:`s` keeps its initial radius :math:`R_s` (the distance to the nearest
    centre when it was created), its current radius :math:`\varepsilon_s` and its count
    :math:`m_s` of mistakes on points inside it. A mistake counts, then shrinks the ball
    ([ABACOC-SPEC §6], U1):

    .. math::

        m_s \leftarrow m_s + 1, \qquad
        \varepsilon_s \leftarrow R_s \, m_s^{-1/(2 + d)}.

    Compute the radius as ``R * math.pow(m, -1.0 / (2.0 + d))`` with the new count
    ([ABACOC-SPEC §11]).
    Tutorial: "AUTO: a radius per ball, shrinking with its own mistakes"
    (tutorials/04_abacoc.md).

    Parameters
    ----------
    R : float
        The ball's initial radius :math:`R_s > 0`.
    eps : float
        Its current radius :math:`\varepsilon_s`.
    m : int
        Its mistakes so far (before this one).
    d : float
        The dimension parameter :math:`d > 0` (default 2).

    Returns
    -------
    tuple
        ``(m_new, eps_new)``.
    """
    raise NotImplementedError
'''


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
    hints=(
        "The radius is a function of R, m and d only; the current ε is not needed.",
        "Increment m first. With m = 1 the factor m^(-1/(2+d)) is 1, so the first mistake "
        "leaves the radius at R.",
        "Count the mistake first, then apply the law to the new count with math.pow as the "
        "docstring prescribes; the current ε does not enter it.",
    ),
    minutes=10,
)


# == 3. the centre update ================================================================
CENTRE_SKELETON = r'''def move_center(center: list[float], x: list[float],
                u: int) -> tuple[int, list[float]]:
    r"""Move a ball's centre towards a correctly classified point [DOC15, Alg. 3-4].

    In the ADJ variants (BASE-ADJ, AUTO-ADJ) a ball whose majority label was right for
    :math:`x` moves its centre by an online K-means step with its own counter
    :math:`u_s` ([ABACOC-SPEC §6], U2):

    .. math::

        u_s \leftarrow u_s + 1, \qquad c_s \leftarrow c_s + \frac{x - c_s}{u_s},

    so the centre is the running mean of its founding point and the correctly classified
    points it absorbed. Per coordinate, ``c[j] + (x[j] - c[j]) / u`` with the new counter
    converted to float ([ABACOC-SPEC §11]).
    Tutorial: "BASE: one shrinking radius and a randomized vote" (tutorials/04_abacoc.md).

    Parameters
    ----------
    center : list of float
        The centre :math:`c_s` (do not modify it).
    x : list of float
        The point.
    u : int
        The counter before this move (1 for a new ball).

    Returns
    -------
    tuple
        ``(u_new, center_new)``.
    """
    raise NotImplementedError
'''


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
    hints=(
        "The centre is meant to stay the mean of the points it has absorbed; how does a mean "
        "change when one more point arrives?",
        "The mean of u points is the mean of u - 1 points plus (x - mean)/u. Count the new "
        "point before dividing.",
        "Increment the counter, then move every coordinate by its difference to x divided "
        "by the new counter; build a new list instead of changing the argument.",
    ),
    minutes=10,
)


# == 4. the FIX deletion draw ============================================================
class Below:
    """A pure stand-in for ``Rng.below``: ``Below(seed)(n)`` is a fixed draw in ``0 .. n-1``.

    The same ``n`` always gives the same draw (so the reference and the student see the
    same randomness, however often each calls it), and different ``n`` give unrelated
    draws, as two different rejection-sampling runs would.
    """

    def __init__(self, seed: int) -> None:
        self.seed = int(seed)

    def __call__(self, n: int) -> int:
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(f"n must be an int, got {type(n).__name__}")
        if n < 1:
            raise ValueError(f"n must be in [1, 2**64 - 1], got {n}")
        return random.Random(self.seed * 1_000_003 + n).randrange(n)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Below) and other.seed == self.seed

    def __hash__(self) -> int:
        return hash(("Below", self.seed))

    def __repr__(self) -> str:
        return f"Below({self.seed})"


FIX_SKELETON = r'''from collections.abc import Callable


def fix_victim(mistakes: list[int], below: Callable[[int], int]) -> int:
    r"""The ball deleted by the budget rule of AUTO-ADJ-FIX [DOC15, Eq. 1].

    When a ball must be added to a full cover (:math:`|S| = B`), one existing ball
    :math:`v` is deleted first, drawn with the Laplace-corrected share of mistakes

    .. math::

        P(v = i) = \frac{m_i + 1}{\sum_{j \in S} m_j + |S|}.

    Sample it exactly, in integers ([ABACOC-SPEC §7], tie rule [ABACOC-SPEC T5]): let
    :math:`W = \sum_i (m_i + 1)`; draw ``r = below(W)`` (one call, uniform on
    ``0 .. W - 1``); walk the slots in order, accumulating :math:`m_i + 1`, and return
    the first slot whose running sum exceeds ``r``.
    Tutorial: "The budget rule (AUTO-ADJ-FIX)" (tutorials/04_abacoc.md).

    Parameters
    ----------
    mistakes : list of int
        :math:`m_i \ge 0` of the balls, in slot order (at least one ball).
    below : callable
        ``below(n)`` returns a uniform integer in ``0 .. n - 1``: the model's generator
        inside the model; in the checker's cases a fixed stand-in,
        ``reference.exercises.abacoc.Below(seed)``, that you may call yourself.

    Returns
    -------
    int
        The slot of the ball to delete.
    """
    raise NotImplementedError
'''


def fix_victim(mistakes: list[int], below: Callable[[int], int]) -> int:
    """The reference: :func:`reference.abacoc.variants.fix_victim` on these balls."""
    state = _variants.CoverState(ABACOCParams(variant="auto", budget=max(2, len(mistakes))))
    for slot, m in enumerate(mistakes):
        ball = _balls.Ball(slot, [0.0], 0, 1.0)
        ball.m = int(m)
        state.balls.append(ball)

    class _Draw:
        def below(self, n: int) -> int:
            return below(n)

    state.rng = _Draw()  # type: ignore[assignment]
    return _FIX_VICTIM(state)


def _fix_cases() -> list[Case]:
    rng = random.Random(4004)
    cases = [
        Case(([0], Below(1)), "one ball"),
        Case(([0, 0], Below(2)), "two balls without mistakes"),
        Case(([0, 0, 0, 0, 0, 0], Below(3)), "no mistakes anywhere: uniform"),
        Case(([50, 0, 0], Below(4)), "one ball with many mistakes"),
        Case(([0, 0, 0, 1000], Below(5)), "the last ball with many mistakes"),
        Case(([3, 1, 4, 1, 5], Below(6)), "small counts"),
        Case(([10**12, 7, 0], Below(7)), "a huge count (W beyond 32 bits)"),
    ]
    for i in range(80):
        size = rng.randint(2, 12)
        mistakes = [rng.choice([0, 0, 1, 2, rng.randint(0, 40)]) for _ in range(size)]
        cases.append(Case((mistakes, Below(100 + i)), f"random {i}"))
    return cases


def _fix_plugs() -> tuple[Plug, ...]:
    def adapt(student: Fn) -> Fn:
        def plugged(state: Any) -> int:
            return int(student([int(ball.m) for ball in state.balls], state.rng.below))
        return plugged
    return (Plug("reference.abacoc.variants.fix_victim", adapt),)


def _fix_mistake(extra: int = 1, reaches: bool = False) -> Fn:
    def wrong(mistakes: list[int], below: Callable[[int], int]) -> int:
        total = 0
        for m in mistakes:
            total += m + extra
        r = below(total)
        running = 0
        for slot, m in enumerate(mistakes):
            running += m + extra
            if running > r or (reaches and running >= r):
                return slot
        return len(mistakes) - 1
    return wrong


def _fix_uniform(mistakes: list[int], below: Callable[[int], int]) -> int:
    return below(len(mistakes))


def _fix_most_mistakes(mistakes: list[int], below: Callable[[int], int]) -> int:
    best = 0
    for slot, m in enumerate(mistakes):
        if m > mistakes[best]:
            best = slot
    return best


FIX = Exercise(
    name="ab-fix-deletion",
    title="The FIX budget rule: which ball to delete",
    family="abacoc",
    tag="[DOC15, Eq. 1]; [ABACOC-SPEC §7], [ABACOC-SPEC T5]",
    anchor=BUDGET,
    function_name="fix_victim",
    skeleton=FIX_SKELETON,
    reference=fix_victim,
    cases=_fix_cases,
    tolerance=EXACT,
    plugs=_fix_plugs(),
    # a budget of 4 balls: almost every new ball deletes one, early in the stream
    stream=Stream("ABACOCClassifier", {"variant": "auto_adj", "budget": 4, "seed": 7},
                  lambda: _jittered_data(29)),
    mistakes=(
        Mistake(
            "fix-weight-m-plus-2",
            "Your weights are m_i + 2: the Laplace correction adds 1 to every count "
            "(W = Σ m_i + |S|).",
            BUDGET,
            _fix_mistake(extra=2),
            mutant="ab-budget-weight",
        ),
        Mistake(
            "fix-walk-reaches",
            "Off by one in the walk: pick the first slot whose running sum exceeds r "
            "(r is in 0 .. W - 1), not the first that reaches it.",
            BUDGET,
            _fix_mistake(reaches=True),
        ),
        Mistake(
            "fix-uniform",
            "You deleted a ball uniformly at random: the rule weighs each ball by its "
            "mistakes plus one.",
            BUDGET,
            _fix_uniform,
        ),
        Mistake(
            "fix-most-mistakes",
            "You deleted the ball with the most mistakes: the rule is a random draw, in "
            "proportion to m_i + 1, so every ball may go.",
            BUDGET,
            _fix_most_mistakes,
        ),
    ),
    hints=(
        "Sampling an index with integer weights needs one uniform integer below the total "
        "weight and a walk over the cumulative sums.",
        "The weight of ball i is m_i + 1; call below once, with the total weight W.",
        "r = below(W); running = 0; for each slot add m + 1 and return the slot as soon as "
        "running > r.",
    ),
    minutes=10,
)


# == 5. BASE's randomized vote ===========================================================
VOTE_SKELETON = r'''import math


def randomized_probability(n1: int, n: int) -> float:
    r"""Probability that a BASE ball predicts label 1 [DOC15, Alg. 2].

    A ball holding ``n1`` points of label 1 out of ``n`` predicts label 1 with
    probability ([ABACOC-SPEC §4], P1-P3)

    .. math::

        q = \frac{n_1 + 1}{n + 2}, \qquad
        \gamma = \frac{1}{2\sqrt{n + 2}}, \qquad
        p = \min\Big(1, \max\Big(0, \tfrac12 + \frac{q - 1/2}{2\gamma}\Big)\Big):

    the Laplace estimate is trusted only outside a band of half-width :math:`\gamma`
    around 1/2; inside it the vote is a coin biased linearly towards the estimate.
    Compute :math:`q`, then :math:`\gamma`, then :math:`p` as written
    ([ABACOC-SPEC §4] fixes these operations, so do not simplify :math:`1/(2\gamma)`).
    Tutorial: "BASE: one shrinking radius and a randomized vote" (tutorials/04_abacoc.md).

    Parameters
    ----------
    n1 : int
        Points of label 1 in the ball, ``0 <= n1 <= n``.
    n : int
        All points in the ball (0 for no ball).

    Returns
    -------
    float
        :math:`p \in [0, 1]`.
    """
    raise NotImplementedError
'''


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
    hints=(
        "Three steps: an estimate q of P(label 1), a band half-width γ, and a linear map "
        "from q to a probability.",
        "q = 1/2 must give p = 1/2, and q = 1/2 ± γ must give exactly 1 or 0.",
        "p = 1/2 + (q - 1/2)/(2γ) with q and γ from the docstring, then clip to [0, 1].",
    ),
    minutes=10,
)


EXERCISES: tuple[Exercise, ...] = (NEAREST_BALL, VOTE, CENTRE, RADIUS, FIX)
"""The ABACOC exercises in course order (template, BASE, ADJ, AUTO, FIX)."""

"""Exercise ``ab-nearest-ball``: The nearest ball: distance, argmin and the tie rule.

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

import math
import random
from typing import Any

from reference.abacoc import balls as _balls
from reference.abacoc import variants as _variants
from reference.abacoc.params import ABACOCParams
from reference.exercises.abacoc._shared import (
    TUTORIAL,
    Fn,
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

TEMPLATE = f"{TUTORIAL}#the-template"


NEAREST = f"{TUTORIAL}#finding-the-nearest-ball-exactly"


# The reference rules, captured at import: the checker replaces the originals inside the
# ``reference.abacoc`` modules while a student's function runs in the model, never here.
_NEAREST_BALL = _variants.nearest_ball


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


NEAREST_SKELETON = folder_file(__file__, "skeleton.py")


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
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=15,
)



EXERCISE = NEAREST_BALL

"""Exercise ``ab-fix-deletion``: The FIX budget rule: which ball to delete.

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from reference.abacoc import balls as _balls
from reference.abacoc import variants as _variants
from reference.abacoc.params import ABACOCParams
from reference.exercises.abacoc._shared import (
    _FIX_VICTIM,
    BUDGET,
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


FIX_SKELETON = folder_file(__file__, "skeleton.py")


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
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=10,
)



EXERCISE = FIX

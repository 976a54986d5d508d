"""Exercise ``rng-below``: an integer below n by bitmask rejection.

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from reference import rng as _rng
from reference.exercises.catalog import (
    Case,
    Exercise,
    Mistake,
    Plug,
    folder_file,
    folder_hints,
)
from reference.exercises.determinism._shared import (
    BELOW,
    LOOKAHEAD,
    MASK,
    STREAM,
    _Scripted,
)

BELOW_SKELETON = folder_file(__file__, "skeleton.py")


def _below_reference(n: int, words: Sequence[int]) -> tuple[int, int]:
    generator = _Scripted(words)
    return generator.below(n), generator.used


def _mask(n: int) -> int:
    return (1 << (n - 1).bit_length()) - 1


def _below_cases() -> list[Case]:
    draw = random.Random(505)
    cases = [
        Case((1, (MASK, 5)), "n = 1 still uses one word"),
        Case((2, (3, 0)), "n = 2"),
        Case((7, (7, 15, 3, 1)), "n = 7: two rejections (v = 7)"),
        Case((7, (6, 0)), "n = 7: v = n - 1 accepted"),
        Case((8, (11, 9)), "n = 8, a power of two: mask 7"),
        Case((8, (8, 1)), "n = 8: word 8 gives v = 0"),
        Case((9, (9, 10, 31, 8)), "n = 9: mask 15, v = n rejected"),
        Case((16, (16 + 5, 1)), "n = 16"),
        Case((2**33 + 5, ((1 << 34) - 1, 2**33 + 5, 2**33 + 4)),
             "n = 2**33 + 5: just above half accepted"),
        Case((MASK, (MASK, MASK - 1)), "n = 2**64 - 1: the all-ones word rejected"),
        Case((1 << 63, (MASK, 1 << 62)), "n = 2**63"),
        Case(((1 << 63) + 1, (MASK, 1 << 63)), "n = 2**63 + 1: v = 2**63 accepted"),
    ]
    tail = random.Random(506)
    cases = [Case((n, words + tuple(tail.getrandbits(64) for _ in range(12))), label)
             for (n, words), label in ((c.args, c.label) for c in cases)]
    sizes = [3, 5, 6, 7, 9, 10, 12, 100, 1000, 2**20 + 1, 10**6 + 3, 2**40, 2**52 + 7,
             2**63 + 9, MASK - 3]
    for _ in range(90):
        n = draw.choice(sizes) if draw.random() < 0.5 else draw.randint(1, 1 << draw.randint(1, 64))
        n = min(max(n, 1), MASK)
        mask = _mask(n)
        words: list[int] = []
        while True:  # at least one rejection in about half the cases, then an acceptance
            word = draw.getrandbits(64)
            if len(words) < 3 and draw.random() < 0.5:
                word = (word & ~mask) | draw.randint(min(n, mask), mask)
            words.append(word)
            if word & mask < n:
                break
        words += [draw.getrandbits(64) for _ in range(12)]
        cases.append(Case((n, tuple(words)), "random n and words"))
    return cases


def _below_modulo(n: int, words: Sequence[int]) -> tuple[int, int]:
    return words[0] % n, 1


def _below_mask_from_n(n: int, words: Sequence[int]) -> tuple[int, int]:
    mask = (1 << n.bit_length()) - 1
    for used, word in enumerate(words, start=1):
        if word & mask < n:
            return word & mask, used
    raise IndexError("the given words are used up")


def _below_accepts_n(n: int, words: Sequence[int]) -> tuple[int, int]:
    mask = _mask(n)
    for used, word in enumerate(words, start=1):
        if word & mask <= n:
            return word & mask, used
    raise IndexError("the given words are used up")


def _below_no_rejection(n: int, words: Sequence[int]) -> tuple[int, int]:
    return words[0] & _mask(n), 1


def _below_high_bits(n: int, words: Sequence[int]) -> tuple[int, int]:
    k = (n - 1).bit_length()
    for used, word in enumerate(words, start=1):
        v = word >> (64 - k) if k else 0
        if v < n:
            return v, used
    raise IndexError("the given words are used up")


def _below_n1_free(n: int, words: Sequence[int]) -> tuple[int, int]:
    if n == 1:
        return 0, 0
    return _below_reference(n, words)


class _Lookahead(Sequence[int]):
    """The generator's next :data:`LOOKAHEAD` outputs, drawn from a copy of its state as
    they are read (a rejection loop needs more than 64 tries with probability < 2**-64)."""

    def __init__(self, generator: _rng.Rng) -> None:
        self._copy = _rng.Rng.__new__(_rng.Rng)
        self._copy.state = generator.state
        self._words: list[int] = []

    def _word(self, index: int) -> int:
        if not 0 <= index < LOOKAHEAD:
            raise IndexError(f"index {index} outside the next {LOOKAHEAD} outputs")
        while len(self._words) <= index:
            self._words.append(_rng.Rng.next_u64(self._copy))
        return self._words[index]

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self._word(i) for i in range(*index.indices(LOOKAHEAD))]
        return self._word(index + LOOKAHEAD if index < 0 else index)

    def __len__(self) -> int:
        return LOOKAHEAD

    def __iter__(self) -> Iterator[int]:
        return (self._word(i) for i in range(LOOKAHEAD))


def _below_plug(student: Callable[..., Any]) -> Callable[[_rng.Rng, int], int]:
    def below(self: _rng.Rng, n: int) -> int:
        value, used = student(n, _Lookahead(self))
        for _ in range(int(used)):
            self.next_u64()
        return int(value)
    return below


BELOW_EX = Exercise(
    name="rng-below",
    title="an integer below n by bitmask rejection",
    family="determinism",
    tag="[DET-SPEC §1]",
    anchor=BELOW,
    function_name="below",
    skeleton=BELOW_SKELETON,
    reference=_below_reference,
    cases=_below_cases,
    plugs=(Plug("reference.rng.Rng.below", _below_plug),),
    stream=STREAM,
    mistakes=(
        Mistake("below-modulo",
                "out % n is biased (small values get one more word each when 2**64 is not a "
                "multiple of n); mask the low bits and reject values >= n.", BELOW,
                _below_modulo),
        Mistake("below-mask-from-n",
                "The mask is smeared from n instead of n - 1: for n a power of two it is "
                "twice too wide and rejects values that are valid.", BELOW, _below_mask_from_n),
        Mistake("below-accepts-n",
                "Off by one: v <= n is accepted, so n itself can come out; accept only v < n.",
                BELOW, _below_accepts_n),
        Mistake("below-no-rejection",
                "There is no rejection loop: word & mask can be >= n and must then be "
                "rejected and a new word drawn.", BELOW, _below_no_rejection),
        Mistake("below-high-bits",
                "The k high bits of the word are used (word >> (64 - k)); the specification "
                "takes the k low bits, word & mask, so both backends consume alike.", BELOW,
                _below_high_bits),
        Mistake("below-n1-uses-no-word",
                "For n = 1 no word is consumed: every call must use at least one output, so "
                "that the generator's position does not depend on n.", BELOW, _below_n1_free),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=15,
)



EXERCISE = BELOW_EX

"""Helpers shared by the determinism exercises.

Moved from the family module when it was split into one folder per exercise."""

from __future__ import annotations

import random
from collections.abc import Sequence

from reference import rng as _rng
from reference.exercises.catalog import Case, Stream

MASK = _rng.MASK


GAMMA = 0x9E3779B97F4A7C15


PAGE = "tutorials/01_determinism.md"


SEEDING = f"{PAGE}#seeding-splitmix64"


ENGINE = f"{PAGE}#the-linear-engine"


SCRAMBLER = f"{PAGE}#the--scrambler"


WORDS = f"{PAGE}#64-bit-words-in-python-and-in-c"


UNIFORM = f"{PAGE}#a-double-uniform-on-0-1"


BELOW = f"{PAGE}#an-integer-uniform-on-0--n-1-bitmask-rejection"


EDGE_WORDS = (
    ("zero", 0), ("one", 1), ("all ones", MASK), ("top bit only", 1 << 63),
    ("low 11 bits set", (1 << 11) - 1), ("2**11", 1 << 11), ("2**53 - 1", (1 << 53) - 1),
    ("2**64 - gamma", (1 << 64) - GAMMA), ("2**64 - gamma - 1", (1 << 64) - GAMMA - 1),
    ("alternating bits", 0xAAAAAAAAAAAAAAAA), ("high half", 0xFFFFFFFF00000000),
)
"""64-bit words every exercise on words tries first."""


def _stream_data() -> tuple[list[list[float]], list[float]]:
    """40 rows of a noisy two-input step function (built with Python's own generator,
    so that a wrong project generator cannot change the data)."""
    draw = random.Random(20231)
    X = [[draw.random(), draw.random()] for _ in range(40)]
    y = [(1.0 if a > 0.5 else -1.0) + 0.5 * b + 0.1 * draw.gauss(0.0, 1.0) for a, b in X]
    return X, y


LOOKAHEAD = 64
"""How many of its next outputs the plugged ``below`` may read."""


STREAM = Stream(
    "DynamicTreeRegressor",
    {"n_particles": 12, "seed": 1, "active_size": 12, "retirement": "random"},
    _stream_data,
)
"""A small dynamic tree: its constructor seeds the generator, its moves draw
``below(n_features)`` and ``uniform()``, its resampling ``uniform()``, and from row 13 on
the retirement of a random point ``below(12)`` (a mask of 15: rejections happen)."""


def _word_cases(seed: int, n_random: int) -> list[Case]:
    draw = random.Random(seed)
    cases = [Case((w,), label) for label, w in EDGE_WORDS]
    cases += [Case((draw.getrandbits(64),), "random word") for _ in range(n_random)]
    cases += [Case((draw.getrandbits(draw.randint(1, 63)),), "random short word")
              for _ in range(n_random // 4)]
    return cases


class _Scripted(_rng.Rng):
    """The reference generator whose raw outputs are given words (counts what it used)."""

    def __init__(self, words: Sequence[int]) -> None:
        self.words = words
        self.used = 0

    def next_u64(self) -> int:
        word = self.words[self.used]  # IndexError when the given words are used up
        self.used += 1
        return word


"""Exercise ``rng-seed-state``: seeding: four splitmix64 outputs as the state.

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

import random
from collections.abc import Callable
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
    EDGE_WORDS,
    MASK,
    SEEDING,
    STREAM,
)

SEED_SKELETON = folder_file(__file__, "skeleton.py")


def _seed_reference(seed: int) -> tuple[int, int, int, int]:
    return _rng.seed_state(seed)


def _seed_cases() -> list[Case]:
    draw = random.Random(202)
    cases = [Case((w,), label) for label, w in EDGE_WORDS]
    cases += [Case((-1,), "seed -1"), Case((-(1 << 63),), "most negative int64"),
              Case(((1 << 64) + 5,), "2**64 + 5 (same as 5)"), Case((7,), "the stream's seed")]
    cases += [Case((draw.randrange(-(1 << 70), 1 << 70),), "random seed") for _ in range(40)]
    cases += [Case((draw.randrange(0, 1000),), "small seed") for _ in range(10)]
    return cases


def _seed_chained(seed: int) -> tuple[int, int, int, int]:
    x, words = seed & MASK, []
    for _ in range(4):
        out, _ = _rng.splitmix64(x)
        words.append(out)
        x = out
    return (words[0], words[1], words[2], words[3])


def _seed_counters(seed: int) -> tuple[int, int, int, int]:
    x, words = seed & MASK, []
    for _ in range(4):
        _, x = _rng.splitmix64(x)
        words.append(x)
    return (words[0], words[1], words[2], words[3])


def _seed_skips_first(seed: int) -> tuple[int, int, int, int]:
    x, words = seed & MASK, []
    for _ in range(5):
        out, x = _rng.splitmix64(x)
        words.append(out)
    return (words[1], words[2], words[3], words[4])


def _seed_first_word(seed: int) -> tuple[int, int, int, int]:
    x = seed & MASK
    words = [x]
    for _ in range(3):
        out, x = _rng.splitmix64(x)
        words.append(out)
    return (words[0], words[1], words[2], words[3])


def _seed_plug(student: Callable[..., Any]) -> Callable[[int], tuple[int, int, int, int]]:
    def seed_state(seed: int) -> tuple[int, int, int, int]:
        s0, s1, s2, s3 = student(seed)
        return int(s0), int(s1), int(s2), int(s3)
    return seed_state


SEED = Exercise(
    name="rng-seed-state",
    title="seeding: four splitmix64 outputs as the state",
    family="determinism",
    tag="[SLF14]; [DET-SPEC §1]",
    anchor=SEEDING,
    function_name="seed_state",
    skeleton=SEED_SKELETON,
    reference=_seed_reference,
    cases=_seed_cases,
    plugs=(Plug("reference.rng.seed_state", _seed_plug),),
    stream=STREAM,
    mistakes=(
        Mistake("seed-outputs-chained",
                "Each output is fed back as the next counter: splitmix64 keeps its own "
                "counter x_{i+1} = x_i + gamma, and the outputs only leave it.", SEEDING,
                _seed_chained),
        Mistake("seed-counters-as-words",
                "The state words are the counters x_1..x_4 instead of the scrambled outputs: "
                "the scrambler is what makes the four words well mixed.", SEEDING,
                _seed_counters),
        Mistake("seed-first-output-skipped",
                "Off by one: the first splitmix64 output is discarded, so the state is "
                "outputs 2 to 5 instead of 1 to 4.", SEEDING, _seed_skips_first),
        Mistake("seed-is-first-word",
                "The seed itself becomes s0: all four words are splitmix64 outputs (a seed "
                "0 would otherwise put a zero word in the state).", SEEDING, _seed_first_word),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=10,
)



EXERCISE = SEED

"""Exercise ``rng-splitmix64``: one splitmix64 step: output and next counter.

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

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
    GAMMA,
    MASK,
    SEEDING,
    STREAM,
    WORDS,
    _word_cases,
)

SPLITMIX_SKELETON = folder_file(__file__, "skeleton.py")


def _splitmix_reference(x: int) -> tuple[int, int]:
    return _rng.splitmix64(x)


def _splitmix_cases() -> list[Case]:
    return _word_cases(101, 80)


def _mix(z: int, shifts: tuple[int, int, int] = (30, 27, 31)) -> int:
    z = ((z ^ (z >> shifts[0])) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> shifts[1])) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> shifts[2])


def _splitmix_no_mask(x: int) -> tuple[int, int]:
    x = x + GAMMA
    return _mix(x), x


def _splitmix_old_counter(x: int) -> tuple[int, int]:
    return _mix(x), (x + GAMMA) & MASK


def _splitmix_no_final(x: int) -> tuple[int, int]:
    x = (x + GAMMA) & MASK
    z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z, x


def _splitmix_swapped(x: int) -> tuple[int, int]:
    x = (x + GAMMA) & MASK
    return x, _mix(x)


def _splitmix_shifts(x: int) -> tuple[int, int]:
    x = (x + GAMMA) & MASK
    return _mix(x, (31, 27, 30)), x


def _splitmix_plug(student: Callable[..., Any]) -> Callable[[int], tuple[int, int]]:
    def splitmix64(x: int) -> tuple[int, int]:
        out, nxt = student(x)
        return int(out), int(nxt)
    return splitmix64


SPLITMIX = Exercise(
    name="rng-splitmix64",
    title="one splitmix64 step: output and next counter",
    family="determinism",
    tag="[SLF14]; [DET-SPEC §1]",
    anchor=SEEDING,
    function_name="splitmix64_step",
    skeleton=SPLITMIX_SKELETON,
    reference=_splitmix_reference,
    cases=_splitmix_cases,
    plugs=(Plug("reference.rng.splitmix64", _splitmix_plug),),
    stream=STREAM,
    mistakes=(
        Mistake("splitmix-counter-not-masked",
                "The counter x + gamma is not reduced with & (2**64 - 1): in Python it grows "
                "past 64 bits, where C's uint64_t wraps around.", WORDS, _splitmix_no_mask),
        Mistake("splitmix-scrambles-old-counter",
                "The scrambler is applied to the old counter x_k instead of the advanced "
                "counter x_{k+1} = x_k + gamma.", SEEDING, _splitmix_old_counter),
        Mistake("splitmix-no-final-xorshift",
                "The final xor-shift out = z ^ (z >> 31) is missing: the output is z after "
                "the second multiplication.", SEEDING, _splitmix_no_final),
        Mistake("splitmix-output-and-counter-swapped",
                "The pair is returned in the wrong order: the function returns "
                "(next counter, output) instead of (output, next counter).", SEEDING,
                _splitmix_swapped),
        Mistake("splitmix-shift-amounts",
                "The shift amounts of the first and last xor-shift are swapped (31 and 30): "
                "the rounds shift by 30, then 27, then 31.", SEEDING, _splitmix_shifts),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=10,
)



EXERCISE = SPLITMIX

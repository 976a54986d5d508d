"""Exercise ``rng-uniform``: a double uniform on [0, 1) from 53 high bits.

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
    STREAM,
    UNIFORM,
    _Scripted,
    _word_cases,
)

UNIFORM_SKELETON = folder_file(__file__, "skeleton.py")


def _uniform_reference_scripted(word: int) -> float:
    return _Scripted([word]).uniform()


def _uniform_cases() -> list[Case]:
    return _word_cases(404, 80)


def _uniform_divide(word: int) -> float:
    return word / 2**64


def _uniform_low_bits(word: int) -> float:
    return (word & ((1 << 53) - 1)) * 2.0**-53


def _uniform_n_minus_1(word: int) -> float:
    return (word >> 11) / float(2**53 - 1)


def _uniform_52_bits(word: int) -> float:
    return (word >> 12) * 2.0**-52


def _uniform_plug(student: Callable[..., Any]) -> Callable[[_rng.Rng], float]:
    def uniform(self: _rng.Rng) -> float:
        return float(student(self.next_u64()))
    return uniform


UNIFORM_EX = Exercise(
    name="rng-uniform",
    title="a double uniform on [0, 1) from 53 high bits",
    family="determinism",
    tag="[BV21]; [DET-SPEC §1]",
    anchor=UNIFORM,
    function_name="uniform_from_word",
    skeleton=UNIFORM_SKELETON,
    reference=_uniform_reference_scripted,
    cases=_uniform_cases,
    plugs=(Plug("reference.rng.Rng.uniform", _uniform_plug),),
    stream=STREAM,
    mistakes=(
        Mistake("uniform-divides-by-2-64",
                "The whole word is divided by 2**64 in floating point: that rounds (the "
                "largest words give exactly 1.0); keep the 53 high bits, out >> 11, and "
                "multiply by 2**-53, which is exact.", UNIFORM, _uniform_divide),
        Mistake("uniform-low-bits",
                "The 53 low bits (out & (2**53 - 1)) are used instead of the 53 high bits "
                "(out >> 11), the best-mixed bits of the scrambled output.", UNIFORM,
                _uniform_low_bits),
        Mistake("uniform-divides-by-2-53-minus-1",
                "The 53-bit integer is divided by 2**53 - 1 instead of multiplied by 2**-53: "
                "the largest value then becomes 1.0 and the grid is not exact.", UNIFORM,
                _uniform_n_minus_1),
        Mistake("uniform-52-bits",
                "Only 52 bits are kept ((out >> 12) * 2**-52): the grid has spacing 2**-53, "
                "one more bit, as a double's significand.", UNIFORM, _uniform_52_bits),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=10,
)



EXERCISE = UNIFORM_EX

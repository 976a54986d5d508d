"""Exercise ``rng-xoshiro-step``: one xoshiro256** step: output and new state.

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
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
    ENGINE,
    MASK,
    SCRAMBLER,
    STREAM,
    WORDS,
)

XOSHIRO_SKELETON = folder_file(__file__, "skeleton.py")


def _state_of(words: Sequence[int]) -> _rng.Rng:
    generator = _rng.Rng.__new__(_rng.Rng)
    generator.state = (words[0], words[1], words[2], words[3])
    return generator


def _xoshiro_reference(s0: int, s1: int, s2: int, s3: int) -> tuple[
        int, tuple[int, int, int, int]]:
    generator = _state_of((s0, s1, s2, s3))
    out = generator.next_u64()
    return out, generator.state


def _xoshiro_cases() -> list[Case]:
    draw = random.Random(303)
    edge = [w for _, w in EDGE_WORDS]
    cases = [Case((1, 2, 3, 4), "the published vector (1, 2, 3, 4)"),
             Case((0, 0, 0, 1), "only s3 set"), Case((0, 1, 0, 0), "only s1 = 1"),
             Case((MASK, MASK, MASK, MASK), "all ones"),
             Case((1 << 63, 1 << 63, 1 << 63, 1 << 63), "top bits only"),
             Case(_rng.seed_state(0), "seed 0"), Case(_rng.seed_state(7), "seed 7")]
    cases += [Case(tuple(draw.choice(edge) for _ in range(4)), "edge words") for _ in range(20)]
    cases += [Case(tuple(draw.getrandbits(64) for _ in range(4)), "random state")
              for _ in range(80)]
    return [c for c in cases if any(c.args)]


def _rotl(v: int, k: int) -> int:
    return ((v << k) | (v >> (64 - k))) & MASK


def _signed(v: int) -> int:
    return v - (1 << 64) if v >> 63 else v


def _rotl_signed(v: int, k: int) -> int:
    """A rotation whose right shift sign-extends (numpy int64 or C int64_t)."""
    return ((v << k) | (_signed(v) >> (64 - k))) & MASK


def _xoshiro(s0: int, s1: int, s2: int, s3: int, *, scramble_new: bool = False,
             t_after: bool = False, t_mask: bool = True, out_mask: bool = True,
             rot: Callable[[int, int], int] = _rotl, last_rot: int = 45,
             s0_first: bool = False) -> tuple[int, tuple[int, int, int, int]]:
    """xoshiro256** with one switch per mistake (the defaults are the right step)."""
    out = rot((s1 * 5) & MASK, 7) * 9
    if out_mask:
        out &= MASK
    t = (s1 << 17) & MASK if t_mask else s1 << 17
    s2 ^= s0
    if s0_first:
        s0 ^= s3
        s3 ^= s1
    else:
        s3 ^= s1
    s1 ^= s2
    if not s0_first:
        s0 ^= s3
    if t_after:
        t = (s1 << 17) & MASK
    s2 ^= t
    s3 = rot(s3, last_rot)
    if scramble_new:
        out = (rot((s1 * 5) & MASK, 7) * 9) & MASK
    return out, (s0, s1, s2, s3)


def _xoshiro_mistake(**switches: Any) -> Callable[..., tuple[int, tuple[int, int, int, int]]]:
    def step(s0: int, s1: int, s2: int, s3: int) -> tuple[int, tuple[int, int, int, int]]:
        return _xoshiro(s0, s1, s2, s3, **switches)
    return step


def _xoshiro_plug(student: Callable[..., Any]) -> Callable[[_rng.Rng], int]:
    def next_u64(self: _rng.Rng) -> int:
        out, state = student(*self.state)
        self.state = tuple(int(w) for w in state)  # type: ignore[assignment]
        return int(out)
    return next_u64


XOSHIRO = Exercise(
    name="rng-xoshiro-step",
    title="one xoshiro256** step: output and new state",
    family="determinism",
    tag="[BV21]; [DET-SPEC §1]",
    anchor=ENGINE,
    function_name="xoshiro_step",
    skeleton=XOSHIRO_SKELETON,
    reference=_xoshiro_reference,
    cases=_xoshiro_cases,
    plugs=(Plug("reference.rng.Rng.next_u64", _xoshiro_plug),),
    stream=STREAM,
    mistakes=(
        Mistake("xoshiro-scrambles-new-s1",
                "The ** scrambler is applied to s1 after the state update: the output "
                "scrambles the old s1, computed before the six update operations.",
                SCRAMBLER, _xoshiro_mistake(scramble_new=True)),
        Mistake("xoshiro-t-from-new-s1",
                "t = s1 << 17 is taken after s1 ^= s2 has changed s1: t must be computed "
                "from the old s1, before the updates.", ENGINE, _xoshiro_mistake(t_after=True)),
        Mistake("xoshiro-shift-not-masked",
                "t = s1 << 17 is not reduced with & (2**64 - 1): a Python left shift keeps "
                "the bits that C's uint64_t would drop, and s2 grows past 64 bits.", WORDS,
                _xoshiro_mistake(t_mask=False)),
        Mistake("xoshiro-output-not-masked",
                "The scrambler's final multiplication by 9 is not reduced modulo 2**64, so "
                "the output can exceed 64 bits.", WORDS, _xoshiro_mistake(out_mask=False)),
        Mistake("xoshiro-rotate-right",
                "s3 is rotated right by 45 instead of left (rotr(v, 45) is rotl(v, 19)).",
                ENGINE, _xoshiro_mistake(last_rot=19)),
        Mistake("xoshiro-arithmetic-shift",
                "The rotation's right shift sign-extends (a signed 64-bit word, as with "
                "numpy.int64): rotations must shift in zeros, on unsigned words.", WORDS,
                _xoshiro_mistake(rot=_rotl_signed)),
        Mistake("xoshiro-update-order",
                "s0 ^= s3 is applied before s3 ^= s1: the six updates must run in the "
                "order s2, s3, s1, s0, s2, s3.", ENGINE, _xoshiro_mistake(s0_first=True)),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=15,
)



EXERCISE = XOSHIRO

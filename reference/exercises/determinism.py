"""Exercises on the project's random generator (tutorial 1, [DET-SPEC §1]).

Five functions of :mod:`reference.rng`, each checked by its two routes: on randomized
64-bit words with the edge cases (zero, all ones, the top bit, words whose low bits matter)
and plugged into :class:`reference.rng.Rng` inside a small reference
``DynamicTreeRegressor``, whose every split and resampling draws from the generator, run
beside the ``fast`` model whose generator is the C twin. A wrong generator shows as a
divergence at the first draw it changes (usually ``snapshot.rng_state`` at step 0).

* ``rng-splitmix64``: one splitmix64 step [SLF14], Eqs. ``eq-splitmix-counter`` and
  ``eq-splitmix-mix`` of the tutorial;
* ``rng-seed-state``: the four state words of a seed;
* ``rng-xoshiro-step``: one xoshiro256** output and state update [BV21];
* ``rng-uniform``: the double uniform on [0, 1) from the 53 high bits;
* ``rng-below``: an integer below ``n`` by bitmask rejection, and how many outputs it
  consumed.

Every mistake here is a slip students make with 64-bit words in Python (a missing
``& MASK``, a signed shift, the scrambler on the updated word, dividing by 2**64, a
modulo); the mutation harness carries no generator mutants, so ``Mistake.mutant`` is empty.

References
----------
[BV21] D. Blackman and S. Vigna, "Scrambled linear pseudorandom number generators",
ACM Trans. Math. Softw. 47(4), 2021.
[SLF14] G. Steele, D. Lea and C. Flood, "Fast splittable pseudorandom number generators",
OOPSLA 2014.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from reference import rng as _rng
from reference.exercises.catalog import Case, Exercise, Mistake, Plug, Stream

__all__ = ["EXERCISES"]

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
    {"n_particles": 12, "seed": 7, "active_size": 12, "retirement": "random"},
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


# ---------------------------------------------------------------------------
# rng-splitmix64
# ---------------------------------------------------------------------------

SPLITMIX_SKELETON = '''\
"""Exercise rng-splitmix64: one step of splitmix64 (tutorial 1, "Seeding: splitmix64")."""


def splitmix64_step(x: int) -> tuple[int, int]:
    r"""One step of splitmix64: the output and the next counter.

    The counter advances by the odd constant gamma = 0x9E3779B97F4A7C15, and the new
    counter is scrambled by two xor-shift-multiply rounds and a final xor-shift
    [SLF14]; [DET-SPEC §1]:

    .. math::

        x' = x + \\gamma \\bmod 2^{64}, \\qquad z \\leftarrow x',

        z \\leftarrow (z \\oplus (z \\gg 30)) \\cdot \\texttt{0xBF58476D1CE4E5B9} \\bmod 2^{64},

        z \\leftarrow (z \\oplus (z \\gg 27)) \\cdot \\texttt{0x94D049BB133111EB} \\bmod 2^{64},

        \\text{out} = z \\oplus (z \\gg 31).

    Tutorial: tutorials/01_determinism.md, section "Seeding: splitmix64".

    Parameters
    ----------
    x : int
        The counter, in [0, 2**64).

    Returns
    -------
    (output, next_x) : tuple of int
        Both in [0, 2**64). Python integers never overflow: reduce with
        ``& (2**64 - 1)`` where C's uint64_t would wrap.
    """
    raise NotImplementedError
'''


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
    hints=(
        "Two values come out: the output and the new counter. Which of the two does the "
        "scrambler start from, the counter before or after adding gamma?",
        "Python integers never wrap: after every + and * reduce with & (2**64 - 1); "
        "right shifts and xor cannot leave 64 bits.",
        "Three lines after the counter update: z = (z ^ (z >> 30)) * C1 masked, the same "
        "with 27 and C2, and an unmasked final xor-shift by 31.",
    ),
    minutes=10,
)


# ---------------------------------------------------------------------------
# rng-seed-state
# ---------------------------------------------------------------------------

SEED_SKELETON = '''\
"""Exercise rng-seed-state: the generator's four state words from one integer seed."""


def seed_state(seed: int) -> tuple[int, int, int, int]:
    r"""The four xoshiro256** state words for ``seed``: four successive splitmix64 outputs.

    The seed is taken modulo 2**64 (so -1 and 2**64 - 1 are the same seed) and is the
    splitmix64 counter's start value x_0 [SLF14]; [DET-SPEC §1]:

    .. math::

        x_0 = \\text{seed} \\bmod 2^{64}, \\qquad
        (s_i,\\ x_{i+1}) = \\operatorname{splitmix64}(x_i), \\quad i = 0, 1, 2, 3.

    Tutorial: tutorials/01_determinism.md, section "Seeding: splitmix64". You need one
    splitmix64 step (exercise rng-splitmix64): write it in this file as a helper.

    Parameters
    ----------
    seed : int
        Any integer.

    Returns
    -------
    (s0, s1, s2, s3) : tuple of int
        Each in [0, 2**64).
    """
    raise NotImplementedError
'''


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
    hints=(
        "The seed is the starting counter of splitmix64, reduced modulo 2**64.",
        "Call one splitmix64 step four times; carry its counter from one call to the next.",
        "Each call returns (output, next counter): keep the outputs as s0..s3, in order, "
        "and pass the counter on.",
    ),
    minutes=10,
)


# ---------------------------------------------------------------------------
# rng-xoshiro-step
# ---------------------------------------------------------------------------

XOSHIRO_SKELETON = '''\
"""Exercise rng-xoshiro-step: one output and state update of xoshiro256**."""


def xoshiro_step(s0: int, s1: int, s2: int, s3: int) -> tuple[int, tuple[int, int, int, int]]:
    r"""One step of xoshiro256**: the output and the new state [BV21]; [DET-SPEC §1].

    The output scrambles s1 *before* the update ("star-star": multiply, rotate,
    multiply); the update is six linear operations, in this order, with
    t = s1 << 17 (a left shift, reduced to 64 bits):

    .. math::

        \\text{out} = \\operatorname{rotl}(5\\,s_1 \\bmod 2^{64},\\ 7) \\cdot 9 \\bmod 2^{64},

        s_2 \\mathrel{\\oplus}= s_0,\\quad s_3 \\mathrel{\\oplus}= s_1,\\quad
        s_1 \\mathrel{\\oplus}= s_2,\\quad s_0 \\mathrel{\\oplus}= s_3,\\quad
        s_2 \\mathrel{\\oplus}= t,\\quad s_3 \\leftarrow \\operatorname{rotl}(s_3, 45),

    where rotl(v, k) rotates the 64-bit word v left by k bits.

    Tutorial: tutorials/01_determinism.md, sections "The linear engine" and
    "The ** scrambler".

    Parameters
    ----------
    s0, s1, s2, s3 : int
        The state words, in [0, 2**64), not all zero.

    Returns
    -------
    (output, (s0, s1, s2, s3)) : tuple
        The output and the new state words, all in [0, 2**64).
    """
    raise NotImplementedError
'''


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
    hints=(
        "Two parts: the output depends only on the old s1; the update is six xor, shift "
        "and rotate operations in a fixed order.",
        "Write rotl(v, k) = ((v << k) | (v >> (64 - k))) & (2**64 - 1) first; every + , * "
        "and << needs the mask in Python.",
        "Compute the output and t = (s1 << 17) & MASK from the old words before touching "
        "the state; then apply the six updates exactly in the listed order.",
    ),
    minutes=15,
)


# ---------------------------------------------------------------------------
# rng-uniform
# ---------------------------------------------------------------------------

UNIFORM_SKELETON = '''\
"""Exercise rng-uniform: a double uniform on [0, 1) from one 64-bit output."""


def uniform_from_word(word: int) -> float:
    r"""The double uniform on [0, 1) made from the 53 high bits of ``word``.

    [BV21]; [DET-SPEC §1]:

    .. math::

        U = \\left\\lfloor \\frac{\\text{out}}{2^{11}} \\right\\rfloor \\cdot 2^{-53}
          = (\\text{out} \\gg 11) \\cdot 2^{-53}.

    Every step is exact in double precision, so U is a multiple of 2**-53 below 1.

    Tutorial: tutorials/01_determinism.md, section "A double uniform on [0, 1)".

    Parameters
    ----------
    word : int
        One raw output, in [0, 2**64).

    Returns
    -------
    float
        In [0, 1).
    """
    raise NotImplementedError
'''


class _Scripted(_rng.Rng):
    """The reference generator whose raw outputs are given words (counts what it used)."""

    def __init__(self, words: Sequence[int]) -> None:
        self.words = words
        self.used = 0

    def next_u64(self) -> int:
        word = self.words[self.used]  # IndexError when the given words are used up
        self.used += 1
        return word


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
    hints=(
        "A double's significand holds 53 bits: which 53 of the 64 bits of the word are the "
        "best mixed ones?",
        "Shift the word right so that 53 bits remain, then scale the integer into [0, 1) "
        "with a power of two (no division, no rounding).",
    ),
    minutes=10,
)


# ---------------------------------------------------------------------------
# rng-below
# ---------------------------------------------------------------------------

BELOW_SKELETON = '''\
"""Exercise rng-below: an integer uniform on {0, ..., n-1} by bitmask rejection."""

from collections.abc import Sequence


def below(n: int, words: Sequence[int]) -> tuple[int, int]:
    r"""A uniform integer below ``n`` from raw outputs, and how many outputs it used.

    mask = 2**k - 1 is the smallest such number not below n - 1; try the words in order,
    v = word & mask, and accept the first v < n [DET-SPEC §1]; the rejection gives
    exactly (no modulo bias)

    .. math::

        \\Pr(v = j \\mid v < n) = \\frac{2^{-k}}{n\\,2^{-k}} = \\frac{1}{n},
        \\qquad j = 0, \\ldots, n - 1.

    Every call uses at least one word, also for n = 1 (the number of outputs a model
    consumes must not depend on such edge cases).

    Tutorial: tutorials/01_determinism.md, section
    "An integer uniform on {0, ..., n-1}: bitmask rejection".

    Parameters
    ----------
    n : int
        In [1, 2**64 - 1].
    words : sequence of int
        The generator's next raw outputs, in order (more than you will need).

    Returns
    -------
    (value, used) : tuple of int
        The accepted value in [0, n) and the number of words consumed (>= 1).
    """
    raise NotImplementedError
'''


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
    hints=(
        "Find the smallest mask = 2**k - 1 with mask >= n - 1; no logarithms needed.",
        "Or-ing n - 1 with its right shifts by 1, 2, 4, 8, 16 and 32 copies its highest "
        "set bit into every lower position.",
        "Loop over the words counting them; return the first word & mask that is below n, "
        "with the count. n = 1 gives mask 0 and still uses a word.",
    ),
    minutes=15,
)


EXERCISES: tuple[Exercise, ...] = (SPLITMIX, SEED, XOSHIRO, UNIFORM_EX, BELOW_EX)
"""The generator's exercises, in the tutorial's order."""

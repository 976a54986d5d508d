"""The project's one random generator: xoshiro256** seeded by splitmix64.

Every stochastic routine in both backends draws from an :class:`Rng` passed to it
explicitly; nothing else produces randomness ([DET-SPEC §1]). The C twin is
``csrc/common/rng.c`` (``rng_seed``, ``rng_next_u64``, ``rng_uniform``, ``rng_below``,
``rng_stream_seed``).

Notation
--------
``s[0..3]``  the four 64-bit state words of xoshiro256** [BV21].
``MASK``     2**64 - 1: Python integers are unbounded, so every 64-bit operation is
             reduced with ``& MASK`` where C's ``uint64_t`` wraps by itself.

References
----------
[BV21] D. Blackman and S. Vigna, "Scrambled linear pseudorandom number generators",
ACM Trans. Math. Softw. 47(4), 2021. splitmix64 is from G. Steele, D. Lea and
C. Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014.
"""

from __future__ import annotations

from typing import Any

MASK = (1 << 64) - 1
"""2**64 - 1, the modulus of ``uint64_t`` arithmetic."""

TWO_POW_MINUS_53 = 1.0 / 9007199254740992.0
"""2**-53: the spacing of doubles in [0.5, 1), so ``(u >> 11) * 2**-53`` is exact."""


def _rotl(value: int, shift: int) -> int:
    """Rotate a 64-bit word left by ``shift`` bits."""
    return ((value << shift) | (value >> (64 - shift))) & MASK


def splitmix64(x: int) -> tuple[int, int]:
    """One step of splitmix64: return ``(output, next_x)``.

    The generator adds the golden-ratio increment ``0x9e3779b97f4a7c15`` to its
    counter and scrambles the result with two xor-shift-multiply rounds.
    """
    x = (x + 0x9E3779B97F4A7C15) & MASK
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31), x


def seed_state(seed: int) -> tuple[int, int, int, int]:
    """The four state words for ``seed``: four successive splitmix64 outputs.

    The seed is taken modulo 2**64, so negative seeds are accepted and ``-1`` is the same
    generator as ``2**64 - 1``.
    """
    x = seed & MASK
    words = []
    for _ in range(4):
        out, x = splitmix64(x)
        words.append(out)
    return (words[0], words[1], words[2], words[3])


def unpickled_state(words: Any) -> tuple[int, int, int, int]:
    """A generator state read from a pickle, checked as :func:`check_state` checks it;
    a state it refuses (an all-zero state, words out of range, not four words) raises
    :class:`~reference.state.StateFormatError`, as every tampered pickle does. Used by
    the generators of both backends."""
    from reference.state import StateFormatError

    try:
        return check_state(words)
    except (TypeError, ValueError) as exc:
        raise StateFormatError(f"cannot restore Rng: the pickled generator state is "
                               f"invalid ({exc})") from None


def stream_seed(key: int, slot: int) -> int:
    """The seed of particle slot ``slot``'s generator in a step with key ``key``
    ([DET-SPEC §1]): ``splitmix64(key XOR splitmix64(slot))``, outputs only.

    Each splitmix64 output is a bijection of its input, so for one key distinct slots get
    distinct seeds; and the seeds are scattered over the 64-bit range rather than
    consecutive. That matters because :func:`seed_state` takes the four splitmix64
    outputs at ``seed + i * 0x9e3779b97f4a7c15`` (i = 1..4): seeds ``s`` and
    ``s + 0x9e3779b97f4a7c15`` would share three state words (a shifted copy of one
    stream), which a rule such as ``key + slot * 0x9e3779b97f4a7c15`` produces and this
    one does not (two slots overlap only if their seeds differ by at most three
    increments, a chance of about ``7 / 2**64`` per pair).
    """
    mixed_slot, _ = splitmix64(slot & MASK)
    seed, _ = splitmix64((key ^ mixed_slot) & MASK)
    return seed


def check_state(words: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """``words`` as a tuple if they are a valid generator state (four ints in [0, 2**64),
    not all zero); ``ValueError`` otherwise. Used by the generators of both backends."""
    values = tuple(words)
    if len(values) != 4 or not all(
        isinstance(w, int) and not isinstance(w, bool) and 0 <= w <= MASK for w in values
    ):
        raise ValueError("state must be four ints in [0, 2**64)")
    if values == (0, 0, 0, 0):
        raise ValueError("state must not be all zero (xoshiro256** would stay at zero)")
    return values


class StateEquality:
    """``repr``, equality and pickling by ``state``, for the generators of both backends.

    Two generators are equal when they are of the same class and in the same state (so a
    ``reference.Rng`` never equals a ``fast.Rng``, even in the same state); generators are
    mutable, hence unhashable. Pickling stores the state tuple only.
    """

    state: tuple[int, int, int, int]

    def __repr__(self) -> str:
        return f"Rng(state={self.state!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, type(self)):
            return NotImplemented
        return self.state == other.state

    __hash__ = None  # type: ignore[assignment]

    def __getstate__(self) -> tuple[int, int, int, int]:
        return self.state


class Rng(StateEquality):
    """The xoshiro256** generator seeded by splitmix64 ([DET-SPEC §1]).

    Bit-identical to its C twin ``fast.rng.Rng``.

    Parameters
    ----------
    seed : int
        Any integer; taken modulo 2**64.

    Notes
    -----
    Random draws: each method states how many raw 64-bit outputs it consumes.
    ``next_u64`` and ``uniform`` consume exactly one; ``below(n)`` consumes one or
    more (rejection sampling), at least one even for ``n = 1``.

    Examples
    --------
    >>> rng = Rng(0)
    >>> rng.state[0] == 0xE220A8397B1DCDAF
    True
    >>> [rng.below(7) for _ in range(5)]
    [4, 2, 0, 4, 1]
    >>> rng.state = Rng(0).state          # rewind
    >>> rng.below(7)
    4
    """

    __slots__ = ("_s0", "_s1", "_s2", "_s3")

    def __init__(self, seed: int = 0) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"seed must be an int, got {type(seed).__name__}")
        self._s0, self._s1, self._s2, self._s3 = seed_state(seed)

    @property
    def state(self) -> tuple[int, int, int, int]:
        """The four state words ``(s0, s1, s2, s3)`` as Python ints in [0, 2**64)."""
        return (self._s0, self._s1, self._s2, self._s3)

    @state.setter
    def state(self, words: tuple[int, int, int, int]) -> None:
        values = check_state(words)
        self._s0, self._s1, self._s2, self._s3 = values

    def next_u64(self) -> int:
        """One raw xoshiro256** output in [0, 2**64). Random draws: one output."""
        s0, s1, s2, s3 = self._s0, self._s1, self._s2, self._s3
        result = (_rotl((s1 * 5) & MASK, 7) * 9) & MASK
        t = (s1 << 17) & MASK
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = _rotl(s3, 45)
        self._s0, self._s1, self._s2, self._s3 = s0, s1, s2, s3
        return result

    def uniform(self) -> float:
        """A double uniform on [0, 1): ``(next_u64() >> 11) * 2**-53``.

        Random draws: one output. The 53 high bits become the mantissa, so every value is
        a multiple of 2**-53 and the product is exact.
        """
        return (self.next_u64() >> 11) * TWO_POW_MINUS_53

    def below(self, n: int) -> int:
        """An integer uniform on {0, ..., n-1} by bitmask rejection (no modulo bias).

        ``mask`` is the smallest 2**k - 1 not below ``n - 1``; draws ``next_u64() & mask``
        are rejected until one is below ``n``. Each try succeeds with probability
        ``n / (mask + 1) > 1/2``.

        Random draws: one output per try, at least one (also for ``n = 1``).
        """
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(f"n must be an int, got {type(n).__name__}")
        if not 1 <= n <= MASK:
            raise ValueError(f"n must be in [1, 2**64 - 1], got {n}")
        mask = n - 1
        mask |= mask >> 1
        mask |= mask >> 2
        mask |= mask >> 4
        mask |= mask >> 8
        mask |= mask >> 16
        mask |= mask >> 32
        while True:
            v = self.next_u64() & mask
            if v < n:
                return v


    def __setstate__(self, state: tuple[int, int, int, int]) -> None:
        self._s0, self._s1, self._s2, self._s3 = unpickled_state(state)

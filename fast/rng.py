"""``fast.rng.Rng``: the C twin of :class:`reference.rng.Rng` (``csrc/common/rng.c``)."""

from __future__ import annotations

from typing import Any

from fast._ffi import ffi, lib
from reference.rng import MASK, StateEquality, check_state, unpickled_state

__all__ = ["Rng"]


class Rng(StateEquality):
    """The xoshiro256** generator seeded by splitmix64 ([DET-SPEC §1]).

    Bit-identical to ``reference.rng.Rng``.

    Same methods, same draws, same settable ``state``; the state lives in a C
    ``rng_state`` struct that the ``fast`` models share with their C code.

    Parameters
    ----------
    seed : int
        Any integer; taken modulo 2**64.

    Examples
    --------
    >>> rng = Rng(0)
    >>> rng.state[0] == 0xE220A8397B1DCDAF
    True
    >>> [rng.below(7) for _ in range(5)]
    [4, 2, 0, 4, 1]
    """

    __slots__ = ("_c",)

    def __init__(self, seed: int = 0) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"seed must be an int, got {type(seed).__name__}")
        self._c: Any = ffi.new("rng_state *")
        lib.rng_seed(self._c, seed & MASK)

    @classmethod
    def _wrap(cls, ptr: Any) -> Rng:
        """An ``Rng`` view on a ``rng_state *`` owned by a C model (kept alive by caller)."""
        obj = cls.__new__(cls)
        obj._c = ptr
        return obj

    @property
    def state(self) -> tuple[int, int, int, int]:
        """The four state words ``(s0, s1, s2, s3)`` as Python ints in [0, 2**64)."""
        s = self._c.s
        return (int(s[0]), int(s[1]), int(s[2]), int(s[3]))

    @state.setter
    def state(self, words: tuple[int, int, int, int]) -> None:
        values = check_state(words)
        for i in range(4):
            self._c.s[i] = values[i]

    def next_u64(self) -> int:
        """One raw xoshiro256** output in [0, 2**64). Random draws: one output."""
        return int(lib.rng_next_u64(self._c))

    def uniform(self) -> float:
        """A double uniform on [0, 1): ``(next_u64() >> 11) * 2**-53``. One output."""
        return float(lib.rng_uniform(self._c))

    def below(self, n: int) -> int:
        """An integer uniform on {0, ..., n-1} by bitmask rejection; >= 1 output."""
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(f"n must be an int, got {type(n).__name__}")
        if not 1 <= n <= MASK:
            raise ValueError(f"n must be in [1, 2**64 - 1], got {n}")
        return int(lib.rng_below(self._c, n))


    def __setstate__(self, state: tuple[int, int, int, int]) -> None:
        self._c = ffi.new("rng_state *")
        self.state = unpickled_state(state)

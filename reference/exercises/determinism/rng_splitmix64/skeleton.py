"""Exercise rng-splitmix64: one step of splitmix64 (tutorial 1, "Seeding: splitmix64")."""


def splitmix64_step(x: int) -> tuple[int, int]:
    r"""One step of splitmix64: the output and the next counter.

    The counter advances by the odd constant gamma = 0x9E3779B97F4A7C15, and the new
    counter is scrambled by two xor-shift-multiply rounds and a final xor-shift
    [SLF14]; [DET-SPEC §1]:

    .. math::

        x' = x + \gamma \bmod 2^{64}, \qquad z \leftarrow x',

        z \leftarrow (z \oplus (z \gg 30)) \cdot \texttt{0xBF58476D1CE4E5B9} \bmod 2^{64},

        z \leftarrow (z \oplus (z \gg 27)) \cdot \texttt{0x94D049BB133111EB} \bmod 2^{64},

        \text{out} = z \oplus (z \gg 31).

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

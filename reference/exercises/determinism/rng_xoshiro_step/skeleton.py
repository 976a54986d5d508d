"""Exercise rng-xoshiro-step: one output and state update of xoshiro256**."""


def xoshiro_step(s0: int, s1: int, s2: int, s3: int) -> tuple[int, tuple[int, int, int, int]]:
    r"""One step of xoshiro256**: the output and the new state [BV21]; [DET-SPEC §1].

    The output scrambles s1 *before* the update ("star-star": multiply, rotate,
    multiply); the update is six linear operations, in this order, with
    t = s1 << 17 (a left shift, reduced to 64 bits):

    .. math::

        \text{out} = \operatorname{rotl}(5\,s_1 \bmod 2^{64},\ 7) \cdot 9 \bmod 2^{64},

        s_2 \mathrel{\oplus}= s_0,\quad s_3 \mathrel{\oplus}= s_1,\quad
        s_1 \mathrel{\oplus}= s_2,\quad s_0 \mathrel{\oplus}= s_3,\quad
        s_2 \mathrel{\oplus}= t,\quad s_3 \leftarrow \operatorname{rotl}(s_3, 45),

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

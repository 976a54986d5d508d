"""Exercise rng-uniform: a double uniform on [0, 1) from one 64-bit output."""


def uniform_from_word(word: int) -> float:
    r"""The double uniform on [0, 1) made from the 53 high bits of ``word``.

    [BV21]; [DET-SPEC §1]:

    .. math::

        U = \left\lfloor \frac{\text{out}}{2^{11}} \right\rfloor \cdot 2^{-53}
          = (\text{out} \gg 11) \cdot 2^{-53}.

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

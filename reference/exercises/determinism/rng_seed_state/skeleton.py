"""Exercise rng-seed-state: the generator's four state words from one integer seed."""


def seed_state(seed: int) -> tuple[int, int, int, int]:
    r"""The four xoshiro256** state words for ``seed``: four successive splitmix64 outputs.

    The seed is taken modulo 2**64 (so -1 and 2**64 - 1 are the same seed) and is the
    splitmix64 counter's start value x_0 [SLF14]; [DET-SPEC §1]:

    .. math::

        x_0 = \text{seed} \bmod 2^{64}, \qquad
        (s_i,\ x_{i+1}) = \operatorname{splitmix64}(x_i), \quad i = 0, 1, 2, 3.

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

"""Exercise rng-below: an integer uniform on {0, ..., n-1} by bitmask rejection."""

from collections.abc import Sequence


def below(n: int, words: Sequence[int]) -> tuple[int, int]:
    r"""A uniform integer below ``n`` from raw outputs, and how many outputs it used.

    mask = 2**k - 1 is the smallest such number not below n - 1; try the words in order,
    v = word & mask, and accept the first v < n [DET-SPEC §1]; the rejection gives
    exactly (no modulo bias)

    .. math::

        \Pr(v = j \mid v < n) = \frac{2^{-k}}{n\,2^{-k}} = \frac{1}{n},
        \qquad j = 0, \ldots, n - 1.

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



def randomized_probability(n1: int, n: int) -> float:
    r"""Probability that a BASE ball predicts label 1 [DOC15, Alg. 2].

    A ball holding ``n1`` points of label 1 out of ``n`` predicts label 1 with
    probability ([ABACOC-SPEC §4], P1-P3)

    .. math::

        q = \frac{n_1 + 1}{n + 2}, \qquad
        \gamma = \frac{1}{2\sqrt{n + 2}}, \qquad
        p = \min\Big(1, \max\Big(0, \tfrac12 + \frac{q - 1/2}{2\gamma}\Big)\Big):

    the Laplace estimate is trusted only outside a band of half-width :math:`\gamma`
    around 1/2; inside it the vote is a coin biased linearly towards the estimate.
    Compute :math:`q`, then :math:`\gamma`, then :math:`p` as written
    ([ABACOC-SPEC §4] fixes these operations, so do not simplify :math:`1/(2\gamma)`).
    Tutorial: "BASE: one shrinking radius and a randomized vote" (tutorials/04_abacoc.md).

    Parameters
    ----------
    n1 : int
        Points of label 1 in the ball, ``0 <= n1 <= n``.
    n : int
        All points in the ball (0 for no ball).

    Returns
    -------
    float
        :math:`p \in [0, 1]`.
    """
    raise NotImplementedError

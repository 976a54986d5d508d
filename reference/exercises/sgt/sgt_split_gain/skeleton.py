import sys

EPSILON = sys.float_info.min   # the smallest normal double, 2.2e-308


def split_gain(children: list[list[float]], lam: float) -> tuple[float, float]:
    r"""Mean and variance of the loss change of a split, pooled over its children.

    Each child :math:`j` of a candidate split gets its own Newton step
    :math:`\Delta_j = -\bar g_j / (\bar h_j + \lambda + \varepsilon)` [GPF19, Eq. 13] and
    the per-instance loss change of its instances has mean :math:`m_j` and variance
    :math:`s_j^2` [GPF19, Eq. 17-18] (the previous two exercises). Every instance of the
    leaf falls in exactly one child, so the candidate's loss change is the pooled sample
    ([SGT-SPEC §7.3]); with :math:`n = \sum_j n_j`,

    .. math::

        m = \frac{1}{n} \sum_j n_j m_j, \qquad
        s^2 = \frac{1}{n - 1}\Big[\sum_j (n_j - 1)\, s_j^2 + \sum_j n_j (m_j - m)^2\Big],

    summing over the children with :math:`n_j > 0` only; :math:`s^2 = 0` when
    :math:`n < 2`. :math:`m` is the gain (a negative loss change is an improvement); the
    split test of [GPF19, Eq. 16] uses both.
    Tutorial: "How much does the loss change, and how sure are we?"
    (tutorials/03_stochastic_gradient_trees.md).

    Parameters
    ----------
    children : list of lists
        One cell per child, ``[n_j, sum_g, sum_h, m_g, m_h, c]`` (count, sums, centred
        sums of squares and co-moment of its (g, h) pairs); at least one child has
        ``n_j > 0``.
    lam : float
        :math:`\lambda \ge 0`.

    Returns
    -------
    tuple of float
        ``(m, s2)``.
    """
    raise NotImplementedError

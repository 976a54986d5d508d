def welford_add(cell: list[float], g: float, h: float) -> list[float]:
    r"""Add one (g, h) pair to a leaf's statistics cell, Welford's way [SGT-SPEC §4.2].

    A cell ``[n, sum_g, sum_h, m_g, m_h, c]`` holds the count, the sums
    :math:`\Sigma g, \Sigma h`, the centred sums of squares
    :math:`M_g = \Sigma (g - \bar g)^2`, :math:`M_h` and the co-moment
    :math:`C = \Sigma (g - \bar g)(h - \bar h)` [GPF19, §3.3]. One pair updates them
    without storing it (Welford, 1962; co-moment form):

    .. math::

        M_g \mathrel{+}= (g - \bar g_{\text{old}})(g - \bar g_{\text{new}}),\quad
        M_h \mathrel{+}= (h - \bar h_{\text{old}})(h - \bar h_{\text{new}}),\quad
        C \mathrel{+}= (g - \bar g_{\text{old}})(h - \bar h_{\text{new}}),

    where the means are :math:`\Sigma / n` before and after the pair is counted (an
    empty cell has means 0).
    Tutorial: "Statistics of a leaf" (tutorials/03_stochastic_gradient_trees.md).

    Parameters
    ----------
    cell : list
        ``[n, sum_g, sum_h, m_g, m_h, c]`` before the pair (do not modify it).
    g, h : float
        The gradient and Hessian of the new instance.

    Returns
    -------
    list
        The new ``[n, sum_g, sum_h, m_g, m_h, c]`` (``n`` an int).
    """
    raise NotImplementedError

def merge_cells(a: list[float], b: list[float]) -> list[float]:
    r"""Merge the statistics of two cells exactly (Chan et al.) [SGT-SPEC §4.3].

    A candidate split's children are merges of bin cells ``[n, sum_g, sum_h, m_g, m_h,
    c]`` (count, sums, centred sums of squares, co-moment [GPF19, §3.3]). With the means
    :math:`\bar g = \Sigma g / n`, :math:`d_g = \bar g_B - \bar g_A`,
    :math:`d_h = \bar h_B - \bar h_A` and :math:`n = n_A + n_B`,

    .. math::

        M_g = M_{g,A} + M_{g,B} + d_g^2 \frac{n_A n_B}{n},\quad
        M_h = M_{h,A} + M_{h,B} + d_h^2 \frac{n_A n_B}{n},\quad
        C = C_A + C_B + d_g d_h \frac{n_A n_B}{n},

    and the counts and sums add. An empty side gives a copy of the other side. Compute
    the weight once as ``n_A * n_B / n`` (floats, in that order) and each term as
    ``d * d * weight`` (``d_g * d_h * weight`` for C), added left to right.
    Tutorial: "Statistics of a leaf" (tutorials/03_stochastic_gradient_trees.md).

    Parameters
    ----------
    a, b : list
        The two cells ``[n, sum_g, sum_h, m_g, m_h, c]`` (do not modify them).

    Returns
    -------
    list
        The merged cell (``n`` an int).
    """
    raise NotImplementedError

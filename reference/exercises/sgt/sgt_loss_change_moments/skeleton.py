def loss_change_moments(delta: float, n: int, sum_g: float, sum_h: float,
                        m_g: float, m_h: float, c: float) -> tuple[float, float]:
    r"""Mean and variance of the per-instance loss change of a step [GPF19, Eq. 17-18].

    Changing a leaf (or child) value by :math:`\Delta` changes the loss of instance
    :math:`i` by about :math:`L_i = g_i \Delta + \tfrac12 h_i \Delta^2`. Treat
    :math:`\Delta` as a constant; then ([SGT-SPEC §7.2])

    .. math::

        m = \Delta \bar g + \tfrac12 \bar h \Delta^2, \qquad
        s^2 = \max\big(0,\ \Delta^2 s_g^2 + \tfrac14 \Delta^4 s_h^2 + \Delta^3 c_{gh}\big),

    with the means :math:`\bar g = \Sigma g / n`, :math:`\bar h = \Sigma h / n` (0 when
    :math:`n = 0`) and the sample variances and covariance
    :math:`s_g^2 = M_g/(n-1)`, :math:`s_h^2 = M_h/(n-1)`, :math:`c_{gh} = C/(n-1)`
    (0 when :math:`n < 2`). The λ term of the paper's Eq. 11 is not added. A variance
    that is not positive (rounding, or NaN) is reported as 0.
    Tutorial: "How much does the loss change, and how sure are we?"
    (tutorials/03_stochastic_gradient_trees.md).

    Parameters
    ----------
    delta : float
        The step :math:`\Delta` (the Newton step of the cell).
    n : int
        Number of (g, h) pairs in the cell.
    sum_g, sum_h : float
        :math:`\Sigma g`, :math:`\Sigma h`.
    m_g, m_h : float
        Centred sums of squares :math:`M_g = \Sigma (g - \bar g)^2`, :math:`M_h`.
    c : float
        Co-moment :math:`C = \Sigma (g - \bar g)(h - \bar h)`.

    Returns
    -------
    tuple of float
        ``(m, s2)``.
    """
    raise NotImplementedError

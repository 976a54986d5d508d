

def pooled_summary(n: int, sy: float, syy: float, nu: float, syg: float, syyg: float,
                   nu0: float, s20: float) -> tuple[float, float, float, float]:
    r"""Location, residual sum of squares and degrees of freedom of a constant leaf that
    holds active points and retired (prior) information.

    Active statistics: :math:`n`, :math:`S_y`, :math:`S_{yy}`; retired ones: the mass
    :math:`\nu` and the sums :math:`S^g_y`, :math:`S^g_{yy}` (all 0 if nothing is
    retired). With :math:`\bar y = S_y/n` (0 if :math:`n = 0`) and
    :math:`S^2 = S_{yy} - n\bar y^2`:

    .. math::

        Q_p = \nu_0 s_0^2 + S^g_{yy} - [\nu > 0]\frac{(S^g_y)^2}{\nu}
        + [\nu > 0,\ n > 0]\,\frac{\nu n}{\nu + n}\Big(\bar y - \frac{S^g_y}{\nu}\Big)^2,

        Q = S^2 + Q_p,\qquad {\rm df} = \nu_0 + \nu + n - 1,\qquad
        \mu_0 = \begin{cases}\bar y & \nu = 0\\
        (S^g_y + S_y)/(\nu + n) & \nu > 0.\end{cases}

    :math:`Q_p` is the prior part: the retired points' own sum of squares plus the
    between-groups term, so that :math:`Q` is the sum of squares of all the points.

    [AG13, §3.1]; [DT-SPEC §3.0]. Tutorial: tutorials/05_data_retirement.md,
    "1. Retirement as a conjugate prior update".

    Parameters
    ----------
    n : int
        Active points in the leaf (may be 0).
    sy, syy : float
        Sum and sum of squares of the active responses.
    nu, syg, syyg : float
        Retired mass and the retired sums.
    nu0, s20 : float
        Baseline variance prior.

    Returns
    -------
    tuple of float
        ``(mu0, Q, Q_p, df)``.
    """
    raise NotImplementedError

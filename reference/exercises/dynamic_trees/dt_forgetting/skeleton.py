

def absorb_retired(nu: float, syg: float, syyg: float, y: float,
                   lam: float) -> tuple[float, float, float]:
    r"""Fold a retiring response ``y`` into a constant leaf's retired statistics with
    forgetting factor ``lam`` (the power prior).

    The power prior raises the likelihood of the retired data to the power
    :math:`\lambda \in (0, 1]`; applied at each retirement, every retired statistic is
    first discounted by :math:`\lambda`, then the retiree is added:

    .. math::

        \nu \leftarrow \lambda\nu + 1,\qquad S^g_y \leftarrow \lambda S^g_y + y,\qquad
        S^g_{yy} \leftarrow \lambda S^g_{yy} + y^2 .

    A point retired :math:`k` retirements ago weighs :math:`\lambda^k`; the baseline prior
    (:math:`\nu_0 s_0^2`) is never discounted.

    [AG13, §5]; [DT-SPEC §3.5]. Tutorial: tutorials/05_data_retirement.md,
    "4. Forgetting: power priors".

    Parameters
    ----------
    nu, syg, syyg : float
        Retired mass and retired sums before the retirement.
    y : float
        Response of the retiring point.
    lam : float
        Forgetting factor, ``0 < lam <= 1`` (1: no forgetting).

    Returns
    -------
    tuple of float
        ``(nu, syg, syyg)`` after the retirement.
    """
    raise NotImplementedError



def absorb_retired_linear(nu: float, syyg: float, gram: list[list[float]], xty: list[float],
                          z: list[float], y: float,
                          lam: float) -> tuple[float, float, list[list[float]], list[float]]:
    r"""Fold a retiring point into a linear leaf's retired statistics with forgetting
    factor ``lam`` (the power prior).

    A linear leaf :math:`y = z^\top\beta + \varepsilon` keeps, for its retired points,
    the mass :math:`\nu`, the sum of squares :math:`S^g_{yy}`, the Gram matrix
    :math:`G^g = \sum z z^\top` and :math:`b^g = \sum z\,y`. Retiring :math:`(z, y)`
    discounts every retired statistic by :math:`\lambda`, then adds the retiree:

    .. math::

        \nu \leftarrow \lambda\nu + 1,\quad S^g_{yy} \leftarrow \lambda S^g_{yy} + y^2,\quad
        G^g \leftarrow \lambda G^g + z z^\top,\quad b^g \leftarrow \lambda b^g + z\,y .

    [AG13, §3]; [AG13, §5]; [DT-SPEC §3.5]. Tutorial: tutorials/05_data_retirement.md,
    "4. Forgetting: power priors".

    Parameters
    ----------
    nu, syyg : float
        Retired mass and sum of squares.
    gram : list of list of float
        :math:`G^g`, ``p x p``.
    xty : list of float
        :math:`b^g`, ``p`` values.
    z : list of float
        The retiree's regressors (``p`` values, with the leading 1 of an explicit
        intercept).
    y : float
        The retiree's response.
    lam : float
        Forgetting factor, ``0 < lam <= 1``.

    Returns
    -------
    tuple
        ``(nu, syyg, gram, xty)`` after the retirement.
    """
    raise NotImplementedError

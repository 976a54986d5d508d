

def constant_log_evidence(n: int, sy: float, syy: float, nu0: float, s20: float) -> float:
    r"""Log evidence (marginal likelihood) of a constant leaf, as dynaTree computes it.

    A constant leaf holds :math:`n` responses :math:`y_i \mid \mu, \sigma^2 \sim
    N(\mu, \sigma^2)` with a flat prior on :math:`\mu` and the inverse-gamma prior
    :math:`\sigma^2 \sim {\rm IG}(\nu_0/2, \nu_0 s_0^2/2)` (:math:`\nu_0 = 0`: the
    improper :math:`1/\sigma^2`). With :math:`\bar y = S_y/n` (0 if :math:`n = 0`),
    :math:`S^2 = S_{yy} - n\bar y^2`, :math:`Q_p = \nu_0 s_0^2`, :math:`Q = S^2 + Q_p`
    and :math:`{\rm df} = \nu_0 + n - 1`:

    .. math::

        \ell = -\frac{n - 1}{2}\log\frac{2}{\pi} - \frac12\log n
        - \frac{\rm df}{2}\log\frac{Q}{2} + \log\Gamma\Big(\frac{\rm df}{2}\Big)
        + \Big[\frac{\nu_0}{2}\log\frac{Q_p}{2} - \log\Gamma\Big(\frac{\nu_0}{2}\Big)\Big]

    where :math:`-\frac12\log n` is present only for :math:`n > 0` and the bracket only
    for :math:`\nu_0 > 0` and :math:`Q_p > 0`. The constant is dynaTree's
    :math:`\log(2/\pi)`, not the textbook :math:`\log(2\pi)` (see the tutorial section
    "Where our constant differs from the textbook, and why"). An improper leaf,
    :math:`Q \le 0` or :math:`{\rm df} \le 0`, has evidence :math:`-\infty`.

    [TGP11]; [AG13, Eq. 1]; [DT-SPEC §3.1]. Tutorial: tutorials/02_dynamic_trees.md,
    "The constant leaf, derived step by step".

    Parameters
    ----------
    n : int
        Number of points in the leaf (may be 0).
    sy, syy : float
        Sum of the responses and sum of their squares.
    nu0, s20 : float
        Variance prior (``nu0 = s20 = 0``: the improper prior).

    Returns
    -------
    float
        :math:`\ell`, or ``-math.inf`` for an improper leaf.
    """
    raise NotImplementedError

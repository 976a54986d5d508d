

def constant_predictive(n: int, sy: float, syy: float, nu0: float,
                        s20: float) -> tuple[float, float, float]:
    r"""Student-t posterior predictive of a new response in a constant leaf.

    With the notation of the constant leaf's evidence (:math:`\bar y = S_y/n`, 0 if
    :math:`n = 0`; :math:`S^2 = S_{yy} - n\bar y^2`; :math:`Q = S^2 + \nu_0 s_0^2`;
    :math:`{\rm df} = \nu_0 + n - 1`), the predictive of a new :math:`y` is the ratio of
    two evidences, a Student-t

    .. math::

        y \mid y_\eta \sim t_{\rm df}\big(\bar y,\ s\big), \qquad
        s = \sqrt{\frac{Q\,(1 + h)}{\rm df}}, \qquad h = \frac1n

    (:math:`h = 0` for an empty leaf). If :math:`Q \le 0` or :math:`{\rm df} \le 0` the
    predictive is improper: return the scale ``math.inf`` (location and df as above).

    [TGP11]; [AG13, Eq. 1]; [DT-SPEC §3.1]. Tutorial: tutorials/02_dynamic_trees.md,
    "The predictive: a ratio of evidences".

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
    tuple of float
        ``(location, scale, df)``.
    """
    raise NotImplementedError

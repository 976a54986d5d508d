

def leaf_alc(q: float, df: float, n_total: float, delta: int, ginv: list[list[float]],
             xbar: list[float], z: list[float], lo: list[float], hi: list[float],
             approx: bool) -> float:
    r"""ALC of a leaf: the reduction in predictive variance that a design point brings,
    integrated over the leaf's rectangle.

    A point :math:`x` (regressors :math:`z`) added to leaf :math:`\eta` lowers the
    predictive variance at :math:`\zeta` by
    :math:`\frac{Q}{{\rm df}-2}\,k(\zeta)^2/(1 + h)`, with :math:`c = \delta/(n+\nu)`
    (0 if :math:`n + \nu = 0`), :math:`u = z - \bar x`, :math:`v = G^{-1}u`,
    :math:`h = c + u^\top v` and :math:`k(\zeta) = c + (\zeta - \bar x)^\top v`.
    Integrated over the rectangle :math:`\prod_i [a_i, b_i]`, shifted by :math:`-\bar x`
    (:math:`a = lo - \bar x`, :math:`b = hi - \bar x`):

    .. math::

        {\rm ALC} = \frac{Q\,A\,S}{({\rm df} - 2)(1 + h)},\qquad
        S = c'^2 + \sum_{i} \Big[c' v_i (a_i + b_i) + v_i^2\,\frac{a_i^2 + a_i b_i + b_i^2}{3}
        + \sum_{j < i} v_i v_j\,\frac{(a_i + b_i)(a_j + b_j)}{2}\Big],

    where the sums run over the *regular* sides (width :math:`b_i - a_i` greater than
    ``2.220446049250313e-16``) in index order, :math:`A` is the product of their widths
    (or :math:`n + \nu` if ``approx``), and each degenerate side (width at most that) is a
    point mass: for a linear leaf it adds :math:`v_i b_i` to :math:`c' = c + \dots`; for a
    constant leaf it makes :math:`A = 0` (unless ``approx``). A constant leaf has
    ``ginv = xbar = z = []`` (so :math:`v = 0`) and integrates the input columns. A leaf
    without :math:`Q > 0` and :math:`{\rm df} > 2` has ALC 0.

    [AG13, §4]; [DT-SPEC §7.1]; [DT-SPEC §7.4]. Tutorial: tutorials/05_data_retirement.md,
    "ALC for regression".

    Parameters
    ----------
    q, df : float
        The leaf's residual sum of squares and degrees of freedom.
    n_total : float
        :math:`n + \nu`, active points plus retired mass.
    delta : int
        1 if the intercept is implied by the leaf mean (constant leaf, implicit
        intercept), else 0.
    ginv : list of list of float
        :math:`G^{-1}`, ``p x p`` (empty for a constant leaf).
    xbar, z : list of float
        Column means used for centring (zeros with an explicit intercept) and the point's
        regressors, ``p`` values each (empty for a constant leaf).
    lo, hi : list of float
        The leaf's rectangle, one ``[lo_i, hi_i]`` per integrated column (``p`` columns
        for a linear leaf, the inputs for a constant one).
    approx : bool
        Use :math:`n + \nu` instead of the rectangle's volume.

    Returns
    -------
    float
        :math:`{\rm ALC}_\eta(x)`.
    """
    raise NotImplementedError

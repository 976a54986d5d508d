import sys

EPSILON = sys.float_info.min   # the smallest normal double, 2.2e-308


def newton_step(n: int, sum_g: float, sum_h: float, lam: float) -> float:
    r"""The Newton step of a leaf value, in the per-instance form [GPF19, Eq. 13].

    The paper minimises :math:`G v + \tfrac12 (H + \lambda) v^2` over the value change
    :math:`v`. Every implementation (and this library, [SGT-SPEC §7.1]) uses the means
    :math:`\bar g = \Sigma g / n`, :math:`\bar h = \Sigma h / n` instead of the sums, so
    that :math:`\lambda` is a per-instance shrinkage, and guards the denominator:

    .. math::

        \Delta = -\frac{\bar g}{\bar h + \lambda + \varepsilon}, \qquad
        \varepsilon = \text{the smallest normal double}.

    An empty cell (``n == 0``) has :math:`\bar g = \bar h = 0`, and the formula then gives
    ``-0.0``: keep it (the checker tells signed zeros apart). Add the three terms of the
    denominator left to right.
    Tutorial: "The optimal value changes" (tutorials/03_stochastic_gradient_trees.md).

    Parameters
    ----------
    n : int
        Number of (g, h) pairs in the leaf (or child) since its last reset.
    sum_g, sum_h : float
        Their sums :math:`\Sigma g` and :math:`\Sigma h`.
    lam : float
        :math:`\lambda \ge 0`.

    Returns
    -------
    float
        :math:`\Delta`, the change of the leaf value.
    """
    raise NotImplementedError

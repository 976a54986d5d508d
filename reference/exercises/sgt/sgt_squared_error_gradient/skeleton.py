

def squared_error_gradient_hessian(y: float, raw: float) -> tuple[float, float]:
    r"""Gradient and Hessian of the squared error at the raw score [GPF19, Eq. 23-25].

    The loss of one instance is half the squared residual,

    .. math::

        l(y, f) = \tfrac12 (f - y)^2, \qquad
        g = \frac{\partial l}{\partial f}, \qquad h = \frac{\partial^2 l}{\partial f^2},

    and the tree only ever sees the pair :math:`(g, h)` ([SGT-SPEC §3.1]).
    Tutorial: "A second-order view of one update" (tutorials/03_stochastic_gradient_trees.md).

    Parameters
    ----------
    y : float
        The target.
    raw : float
        The raw score :math:`f(x)` of the tree (for regression, the prediction).

    Returns
    -------
    tuple of float
        ``(g, h)``.
    """
    raise NotImplementedError

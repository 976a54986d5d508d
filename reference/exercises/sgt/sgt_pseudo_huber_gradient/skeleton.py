

def pseudo_huber_gradient_hessian(y: float, raw: float) -> tuple[float, float]:
    r"""Gradient and Hessian of the pseudo-Huber loss, for robust regression [SGT-SPEC §3.5].

    With the residual :math:`r = f - y`,

    .. math::

        l(y, f) = \sqrt{1 + r^2} - 1, \qquad
        g = \frac{\partial l}{\partial f}, \qquad h = \frac{\partial^2 l}{\partial f^2}:

    quadratic (:math:`r^2/2`) near the target and linear (:math:`|r| - 1`) far from it,
    so a gross outlier pulls a leaf with a gradient of at most 1 (the trees accept any
    twice-differentiable loss [GPF19, §3.1]). Write :math:`q = 1 + r^2` and use only
    ``+``, ``*``, ``/`` and ``math.sqrt`` (each correctly rounded, so the C twin gives
    the same bits): compute ``q = 1.0 + r * r`` and ``root = math.sqrt(q)``, then
    express ``g`` and ``h`` with one division each.
    Tutorial: "A second-order view of one update" (tutorials/03_stochastic_gradient_trees.md).

    Parameters
    ----------
    y : float
        The target.
    raw : float
        The raw score :math:`f(x)` (the prediction).

    Returns
    -------
    tuple of float
        ``(g, h)``.
    """
    raise NotImplementedError



def logistic_gradient_hessian(y: float, raw: float) -> tuple[float, float]:
    r"""Gradient and Hessian of the binary cross-entropy at the raw score [GPF19, Eq. 26-29].

    With the sigmoid :math:`\hat y = \sigma(f) = 1/(1 + e^{-f})` applied once to the raw
    score and :math:`y \in \{0, 1\}`,

    .. math::

        l = -y \log \hat y - (1 - y) \log (1 - \hat y), \qquad
        g = \frac{\partial l}{\partial f}, \qquad h = \frac{\partial^2 l}{\partial f^2}
        \quad ([SGT-SPEC §3.2]).

    Evaluate :math:`\sigma` without overflow, exactly as the specification does:
    ``1 / (1 + exp(-f))`` when ``f >= 0`` and ``e / (1 + e)`` with ``e = exp(f)``
    otherwise. Then ``g`` and ``h`` are one subtraction and one product of
    :math:`\hat y`.
    Tutorial: "A second-order view of one update" (tutorials/03_stochastic_gradient_trees.md).

    Parameters
    ----------
    y : float
        The target, 0.0 or 1.0.
    raw : float
        The raw score :math:`f(x)` (the log-odds of class 1).

    Returns
    -------
    tuple of float
        ``(g, h)``.
    """
    raise NotImplementedError

from collections.abc import Callable


def t_test_p_value(mean: float, variance: float, n: int,
                   betainc: Callable[[float, float, float], float]) -> float:
    r"""Two-sided p-value of the split test: one-sample t-test of mean 0 [GPF19, Eq. 16].

    Under "the update does not change the loss", the mean loss change :math:`\tilde m`
    of :math:`n` instances with sample variance :math:`s^2` gives

    .. math::

        t = \frac{\tilde m \sqrt{n}}{s} \sim t_{\nu}, \quad \nu = n - 1, \qquad
        p = P(|T_\nu| \ge |t|) = P(F_{1,\nu} \ge F)
          = I_{\nu/(\nu + F)}\big(\tfrac{\nu}{2}, \tfrac12\big),
        \quad F = t^2 = \frac{n \tilde m^2}{s^2},

    with :math:`I` the regularised incomplete beta function (given as ``betainc``).
    Degenerate rules ([SGT-SPEC §8]): :math:`n < 2` gives 1; a non-finite mean or
    variance gives 1; :math:`s^2 = 0` gives 0 when :math:`\tilde m < 0`, else 1.
    Tutorial: "Why a t-test and not Hoeffding's bound"
    (tutorials/03_stochastic_gradient_trees.md).

    Parameters
    ----------
    mean : float
        The penalised mean loss change :math:`\tilde m`.
    variance : float
        Its sample variance :math:`s^2 \ge 0`.
    n : int
        The leaf count since its last reset.
    betainc : callable
        ``betainc(a, b, x)`` is :math:`I_x(a, b)`, the library's
        ``reference.special.betainc`` (writing it is not part of the exercise).

    Returns
    -------
    float
        The p-value in [0, 1].
    """
    raise NotImplementedError

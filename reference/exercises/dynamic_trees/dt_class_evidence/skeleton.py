

def class_log_evidence(counts: list[int]) -> float:
    r"""Log evidence of a class (multinomial) leaf with a Dirichlet(1/C, ..., 1/C) prior.

    A leaf holds :math:`n = \sum_k c_k` labels of :math:`C` classes, :math:`c_k` of
    class :math:`k`. Under a Dirichlet prior of total mass 1 (dynaTree's baseline,
    :math:`1/C` per class) the probability of the observed label *sequence* is

    .. math::

        \ell = \log\Gamma(1) - \log\Gamma(n + 1)
        + \sum_{k=1}^{C}\Big[\log\Gamma\Big(c_k + \frac1C\Big)
        - \log\Gamma\Big(\frac1C\Big)\Big].

    [AG13, Eq. 1]; [DT-SPEC §3.3]. Tutorial: tutorials/02_dynamic_trees.md,
    "The multinomial leaf".

    Parameters
    ----------
    counts : list of int
        :math:`c_1, \dots, c_C`, one count per class (``len(counts)`` is :math:`C`).

    Returns
    -------
    float
        :math:`\ell`.
    """
    raise NotImplementedError

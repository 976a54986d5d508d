

def class_probability(counts: list[int], retired: list[float], nu: float, k: int) -> float:
    r"""Posterior predictive probability of class ``k`` in a class leaf.

    The leaf holds :math:`c_1, \dots, c_C` active labels (:math:`n = \sum c_j`) and
    retired (possibly discounted) pseudo-counts :math:`a_1, \dots, a_C` of total mass
    :math:`\nu`; the baseline prior is Dirichlet(1/C, ..., 1/C) (total mass 1). The
    posterior is Dirichlet(:math:`c_j + a_j + 1/C`), whose mean is the predictive

    .. math::

        p(y = k \mid \eta) = \frac{c_k + a_k + 1/C}{n + \nu + 1}.

    Use the given :math:`\nu` (with forgetting it equals :math:`\sum_j a_j` only up to
    rounding). [AG13, Eq. 1]; [AG13, §3]; [DT-SPEC §3.3]. Tutorial:
    tutorials/02_dynamic_trees.md, "The multinomial leaf".

    Parameters
    ----------
    counts : list of int
        Active counts, one per class (``len(counts)`` is :math:`C`).
    retired : list of float
        Retired pseudo-counts :math:`a_j`, one per class.
    nu : float
        Retired mass :math:`\nu`.
    k : int
        The class, ``0 <= k < C``.

    Returns
    -------
    float
        :math:`p(y = k \mid \eta)`.
    """
    raise NotImplementedError



def leaf_entropy(counts: list[int], retired: list[float], nu: float) -> float:
    r"""Entropy of a class leaf's predictive distribution (nats).

    With the predictive probabilities :math:`p_k = (c_k + a_k + 1/C)/(n + \nu + 1)` of the
    class leaf (active counts :math:`c_k`, :math:`n = \sum c_k`, retired pseudo-counts
    :math:`a_k` of mass :math:`\nu`):

    .. math::

        H_\eta = -\sum_{k=1}^{C} p_k \log p_k .

    Entropy retirement removes the active point whose leaves (averaged over the
    particles) have the lowest entropy: points in nearly pure leaves are redundant.

    [AG13, §4.3]; [DT-SPEC §7.5]. Tutorial: tutorials/05_data_retirement.md,
    "Entropy for classification".

    Parameters
    ----------
    counts : list of int
        Active counts, one per class.
    retired : list of float
        Retired pseudo-counts, one per class.
    nu : float
        Retired mass.

    Returns
    -------
    float
        :math:`H_\eta` in nats.
    """
    raise NotImplementedError

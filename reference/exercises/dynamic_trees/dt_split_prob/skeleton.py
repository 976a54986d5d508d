

def log_split_prob(depth: int, alpha: float, beta: float) -> float:
    r"""Log prior probability that a tree node at ``depth`` splits.

    The tree prior of dynamic trees lets a node at depth :math:`d` (the root has
    :math:`d = 0`) split with probability

    .. math::

        p_{\rm split}(d) = \alpha\,(1 + d)^{-\beta},
        \qquad \log p_{\rm split}(d) = \log\alpha - \beta\log(1 + d).

    Every internal node of a tree contributes :math:`\log p_{\rm split}(d)` to the log
    prior of the tree, every leaf :math:`\log(1 - p_{\rm split}(d))`.

    [AG13, §2.1]; [DT-SPEC §2]. Tutorial: tutorials/02_dynamic_trees.md, "The tree prior".

    Parameters
    ----------
    depth : int
        Depth of the node, 0 for the root.
    alpha : float
        Base split probability, ``0 < alpha < 1``.
    beta : float
        Depth penalty, ``beta > 0``.

    Returns
    -------
    float
        :math:`\log p_{\rm split}(d)` (a negative number).
    """
    raise NotImplementedError

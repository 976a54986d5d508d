

def log_leaf_prob(depth: int, alpha: float, beta: float) -> float:
    r"""Log prior probability that a tree node at ``depth`` does *not* split (a leaf).

    With the split probability :math:`p_{\rm split}(d) = \alpha(1 + d)^{-\beta}` (the
    root has :math:`d = 0`), every leaf of a tree contributes

    .. math::

        \log\big(1 - p_{\rm split}(d)\big) = \log\big(1 - \alpha\,(1 + d)^{-\beta}\big)

    to the tree's log prior, whatever its size (the minimum leaf size only restricts
    which moves are possible). A grown leaf's children sit at depth :math:`d + 1`.

    [AG13, §2.1]; [DT-SPEC §2]. Tutorial: tutorials/02_dynamic_trees.md, "The tree prior".

    Parameters
    ----------
    depth : int
        Depth of the leaf, 0 for the root.
    alpha : float
        Base split probability, ``0 <= alpha < 1``.
    beta : float
        Depth penalty, ``beta > 0``.

    Returns
    -------
    float
        :math:`\log(1 - p_{\rm split}(d))` (at most 0).
    """
    raise NotImplementedError



def softmax_gradients(raws: list[float], label: int) -> tuple[list[float], list[float]]:
    r"""Per-tree gradient and Hessian of the softmax committee [GPF19, Eq. 19-22].

    ``k`` classes are learned by ``k - 1`` trees with scores :math:`f_1 .. f_{k-1}`;
    the last class has the score :math:`f_k = 0`, hard-wired ([SGT-SPEC §3.3]). With

    .. math::

        p_c = \frac{\exp f_c}{\sum_{c'=1}^{k} \exp f_{c'}}, \qquad l = -\log p_y,

    tree :math:`c < k` learns :math:`g_c = \partial l / \partial f_c` and the diagonal
    term :math:`h_c = \partial^2 l / \partial f_c^2` (the mixed derivatives are dropped).

    Compute the probabilities as the specification does: subtract the largest of the
    ``k`` scores before exponentiating, sum the ``k`` exponentials in class order with a
    plain loop (``total += e``; from Python 3.12 on, ``sum()`` compensates the rounding
    and may differ in the last bit), then divide each exponential by the sum.
    Tutorial: "Several classes: a softmax committee" (tutorials/03_stochastic_gradient_trees.md).

    Parameters
    ----------
    raws : list of float
        The raw scores of the ``k - 1`` trees.
    label : int
        The class index ``y`` in ``0 .. k - 1`` (``k - 1`` is the class without a tree).

    Returns
    -------
    tuple of two lists of float
        ``(g, h)``, each with one entry per tree (``k - 1`` entries).
    """
    raise NotImplementedError

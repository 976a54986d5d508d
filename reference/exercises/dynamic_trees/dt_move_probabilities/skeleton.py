

def move_probabilities(l_stay: float, l_prune: float,
                       l_grow: float) -> tuple[float, float, float]:
    r"""Probabilities of the stay, prune and grow moves from their log scores.

    Each candidate subtree has a log score :math:`L = \log\pi(\text{subtree}) +
    \sum_{\text{leaves}}\ell` (``-math.inf`` when the move is impossible). The move is
    drawn with probabilities proportional to :math:`e^{L}`:

    .. math::

        p_k = \frac{w_k}{(w_{\rm stay} + w_{\rm prune}) + w_{\rm grow}},\qquad
        w_k = \exp(L_k - L_{\max}),

    where :math:`L_{\max}` is the largest *finite* score and a score that is not finite
    has :math:`w_k = 0` (log-sum-exp normalisation: scores are log densities of many
    points and routinely differ by more than the ~709 that ``exp`` can take). When
    neither prune nor grow has a finite score, stay is certain: return ``(1.0, 0.0, 0.0)``.

    [AG13, Eq. 2]; [DT-SPEC §4.4]. Tutorial: tutorials/02_dynamic_trees.md, "The three moves".

    Parameters
    ----------
    l_stay, l_prune, l_grow : float
        Log scores of the three candidates (``-math.inf``: impossible).

    Returns
    -------
    tuple of float
        ``(p_stay, p_prune, p_grow)``.
    """
    raise NotImplementedError

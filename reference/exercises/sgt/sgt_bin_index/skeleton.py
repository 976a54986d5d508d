def bin_index(x: float, lo: float, hi: float, bins: int) -> int:
    r"""Equal-width bin of a numeric value between the frozen warm-up range [GPF19, §3.2].

    The range :math:`[\min, \max]` of a feature is estimated on the warm-up and frozen;
    then ([SGT-SPEC §5.6])

    .. math::

        b = \Big\lfloor B\, \frac{x - \min}{\max - \min} \Big\rfloor
        \text{ clipped to } [0, B - 1].

    Compute the position as ``B * (x - lo) / (hi - lo)`` (in that order). A degenerate
    range (``hi <= lo``) sends every value to bin 0, and so does a position that is NaN
    (for example a range wider than the largest double). Values beyond the range
    (including ±inf) are clipped.
    Tutorial: "Statistics of a leaf" (tutorials/03_stochastic_gradient_trees.md).

    Parameters
    ----------
    x : float
        The value.
    lo, hi : float
        The frozen minimum and maximum of the feature.
    bins : int
        :math:`B \ge 1`, the number of bins.

    Returns
    -------
    int
        The bin, in ``0 .. bins - 1``.
    """
    raise NotImplementedError

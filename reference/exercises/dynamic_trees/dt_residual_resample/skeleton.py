

def residual_resample(weights: list[float], uniforms: list[float]) -> list[int]:
    r"""Residual resampling: the indices of the ``N`` particles that survive.

    Given normalised weights :math:`\bar w_1, \dots, \bar w_N` (they sum to 1), particle
    :math:`i` first gets :math:`k_i = \lfloor E_i \rfloor` deterministic copies,
    :math:`E_i = N\bar w_i`, listed in index order. The remaining
    :math:`R = N - \sum_i k_i` indices are drawn one by one from the leftover
    probabilities :math:`r_i = (E_i - k_i)/R` by inverse CDF: with the cumulative sums
    :math:`c_j = \sum_{i \le j} r_i` (accumulated in index order, the last one set to
    exactly 1), a uniform :math:`u` gives the first :math:`j` with :math:`u < c_j`.

    .. math::

        \text{out} = (\underbrace{1, \dots, 1}_{k_1}, \dots,
        \underbrace{N, \dots, N}_{k_N},\ j(u_1), \dots, j(u_R))

    (0-based indices in the result). [TGP11]; [AG13, §2.3]; [DT-SPEC §5.2] item 4.
    Tutorial: tutorials/02_dynamic_trees.md, "Particle learning and residual resampling".

    Parameters
    ----------
    weights : list of float
        Normalised weights, one per particle.
    uniforms : list of float
        At least ``R`` uniform numbers in [0, 1); use the first ``R``, one per residual
        draw, in order.

    Returns
    -------
    list of int
        ``N`` particle indices: the deterministic copies, then the ``R`` residual draws.
    """
    raise NotImplementedError

def move_center(center: list[float], x: list[float],
                u: int) -> tuple[int, list[float]]:
    r"""Move a ball's centre towards a correctly classified point [DOC15, Alg. 3-4].

    In the ADJ variants (BASE-ADJ, AUTO-ADJ) a ball whose majority label was right for
    :math:`x` moves its centre by an online K-means step with its own counter
    :math:`u_s` ([ABACOC-SPEC §6], U2):

    .. math::

        u_s \leftarrow u_s + 1, \qquad c_s \leftarrow c_s + \frac{x - c_s}{u_s},

    so the centre is the running mean of its founding point and the correctly classified
    points it absorbed. Per coordinate, ``c[j] + (x[j] - c[j]) / u`` with the new counter
    converted to float ([ABACOC-SPEC §11]).
    Tutorial: "BASE: one shrinking radius and a randomized vote" (tutorials/04_abacoc.md).

    Parameters
    ----------
    center : list of float
        The centre :math:`c_s` (do not modify it).
    x : list of float
        The point.
    u : int
        The counter before this move (1 for a new ball).

    Returns
    -------
    tuple
        ``(u_new, center_new)``.
    """
    raise NotImplementedError



def shrink_radius(R: float, eps: float, m: int, d: float) -> tuple[int, float]:
    r"""Charge a mistake to a ball of the AUTO family and shrink its radius [DOC15, Alg. 4].

    Each ball :math:`s` keeps its initial radius :math:`R_s` (the distance to the nearest
    centre when it was created), its current radius :math:`\varepsilon_s` and its count
    :math:`m_s` of mistakes on points inside it. A mistake counts, then shrinks the ball
    ([ABACOC-SPEC §6], U1):

    .. math::

        m_s \leftarrow m_s + 1, \qquad
        \varepsilon_s \leftarrow R_s \, m_s^{-1/(2 + d)}.

    Compute the radius as ``R * math.pow(m, -1.0 / (2.0 + d))`` with the new count
    ([ABACOC-SPEC §11]).
    Tutorial: "AUTO: a radius per ball, shrinking with its own mistakes"
    (tutorials/04_abacoc.md).

    Parameters
    ----------
    R : float
        The ball's initial radius :math:`R_s > 0`.
    eps : float
        Its current radius :math:`\varepsilon_s`.
    m : int
        Its mistakes so far (before this one).
    d : float
        The dimension parameter :math:`d > 0` (default 2).

    Returns
    -------
    tuple
        ``(m_new, eps_new)``.
    """
    raise NotImplementedError



def child_retired_share(n_child: int, n_parent: int, nu: float, syg: float,
                        syyg: float) -> tuple[float, float, float]:
    r"""The retired statistics a child receives when a constant leaf is split (grow).

    A retired point has no location any more: its leaf only knows it was somewhere
    inside. When a leaf with :math:`n` active points (the new one included) and retired
    statistics :math:`\nu, S^g_y, S^g_{yy}` is split, each child :math:`c` with
    :math:`n_c` of the active points receives the same share
    :math:`\rho_c = n_c / n` of every retired statistic:

    .. math::

        \nu_c = \rho_c\,\nu,\qquad S^g_{y,c} = \rho_c\,S^g_y,\qquad
        S^g_{yy,c} = \rho_c\,S^g_{yy} .

    Since the children's shares add up to 1, a grow followed by a prune gives back the
    parent's retired statistics. [AG13, §3.2]; [DT-SPEC §6.4]. Tutorial:
    tutorials/05_data_retirement.md, "2. Retired information when trees grow and prune".

    Parameters
    ----------
    n_child, n_parent : int
        Active points of the child and of the leaf being split (``n_parent >= 1``).
    nu, syg, syyg : float
        The parent's retired mass and retired sums.

    Returns
    -------
    tuple of float
        The child's ``(nu, syg, syyg)``.
    """
    raise NotImplementedError

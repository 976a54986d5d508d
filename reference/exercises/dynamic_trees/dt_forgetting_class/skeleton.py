

def absorb_retired_class(nu: float, retired: list[float], label: int,
                         lam: float) -> tuple[float, list[float]]:
    r"""Fold a retiring label into a class leaf's retired pseudo-counts with forgetting
    factor ``lam`` (the power prior).

    A class leaf keeps, for its retired points, the mass :math:`\nu` and one pseudo-count
    :math:`a_k` per class, added to the Dirichlet prior's concentration. Retiring a point
    of class :math:`y` discounts every retired statistic by :math:`\lambda`, then adds the
    retiree:

    .. math::

        \nu \leftarrow \lambda\nu + 1,\qquad a \leftarrow \lambda a + e_y

    (:math:`e_y` is 1 at class :math:`y` and 0 elsewhere).

    [AG13, §5]; [DT-SPEC §3.5]. Tutorial: tutorials/05_data_retirement.md,
    "4. Forgetting: power priors".

    Parameters
    ----------
    nu : float
        Retired mass.
    retired : list of float
        Retired pseudo-counts, one per class.
    label : int
        The retiree's class, ``0 <= label < len(retired)``.
    lam : float
        Forgetting factor, ``0 < lam <= 1``.

    Returns
    -------
    tuple
        ``(nu, retired)`` after the retirement (a new list).
    """
    raise NotImplementedError

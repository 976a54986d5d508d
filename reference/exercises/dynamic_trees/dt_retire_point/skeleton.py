

def retire_constant(n: int, sy: float, syy: float, nu: float, syg: float, syyg: float,
                    y: float) -> tuple[int, float, float, float, float, float]:
    r"""Retire one active point with response ``y`` from a constant leaf into its prior.

    The point leaves the active statistics and joins the retired ones (no forgetting):

    .. math::

        n \leftarrow n - 1,\quad S_y \leftarrow S_y - y,\quad
        S_{yy} \leftarrow S_{yy} - y^2,\qquad
        \nu \leftarrow \nu + 1,\quad S^g_y \leftarrow S^g_y + y,\quad
        S^g_{yy} \leftarrow S^g_{yy} + y^2 .

    When the last active point leaves (:math:`n` becomes 0), set :math:`S_y` and
    :math:`S_{yy}` to exactly 0 (the subtractions would leave rounding residue).
    The posterior, hence every predictive, is unchanged [AG13, §3.1].

    [AG13, §3]; [DT-SPEC §3.5]; [DT-SPEC §6]. Tutorial: tutorials/05_data_retirement.md,
    "1. Retirement as a conjugate prior update".

    Parameters
    ----------
    n, sy, syy : int, float, float
        Active statistics before the retirement (``n >= 1``).
    nu, syg, syyg : float
        Retired statistics before the retirement.
    y : float
        Response of the retiring point (one of the active points).

    Returns
    -------
    tuple
        ``(n, sy, syy, nu, syg, syyg)`` after the retirement.
    """
    raise NotImplementedError

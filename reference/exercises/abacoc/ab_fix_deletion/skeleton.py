from collections.abc import Callable


def fix_victim(mistakes: list[int], below: Callable[[int], int]) -> int:
    r"""The ball deleted by the budget rule of AUTO-ADJ-FIX [DOC15, Eq. 1].

    When a ball must be added to a full cover (:math:`|S| = B`), one existing ball
    :math:`v` is deleted first, drawn with the Laplace-corrected share of mistakes

    .. math::

        P(v = i) = \frac{m_i + 1}{\sum_{j \in S} m_j + |S|}.

    Sample it exactly, in integers ([ABACOC-SPEC §7], tie rule [ABACOC-SPEC T5]): let
    :math:`W = \sum_i (m_i + 1)`; draw ``r = below(W)`` (one call, uniform on
    ``0 .. W - 1``); walk the slots in order, accumulating :math:`m_i + 1`, and return
    the first slot whose running sum exceeds ``r``.
    Tutorial: "The budget rule (AUTO-ADJ-FIX)" (tutorials/04_abacoc.md).

    Parameters
    ----------
    mistakes : list of int
        :math:`m_i \ge 0` of the balls, in slot order (at least one ball).
    below : callable
        ``below(n)`` returns a uniform integer in ``0 .. n - 1``: the model's generator
        inside the model; in the checker's cases a fixed stand-in,
        ``reference.exercises.abacoc.Below(seed)``, that you may call yourself.

    Returns
    -------
    int
        The slot of the ball to delete.
    """
    raise NotImplementedError



def nearest_ball(x: list[float], centres: list[list[float]],
                 ids: list[int]) -> tuple[int, float]:
    r"""The ball whose centre is nearest to ``x``, and the distance to it [DOC15, Alg. 1].

    Every step of ABACOC starts with the nearest centre under the Euclidean distance:

    .. math::

        s_t = \arg\min_{s \in S} \rho(x_t, c_s), \qquad
        \rho(x, c) = \sqrt{\textstyle\sum_j (x_j - c_j)^2}.

    Determinism ([ABACOC-SPEC §11], tie rule [ABACOC-SPEC T1]): compare the balls by the
    squared distance :math:`\sum_j (x_j - c_j)^2`, accumulated left to right over the
    coordinates with a plain loop (from Python 3.12 on, ``sum()`` compensates the
    rounding and may differ in the last bit) of products ``d * d`` (``d ** 2`` raises
    ``OverflowError`` where the product gives ``inf``); among exactly equal squared
    distances the ball with the smallest id (creation order) wins, wherever it sits in
    the list. Return the distance as ``math.sqrt`` of the winner's squared distance
    (``** 0.5`` may differ from the square root in the last bit). Mind the case where
    every squared distance is ``inf``: there is still a nearest ball.
    Tutorial: "Finding the nearest ball, exactly" (tutorials/04_abacoc.md).

    Parameters
    ----------
    x : list of float
        The point, D coordinates.
    centres : list of lists of float
        The centres of the live balls, in slot order (possibly empty).
    ids : list of int
        ``ids[i]`` is the creation id of the ball in slot ``i`` (distinct; a ball that
        replaced a deleted one has a larger id than its neighbours).

    Returns
    -------
    tuple
        ``(slot, distance)``: the position in ``centres`` of the nearest ball and
        :math:`\rho(x, c_{slot})`; ``(-1, math.inf)`` when there is no ball.
    """
    raise NotImplementedError

"""Exercise course-running-mean: the running mean, one point at a time."""


def running_mean(mean: float, n: int, x: float) -> float:
    r"""The mean of ``n`` points and one more point ``x``, from the old mean alone.

    .. math:: \bar x_{n+1} = \bar x_n + \frac{x - \bar x_n}{n + 1}

    Parameters
    ----------
    mean : float
        The mean of the first ``n`` points (any value when ``n`` is 0).
    n : int
        How many points the mean holds (0 or more).
    x : float
        The new point.

    Returns
    -------
    float
        The mean of the ``n + 1`` points.
    """
    raise NotImplementedError

"""Synthetic regression streams: Friedman-1, its drifting and regime versions, the parabola.

Each stream has two forms: ``iter_<name>(...)`` yields rows ``(x, y)`` forever (``x`` a
list of floats) and ``<name>(n, ...)`` returns the first ``n`` rows as float64 arrays
``(X, y)``, exactly the first ``n`` rows of the iterator form. Row ``t`` (0-based) is
generated with the concept of time ``t``.

References
----------
[AG13] C. Anagnostopoulos and R. B. Gramacy, "Information-theoretic data discarding for
dynamic trees on data streams", Entropy 15(12), 2013.
[Fri91] J. H. Friedman, "Multivariate adaptive regression splines", Ann. Stat. 19, 1991.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from reference.evaluation.datasets._draws import TWO_PI, FloatArray, Row, _collect, normal
from reference.rng import Rng

__all__ = [
    "drift_coefficient",
    "drifting_friedman",
    "friedman1",
    "iter_drifting_friedman",
    "iter_friedman1",
    "iter_parabola",
    "iter_regime_friedman",
    "parabola",
    "regime_coefficient",
    "regime_friedman",
]


# ---------------------------------------------------------------------------
# Friedman-1 and its drifting versions [AG13, §4.5.1 and §5.1]
# ---------------------------------------------------------------------------


def _friedman_row(rng: Rng, n_features: int, noise: float, a: float) -> Row:
    """One Friedman row with interaction coefficient ``a``.

    ``y = 10 a sin(π x1 x2) + 20 (x3 - 0.5)² + 10 x4 + 5 x5 + noise·ε`` with
    ``x ~ U[0, 1]^d``; inputs beyond the fifth are irrelevant.

    Random draws: ``n_features`` uniforms (x1, ..., xd in order), then one normal
    (two uniforms, :func:`normal`), drawn even when ``noise == 0``.
    """
    x = [rng.uniform() for _ in range(n_features)]
    eps = normal(rng)
    x3 = x[2] - 0.5
    y = (
        10.0 * a * math.sin(math.pi * x[0] * x[1])
        + 20.0 * x3 * x3
        + 10.0 * x[3]
        + 5.0 * x[4]
        + noise * eps
    )
    return x, y


def _check_friedman(n_features: int, noise: float) -> None:
    if isinstance(n_features, bool) or not isinstance(n_features, int) or n_features < 5:
        raise ValueError(f"n_features must be an int >= 5, got {n_features!r}")
    if not (math.isfinite(noise) and noise >= 0.0):
        raise ValueError(f"noise must be a finite float >= 0, got {noise!r}")


def iter_friedman1(n_features: int = 5, noise: float = 1.0, seed: int = 0) -> Iterator[Row]:
    """Rows of Friedman-1 forever; see :func:`friedman1`.

    Random draws: per row, ``n_features`` uniforms then one normal (two uniforms).

    Examples
    --------
    >>> from itertools import islice
    >>> rows = list(islice(iter_friedman1(seed=1), 3))
    >>> [len(x) for x, _ in rows] == [5, 5, 5]
    True
    >>> rows[2][1] == float(friedman1(3, seed=1)[1][2])
    True
    """
    _check_friedman(n_features, noise)
    rng = Rng(seed)
    while True:
        yield _friedman_row(rng, n_features, noise, 1.0)


def friedman1(
    n: int, n_features: int = 5, noise: float = 1.0, seed: int = 0
) -> tuple[FloatArray, FloatArray]:
    """Friedman-1 regression data [Fri91]; [AG13, §4.5.1].

    ``y = 10 sin(π x1 x2) + 20 (x3 - 0.5)² + 10 x4 + 5 x5 + noise·ε``, ``ε ~ N(0, 1)``,
    ``x ~ U[0, 1]^d``. Inputs ``x6, ..., xd`` are irrelevant.

    Parameters
    ----------
    n : int
        Number of rows.
    n_features : int, default 5
        Number of inputs d >= 5.
    noise : float, default 1.0
        Standard deviation of the additive Gaussian error.
    seed : int, default 0
        Seed of the :class:`~reference.rng.Rng` drawing the stream.

    Returns
    -------
    X : ndarray of shape (n, n_features), float64
    y : ndarray of shape (n,), float64

    Notes
    -----
    Random draws: per row, ``n_features`` uniforms then one normal (two uniforms).

    Examples
    --------
    >>> X, y = friedman1(3, seed=1)
    >>> X.shape, y.shape
    ((3, 5), (3,))
    >>> bool((friedman1(3, seed=1)[1] == y).all())
    True
    """
    return _collect(iter_friedman1(n_features, noise, seed), n, n_features)


def drift_coefficient(t: int, k: float) -> float:
    """The drifting coefficient ``a_t = 2 sin(2πkt/1000) + 1`` [AG13, §5.1].

    It oscillates between -1 and 3 with period ``1000 / k`` steps (10,000 for k = 0.1,
    2,000 for k = 0.5).

    Examples
    --------
    >>> drift_coefficient(0, 0.1)
    1.0
    >>> round(drift_coefficient(2500, 0.1), 12)
    3.0
    """
    return 2.0 * math.sin(TWO_PI * k * t / 1000.0) + 1.0


def iter_drifting_friedman(
    k: float = 0.1, n_features: int = 5, noise: float = 1.0, seed: int = 0
) -> Iterator[Row]:
    """Rows of the drifting Friedman stream forever; see :func:`drifting_friedman`.

    Random draws: per row, ``n_features`` uniforms then one normal (two uniforms).
    """
    _check_friedman(n_features, noise)
    if not math.isfinite(k):
        raise ValueError(f"k must be finite, got {k!r}")
    rng = Rng(seed)
    t = 0
    while True:
        yield _friedman_row(rng, n_features, noise, drift_coefficient(t, k))
        t += 1


def drifting_friedman(
    n: int, k: float = 0.1, n_features: int = 5, noise: float = 1.0, seed: int = 0
) -> tuple[FloatArray, FloatArray]:
    """Friedman-1 with smooth drift of the interaction term [AG13, §5.1].

    Row ``t`` (0-based) has ``y = 10 a_t sin(π x1 x2) + 20 (x3 - 0.5)² + 10 x4 + 5 x5
    + noise·ε`` with ``a_t = 2 sin(2πkt/1000) + 1`` (:func:`drift_coefficient`). The
    paper uses k = 0.1 (slow drift) and k = 0.5 (fast drift) and n = 10,000.

    Parameters
    ----------
    n : int
        Number of rows.
    k : float, default 0.1
        Speed of the drift: one cycle every ``1000 / k`` steps.
    n_features, noise, seed
        As in :func:`friedman1`.

    Returns
    -------
    X : ndarray of shape (n, n_features), float64
    y : ndarray of shape (n,), float64

    Notes
    -----
    Random draws: per row, ``n_features`` uniforms then one normal (two uniforms); the
    inputs are therefore those of :func:`friedman1` with the same seed.

    Examples
    --------
    >>> X, y = drifting_friedman(4, k=0.5, seed=2)
    >>> bool((X == friedman1(4, seed=2)[0]).all())
    True
    """
    return _collect(iter_drifting_friedman(k, n_features, noise, seed), n, n_features)


def regime_coefficient(
    t: int, start: int = 10000, stop: int = 20000, high: float = 10.0, low: float = 0.0
) -> float:
    """The A-B-A coefficient: ``a_t = high`` for ``start <= t < stop``, else ``low``.

    [AG13, §5.1] sets a_t = 10 between t = 10,000 and t = 20,000 and 0 otherwise.

    Examples
    --------
    >>> [regime_coefficient(t) for t in (9999, 10000, 19999, 20000)]
    [0.0, 10.0, 10.0, 0.0]
    """
    return high if start <= t < stop else low


def iter_regime_friedman(
    n_features: int = 5,
    noise: float = 1.0,
    seed: int = 0,
    start: int = 10000,
    stop: int = 20000,
    high: float = 10.0,
    low: float = 0.0,
) -> Iterator[Row]:
    """Rows of the A-B-A regime-change stream forever; see :func:`regime_friedman`.

    Random draws: per row, ``n_features`` uniforms then one normal (two uniforms).
    """
    _check_friedman(n_features, noise)
    rng = Rng(seed)
    t = 0
    while True:
        a = regime_coefficient(t, start, stop, high, low)
        yield _friedman_row(rng, n_features, noise, a)
        t += 1


def regime_friedman(
    n: int = 30000,
    n_features: int = 5,
    noise: float = 1.0,
    seed: int = 0,
    start: int = 10000,
    stop: int = 20000,
    high: float = 10.0,
    low: float = 0.0,
) -> tuple[FloatArray, FloatArray]:
    """Friedman data with an A-B-A regime change of the interaction term [AG13, §5.1].

    Row ``t`` uses ``a_t = high`` (10) for ``start <= t < stop`` and ``low`` (0)
    otherwise (:func:`regime_coefficient`), so the surface becomes much more complex in
    the middle third of the default 30,000 rows.

    Parameters
    ----------
    n : int, default 30000
        Number of rows.
    n_features, noise, seed
        As in :func:`friedman1`.
    start, stop : int, default 10000, 20000
        The regime B is ``start <= t < stop`` (0-based row index).
    high, low : float, default 10.0, 0.0
        ``a_t`` inside and outside regime B.

    Returns
    -------
    X : ndarray of shape (n, n_features), float64
    y : ndarray of shape (n,), float64

    Notes
    -----
    Random draws: as :func:`friedman1`; the inputs equal those of ``friedman1`` with the
    same seed.

    Examples
    --------
    >>> X, y = regime_friedman(5, start=2, stop=4, seed=3)
    >>> X.shape
    (5, 5)
    """
    return _collect(
        iter_regime_friedman(n_features, noise, seed, start, stop, high, low), n, n_features
    )


# ---------------------------------------------------------------------------
# the parabola of [AG13, Fig. 1]
# ---------------------------------------------------------------------------


def iter_parabola(noise: float = 1.0, seed: int = 0) -> Iterator[Row]:
    """Rows of the parabola forever; see :func:`parabola`.

    Random draws: per row, one uniform (x) then one normal (two uniforms).
    """
    if not (math.isfinite(noise) and noise >= 0.0):
        raise ValueError(f"noise must be a finite float >= 0, got {noise!r}")
    rng = Rng(seed)
    while True:
        x = -3.0 + 5.0 * rng.uniform()
        eps = normal(rng)
        yield [x], x + x * x + noise * eps


def parabola(n: int, noise: float = 1.0, seed: int = 0) -> tuple[FloatArray, FloatArray]:
    """The 1-d parabola of [AG13, Fig. 1]: ``y = x + x² + noise·ε``, ``x ~ U(-3, 2)``.

    Parameters
    ----------
    n : int
        Number of rows.
    noise : float, default 1.0
        Standard deviation of ``ε ~ N(0, 1)`` scaling.
    seed : int, default 0
        Seed of the generator.

    Returns
    -------
    X : ndarray of shape (n, 1), float64
    y : ndarray of shape (n,), float64

    Notes
    -----
    Random draws: per row, one uniform (``x = -3 + 5u``) then one normal (two uniforms).

    Examples
    --------
    >>> import numpy as np
    >>> X, y = parabola(100, noise=0.0)
    >>> bool(((X[:, 0] >= -3) & (X[:, 0] < 2)).all())
    True
    >>> bool(np.allclose(y, X[:, 0] + X[:, 0] ** 2))
    True
    """
    return _collect(iter_parabola(noise, seed), n, 1)

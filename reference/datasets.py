"""Synthetic streams of the papers and a loader for the project's real data sets.

Every synthetic stream is drawn from the project's generator :class:`reference.rng.Rng`
(never ``numpy.random``), so a stream is the same on every machine and for both backends.
Each stream has two forms: ``iter_<name>(...)`` yields rows ``(x, y)`` forever (``x`` a
list of floats), and ``<name>(n, ...)`` returns the first ``n`` rows as arrays
``(X, y)``: ``X`` float64 of shape ``(n, d)``, ``y`` float64 (regression) or int64
(classification). The array form is exactly the first ``n`` rows of the iterator form.

Public functions (signatures):

- ``normal(rng) -> float``: a standard normal draw by Box-Muller from two uniforms.
- ``friedman1(n, n_features=5, noise=1.0, seed=0)``: Friedman-1 [Fri91], the
  regression benchmark of [AG13, §4.5.1].
- ``drifting_friedman(n, k=0.1, n_features=5, noise=1.0, seed=0)``: Friedman-1 with
  smooth drift ``a_t = 2 sin(2πkt/1000) + 1`` [AG13, §5.1].
- ``regime_friedman(n=30000, n_features=5, noise=1.0, seed=0, start=10000,
  stop=20000, high=10.0, low=0.0)``: the A-B-A regime change of [AG13, §5.1],
  ``a_t = 10`` for ``start <= t < stop``, else 0.
- ``parabola(n, noise=1.0, seed=0)``: ``y = x + x² + ε``, ``x ~ U(-3, 2)``
  [AG13, Fig. 1].
- ``moving_xor(n, period=100000, noise=0.0, seed=0)``: the rotating XOR problem
  MOVINGXOR [AG13, §5.2].
- ``sea(n=60000, thresholds=(8, 9, 7, 9.5), concept_length=15000, noise=0.1,
  seed=0)``: SEA concepts with abrupt changes [SK01].
- ``hyperplane(n, n_features=10, n_drift_features=2, mag_change=0.001,
  sigma_reverse=0.1, noise=0.05, seed=0)``: rotating hyperplane [HSD01].
- ``iter_<name>(...)``: the same streams as endless iterators of ``(x, y)``.
- ``drift_coefficient(t, k)``, ``regime_coefficient(t, ...)``: the coefficients
  ``a_t`` above, for row index ``t``.
- ``shuffled(X, y, seed)``: a Fisher-Yates permutation of the rows drawn with
  ``Rng.below``.
- ``load_csv(name, data_dir=None, task="auto") -> (X, y)``: a real data set of the
  registry (:mod:`reference.registry`: shipped with the package, in ``$DRIFTWOOD_DATA``
  or in the user cache), or any CSV file of the same format in ``data_dir``.
- ``data_dir(data_dir=None) -> pathlib.Path``: the directory searched first.

Time index: row ``t`` of a stream (0-based, ``X[t]``) is generated with the concept of
time ``t``; e.g. ``drifting_friedman`` row ``t`` uses ``a_t``.

References
----------
[AG13] C. Anagnostopoulos and R. B. Gramacy, "Information-theoretic data discarding for
dynamic trees on data streams", Entropy 15(12), 2013.
[Fri91] J. H. Friedman, "Multivariate adaptive regression splines", Ann. Stat. 19, 1991.
[SK01] W. N. Street and Y. Kim, "A streaming ensemble algorithm (SEA) for large-scale
classification", KDD 2001.
[HSD01] G. Hulten, L. Spencer and P. Domingos, "Mining time-changing data streams",
KDD 2001.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from reference import registry
from reference.rng import Rng

__all__ = [
    "data_dir",
    "drift_coefficient",
    "drifting_friedman",
    "friedman1",
    "hyperplane",
    "iter_drifting_friedman",
    "iter_friedman1",
    "iter_hyperplane",
    "iter_moving_xor",
    "iter_parabola",
    "iter_regime_friedman",
    "iter_sea",
    "load_csv",
    "moving_xor",
    "normal",
    "parabola",
    "regime_coefficient",
    "regime_friedman",
    "sea",
    "shuffled",
]

FloatArray = npt.NDArray[np.float64]
Row = tuple[list[float], float]
ClassRow = tuple[list[float], int]

DATA_ENV = "DRIFTWOOD_DATA"
"""Environment variable naming the directory of the real data sets."""

TWO_PI = 2.0 * math.pi


# ---------------------------------------------------------------------------
# draws
# ---------------------------------------------------------------------------


def normal(rng: Rng) -> float:
    """A standard normal draw by the Box-Muller transform.

    ``z = sqrt(-2 log(1 - u1)) * cos(2π u2)``; ``1 - u1`` lies in (0, 1], so the
    logarithm is finite. The sine twin of the pair is discarded (one normal per call).

    Parameters
    ----------
    rng : Rng
        The generator.

    Returns
    -------
    float

    Notes
    -----
    Random draws: ``u1 = rng.uniform()``, then ``u2 = rng.uniform()`` (two outputs).

    Examples
    --------
    >>> z = normal(Rng(0))
    >>> -5.0 < z < 5.0
    True
    """
    u1 = rng.uniform()
    u2 = rng.uniform()
    return math.sqrt(-2.0 * math.log(1.0 - u1)) * math.cos(TWO_PI * u2)


def _check_n(n: int) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"n must be an int >= 0, got {n!r}")


def _collect(
    rows: Iterator[tuple[list[float], float]], n: int, d: int
) -> tuple[FloatArray, FloatArray]:
    _check_n(n)
    X = np.empty((n, d), dtype=np.float64)
    y = np.empty(n, dtype=np.float64)
    for t in range(n):
        x, target = next(rows)
        X[t] = x
        y[t] = target
    return X, y


def _collect_classes(
    rows: Iterator[tuple[list[float], int]], n: int, d: int
) -> tuple[FloatArray, npt.NDArray[np.int64]]:
    _check_n(n)
    X = np.empty((n, d), dtype=np.float64)
    y = np.empty(n, dtype=np.int64)
    for t in range(n):
        x, label = next(rows)
        X[t] = x
        y[t] = label
    return X, y


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
    >>> X, y = parabola(100, noise=0.0)
    >>> bool(((X[:, 0] >= -3) & (X[:, 0] < 2)).all())
    True
    >>> bool(np.allclose(y, X[:, 0] + X[:, 0] ** 2))
    True
    """
    return _collect(iter_parabola(noise, seed), n, 1)


# ---------------------------------------------------------------------------
# MOVINGXOR [AG13, §5.2]
# ---------------------------------------------------------------------------


def iter_moving_xor(period: int = 100000, noise: float = 0.0, seed: int = 0) -> Iterator[ClassRow]:
    """Rows of MOVINGXOR forever; see :func:`moving_xor`.

    Random draws: per row, two uniforms (x1, x2), then one uniform for the label noise
    (drawn even when ``noise == 0``).
    """
    if isinstance(period, bool) or not isinstance(period, int) or period < 1:
        raise ValueError(f"period must be an int >= 1, got {period!r}")
    if not (0.0 <= noise <= 1.0):
        raise ValueError(f"noise must be in [0, 1], got {noise!r}")
    rng = Rng(seed)
    t = 0
    while True:
        x1 = 2.0 * rng.uniform() - 1.0
        x2 = 2.0 * rng.uniform() - 1.0
        flip = rng.uniform() < noise
        angle = math.pi * (t % period) / period
        c = math.cos(angle)
        s = math.sin(angle)
        # coordinates of x in the frame rotated by the angle
        u = c * x1 + s * x2
        v = c * x2 - s * x1
        label = 1 if u * v > 0.0 else 0
        if flip:
            label = 1 - label
        yield [x1, x2], label
        t += 1


def moving_xor(
    n: int, period: int = 100000, noise: float = 0.0, seed: int = 0
) -> tuple[FloatArray, npt.NDArray[np.int64]]:
    """The rotating XOR problem MOVINGXOR [AG13, §5.2].

    ``x ~ U[-1, 1]²``; the label is the XOR of the signs of the coordinates of ``x`` in
    a frame rotated by ``θ_t = π (t mod period) / period``: ``y = 1`` if ``u v > 0``
    with ``u = cos θ x1 + sin θ x2``, ``v = cos θ x2 - sin θ x1``, else 0; with
    probability ``noise`` the label is flipped.

    Parameters
    ----------
    n : int
        Number of rows (the paper uses 100,000).
    period : int, default 100000
        Steps for a half turn, after which the XOR pattern is back where it started.
    noise : float, default 0.0
        Probability of flipping a label.
    seed : int, default 0
        Seed of the generator.

    Returns
    -------
    X : ndarray of shape (n, 2), float64
    y : ndarray of shape (n,), int64 with values 0 and 1

    Notes
    -----
    Deviation: the paper describes the stream only as an XOR problem that rotates
    "so that older data become increasingly misleading" and whose boundary "returns to
    its initial position" near the end of the n = 100,000 run. We rotate by a half turn
    over ``period`` steps: at ``t = period / 2`` the labels are the opposite of those at
    ``t = 0`` (the XOR of a quarter-turned frame), and at ``t = period`` the pattern is
    back at its start.

    Random draws: per row, two uniforms (x1, x2), then one uniform for label noise.

    Examples
    --------
    >>> X, y = moving_xor(6, seed=0)
    >>> X.shape, sorted(set(y.tolist())) <= [0, 1]
    ((6, 2), True)
    """
    return _collect_classes(iter_moving_xor(period, noise, seed), n, 2)


# ---------------------------------------------------------------------------
# SEA concepts [SK01]
# ---------------------------------------------------------------------------


def iter_sea(
    thresholds: Sequence[float] = (8.0, 9.0, 7.0, 9.5),
    concept_length: int = 15000,
    noise: float = 0.1,
    seed: int = 0,
) -> Iterator[ClassRow]:
    """Rows of the SEA stream forever; see :func:`sea`.

    Random draws: per row, three uniforms (x1, x2, x3), then one uniform for the label
    noise (drawn even when ``noise == 0``).

    Examples
    --------
    >>> x, label = next(iter_sea(seed=2))
    >>> len(x), label in (0, 1)
    (3, True)
    """
    if len(thresholds) == 0:
        raise ValueError("thresholds must not be empty")
    if (
        isinstance(concept_length, bool)
        or not isinstance(concept_length, int)
        or concept_length < 1
    ):
        raise ValueError(f"concept_length must be an int >= 1, got {concept_length!r}")
    if not (0.0 <= noise <= 1.0):
        raise ValueError(f"noise must be in [0, 1], got {noise!r}")
    levels = [float(theta) for theta in thresholds]
    rng = Rng(seed)
    t = 0
    while True:
        x = [10.0 * rng.uniform(), 10.0 * rng.uniform(), 10.0 * rng.uniform()]
        flip = rng.uniform() < noise
        theta = levels[(t // concept_length) % len(levels)]
        label = 1 if x[0] + x[1] <= theta else 0
        if flip:
            label = 1 - label
        yield x, label
        t += 1


def sea(
    n: int = 60000,
    thresholds: Sequence[float] = (8.0, 9.0, 7.0, 9.5),
    concept_length: int = 15000,
    noise: float = 0.1,
    seed: int = 0,
) -> tuple[FloatArray, npt.NDArray[np.int64]]:
    """SEA concepts with abrupt concept changes [SK01].

    Three inputs ``x ~ U[0, 10]³`` of which only the first two matter; ``y = 1`` if
    ``x1 + x2 <= θ`` else 0, where θ runs through ``thresholds`` (8, 9, 7, 9.5), one
    concept per ``concept_length`` rows (cycling if the stream is longer). Each label is
    flipped with probability ``noise`` (10% class noise in [SK01]).

    Parameters
    ----------
    n : int, default 60000
        Number of rows (four concepts of 15,000 as in [SK01]).
    thresholds : sequence of float, default (8, 9, 7, 9.5)
        θ of each concept, in order.
    concept_length : int, default 15000
        Rows per concept.
    noise : float, default 0.1
        Probability of flipping a label.
    seed : int, default 0
        Seed of the generator.

    Returns
    -------
    X : ndarray of shape (n, 3), float64
    y : ndarray of shape (n,), int64 with values 0 and 1

    Notes
    -----
    Random draws: per row, three uniforms then one uniform for the label noise.

    Examples
    --------
    >>> X, y = sea(1000, noise=0.0, seed=4)
    >>> bool(((X[:, 0] + X[:, 1] <= 8.0) == (y == 1)).all())
    True
    """
    return _collect_classes(iter_sea(thresholds, concept_length, noise, seed), n, 3)


# ---------------------------------------------------------------------------
# rotating hyperplane [HSD01]
# ---------------------------------------------------------------------------


def iter_hyperplane(
    n_features: int = 10,
    n_drift_features: int = 2,
    mag_change: float = 0.001,
    sigma_reverse: float = 0.1,
    noise: float = 0.05,
    seed: int = 0,
) -> Iterator[ClassRow]:
    """Rows of the rotating hyperplane forever; see :func:`hyperplane`.

    Random draws: at start, ``n_features`` uniforms (weights ``w_i``), then
    ``n_drift_features`` draws ``below(2)`` (initial directions). Per row,
    ``n_features`` uniforms (x), one uniform (label noise), then for each drifting
    weight one uniform (direction reversal).
    """
    if isinstance(n_features, bool) or not isinstance(n_features, int) or n_features < 1:
        raise ValueError(f"n_features must be an int >= 1, got {n_features!r}")
    if not (isinstance(n_drift_features, int) and 0 <= n_drift_features <= n_features):
        raise ValueError(
            f"n_drift_features must be an int in [0, n_features], got {n_drift_features!r}"
        )
    for name, value in (("noise", noise), ("sigma_reverse", sigma_reverse)):
        if not (0.0 <= value <= 1.0):
            raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    if not math.isfinite(mag_change):
        raise ValueError(f"mag_change must be finite, got {mag_change!r}")
    rng = Rng(seed)
    weights = [rng.uniform() for _ in range(n_features)]
    directions = [1.0 if rng.below(2) == 1 else -1.0 for _ in range(n_drift_features)]
    while True:
        x = [rng.uniform() for _ in range(n_features)]
        flip = rng.uniform() < noise
        total = 0.0
        weight_total = 0.0
        for i in range(n_features):
            total += weights[i] * x[i]
            weight_total += weights[i]
        label = 1 if total >= 0.5 * weight_total else 0
        if flip:
            label = 1 - label
        yield x, label
        for i in range(n_drift_features):
            weights[i] += directions[i] * mag_change
            if rng.uniform() < sigma_reverse:
                directions[i] = -directions[i]


def hyperplane(
    n: int,
    n_features: int = 10,
    n_drift_features: int = 2,
    mag_change: float = 0.001,
    sigma_reverse: float = 0.1,
    noise: float = 0.05,
    seed: int = 0,
) -> tuple[FloatArray, npt.NDArray[np.int64]]:
    """The rotating hyperplane [HSD01] with gradual drift.

    ``x ~ U[0, 1]^d``; ``y = 1`` if ``Σ_i w_i x_i >= w_0`` with ``w_0 = ½ Σ_i w_i``
    (so about half the points are positive), else 0; a label is flipped with
    probability ``noise``. After each row the first ``n_drift_features`` weights move by
    ``σ_i · mag_change`` and each direction ``σ_i ∈ {-1, +1}`` reverses with probability
    ``sigma_reverse``, so the hyperplane rotates smoothly.

    Parameters
    ----------
    n : int
        Number of rows.
    n_features : int, default 10
        Dimension d.
    n_drift_features : int, default 2
        Number of weights that drift.
    mag_change : float, default 0.001
        Change of a drifting weight per row.
    sigma_reverse : float, default 0.1
        Probability that a drift direction reverses after a row.
    noise : float, default 0.05
        Probability of flipping a label.
    seed : int, default 0
        Seed of the generator.

    Returns
    -------
    X : ndarray of shape (n, n_features), float64
    y : ndarray of shape (n,), int64 with values 0 and 1

    Notes
    -----
    Deviation: [HSD01] describe the generator in words; initial weights uniform on
    [0, 1], the ±1 directions and the per-row reversal probability follow the common
    (MOA) reading of it.

    Random draws: see :func:`iter_hyperplane`.

    Examples
    --------
    >>> X, y = hyperplane(500, seed=5)
    >>> 0.3 < float(y.mean()) < 0.7
    True
    """
    return _collect_classes(
        iter_hyperplane(n_features, n_drift_features, mag_change, sigma_reverse, noise, seed),
        n,
        n_features,
    )


# ---------------------------------------------------------------------------
# shuffling and real data
# ---------------------------------------------------------------------------


def shuffled(
    X: npt.ArrayLike, y: npt.ArrayLike, seed: int = 0
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.generic]]:
    """Rows of ``(X, y)`` in a random order drawn with our generator (Fisher-Yates).

    For ``i = n-1, ..., 1``: ``j = rng.below(i + 1)``, swap positions ``i`` and ``j`` of
    the permutation; then ``X[perm], y[perm]`` are returned (new arrays).

    Parameters
    ----------
    X : array_like of shape (n, d)
    y : array_like of shape (n,)
    seed : int, default 0
        Seed of the :class:`~reference.rng.Rng`.

    Returns
    -------
    X, y : ndarrays
        Permuted copies (``X`` as float64, ``y`` keeps its dtype).

    Notes
    -----
    Random draws: ``below(i + 1)`` for ``i = n-1`` down to 1 (``n - 1`` calls).

    Examples
    --------
    >>> X, y = shuffled(np.arange(10.0).reshape(5, 2), np.arange(5), seed=1)
    >>> sorted(y.tolist())
    [0, 1, 2, 3, 4]
    >>> bool((X[:, 0] == 2 * y).all())
    True
    """
    X_arr = np.asarray(X, dtype=np.float64)
    y_arr = np.asarray(y)
    n = X_arr.shape[0]
    if y_arr.shape[0] != n:
        raise ValueError(f"X has {n} rows but y has {y_arr.shape[0]}")
    rng = Rng(seed)
    perm = list(range(n))
    for i in range(n - 1, 0, -1):
        j = rng.below(i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    index = np.asarray(perm, dtype=np.intp)
    return X_arr[index], y_arr[index]


def data_dir(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """The directory searched first for data files.

    The argument if given; else ``$DRIFTWOOD_DATA`` if set; else the user cache of fetched
    sets (:func:`reference.registry.cache_dir`). Registered sets that ship with the package
    are found even when they are not in this directory.

    Examples
    --------
    >>> str(data_dir("/tmp/somewhere"))
    '/tmp/somewhere'
    """
    if data_dir is not None:
        return Path(data_dir)
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env)
    return registry.cache_dir()


def load_csv(
    name: str, data_dir: str | os.PathLike[str] | None = None, task: str = "auto"
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.generic]]:
    """Load a real data set: a header row, numeric columns, last column ``y``.

    Parameters
    ----------
    name : str
        A registered set (``driftwood data list``; e.g. ``"elec2_dynatree"``) or a file
        name in ``data_dir``, with or without ``.csv``.
    data_dir : str or path, optional
        Directory searched first. Default: ``$DRIFTWOOD_DATA`` if set. A registered set is
        then looked up inside the package (the small sets ship with it) and in the user
        cache (where ``driftwood data fetch`` puts the larger ones).
    task : {"auto", "regression", "classification"}, default "auto"
        ``"auto"`` returns ``y`` as int64 when every target is integral, float64 otherwise;
        ``"regression"`` always float64; ``"classification"`` int64 (error if a target is
        not integral).

    Returns
    -------
    X : ndarray of shape (n, d), float64
    y : ndarray of shape (n,), int64 or float64

    Raises
    ------
    reference.registry.DataSetNotAvailable
        (a ``FileNotFoundError``) if a registered set is not available locally; the
        message names the set, its URL and the command that fetches it.
    FileNotFoundError
        If an unregistered file is missing; the message names the file, the directory
        tried and the environment variable ``DRIFTWOOD_DATA``.
    ValueError
        If a value is not numeric, or ``task`` is unknown.

    Examples
    --------
    >>> X, y = load_csv("mcycle")           # ships with the package: no setting, no network
    >>> X.shape, y.dtype.name
    ((133, 1), 'float64')
    >>> try:
    ...     load_csv("no_such_file", data_dir="/nonexistent")
    ... except FileNotFoundError as err:
    ...     "DRIFTWOOD_DATA" in str(err)
    True
    """
    if task not in ("auto", "regression", "classification"):
        raise ValueError(f"task must be 'auto', 'regression' or 'classification', got {task!r}")
    filename = name if name.endswith(".csv") else name + ".csv"
    if filename[:-4] in registry.REGISTRY:
        path = registry.locate(filename, data_dir)
    else:
        directory = _resolve_dir(data_dir)
        path = directory / filename
        if not path.is_file():
            raise FileNotFoundError(
                f"data file {filename!r} not found in {str(directory)!r}; put the file there, "
                f"pass data_dir=..., or set the environment variable {DATA_ENV} to the "
                f"directory that holds it (registered sets: `driftwood data list`)"
            )
    try:
        with registry.open_text(path) as handle:
            table = np.loadtxt(handle, delimiter=",", skiprows=1, dtype=np.float64, ndmin=2)
    except ValueError as err:
        raise ValueError(f"{path}: non-numeric value ({err})") from err
    if table.shape[1] < 2:
        raise ValueError(f"{path}: need at least one feature column and the target column")
    X = np.ascontiguousarray(table[:, :-1])
    target = table[:, -1]
    integral = bool(np.all(np.isfinite(target)) and np.all(target == np.round(target)))
    if task == "regression" or (task == "auto" and not integral):
        return X, np.ascontiguousarray(target)
    if not integral:
        raise ValueError(f"{path}: task='classification' but some targets are not integers")
    return X, target.astype(np.int64)


def _resolve_dir(directory: str | os.PathLike[str] | None) -> Path:
    return data_dir(directory)

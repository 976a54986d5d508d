"""Synthetic classification streams: MOVINGXOR, SEA concepts, the rotating hyperplane.

Each stream has two forms: ``iter_<name>(...)`` yields rows ``(x, y)`` forever (``x`` a
list of floats, ``y`` an int) and ``<name>(n, ...)`` returns the first ``n`` rows as
arrays ``(X, y)`` (float64, int64), exactly the first ``n`` rows of the iterator form.
Row ``t`` (0-based) is generated with the concept of time ``t``.

References
----------
[AG13] C. Anagnostopoulos and R. B. Gramacy, "Information-theoretic data discarding for
dynamic trees on data streams", Entropy 15(12), 2013.
[SK01] W. N. Street and Y. Kim, "A streaming ensemble algorithm (SEA) for large-scale
classification", KDD 2001.
[HSD01] G. Hulten, L. Spencer and P. Domingos, "Mining time-changing data streams",
KDD 2001.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

import numpy as np
import numpy.typing as npt

from reference.evaluation.datasets._draws import ClassRow, FloatArray, _collect_classes
from reference.rng import Rng

__all__ = [
    "hyperplane",
    "iter_hyperplane",
    "iter_moving_xor",
    "iter_sea",
    "moving_xor",
    "sea",
]


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

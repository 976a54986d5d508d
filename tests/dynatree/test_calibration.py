"""Calibration, end to end: predictive distributions whose probabilities mean what they say.

- **Simulation-based calibration of the leaf models** [DT-SPEC §3]: draw the parameters
  from the prior, a data set and one more observation from them, and take the probability
  integral transform (PIT) of the new observation under the leaf's predictive. Over many
  draws the PIT is uniform exactly when the predictive is the Bayesian one (Cook, Gelman
  & Rubin 2006; Talts et al. 2018, arXiv:1804.06788). The mean parameters have a flat
  prior, under which the predictive is exact whatever their value (location invariance),
  so they are drawn from any distribution; ``σ²`` is drawn from its inverse-gamma prior
  (or fixed under the ``1/σ²`` prior, which is scale invariant). Class leaves: Dirichlet
  draws and the randomised PIT of a discrete predictive. Uniformity: Kolmogorov-Smirnov.
- **Coverage of 90% predictive intervals** of :class:`DynamicTreeRegressor` on held-out
  points of streams drawn from a known piecewise function with Gaussian noise: the
  average coverage over independent replications is 0.90 within Monte Carlo error
  (3 standard errors across replications; the long version is marked slow).
"""

from __future__ import annotations

import math
from types import ModuleType

import numpy as np
import pytest

scipy_stats = pytest.importorskip("scipy.stats")

KS_LEVEL = 0.005


def _pit_regression(backend: ModuleType, leaf: str, nu0: float, s20: float, n: int,
                    reps: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = np.empty(reps)
    for r in range(reps):
        s2 = (nu0 * s20 / 2.0) / rng.gamma(nu0 / 2.0) if nu0 > 0 else rng.uniform(0.1, 4.0)
        X = rng.uniform(-1.0, 1.0, size=(n + 1, 2))
        mean = rng.normal(0.0, 3.0) + (X @ rng.normal(0.0, 2.0, size=2) if leaf == "linear"
                                       else 0.0)
        y = mean + math.sqrt(s2) * rng.normal(size=n + 1)
        extra = {"intercept": "augmented"} if leaf == "linear" else {}
        model = backend.DynamicTreeRegressor(leaf=leaf, n_particles=1, nstart=10_000, nu0=nu0,
                                             s20=s20, **extra)
        model.partial_fit(X[:n], y[:n])
        dist = model.predict_dist(X[n:])
        df = float(dist["df"][0])
        scale = float(dist["q95"][0] - dist["mean"][0]) / scipy_stats.t.ppf(0.95, df)
        out[r] = scipy_stats.t.cdf(y[n], df, loc=float(dist["mean"][0]), scale=scale)
    return out


@pytest.mark.parametrize("leaf", ["constant", "linear"])
@pytest.mark.parametrize(("nu0", "s20"), [(0.0, 0.0), (4.0, 0.5)])
def test_regression_leaf_predictive_is_calibrated(backend: ModuleType, leaf: str, nu0: float,
                                                  s20: float) -> None:
    pit = _pit_regression(backend, leaf, nu0, s20, n=6, reps=800, seed=1)
    assert scipy_stats.kstest(pit, "uniform").pvalue > KS_LEVEL


def test_pit_check_detects_a_predictive_that_ignores_parameter_uncertainty() -> None:
    """The uniformity check has power at the size used above: the plug-in normal
    predictive (sample mean and variance taken as the truth) fails it. Subtler slips, such
    as one degree of freedom too many, need far more draws; the formula oracles catch
    those."""
    rng = np.random.default_rng(2)
    n, reps = 6, 800
    pit = np.empty(reps)
    for r in range(reps):
        y = rng.normal(size=n + 1)
        pit[r] = scipy_stats.norm.cdf(y[n], loc=y[:n].mean(), scale=y[:n].std())
    assert scipy_stats.kstest(pit, "uniform").pvalue < KS_LEVEL


def test_class_leaf_predictive_is_calibrated(backend: ModuleType) -> None:
    rng = np.random.default_rng(3)
    n_classes, n, reps = 3, 5, 1500
    pit = np.empty(reps)
    for r in range(reps):
        theta = rng.dirichlet([1.0 / n_classes] * n_classes)
        labels = rng.choice(n_classes, size=n + 1, p=theta)
        model = backend.DynamicTreeClassifier(classes=list(range(n_classes)), n_particles=1,
                                              nstart=10_000)
        model.partial_fit(np.zeros((n, 1)), labels[:n])
        probs = model.predict_proba_one([0.0])
        p = np.array([probs[k] for k in range(n_classes)])
        k = labels[n]
        pit[r] = p[:k].sum() + rng.uniform() * p[k]          # randomised PIT
    assert scipy_stats.kstest(pit, "uniform").pvalue > KS_LEVEL


def _truth(X: np.ndarray) -> np.ndarray:
    return 2.0 * (X[:, 0] > 0.5) - 1.0 * (X[:, 1] > 0.3) + 0.5 * X[:, 0]


def _coverage(backend: ModuleType, leaf: str, seed: int, n: int, particles: int) -> float:
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 2))
    Xt = rng.uniform(size=(2000, 2))
    y = _truth(X) + 0.4 * rng.normal(size=n)
    yt = _truth(Xt) + 0.4 * rng.normal(size=2000)
    model = backend.DynamicTreeRegressor(leaf=leaf, n_particles=particles, seed=seed)
    model.partial_fit(X, y)
    dist = model.predict_dist(Xt)
    return float(np.mean((yt >= dist["q05"]) & (yt <= dist["q95"])))


def _assert_covers_90(values: list[float]) -> None:
    mean = float(np.mean(values))
    se = float(np.std(values, ddof=1)) / math.sqrt(len(values))
    se = max(se, math.sqrt(0.09 / 2000))          # never below the held-out sampling error
    assert abs(mean - 0.90) < 3.0 * se, (mean, se, values)


def test_dynamic_tree_90_percent_intervals_cover_90_percent(backend: ModuleType) -> None:
    if backend.__name__ == "reference":
        pytest.skip("same numbers as fast (lockstep); the reference is too slow at this size")
    _assert_covers_90([_coverage(backend, "constant", seed, 400, 150) for seed in range(4)])


@pytest.mark.slow
@pytest.mark.parametrize("leaf", ["constant", "linear"])
def test_dynamic_tree_90_percent_intervals_cover_90_percent_long(backend: ModuleType,
                                                                 leaf: str) -> None:
    if backend.__name__ == "reference":
        pytest.skip("same numbers as fast (lockstep); the reference is too slow at this size")
    _assert_covers_90([_coverage(backend, leaf, seed, 800, 500) for seed in range(12)])

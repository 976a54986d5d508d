"""Oracle: the linear leaf's evidence and predictive, for each intercept treatment.

A model with one particle and ``nstart`` larger than the stream keeps every point in its
root leaf, so its log evidence (``snapshot()``) and its predictive are those of one
linear leaf [AG13, Eq. 1; DT-SPEC §3.2]. They are checked against routes that share no
code with the leaf model:

- **evidence by quadrature**: the marginal likelihood ``∫∫ N(y | Zβ, σ²I) π(β) π(σ²)``
  with a flat ``π(β)`` over the ``k`` mean parameters (intercept and slopes) and
  ``π(σ²) = IG(ν0/2, ν0 s20/2)`` (or ``1/σ²`` when ``ν0 = 0``). The Gaussian integral
  over ``β`` is taken in closed form with numpy (``slogdet``, ``lstsq``) and the one over
  ``σ²`` by ``scipy.integrate.quad``; with one regressor and no intercept both integrals
  are numerical (``dblquad``). dynaTree's evidence replaces ``log(2π)`` by ``log(2/π)`` in
  the per-point constant, so ``ell = log Z + (n - k) log π`` (see the constant-leaf oracle
  in ``tests/dynatree/test_oracle_leaf_evidence.py``);
- **predictive**: the Student-t of Bayesian linear regression written with numpy
  (location ``z'β̂``, squared scale ``Q (1 + z'(Z'Z)^-1 z)/df``, ``df = ν0 + n - k``,
  ``Q = RSS + ν0 s20``), the ratio of evidences with and without a new point (``π`` times
  that density), and the quantiles of a simulation from the posterior (draw ``σ²``, then
  ``β``, then ``y``).

The implicit intercept is the centred parametrisation of ``Z = [1, X]`` and the augmented
one its ones column; both must give the same evidence as the textbook model with an
intercept, and ``none`` the one without.
"""

from __future__ import annotations

import math
from types import ModuleType

import numpy as np
import pytest

scipy_stats = pytest.importorskip("scipy.stats")
scipy_integrate = pytest.importorskip("scipy.integrate")

INTERCEPTS = ["implicit", "augmented", "none"]
PRIORS = [(0.0, 0.0), (3.0, 0.2)]


def _data(n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, d))
    y = 1.0 + 2.0 * X[:, 0] - X[:, -1] + 0.3 * rng.normal(size=n)
    return X, y


def _model(backend: ModuleType, intercept: str, nu0: float, s20: float, X: np.ndarray,
           y: np.ndarray) -> object:
    model = backend.DynamicTreeRegressor(leaf="linear", intercept=intercept, n_particles=1,
                                         nstart=10_000, nu0=nu0, s20=s20)
    model.partial_fit(X, y)  # type: ignore[attr-defined]
    return model


def _log_evidence(model: object) -> float:
    particles = model.snapshot()["particles"]  # type: ignore[attr-defined]
    assert len(particles) == 1 and len(particles[0]) == 1, "one particle, one leaf"
    return float(particles[0][0][4])


def _design(X: np.ndarray, intercept: str) -> np.ndarray:
    return X if intercept == "none" else np.column_stack([np.ones(len(X)), X])


def _log_sigma2_prior(s2: float, nu0: float, s20: float) -> float:
    """log IG(s2; a = ν0/2, b = ν0 s20/2) = a log b - lgamma(a) - (a + 1) log s2 - b/s2."""
    if nu0 > 0.0:
        a, b = nu0 / 2.0, nu0 * s20 / 2.0
        return a * math.log(b) - math.lgamma(a) - (a + 1.0) * math.log(s2) - b / s2
    return -math.log(s2)


def _textbook_log_evidence(Z: np.ndarray, y: np.ndarray, nu0: float, s20: float) -> float:
    """log ∫∫ N(y | Zβ, σ²I) dβ π(σ²) dσ²: β in closed form, σ² by quadrature."""
    n, k = Z.shape
    beta = np.linalg.lstsq(Z, y, rcond=None)[0]
    rss = float(((y - Z @ beta) ** 2).sum())
    logdet = float(np.linalg.slogdet(Z.T @ Z)[1])

    def integrand(s2: float) -> float:
        log_lik = (-(n - k) / 2.0 * math.log(2.0 * math.pi * s2) - 0.5 * logdet
                   - rss / (2.0 * s2))
        return math.exp(log_lik + _log_sigma2_prior(s2, nu0, s20))

    total, _ = scipy_integrate.quad(integrand, 0.0, math.inf, limit=200, epsrel=1e-11)
    return math.log(total)


def test_inverse_gamma_prior_density_is_scipys() -> None:
    for s2 in (0.01, 0.3, 2.0):
        assert _log_sigma2_prior(s2, 3.0, 0.2) == pytest.approx(
            scipy_stats.invgamma.logpdf(s2, 1.5, scale=0.3), rel=1e-12)


@pytest.mark.parametrize("intercept", INTERCEPTS)
@pytest.mark.parametrize(("nu0", "s20"), PRIORS)
def test_linear_leaf_evidence_is_the_integrated_likelihood(backend: ModuleType, intercept: str,
                                                           nu0: float, s20: float) -> None:
    X, y = _data(7, 2, seed=1)
    Z = _design(X, intercept)
    n, k = Z.shape
    ell = _log_evidence(_model(backend, intercept, nu0, s20, X, y))
    expected = _textbook_log_evidence(Z, y, nu0, s20) + (n - k) * math.log(math.pi)
    assert ell == pytest.approx(expected, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize(("nu0", "s20"), PRIORS)
def test_linear_leaf_evidence_by_two_dimensional_quadrature(backend: ModuleType, nu0: float,
                                                            s20: float) -> None:
    """One regressor, no intercept: both the slope and the variance integrated numerically."""
    X, y = _data(6, 1, seed=4)
    x = X[:, 0]
    slope = float(x @ y / (x @ x))
    xx = float(x @ x)

    def integrand(u: float, t: float) -> float:
        # t = log σ² (dσ² = σ² dt); β = slope + u σ/|x| (dβ = σ/|x| du): both scale-free
        s2 = math.exp(t)
        step = math.sqrt(s2 / xx)
        resid = y - (slope + u * step) * x
        log_lik = -len(y) / 2.0 * math.log(2.0 * math.pi * s2) - float(resid @ resid) / (2 * s2)
        return math.exp(log_lik + _log_sigma2_prior(s2, nu0, s20) + t) * step

    total, _ = scipy_integrate.dblquad(integrand, -30.0, 30.0, -12.0, 12.0, epsabs=0.0,
                                       epsrel=1e-10)
    ell = _log_evidence(_model(backend, "none", nu0, s20, X, y))
    assert ell == pytest.approx(math.log(total) + (len(y) - 1) * math.log(math.pi), rel=1e-6)


def _textbook_predictive(Z: np.ndarray, y: np.ndarray, z: np.ndarray, nu0: float,
                         s20: float) -> tuple[float, float, float]:
    """(df, location, scale) of the posterior predictive of Bayesian linear regression."""
    n, k = Z.shape
    beta = np.linalg.lstsq(Z, y, rcond=None)[0]
    q = float(((y - Z @ beta) ** 2).sum()) + nu0 * s20
    df = nu0 + n - k
    leverage = float(z @ np.linalg.solve(Z.T @ Z, z))
    return df, float(z @ beta), math.sqrt(q * (1.0 + leverage) / df)


def _z(x: np.ndarray, intercept: str) -> np.ndarray:
    return x if intercept == "none" else np.concatenate([[1.0], x])


@pytest.mark.parametrize("intercept", INTERCEPTS)
@pytest.mark.parametrize(("nu0", "s20"), PRIORS)
def test_linear_leaf_predictive_is_the_bayesian_regression_t(backend: ModuleType,
                                                             intercept: str, nu0: float,
                                                             s20: float) -> None:
    X, y = _data(9, 2, seed=2)
    model = _model(backend, intercept, nu0, s20, X, y)
    new = np.array([[0.3, 0.8], [1.4, -0.2]])   # inside and outside the data's range
    dist = model.predict_dist(new)  # type: ignore[attr-defined]
    for i, x in enumerate(new):
        df, loc, scale = _textbook_predictive(_design(X, intercept), y, _z(x, intercept), nu0,
                                              s20)
        assert dist["df"][i] == pytest.approx(df, rel=1e-12)
        assert dist["mean"][i] == pytest.approx(loc, rel=1e-9, abs=1e-9)
        q95 = loc + scale * scipy_stats.t.ppf(0.95, df)
        assert dist["q95"][i] == pytest.approx(q95, rel=1e-9)
        assert dist["var"][i] == pytest.approx(scale * scale * df / (df - 2.0), rel=1e-9)


@pytest.mark.parametrize("intercept", INTERCEPTS)
@pytest.mark.parametrize("y_new", [-1.0, 1.6, 4.0])
def test_linear_leaf_evidence_ratio_is_pi_times_the_predictive_density(
        backend: ModuleType, intercept: str, y_new: float) -> None:
    X, y = _data(8, 2, seed=3)
    x_new = np.array([0.6, 0.25])
    before = _log_evidence(_model(backend, intercept, 0.0, 0.0, X, y))
    after = _log_evidence(_model(backend, intercept, 0.0, 0.0, np.vstack([X, x_new]),
                                 np.append(y, y_new)))
    df, loc, scale = _textbook_predictive(_design(X, intercept), y, _z(x_new, intercept), 0.0,
                                          0.0)
    density = scipy_stats.t.pdf(y_new, df, loc=loc, scale=scale)
    assert math.exp(after - before) == pytest.approx(math.pi * density, rel=1e-8)


@pytest.mark.parametrize("intercept", ["augmented", "none"])
def test_linear_leaf_quantiles_match_a_posterior_simulation(backend: ModuleType,
                                                            intercept: str) -> None:
    """Draw σ² ~ IG(df/2, Q/2), β ~ N(β̂, σ²(Z'Z)^-1), y ~ N(z'β, σ²); compare quantiles."""
    X, y = _data(10, 2, seed=6)
    nu0, s20 = 2.0, 0.1
    Z = _design(X, intercept)
    n, k = Z.shape
    beta_hat = np.linalg.lstsq(Z, y, rcond=None)[0]
    q = float(((y - Z @ beta_hat) ** 2).sum()) + nu0 * s20
    df = nu0 + n - k
    rng = np.random.default_rng(11)
    draws = 400_000
    s2 = (q / 2.0) / rng.gamma(df / 2.0, size=draws)
    chol = np.linalg.cholesky(np.linalg.inv(Z.T @ Z))
    betas = beta_hat + np.sqrt(s2)[:, None] * (rng.normal(size=(draws, k)) @ chol.T)
    x = np.array([0.4, 0.7])
    ys = betas @ _z(x, intercept) + np.sqrt(s2) * rng.normal(size=draws)
    dist = _model(backend, intercept, nu0, s20, X, y).predict_dist(x[None, :])  # type: ignore[attr-defined]
    q05, q95 = np.quantile(ys, [0.05, 0.95])
    width = float(dist["q95"][0] - dist["q05"][0])
    assert float(dist["q05"][0]) == pytest.approx(q05, abs=0.01 * width)
    assert float(dist["q95"][0]) == pytest.approx(q95, abs=0.01 * width)

"""Oracle: the linear leaf with the Gaussian slope prior ``slope_prior=kappa`` (DT-SPEC §3.7).

As in ``test_oracle_linear_leaf.py``, a model with one particle and ``nstart`` larger than
the stream keeps every point in its root leaf, so its snapshot's log evidence and its
predictive are those of one linear leaf. The routes below never form ``G + kappa I``:
they integrate the slopes out in the *data* space, where ``y | sigma^2`` is Gaussian with
covariance ``sigma^2 C``, ``C = I + Z Z' / kappa`` (``Z`` the regressors), and then

- **evidence**: with ``nu0 > 0``, ``y`` is multivariate Student-t with ``nu0`` degrees of
  freedom and scale ``s20 C`` (``scipy.stats.multivariate_t``); with ``nu0 = 0`` the
  variance ``sigma^2`` (and, for the implicit intercept, the flat mean ``mu``) is
  integrated by quadrature against ``scipy.stats.multivariate_normal``. dynaTree's
  ``log(2/pi)`` constant makes ``ell = log Z + (n - delta) log pi``;
- **predictive**: the conditional of the joint Student-t of ``(y, y_new)``: location
  ``c' C^-1 y``, squared scale ``(nu0 s20 + y' C^-1 y) (c_new - c' C^-1 c) / (nu0 + n)``,
  ``nu0 + n`` degrees of freedom (the implicit intercept's flat ``mu`` as the limit of a
  wide Gaussian ``N(0, sigma^2 tau)``), and a posterior simulation for the quantiles.
"""

from __future__ import annotations

import math
from types import ModuleType

import numpy as np
import pytest

scipy_stats = pytest.importorskip("scipy.stats")
scipy_integrate = pytest.importorskip("scipy.integrate")

INTERCEPTS = ["implicit", "augmented", "none"]


def _data(n: int, seed: int, collinear: bool = False) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 2))
    if collinear:   # the second input is the first plus a little noise: G is nearly singular
        X[:, 1] = X[:, 0] + 1e-3 * rng.normal(size=n)
    y = 1.0 + 2.0 * X[:, 0] - X[:, 1] + 0.3 * rng.normal(size=n)
    return X, y


def _model(backend: ModuleType, intercept: str, kappa: float, nu0: float, s20: float,
           X: np.ndarray, y: np.ndarray) -> object:
    model = backend.DynamicTreeRegressor(leaf="linear", intercept=intercept, n_particles=1,
                                         nstart=10_000, nu0=nu0, s20=s20, slope_prior=kappa)
    model.partial_fit(X, y)  # type: ignore[attr-defined]
    return model


def _log_evidence(model: object) -> float:
    particles = model.snapshot()["particles"]  # type: ignore[attr-defined]
    assert len(particles) == 1 and len(particles[0]) == 1, "one particle, one leaf"
    return float(particles[0][0][4])


def _kernel(X: np.ndarray, intercept: str, kappa: float) -> np.ndarray:
    """``C = I + Z Z'/kappa``: the covariance of ``y / sigma`` once the slopes are
    integrated out. The implicit intercept's regressors are the inputs themselves (its flat
    mean absorbs any centring)."""
    Z = np.column_stack([np.ones(len(X)), X]) if intercept == "augmented" else X
    return np.eye(len(X)) + Z @ Z.T / kappa


def _log_sigma2_prior(s2: float, nu0: float, s20: float) -> float:
    """log IG(s2; a = nu0/2, b = nu0 s20/2), or log(1/s2) when nu0 = 0."""
    if nu0 > 0.0:
        a, b = nu0 / 2.0, nu0 * s20 / 2.0
        return a * math.log(b) - math.lgamma(a) - (a + 1.0) * math.log(s2) - b / s2
    return -math.log(s2)


def test_inverse_gamma_prior_density_is_scipys() -> None:
    for s2 in (0.01, 0.3, 2.0):
        assert _log_sigma2_prior(s2, 3.0, 0.2) == pytest.approx(
            scipy_stats.invgamma.logpdf(s2, 1.5, scale=0.3), rel=1e-12)


def _direct_log_evidence(X: np.ndarray, y: np.ndarray, intercept: str, kappa: float,
                         nu0: float, s20: float) -> float:
    """``log Z`` by the data-space routes of the module docstring."""
    C = _kernel(X, intercept, kappa)
    n = len(y)
    if intercept != "implicit":
        if nu0 > 0.0:
            return float(scipy_stats.multivariate_t.logpdf(y, loc=np.zeros(n), shape=s20 * C,
                                                           df=nu0))

        def integrand(t: float) -> float:
            s2 = math.exp(t)   # sigma^2 = e^t, d sigma^2 = sigma^2 dt
            return math.exp(float(scipy_stats.multivariate_normal.logpdf(
                y, mean=np.zeros(n), cov=s2 * C)) + _log_sigma2_prior(s2, nu0, s20) + t)

        total, _ = scipy_integrate.quad(integrand, -15.0, 10.0, limit=400, epsabs=0.0,
                                        epsrel=1e-11)
        return math.log(total)
    cinv = np.linalg.inv(C)
    logdet = float(np.linalg.slogdet(C)[1])
    ones = np.ones(n)

    def integrand2(mu: float, t: float) -> float:
        s2 = math.exp(t)
        r = y - mu * ones
        log_lik = -0.5 * n * math.log(2.0 * math.pi * s2) - 0.5 * logdet \
            - float(r @ cinv @ r) / (2.0 * s2)
        return math.exp(log_lik + _log_sigma2_prior(s2, nu0, s20) + t)

    centre = float(ones @ cinv @ y / (ones @ cinv @ ones))
    total, _ = scipy_integrate.dblquad(integrand2, -15.0, 10.0, centre - 20.0, centre + 20.0,
                                       epsabs=0.0, epsrel=1e-10)
    return math.log(total)


@pytest.mark.parametrize("intercept", INTERCEPTS)
@pytest.mark.parametrize(("nu0", "s20"), [(0.0, 0.0), (3.0, 0.2)])
@pytest.mark.parametrize("kappa", [0.5, 20.0])
def test_slope_prior_evidence_is_the_integrated_likelihood(backend: ModuleType, intercept: str,
                                                           nu0: float, s20: float,
                                                           kappa: float) -> None:
    X, y = _data(7, seed=1)
    delta = 1 if intercept == "implicit" else 0
    ell = _log_evidence(_model(backend, intercept, kappa, nu0, s20, X, y))
    expected = _direct_log_evidence(X, y, intercept, kappa, nu0, s20) \
        + (len(y) - delta) * math.log(math.pi)
    assert ell == pytest.approx(expected, rel=1e-8, abs=1e-8)


def test_slope_prior_evidence_on_a_nearly_singular_design(backend: ModuleType) -> None:
    """Two almost identical inputs: the flat prior's G is nearly singular, G + kappa I is not."""
    X, y = _data(6, seed=5, collinear=True)
    ell = _log_evidence(_model(backend, "none", 1.0, 3.0, 0.2, X, y))
    expected = _direct_log_evidence(X, y, "none", 1.0, 3.0, 0.2) + len(y) * math.log(math.pi)
    assert ell == pytest.approx(expected, rel=1e-9)


def test_slope_prior_evidence_of_a_single_point_is_the_constant_leafs(
        backend: ModuleType) -> None:
    """One point: G = 0, so G_kappa = kappa I and the slope terms cancel (no fall-back)."""
    X = np.array([[0.3, 0.9], [0.3, 0.9]])
    y = np.array([1.0, 1.5])
    with_prior = _log_evidence(_model(backend, "implicit", 2.0, 3.0, 0.2, X, y))
    model = backend.DynamicTreeRegressor(n_particles=1, nstart=10_000, nu0=3.0, s20=0.2)
    model.partial_fit(X, y)
    assert with_prior == pytest.approx(_log_evidence(model), rel=1e-13)


def _conditional_t(X: np.ndarray, y: np.ndarray, x_new: np.ndarray, intercept: str,
                   kappa: float, nu0: float, s20: float) -> tuple[float, float, float]:
    """(df, location, scale) of ``y_new | y`` from the joint kernel of ``(y, y_new)``."""
    n = len(y)
    K = _kernel(np.vstack([X, x_new]), intercept, kappa)
    df = nu0 + n
    if intercept == "implicit":
        K = K + 1e7 * np.ones((n + 1, n + 1))   # flat mu: the limit of mu ~ N(0, 1e7 sigma^2)
        df = nu0 + n - 1
    Kyy, c, c_new = K[:n, :n], K[:n, n], K[n, n]
    w = np.linalg.solve(Kyy, c)
    loc = float(w @ y)
    q = nu0 * s20 + float(y @ np.linalg.solve(Kyy, y))
    if intercept == "implicit":  # the wide mean's own share of y' K^-1 y vanishes in the limit
        ones = np.ones(n)
        a = np.linalg.solve(np.eye(n) + X @ X.T / kappa, ones)
        b = np.linalg.solve(np.eye(n) + X @ X.T / kappa, y)
        q = nu0 * s20 + float(y @ b) - float(ones @ b) ** 2 / float(ones @ a)
    return df, loc, math.sqrt(q * (c_new - float(c @ w)) / df)


@pytest.mark.parametrize("intercept", INTERCEPTS)
@pytest.mark.parametrize(("nu0", "s20"), [(0.0, 0.0), (3.0, 0.2)])
def test_slope_prior_predictive_is_the_conditional_student_t(backend: ModuleType,
                                                             intercept: str, nu0: float,
                                                             s20: float) -> None:
    X, y = _data(9, seed=2)
    kappa = 1.5
    model = _model(backend, intercept, kappa, nu0, s20, X, y)
    new = np.array([[0.3, 0.8], [4.0, -3.0]])   # inside and far outside the data's range
    dist = model.predict_dist(new)  # type: ignore[attr-defined]
    tol = 1e-5 if intercept == "implicit" else 1e-9
    for i, x in enumerate(new):
        df, loc, scale = _conditional_t(X, y, x[None, :], intercept, kappa, nu0, s20)
        assert dist["df"][i] == pytest.approx(df, rel=1e-12)
        assert dist["mean"][i] == pytest.approx(loc, rel=tol, abs=tol)
        q95 = loc + scale * scipy_stats.t.ppf(0.95, df)
        assert dist["q95"][i] == pytest.approx(q95, rel=tol)
        assert dist["var"][i] == pytest.approx(scale * scale * df / (df - 2.0), rel=tol)


def test_slope_prior_quantiles_match_a_prior_to_posterior_simulation(
        backend: ModuleType) -> None:
    """Importance sampling from the prior: draw (sigma^2, beta) from the proper prior, weight
    by the likelihood of the leaf's data, simulate y_new; weighted quantiles."""
    X, y = _data(6, seed=7)
    nu0, s20, kappa = 4.0, 0.3, 2.0
    rng = np.random.default_rng(3)
    draws = 400_000
    s2 = (nu0 * s20 / 2.0) / rng.gamma(nu0 / 2.0, size=draws)
    betas = np.sqrt(s2 / kappa)[:, None] * rng.normal(size=(draws, 2))
    resid = y[None, :] - betas @ X.T
    logw = -0.5 * len(y) * np.log(s2) - (resid * resid).sum(axis=1) / (2.0 * s2)
    w = np.exp(logw - logw.max())
    x_new = np.array([0.5, 0.2])
    ys = betas @ x_new + np.sqrt(s2) * rng.normal(size=draws)
    order = np.argsort(ys)
    cdf = np.cumsum(w[order]) / w.sum()
    q05, q95 = (float(ys[order][np.searchsorted(cdf, p)]) for p in (0.05, 0.95))
    dist = _model(backend, "none", kappa, nu0, s20, X, y).predict_dist(x_new[None, :])  # type: ignore[attr-defined]
    assert dist["q05"][0] == pytest.approx(q05, abs=0.03)
    assert dist["q95"][0] == pytest.approx(q95, abs=0.03)


def test_slope_prior_bounds_the_extrapolated_location(backend: ModuleType) -> None:
    """|mu(x) - mu0| <= |x - xbar| sqrt(S2_y / kappa) (§3.7), on a nearly singular design,
    where the flat prior's location runs off far beyond that bound."""
    X, y = _data(8, seed=11, collinear=True)
    kappa = 1.0
    far = np.array([[3.0, -3.0]])
    bound = float(np.linalg.norm(far[0] - X.mean(axis=0))) * math.sqrt(
        float(((y - y.mean()) ** 2).sum()) / kappa)
    with_prior = _model(backend, "implicit", kappa, 0.0, 0.0, X, y)
    flat = backend.DynamicTreeRegressor(leaf="linear", n_particles=1, nstart=10_000)
    flat.partial_fit(X, y)
    shift = abs(float(with_prior.predict_dist(far)["mean"][0]) - float(y.mean()))  # type: ignore[attr-defined]
    flat_shift = abs(float(flat.predict_dist(far)["mean"][0]) - float(y.mean()))
    assert shift <= bound
    assert flat_shift > 10.0 * bound


B_ZERO = {
    # (X, y) of a leaf whose b = Z'y (centred for the implicit intercept) is 0
    "one point": (np.array([[0.3, 0.9]]), np.array([1.2])),
    "identical inputs": (np.array([[0.3, 0.9]] * 3), np.array([1.0, 1.5, 0.7])),
    "constant y": (np.array([[0.1, 0.2], [0.5, 0.9], [0.8, 0.4]]), np.array([2.0] * 3)),
}


@pytest.mark.parametrize("case", list(B_ZERO))
def test_slope_prior_predictive_on_a_leaf_with_b_zero(backend: ModuleType, case: str) -> None:
    """Implicit intercept, ``b = 0`` (one point, identical inputs or a constant target):
    ``beta = 0`` and ``bb = 0``, yet the slopes' prior still widens the predictive away
    from ``xbar`` (``G_kappa^-1 = (G + kappa I)^-1``, not the fall-back's 0). Location,
    degrees of freedom and scale against the joint Student-t of ``(y, y_new)``
    (:func:`_conditional_t`), at ``xbar`` and far from it."""
    X, y = B_ZERO[case]
    kappa, nu0, s20 = 0.5, 3.0, 0.2
    model = _model(backend, "implicit", kappa, nu0, s20, X, y)
    new = np.array([X.mean(axis=0), [2.5, -1.5]])
    dist = model.predict_dist(new)  # type: ignore[attr-defined]
    scales = []
    for i, x in enumerate(new):
        df, loc, scale = _conditional_t(X, y, x[None, :], "implicit", kappa, nu0, s20)
        assert dist["df"][i] == pytest.approx(df, rel=1e-12)
        assert dist["mean"][i] == pytest.approx(loc, rel=1e-6, abs=1e-6)
        q95 = loc + scale * scipy_stats.t.ppf(0.95, df)
        assert dist["q95"][i] == pytest.approx(q95, rel=1e-5)
        assert dist["var"][i] == pytest.approx(scale * scale * df / (df - 2.0), rel=1e-5)
        scales.append(scale)
    assert scales[1] > 2.0 * scales[0]      # the slopes' share, absent in the fall-back

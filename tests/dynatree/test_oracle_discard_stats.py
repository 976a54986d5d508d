"""Oracle: the active-discarding statistics (ALC and entropy) by other routes [AG13, §4].

- **ALC** [DT-SPEC §7.1]-[DT-SPEC §7.4]: for a leaf holding the data, adding a point ``x`` reduces
  the posterior variance of the mean at ``x'`` by ``σ² (v(x') - v_+(x'))`` with
  ``v(x') = z'(Z'Z)^-1 z'`` before and ``v_+`` after appending ``z(x)`` to the design
  (matrix inverses with numpy, no rank-one algebra); ALC is that reduction, with ``σ²``
  at its posterior mean ``Q/(df - 2)``, integrated over the rectangle. The integral is
  taken by tensor Gauss-Legendre quadrature (exact for this polynomial) and by Monte Carlo
  over uniform points; ``alc`` divides it by the rectangle's area.
- **Entropy** [DT-SPEC §7.5]: each active point's value is the particle average of the
  entropy of the class predictive of the leaf holding it; the leaves and their counts are
  read from ``snapshot()``, the predictive is ``(c_k + 1/C)/(n + 1)``, and the entropy is
  computed with ``scipy.stats.entropy`` and as a Monte Carlo average of ``-log p(Y)`` over
  draws ``Y`` from the predictive.
"""

from __future__ import annotations

import math
from types import ModuleType

import numpy as np
import pytest

scipy_stats = pytest.importorskip("scipy.stats")

BOX = [(0.0, 1.0), (-0.5, 1.5)]


def _leaf_data(seed: int, n: int = 12) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.uniform(*BOX[0], size=n), rng.uniform(*BOX[1], size=n)])
    y = 0.3 + 1.2 * X[:, 0] - 0.8 * X[:, 1] + 0.25 * rng.normal(size=n)
    return X, y


def _variance_reduction(Z: np.ndarray, z: np.ndarray, points: np.ndarray) -> np.ndarray:
    """v(x') - v_+(x') at each row of ``points`` (already in regressor form)."""
    before = np.linalg.inv(Z.T @ Z)
    after = np.linalg.inv(Z.T @ Z + np.outer(z, z))
    return (np.einsum("ij,jk,ik->i", points, before, points)
            - np.einsum("ij,jk,ik->i", points, after, points))


def _regressors(rows: np.ndarray, leaf: str) -> np.ndarray:
    ones = np.ones((len(rows), 1))
    return ones if leaf == "constant" else np.column_stack([ones, rows])


def _posterior_sigma2(Z: np.ndarray, y: np.ndarray) -> float:
    """E[σ²] = Q/(df - 2) under the 1/σ² prior: Q the RSS, df = n - k."""
    beta = np.linalg.lstsq(Z, y, rcond=None)[0]
    q = float(((y - Z @ beta) ** 2).sum())
    return q / (len(y) - Z.shape[1] - 2.0)


def _model(backend: ModuleType, leaf: str, X: np.ndarray, y: np.ndarray) -> object:
    model = backend.DynamicTreeRegressor(leaf=leaf, n_particles=1, nstart=10_000)
    model.partial_fit(X, y)  # type: ignore[attr-defined]
    return model


@pytest.mark.parametrize("leaf", ["constant", "linear"])
def test_alc_is_the_integrated_variance_reduction_by_quadrature(backend: ModuleType,
                                                                leaf: str) -> None:
    X, y = _leaf_data(1)
    Z = _regressors(X, leaf)
    candidates = np.array([[0.2, 0.1], [0.9, 1.3], [0.5, -0.4]])
    alc = _model(backend, leaf, X, y).alc(candidates, rect=BOX)  # type: ignore[attr-defined]
    nodes, weights = np.polynomial.legendre.leggauss(4)
    (a0, b0), (a1, b1) = BOX
    g0, g1 = (a0 + b0) / 2 + (b0 - a0) / 2 * nodes, (a1 + b1) / 2 + (b1 - a1) / 2 * nodes
    grid = np.array([[u, v] for u in g0 for v in g1])
    w = np.array([p * q for p in weights for q in weights]) / 4.0   # mean over the box
    for k, x in enumerate(candidates):
        z = _regressors(x[None, :], leaf)[0]
        mean_reduction = float(w @ _variance_reduction(Z, z, _regressors(grid, leaf)))
        assert alc[k] == pytest.approx(_posterior_sigma2(Z, y) * mean_reduction, rel=1e-9)


def test_alc_matches_a_monte_carlo_integral(backend: ModuleType) -> None:
    X, y = _leaf_data(2)
    Z = _regressors(X, "linear")
    rng = np.random.default_rng(4)
    draws = np.column_stack([rng.uniform(*BOX[0], size=200_000),
                             rng.uniform(*BOX[1], size=200_000)])
    x = np.array([0.7, 0.2])
    reduction = _variance_reduction(Z, _regressors(x[None, :], "linear")[0],
                                    _regressors(draws, "linear"))
    mc = _posterior_sigma2(Z, y) * float(reduction.mean())
    se = _posterior_sigma2(Z, y) * float(reduction.std()) / math.sqrt(len(reduction))
    alc = _model(backend, "linear", X, y).alc(x[None, :], rect=BOX)  # type: ignore[attr-defined]
    assert abs(float(alc[0]) - mc) < 4.0 * se


def _class_cloud(backend: ModuleType) -> tuple[object, np.ndarray]:
    rng = np.random.default_rng(5)
    X = rng.uniform(size=(150, 2))
    labels = (X[:, 0] > 0.4).astype(int) + (X[:, 1] > 0.7).astype(int)
    noisy = np.where(rng.uniform(size=150) < 0.15, rng.integers(0, 3, size=150), labels)
    model = backend.DynamicTreeClassifier(classes=[0, 1, 2], n_particles=25, seed=2)
    model.partial_fit(X, noisy)
    return model, noisy


def _leaf_predictives(model: object) -> list[list[tuple[list[int], np.ndarray]]]:
    """Per particle, per leaf: (points, class predictive (c_k + 1/C)/(n + 1))."""
    out = []
    for tree in model.snapshot()["particles"]:  # type: ignore[attr-defined]
        leaves = []
        for rec in tree:
            if rec[1] == -1:
                counts = np.array(rec[3][1:4], dtype=float)
                leaves.append((list(rec[2]), (counts + 1.0 / 3.0) / (counts.sum() + 1.0)))
        out.append(leaves)
    return out


def test_entropy_active_is_the_particle_average_of_leaf_entropies(backend: ModuleType) -> None:
    model, _ = _class_cloud(backend)
    particles = _leaf_predictives(model)
    assert max(len(p) for p in particles) > 1, "the trees must have grown"
    expected = np.zeros(150)
    for leaves in particles:
        for points, probs in leaves:
            expected[points] += scipy_stats.entropy(probs)
    expected /= len(particles)
    got = model.entropy_active()  # type: ignore[attr-defined]
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)


def test_leaf_entropy_matches_monte_carlo(backend: ModuleType) -> None:
    model, _ = _class_cloud(backend)
    particles = _leaf_predictives(model)
    rng = np.random.default_rng(6)
    got = model.entropy_active()  # type: ignore[attr-defined]
    point = 17
    estimates = []
    for leaves in particles:
        probs = next(p for pts, p in leaves if point in pts)
        draws = rng.choice(3, size=20_000, p=probs)
        estimates.append(float(-np.log(probs[draws]).mean()))
    assert got[point] == pytest.approx(float(np.mean(estimates)), abs=0.01)

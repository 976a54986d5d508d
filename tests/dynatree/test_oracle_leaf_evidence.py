"""Oracle: dynamic-tree leaf evidences and predictives, computed by other routes.

A model with one particle and ``nstart`` larger than the stream keeps every point in its
root leaf, so the leaf's log evidence (``snapshot()``) and the model's predictive are
those of one leaf holding the stream. They are checked against:

- **class leaves** [AG13, Eq. 1; DT-SPEC §3.3]: the Pólya-urn product of sequential
  predictive probabilities ``Π (c_k + 1/C) / (i + 1)`` (the marginal probability of the
  label sequence under a Dirichlet(1/C, ..., 1/C) prior, written here from its
  definition), and a Monte Carlo average of ``Π θ_k^{c_k}`` over Dirichlet draws; the
  predictive probabilities against ``(c_k + 1/C) / (n + 1)``;
- **constant leaves** [DT-SPEC §3.1]: the ratio of evidences with and without a new
  target is the Student-t predictive density (scipy) times dynaTree's constant π (each
  point contributes ``-1/2 log(2/π)`` instead of the textbook ``-1/2 log(2π)``), for
  every stream length and target, and integrates (quadrature) to π.

Both backends are checked, so a formula changed in both at once fails here.
"""

from __future__ import annotations

import math
from types import ModuleType

import numpy as np
import pytest

scipy_stats = pytest.importorskip("scipy.stats")
scipy_integrate = pytest.importorskip("scipy.integrate")


def _root_leaf(model: object) -> list[object]:
    particles = model.snapshot()["particles"]  # type: ignore[attr-defined]
    assert len(particles) == 1 and len(particles[0]) == 1, "one particle, one leaf"
    return particles[0][0]


def _class_model(backend: ModuleType, labels: list[int], n_classes: int) -> object:
    model = backend.DynamicTreeClassifier(classes=list(range(n_classes)), n_particles=1,
                                          nstart=10_000)
    for i, label in enumerate(labels):
        model.learn_one([0.1 * i], label)
    return model


STREAMS = [([0, 0, 1], 2), ([2, 0, 2, 2, 1], 3), ([1, 1, 1, 1], 4), ([0], 2)]


@pytest.mark.parametrize(("labels", "n_classes"), STREAMS)
def test_class_leaf_evidence_is_the_polya_urn_probability(backend: ModuleType,
                                                          labels: list[int],
                                                          n_classes: int) -> None:
    counts = [0] * n_classes
    log_p = 0.0
    for i, label in enumerate(labels):     # sequential predictive of the Dirichlet prior
        log_p += math.log((counts[label] + 1.0 / n_classes) / (i + 1.0))
        counts[label] += 1
    ell = _root_leaf(_class_model(backend, labels, n_classes))[4]
    assert ell == pytest.approx(log_p, rel=1e-12, abs=1e-12)


def test_class_leaf_evidence_matches_monte_carlo_over_the_prior(backend: ModuleType) -> None:
    labels, n_classes = [2, 0, 2, 1], 3
    theta = np.random.default_rng(5).dirichlet([1.0 / n_classes] * n_classes, size=400_000)
    probability = np.prod(theta[:, labels], axis=1).mean()
    ell = _root_leaf(_class_model(backend, labels, n_classes))[4]
    assert math.exp(ell) == pytest.approx(probability, rel=0.05)


@pytest.mark.parametrize(("labels", "n_classes"), STREAMS)
def test_class_predictive_is_the_dirichlet_posterior_mean(backend: ModuleType,
                                                          labels: list[int],
                                                          n_classes: int) -> None:
    model = _class_model(backend, labels, n_classes)
    probs = model.predict_proba_one([0.0])   # type: ignore[attr-defined]
    n = len(labels)
    for k in range(n_classes):
        assert probs[k] == pytest.approx((labels.count(k) + 1.0 / n_classes) / (n + 1.0),
                                         rel=1e-12)


def _constant_model(backend: ModuleType, ys: list[float]) -> object:
    model = backend.DynamicTreeRegressor(n_particles=1, nstart=10_000)
    for i, y in enumerate(ys):
        model.learn_one([0.1 * i], y)
    return model


YS = [0.3, -1.1, 2.4, 0.8, 1.9, -0.4, 0.1]


def _predictive_t(model: object) -> tuple[float, float, float]:
    """(df, loc, scale) of the model's Student-t predictive, from predict_dist."""
    dist = model.predict_dist(np.array([[0.0]]))  # type: ignore[attr-defined]
    df, loc, q95 = float(dist["df"][0]), float(dist["mean"][0]), float(dist["q95"][0])
    scale = (q95 - loc) / scipy_stats.t.ppf(0.95, df)
    return df, loc, scale


@pytest.mark.parametrize("n", [3, 4, 6])
@pytest.mark.parametrize("y_new", [-2.0, 0.35, 1.7])
def test_constant_leaf_evidence_ratio_is_pi_times_the_t_predictive(backend: ModuleType,
                                                                   n: int,
                                                                   y_new: float) -> None:
    before = _constant_model(backend, YS[:n])
    after = _constant_model(backend, YS[:n] + [y_new])
    ratio = math.exp(_root_leaf(after)[4] - _root_leaf(before)[4])
    df, loc, scale = _predictive_t(before)
    density = scipy_stats.t.pdf(y_new, df, loc=loc, scale=scale)
    assert ratio == pytest.approx(math.pi * density, rel=1e-9)


def test_constant_leaf_evidence_ratio_integrates_to_pi(backend: ModuleType) -> None:
    base = YS[:4]
    ell = _root_leaf(_constant_model(backend, base))[4]

    def ratio(y: float) -> float:
        return math.exp(_root_leaf(_constant_model(backend, base + [y]))[4] - ell)

    total, _ = scipy_integrate.quad(ratio, -math.inf, math.inf, limit=200, epsabs=1e-10)
    assert total == pytest.approx(math.pi, rel=1e-5)

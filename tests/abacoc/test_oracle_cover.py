"""Oracle: ABACOC's distances, nearest-ball search, budget rule and BASE schedule.

Routes that share no code with the model [DOC15]:

- **distances**: the metric ``ρ`` (Euclidean, Manhattan, Minkowski ``p``) of the Python
  and C kernels against ``scipy.spatial.distance.minkowski``;
- **nearest ball**: with hundreds of balls the search runs on a k-d tree; every query's
  class distribution must be that of the nearest centre found by brute force with numpy
  over the centres read from ``snapshot()`` (label frequencies of that ball, [DOC15, Alg. 1
  OutputPrediction]);
- **budget rule** [DOC15, Eq. 1]: over many draws a ball is deleted with frequency
  ``(m_i + 1)/(Σ_j m_j + |S|)``;
- **BASE schedule** [DOC15, Alg. 2]: after every step the shared radius is
  ``ε = t^(-1/(2 + d_i))`` with ``t`` the steps of the current phase, and whenever a phase
  ends (the cover would exceed ``C 2^(d_i) ε^(-d_i)`` balls) the new estimate is
  ``d_(i+1) = log((|S| + 1)/C) / log(2/ε)``, written from the algorithm box.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from types import ModuleType
from types import SimpleNamespace as NS

import numpy as np
import pytest

from reference.abacoc import search
from reference.abacoc.variants import fix_victim
from reference.rng import Rng

scipy_distance = pytest.importorskip("scipy.spatial.distance")

METRICS = [("euclidean", 0, 2.0), ("manhattan", 1, 1.0), ("minkowski", 2, 3.0),
           ("minkowski", 2, 1.5)]


def _distance(kind: str) -> Callable[[list[float], list[float], int, float], float]:
    if kind == "python":
        return lambda x, c, metric, p: search.rho(search.raw_distance(x, c, metric, p), metric, p)
    from fast._ffi import ffi, lib

    def dist(x: list[float], c: list[float], metric: int, p: float) -> float:
        raw = lib.ab_raw_distance(ffi.new("double[]", x), ffi.new("double[]", c), len(x),
                                  metric, p)
        return float(lib.ab_rho(raw, metric, p))

    return dist


@pytest.fixture(params=["python", "c"])
def kernels(request: pytest.FixtureRequest) -> str:
    if request.param == "c":
        request.getfixturevalue("lib")
    return str(request.param)


@pytest.mark.parametrize(("name", "code", "p"), METRICS)
def test_distance_is_the_minkowski_distance(kernels: str, name: str, code: int,
                                            p: float) -> None:
    dist = _distance(kernels)
    rng = np.random.default_rng(1)
    for _ in range(50):
        x, c = rng.normal(size=4).tolist(), rng.normal(size=4).tolist()
        assert dist(x, c, code, p) == pytest.approx(scipy_distance.minkowski(x, c, p), rel=1e-12)


@pytest.mark.parametrize(("name", "p"), [("euclidean", 2.0), ("manhattan", 1.0),
                                         ("minkowski", 3.0)])
def test_nearest_ball_is_the_brute_force_nearest_centre(backend: ModuleType, name: str,
                                                        p: float) -> None:
    rng = np.random.default_rng(2)
    X = rng.uniform(size=(3000, 3))
    y = ((X[:, 0] - 0.5) ** 2 + (X[:, 1] - 0.5) ** 2 < 0.1).astype(int) + (X[:, 2] > 0.7)
    model = backend.ABACOCClassifier(variant="auto", metric=name, p=p, search="kdtree")
    model.partial_fit(X, y)
    balls = model.snapshot()["balls"]
    assert len(balls) > 100, "the search structure must have something to prune"
    centres = np.array([b["center"] for b in balls])
    for q in rng.uniform(-0.1, 1.1, size=(300, 3)):
        nearest = balls[int(np.argmin([scipy_distance.minkowski(q, c, p) for c in centres]))]
        counts = np.array(nearest["counts"], dtype=float)
        proba = model.predict_proba_one(q.tolist())
        labels = list(model.classes_)[:len(counts)]     # counts are in label-index order
        np.testing.assert_allclose([proba[k] for k in labels], counts / counts.sum(), rtol=0,
                                   atol=0)


def test_budget_rule_deletes_in_proportion_to_mistakes_plus_one() -> None:
    mistakes = [0, 3, 1, 7, 0, 2]
    state = NS(balls=[NS(m=m) for m in mistakes], rng=Rng(4))
    draws = 30_000
    hits = np.bincount([fix_victim(state) for _ in range(draws)],  # type: ignore[arg-type]
                       minlength=len(mistakes))
    expected = (np.array(mistakes) + 1.0) / (sum(mistakes) + len(mistakes))
    se = np.sqrt(expected * (1.0 - expected) / draws)
    assert np.all(np.abs(hits / draws - expected) < 4.5 * se), (hits / draws, expected)


def test_budget_rule_of_the_fast_model_deletes_in_proportion_to_mistakes_plus_one() -> None:
    """The same law through the C model: with the budget full, the mistakes ``m_v`` of each
    deleted ball, summed over the run, against their expectation under [DOC15, Eq. 1]
    (within 4 standard errors of the sum)."""
    import fast

    rng = np.random.default_rng(5)
    X = rng.uniform(size=(8000, 2))
    y = (X[:, 0] + 0.4 * rng.normal(size=8000) > 0.5).astype(int)
    model = fast.ABACOCClassifier(variant="auto_adj", budget=25)
    observed = expected = variance = 0.0
    events = 0
    for x, label in zip(X.tolist(), y.tolist(), strict=True):
        before = {b["id"]: b["m"] for b in model.snapshot()["balls"]}
        model.learn_one(x, label)
        gone = set(before) - {b["id"] for b in model.snapshot()["balls"]}
        if len(before) == 25 and gone:
            (victim,) = gone
            m = np.array(list(before.values()), dtype=float)
            prob = (m + 1.0) / (m.sum() + len(m))
            observed += before[victim]
            expected += float(prob @ m)
            variance += float(prob @ m**2) - float(prob @ m) ** 2
            events += 1
    assert events > 500
    assert abs(observed - expected) < 4.0 * math.sqrt(variance), (observed, expected)


def test_base_radius_and_dimension_follow_algorithm_2(backend: ModuleType) -> None:
    rng = np.random.default_rng(6)
    X = rng.uniform(size=(400, 2))
    y = (X[:, 0] > X[:, 1]).astype(int)
    C = 0.5
    model = backend.ABACOCClassifier(variant="base_adj", C=C, mode="majority")
    phases = 0
    prev = model.snapshot()
    for x, label in zip(X.tolist(), y.tolist(), strict=True):
        model.learn_one(x, label)
        snap = model.snapshot()
        if snap["phase"] != prev.get("phase", snap["phase"]) and prev.get("balls") is not None:
            phases += 1
            size = len(prev["balls"]) + 1
            eps, dim = prev["radius"], prev["phase_dim"]
            assert size > C * 2.0 ** dim * eps ** (-dim)
            assert snap["phase_dim"] == pytest.approx(math.log(size / C) / math.log(2.0 / eps),
                                                      rel=1e-12)
        assert snap["radius"] == pytest.approx(
            snap["phase_steps"] ** (-1.0 / (2.0 + snap["phase_dim"])), rel=1e-12)
        prev = snap
    assert phases >= 2, "the stream must cross phase boundaries"

"""Point predictions of the dynamic trees, computed without the full predictive summary.

``predict`` and ``predict_one`` of the regressor compute the predictive mean alone
(``regression_mean`` / ``dt_regression_mean``), without the per-particle Student-t
quantiles of the full summary; these tests check, in both backends, that the mean is the
summary's ``mean`` bit for bit (``predict_dist``, which still goes through the summaries),
for every leaf model, including particles whose leaves are still improper. The
classifier's ``predict_one`` (one C call in fast) must be the first class of largest
probability."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

import reference
from conftest import require_fast

LEAVES = [dict(leaf="constant"), dict(leaf="linear"),
          dict(leaf="linear", intercept="augmented")]


def _data(seed: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, 2))
    return X, np.sin(3.0 * X[:, 0]) + 0.1 * rng.standard_normal(n)


def _fitted_regressors(pkgs: tuple[ModuleType, ...], data_seed: int, n: int,
                       n_particles: int, leaf: int) -> list[Any]:
    """One regressor per package, each fitted to the same ``_data(data_seed, n)``."""
    X, y = _data(data_seed, n)
    models = [pkg.DynamicTreeRegressor(n_particles=n_particles, seed=leaf, **LEAVES[leaf])
              for pkg in pkgs]
    for model in models:
        model.partial_fit(X, y)
    return models


@pytest.mark.parametrize("backend", ["reference", "fast"])
@pytest.mark.parametrize("leaf", range(len(LEAVES)))
@pytest.mark.parametrize("n_rows", [2, 60])
def test_mean_is_the_summary_mean_bit_for_bit(backend: str, leaf: int, n_rows: int) -> None:
    pkg: ModuleType = reference if backend == "reference" else require_fast()
    X, y = _data(leaf + n_rows, n_rows)
    model = pkg.DynamicTreeRegressor(n_particles=25, seed=leaf, **LEAVES[leaf])
    model.partial_fit(X, y)
    grid = np.random.default_rng(5).uniform(-1.2, 1.2, size=(15, 2))
    summary = model.predict_dist(grid)["mean"]
    assert model.predict(grid).tolist() == summary.tolist()
    assert [model.predict_one(row) for row in grid.tolist()] == summary.tolist()
    assert [model.predict_one(row) for row in grid] == summary.tolist()     # numpy rows


def test_mean_of_an_unfitted_model_is_zero() -> None:
    for pkg in (reference, require_fast()):
        model = pkg.DynamicTreeRegressor(n_particles=5)
        assert model.predict([[0.1, 0.2], [0.3, 0.4]]).tolist() == [0.0, 0.0]
        assert model.predict_one([0.1, 0.2]) == 0.0


@pytest.mark.parametrize("backend", ["reference", "fast"])
def test_classifier_predict_one_is_the_first_most_probable_class(backend: str) -> None:
    """``predict_one`` (one C call, ``dt_model_label_row``, in fast) is the first class of
    largest ``predict_proba_one`` probability, ties included: after one row of class "b"
    and one of class "c" at the same point, "b" and "c" tie there."""
    pkg: ModuleType = reference if backend == "reference" else require_fast()
    model = pkg.DynamicTreeClassifier(classes=["a", "b", "c"], n_particles=10, seed=3)
    model.learn_one([0.5, 0.5], "b")
    model.learn_one([0.5, 0.5], "c")
    probs = model.predict_proba_one([0.5, 0.5])
    assert probs["b"] == probs["c"] > probs["a"]
    assert model.predict_one([0.5, 0.5]) == "b"
    X, y = _data(1, 80)
    labels = np.array(["a", "b", "c"])[np.digitize(y, [-0.4, 0.4])]
    model.partial_fit(X, labels)
    for row in np.random.default_rng(2).uniform(-1, 1, size=(20, 2)).tolist():
        p = model.predict_proba_one(row)
        best = max(p.values())
        assert model.predict_one(row) == next(k for k, v in p.items() if v == best)


@pytest.mark.parametrize("leaf", range(len(LEAVES)))
def test_predictive_summary_is_the_same_when_its_quantiles_are_cached(leaf: int) -> None:
    """fast caches the Student-t quantile of each integer df (``student_t05``): its
    ``predict_dist`` must equal the reference's bit for bit, on the first call and on a
    second one, which reads the cache."""
    models = _fitted_regressors((reference, require_fast()), 10 + leaf, 80, 20, leaf)
    grid = np.random.default_rng(6).uniform(-1.2, 1.2, size=(12, 2))
    expected = models[0].predict_dist(grid)
    for _ in range(2):
        got = models[1].predict_dist(grid)
        for name, values in expected.items():
            assert got[name].tolist() == values.tolist(), name


@pytest.mark.parametrize("backend", ["reference", "fast"])
@pytest.mark.parametrize("leaf", range(len(LEAVES)))
def test_batch_summaries_are_the_one_row_summaries(backend: str, leaf: int) -> None:
    """``predict_dist`` of a batch (one engine call, ``dt_model_summaries`` in fast) gives
    each row exactly what a batch of that row alone gives, and the same in both backends;
    an empty batch gives empty columns."""
    pkg: ModuleType = reference if backend == "reference" else require_fast()
    models = _fitted_regressors((pkg, reference), 20 + leaf, 50, 15, leaf)
    grid = np.random.default_rng(7).uniform(-1.2, 1.2, size=(9, 2))
    batch = models[0].predict_dist(grid)
    for r, row in enumerate(grid):
        alone = models[0].predict_dist(row[None, :])
        assert {k: v[r] for k, v in batch.items()} == {k: v[0] for k, v in alone.items()}
    expected = models[1].predict_dist(grid)
    assert {k: v.tolist() for k, v in batch.items()} == {k: v.tolist()
                                                         for k, v in expected.items()}
    empty = models[0].predict_dist(np.empty((0, 2)))
    assert sorted(empty) == ["df", "mean", "q05", "q95", "var"]
    assert all(v.shape == (0,) for v in empty.values())


@pytest.mark.parametrize("backend", ["reference", "fast"])
def test_batch_class_probabilities_are_the_one_row_probabilities(backend: str) -> None:
    """``predict_proba`` and ``predict_entropy`` of a batch (one engine call,
    ``dt_model_classes`` in fast) equal ``predict_proba_one`` row by row and the
    reference's batch, bit for bit; before any data they are uniform, entropy log C."""
    pkg: ModuleType = reference if backend == "reference" else require_fast()
    models = [p.DynamicTreeClassifier(classes=["a", "b", "c"], n_particles=12, seed=4)
              for p in (pkg, reference)]
    grid = np.random.default_rng(8).uniform(-1, 1, size=(7, 2))
    assert models[0].predict_proba(grid).tolist() == [[1 / 3] * 3] * 7
    assert models[0].predict_entropy(grid).tolist() == [float(np.log(3.0))] * 7
    X, y = _data(3, 70)
    labels = np.array(["a", "b", "c"])[np.digitize(y, [-0.4, 0.4])]
    for model in models:
        model.partial_fit(X, labels)
    proba = models[0].predict_proba(grid)
    assert proba.shape == (7, 3)
    for r, row in enumerate(grid.tolist()):
        one = models[0].predict_proba_one(row)
        assert proba[r].tolist() == [one[c] for c in models[0].classes_]
    assert proba.tolist() == models[1].predict_proba(grid).tolist()
    assert models[0].predict_entropy(grid).tolist() == models[1].predict_entropy(grid).tolist()
    assert models[0].predict_proba(np.empty((0, 2))).shape == (0, 3)

"""Lockstep: reference and fast dynamic trees agree exactly, step by step ([DET-SPEC §3]).

At every step both backends predict (compared exactly), learn, and every few steps their
snapshots (trees in preorder, leaf statistics, store, generator state) are compared.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from _dynatree_helpers import class_stream, regression_stream

from _compare import assert_snapshot_equal, run_lockstep
from _run_size import sized

REG_CASES: list[dict[str, Any]] = [
    {"leaf": "constant"},
    {"leaf": "constant", "min_leaf": 2, "alpha": 0.99, "beta": 1.0},
    {"leaf": "constant", "nu0": 3.0, "s20": 0.05, "nstart": 10},
    {"leaf": "linear"},
    {"leaf": "linear", "intercept": "augmented"},
    {"leaf": "linear", "intercept": "none"},
    {"leaf": "linear", "min_leaf": 4, "alpha": 0.99, "beta": 1.0},
]


def _pair(both: tuple[ModuleType, ModuleType], cls: str, **kw: Any) -> tuple[Any, Any]:
    ref, fast = both
    return getattr(ref, cls)(**kw), getattr(fast, cls)(**kw)


# the seed picks the width (1 + seed % 3) and tied inputs (seed % 3 == 2), the classifier's
# min_leaf (1 + seed % 3): the quick run's three seeds cover each once
@pytest.mark.parametrize("case", range(len(REG_CASES)))
@pytest.mark.parametrize("seed", sized(quick=range(3), full=range(6)))
def test_regression_lockstep(both: tuple[ModuleType, ModuleType], case: int, seed: int) -> None:
    opts = REG_CASES[case]
    d = 1 + (seed % 3)
    a, b = _pair(both, "DynamicTreeRegressor", n_particles=10, seed=seed, **opts)
    stream = regression_stream(seed, 100, d=d, ties=seed % 3 == 2)
    run_lockstep(a, b, stream, predict=("predict_one",), snapshot_every=5)
    assert a.tree_stats()["mean_leaves"] > 1.0
    xs = [x for x, _ in stream[:7]]
    assert_snapshot_equal(a.predict_dist(xs), b.predict_dist(xs))
    assert a.lpred_ == b.lpred_
    assert a.log_marginal_likelihood_ == b.log_marginal_likelihood_


@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("seed", sized(quick=range(3), full=range(8)))
def test_classifier_lockstep(both: tuple[ModuleType, ModuleType], n_classes: int,
                             seed: int) -> None:
    labels = tuple(range(n_classes))
    a, b = _pair(both, "DynamicTreeClassifier", classes=list(labels), n_particles=12,
                 seed=seed, min_leaf=1 + seed % 3)
    stream = class_stream(seed, 100, d=2, n_classes=n_classes, labels=labels)
    run_lockstep(a, b, stream, predict=("predict_proba_one",), snapshot_every=5)
    xs = [x for x, _ in stream[:7]]
    assert_snapshot_equal(a.predict_entropy(xs), b.predict_entropy(xs))
    assert a.lpred_ == b.lpred_


@pytest.mark.parametrize("seed", range(3))
def test_partial_fit_loop_in_c_matches_reference(both: tuple[ModuleType, ModuleType],
                                                 seed: int) -> None:
    """The C partial_fit loop gives the same state as the reference loop."""
    a, b = _pair(both, "DynamicTreeRegressor", leaf="linear", n_particles=15, seed=seed)
    stream = regression_stream(seed, 150, d=2)
    X = [x for x, _ in stream]
    y = [v for _, v in stream]
    a.partial_fit(X, y)
    b.partial_fit(X, y)
    assert_snapshot_equal(a.snapshot(), b.snapshot())
    assert a.lpred_ == b.lpred_


@pytest.mark.slow
@pytest.mark.parametrize("case", range(len(REG_CASES)))
@pytest.mark.parametrize("seed", range(10, 30))
def test_regression_lockstep_long(both: tuple[ModuleType, ModuleType], case: int,
                                  seed: int) -> None:
    a, b = _pair(both, "DynamicTreeRegressor", n_particles=40, seed=seed, **REG_CASES[case])
    run_lockstep(a, b, regression_stream(seed, 500, d=1 + seed % 4), snapshot_every=25)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(10, 30))
def test_classifier_lockstep_long(both: tuple[ModuleType, ModuleType], seed: int) -> None:
    a, b = _pair(both, "DynamicTreeClassifier", classes=[0, 1, 2], n_particles=40, seed=seed)
    run_lockstep(a, b, class_stream(seed, 500, d=3), predict=("predict_proba_one",),
                 snapshot_every=25)

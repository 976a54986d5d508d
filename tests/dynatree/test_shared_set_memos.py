"""Many particles sharing their leaves: fast agrees with the reference exactly.

After resampling, most of a large particle cloud are duplicates that share their leaves'
point sets, and ``fast`` computes what depends on a set alone once per set and row (the
particle weight, the grow candidate's column extremes, the grow children's evidences, the
evidence of a two-leaf prune) and hands the same doubles to every particle holding it. These
runs use enough particles for the sharing to be heavy (the lockstep suite uses few), with
ties in the inputs (one threshold, many equal values), retirement with forgetting (sets
change inside a row before they are scored) and class leaves with two and three classes.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from _dynatree_helpers import class_stream, regression_stream

from _compare import assert_snapshot_equal, run_lockstep

REGRESSION: list[dict[str, Any]] = [
    {"leaf": "constant"},
    {"leaf": "linear", "intercept": "augmented", "min_leaf": 4},
    {"leaf": "linear", "intercept": "none", "min_leaf": 4},
    {"leaf": "constant", "active_size": 25, "retirement": "random", "lam": 0.9},
    {"leaf": "linear", "intercept": "augmented", "min_leaf": 4, "active_size": 25,
     "retirement": "alc", "lam": 0.9},
]


@pytest.mark.parametrize("case", range(len(REGRESSION)))
def test_shared_leaves_regression_lockstep(both: tuple[ModuleType, ModuleType],
                                           case: int) -> None:
    ref, fast = both
    kw = dict(n_particles=120, seed=case, **REGRESSION[case])
    a, b = ref.DynamicTreeRegressor(**kw), fast.DynamicTreeRegressor(**kw)
    stream = regression_stream(case, 50, d=2, ties=case % 2 == 0)
    run_lockstep(a, b, stream, predict=("predict_one",), snapshot_every=25)
    assert a.lpred_ == b.lpred_
    xs = [x for x, _ in stream[:4]]
    assert_snapshot_equal(a.predict_dist(xs), b.predict_dist(xs))


@pytest.mark.parametrize("n_classes", [2, 3])
def test_shared_leaves_classifier_lockstep(both: tuple[ModuleType, ModuleType],
                                           n_classes: int) -> None:
    ref, fast = both
    labels = tuple(range(n_classes))
    kw = dict(classes=list(labels), n_particles=120, seed=n_classes, min_leaf=2)
    a, b = ref.DynamicTreeClassifier(**kw), fast.DynamicTreeClassifier(**kw)
    stream = class_stream(n_classes, 60, n_classes=n_classes, labels=labels)
    run_lockstep(a, b, stream, predict=("predict_proba_one",), snapshot_every=30)
    assert a.lpred_ == b.lpred_

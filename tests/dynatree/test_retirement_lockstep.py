"""Lockstep with retirement: reference and fast agree exactly ([DET-SPEC §3]).

Every automatic retirement rule x leaf model x lam in {1, 0.9}, several seeds; manual
``retire`` calls between learning steps; pickling of a model with an active pool.
"""

from __future__ import annotations

import copy
import pickle
from types import ModuleType
from typing import Any

import pytest
from _dynatree_helpers import class_stream, regression_stream

from _compare import assert_snapshot_equal, run_lockstep

REG_LEAVES: list[dict[str, Any]] = [
    {"leaf": "constant"},
    {"leaf": "linear", "intercept": "augmented", "min_leaf": 4},
    {"leaf": "linear", "intercept": "none", "min_leaf": 4},
]
REG_RULES = ["random", "historical", "alc"]
CLASS_RULES = ["random", "historical", "entropy"]


def _pair(both: tuple[ModuleType, ModuleType], cls: str, **kw: Any) -> tuple[Any, Any]:
    ref, fast = both
    return getattr(ref, cls)(**kw), getattr(fast, cls)(**kw)


@pytest.mark.parametrize("lam", [1.0, 0.9])
@pytest.mark.parametrize("rule", REG_RULES)
@pytest.mark.parametrize("case", range(len(REG_LEAVES)))
@pytest.mark.parametrize("seed", range(3))
def test_regression_retirement_lockstep(both: tuple[ModuleType, ModuleType], lam: float,
                                        rule: str, case: int, seed: int) -> None:
    a, b = _pair(both, "DynamicTreeRegressor", n_particles=8, seed=seed, active_size=20,
                 retirement=rule, lam=lam, **REG_LEAVES[case])
    stream = regression_stream(seed, 60, d=1 + seed % 2)
    run_lockstep(a, b, stream, predict=("predict_one",), snapshot_every=12)
    assert len(a.active_y_) == 20
    assert_snapshot_equal(a.tree_stats(), b.tree_stats())
    assert a.tree_stats()["mean_retired"] > 0.0
    xs = [x for x, _ in stream[:5]]
    assert_snapshot_equal(a.predict_dist(xs), b.predict_dist(xs))
    assert a.lpred_ == b.lpred_


@pytest.mark.parametrize("lam", [1.0, 0.9])
@pytest.mark.parametrize("rule", CLASS_RULES)
@pytest.mark.parametrize("seed", range(4))
def test_classifier_retirement_lockstep(both: tuple[ModuleType, ModuleType], lam: float,
                                        rule: str, seed: int) -> None:
    a, b = _pair(both, "DynamicTreeClassifier", classes=["a", "b", "c"], n_particles=8,
                 seed=seed, active_size=15, retirement=rule, lam=lam, min_leaf=1 + seed % 2)
    stream = class_stream(seed, 70, labels=("a", "b", "c"))
    run_lockstep(a, b, stream, predict=("predict_proba_one",), snapshot_every=10)
    assert list(a.active_y_) == list(b.active_y_)
    assert_snapshot_equal(list(a.entropy_active()), list(b.entropy_active()))


@pytest.mark.parametrize("lam", [1.0, 0.3])
@pytest.mark.parametrize("case", range(len(REG_LEAVES)))
@pytest.mark.parametrize("seed", range(3))
def test_manual_retire_lockstep(both: tuple[ModuleType, ModuleType], lam: float, case: int,
                                seed: int) -> None:
    a, b = _pair(both, "DynamicTreeRegressor", n_particles=8, seed=seed, **REG_LEAVES[case])
    stream = regression_stream(seed, 90)
    for t, (x, y) in enumerate(stream):
        a.learn_one(x, y)
        b.learn_one(x, y)
        if t % 10 == 9:
            n = len(a.active_y_)
            idx = [(7 * t + 3 * k) % n for k in range(4)]
            a.retire(idx, lam=lam)
            b.retire(idx, lam=lam)
            assert_snapshot_equal(a.snapshot(), b.snapshot(), step=t)
    assert len(a.active_y_) < 90
    assert_snapshot_equal(a.tree_stats(), b.tree_stats())


@pytest.mark.parametrize("w", [1, 3])
@pytest.mark.parametrize("lam", [1.0, 0.05])
def test_tiny_pools_and_strong_forgetting_lockstep(both: tuple[ModuleType, ModuleType],
                                                   w: int, lam: float) -> None:
    """Pools smaller than ``nstart``/``min_leaf``, collapses at and next to the root."""
    a, b = _pair(both, "DynamicTreeRegressor", n_particles=6, seed=w, active_size=w,
                 lam=lam, retirement="alc")
    run_lockstep(a, b, regression_stream(w, 40), snapshot_every=1)
    a, b = _pair(both, "DynamicTreeClassifier", classes=[0, 1, 2], n_particles=6, seed=w,
                 active_size=w, lam=lam, retirement="entropy")
    run_lockstep(a, b, class_stream(w, 40), predict=("predict_proba_one",),
                 snapshot_every=1)
    assert len(b.active_y_) == w


@pytest.mark.parametrize("seed", range(2))
def test_pickle_and_deepcopy_keep_the_active_pool(both: tuple[ModuleType, ModuleType],
                                                  seed: int) -> None:
    a, b = _pair(both, "DynamicTreeRegressor", n_particles=6, seed=seed, active_size=15,
                 retirement="historical", lam=0.9)
    stream = regression_stream(seed, 60)
    for x, y in stream[:40]:
        a.learn_one(x, y)
        b.learn_one(x, y)
    b2 = pickle.loads(pickle.dumps(b))
    a2 = copy.deepcopy(a)
    for x, y in stream[40:]:
        for m in (a2, b2):
            m.learn_one(x, y)
    assert_snapshot_equal(a2.snapshot(), b2.snapshot())


@pytest.mark.slow
@pytest.mark.parametrize("lam", [1.0, 0.9, 0.5])
@pytest.mark.parametrize("rule", REG_RULES)
@pytest.mark.parametrize("case", range(len(REG_LEAVES)))
@pytest.mark.parametrize("seed", range(10, 20))
def test_regression_retirement_lockstep_long(both: tuple[ModuleType, ModuleType], lam: float,
                                             rule: str, case: int, seed: int) -> None:
    a, b = _pair(both, "DynamicTreeRegressor", n_particles=30, seed=seed, active_size=40,
                 retirement=rule, lam=lam, **REG_LEAVES[case])
    run_lockstep(a, b, regression_stream(seed, 300, d=1 + seed % 3), snapshot_every=20)


@pytest.mark.slow
@pytest.mark.parametrize("lam", [1.0, 0.9, 0.5])
@pytest.mark.parametrize("rule", CLASS_RULES)
@pytest.mark.parametrize("seed", range(10, 20))
def test_classifier_retirement_lockstep_long(both: tuple[ModuleType, ModuleType],
                                             lam: float, rule: str, seed: int) -> None:
    a, b = _pair(both, "DynamicTreeClassifier", classes=[0, 1, 2], n_particles=30,
                 seed=seed, active_size=30, retirement=rule, lam=lam)
    run_lockstep(a, b, class_stream(seed, 300, d=3), predict=("predict_proba_one",),
                 snapshot_every=20)


@pytest.mark.parametrize("approx", [False, True])
@pytest.mark.parametrize("rect", [None, [(-0.2, 1.1), (0.0, 1.0)]])
@pytest.mark.parametrize("case", range(len(REG_LEAVES)))
@pytest.mark.parametrize("seed", range(1))
def test_alc_statistics_lockstep(both: tuple[ModuleType, ModuleType], approx: bool,
                                 rect: Any, case: int, seed: int) -> None:
    a, b = _pair(both, "DynamicTreeRegressor", n_particles=8, seed=seed, active_size=25,
                 retirement="alc", approx=approx, rect=rect, lam=0.9, **REG_LEAVES[case])
    stream = regression_stream(seed, 50)
    run_lockstep(a, b, stream, predict=("predict_one",), snapshot_every=25)
    assert_snapshot_equal(list(a.alc_active()), list(b.alc_active()))
    xs = [x for x, _ in regression_stream(seed + 7, 9)]
    for r in (None, [(0.1, 0.9), (0.2, 0.7)]):
        va = list(a.alc(xs, rect=r))
        assert_snapshot_equal(va, list(b.alc(xs, rect=r)))
        assert min(va) >= 0.0 and max(va) > 0.0


@pytest.mark.parametrize("case", range(len(REG_LEAVES)))
def test_alc_cache_equals_recomputation(both: tuple[ModuleType, ModuleType],
                                        case: int) -> None:
    """The C per-leaf ALC cache (keyed by the leaf rectangle, invalidated when a leaf
    changes) gives the values of the uncached reference after every kind of change."""
    a, b = _pair(both, "DynamicTreeRegressor", n_particles=8, seed=case, active_size=30,
                 retirement="random", **REG_LEAVES[case])
    stream = regression_stream(case, 80)
    for x, y in stream[:60]:
        a.learn_one(x, y)
        b.learn_one(x, y)
    for step in range(6):
        assert_snapshot_equal(list(a.alc_active()), list(b.alc_active()), step=step)
        assert_snapshot_equal(list(b.alc_active()), list(b.alc_active()), step=step)
        if step == 1:
            a.retire([0, 5], lam=0.4)
            b.retire([0, 5], lam=0.4)
        elif step == 2:
            a.retire([int(a.active_X_[:, 0].argmax())])   # the box shrinks
            b.retire([int(b.active_X_[:, 0].argmax())])
        else:
            x, y = stream[60 + step]
            a.learn_one(x, y)
            b.learn_one(x, y)

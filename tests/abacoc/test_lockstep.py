"""ABACOC: reference and fast agree exactly, step by step ([ABACOC-SPEC §17]).

Every step compares ``predict_one`` (which draws for randomized BASE) and
``predict_proba_one``, then both learn, then the snapshots (balls in slot order, phase
and initialisation state, generator state) must be bit-identical.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _abacoc_streams import random_stream

from _compare import assert_snapshot_equal, run_lockstep

CONFIGS: list[dict[str, Any]] = [
    {"variant": "base"},
    {"variant": "base", "mode": "majority"},
    {"variant": "base_adj"},
    {"variant": "base_adj", "C": 0.05},
    {"variant": "auto"},
    {"variant": "auto_adj"},
    {"variant": "auto", "budget": 4},
    {"variant": "auto_adj", "budget": 2},
    {"variant": "auto_adj", "budget": 7, "d": 0.5},
    {"variant": "auto_adj", "metric": "manhattan"},
    {"variant": "auto", "metric": "minkowski", "p": 3.0},
    {"variant": "auto_adj", "search": "kdtree", "leaf_size": 2},
    {"variant": "auto", "search": "kdtree", "leaf_size": 3, "budget": 9},
    {"variant": "base_adj", "search": "kdtree", "leaf_size": 2, "C": 0.2},
    {"variant": "auto_adj", "search": "auto", "search_threshold": 5, "leaf_size": 2},
    {"variant": "auto_adj", "metric": "minkowski", "p": 1.5, "search": "kdtree", "leaf_size": 2},
]


def _binary(cfg: dict[str, Any]) -> bool:
    return cfg["variant"] == "base" and cfg.get("mode", "randomized") == "randomized"


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
@pytest.mark.parametrize("seed", range(4))
def test_lockstep_random_streams(both: Any, cfg: dict[str, Any], seed: int) -> None:
    ref, fast = both
    n_features = (1, 2, 5, 10)[seed % 4]
    binary = _binary(cfg)
    X, y = random_stream(
        seed, 160, n_features, 2 if binary else 3, lattice=0.5 if seed % 2 == 0 else 0.0,
        new_class_at=None if binary else 60,
    )
    a = ref.ABACOCClassifier(seed=seed, **cfg)
    b = fast.ABACOCClassifier(seed=seed, **cfg)
    run_lockstep(a, b, zip(X, y, strict=True), predict=("predict_one", "predict_proba_one"))
    assert a.classes_ == b.classes_


@pytest.mark.parametrize("variant", ["base_adj", "auto", "auto_adj"])
def test_lockstep_lattice_ties_and_string_labels(both: Any, variant: str) -> None:
    """A coarse 2-D lattice: many duplicate points and exact distance ties (tie rule T1,
    nearest-ball ties: [ABACOC-SPEC T1])."""
    ref, fast = both
    X, y = random_stream(11, 250, 2, 3, lattice=1.0, new_class_at=100, labels="abcd")
    a = ref.ABACOCClassifier(variant=variant, search="kdtree", leaf_size=2)
    b = fast.ABACOCClassifier(variant=variant, search="kdtree", leaf_size=2)
    run_lockstep(a, b, zip(X, y, strict=True), predict=("predict_one", "predict_proba_one"))
    assert a.classes_ == b.classes_ and "d" in a.classes_


@pytest.mark.parametrize("cfg", [{"variant": "auto_adj"}, {"variant": "auto", "budget": 5},
                                 {"variant": "base"}, {"variant": "base_adj"}])
@pytest.mark.parametrize("rate", [1.0, 0.3])
def test_lockstep_subsampled_prequential(both: Any, cfg: dict[str, Any], rate: float) -> None:
    """DOC15 Alg. 5 run as one C loop (fast) and as a Python loop (reference)."""
    ref, fast = both
    binary = _binary(cfg)
    X, y = random_stream(5, 400, 3, 2 if binary else 4, new_class_at=None if binary else 150)
    a = ref.ABACOCClassifier(seed=3, **cfg)
    b = fast.ABACOCClassifier(seed=3, **cfg)
    ra = a.prequential(X, y, rate=rate, seed=9)
    rb = b.prequential(X, y, rate=rate, seed=9)
    for key in ("accuracy", "n_correct", "n_learned", "n_balls", "max_balls"):
        assert ra[key] == rb[key], key
    assert list(ra["predictions"]) == list(rb["predictions"])
    assert a.classes_ == b.classes_
    assert_snapshot_equal(a.snapshot(), b.snapshot())
    if rate < 1.0:
        assert ra["n_learned"] < len(y)


def test_lockstep_partial_fit_equals_learn_one(both: Any) -> None:
    ref, fast = both
    X, y = random_stream(2, 300, 4, 3, new_class_at=150)
    a = ref.ABACOCClassifier(variant="auto_adj", budget=20)
    b = fast.ABACOCClassifier(variant="auto_adj", budget=20)
    c = fast.ABACOCClassifier(variant="auto_adj", budget=20)
    a.partial_fit(X, y)
    b.partial_fit(X, y)
    for x, label in zip(X, y, strict=True):
        c.learn_one(x, label)
    assert_snapshot_equal(a.snapshot(), b.snapshot())
    assert_snapshot_equal(b.snapshot(), c.snapshot())
    assert list(a.predict(X)) == list(b.predict(X))
    assert np.array_equal(a.predict_proba(X), b.predict_proba(X))


@pytest.mark.slow
@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
@pytest.mark.parametrize("seed", range(4, 24))
def test_lockstep_long(both: Any, cfg: dict[str, Any], seed: int) -> None:
    ref, fast = both
    binary = _binary(cfg)
    X, y = random_stream(seed, 1500, (1, 2, 5, 10)[seed % 4], 2 if binary else 4,
                         lattice=0.25 if seed % 3 == 0 else 0.0,
                         new_class_at=None if binary else 700)
    a = ref.ABACOCClassifier(seed=seed, **cfg)
    b = fast.ABACOCClassifier(seed=seed, **cfg)
    run_lockstep(a, b, zip(X, y, strict=True), predict=("predict_one", "predict_proba_one"),
                 snapshot_every=25)

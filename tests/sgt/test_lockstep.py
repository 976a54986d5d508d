"""Lockstep: reference and fast SGT models agree exactly, step by step.

Every model (regressor, binary and multiclass classifier, multi-instance, generic
loss with built-in and Python losses), numeric and nominal features, several grace
periods, bin counts, warm-up sizes, depth limits and range options, many seeds.
"""

from __future__ import annotations

import copy
import math
import pickle
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from _compare import assert_snapshot_equal, run_lockstep

SEEDS = range(8)


def regression_stream(
    seed: int, n: int, nominal: bool = False
) -> Iterator[tuple[list[float], float]]:
    """y = 4 sin(3 x0) + f(x1) + 2 x2² + noise, shifted by 6 (seed % 3) so that the
    null candidate (value update and reset) wins too."""
    rng = np.random.default_rng(seed)
    shift = 6.0 * (seed % 3)
    for _ in range(n):
        x = [float(v) for v in rng.uniform(-1, 2, size=3)]
        if nominal:
            x[1] = float(rng.integers(0, 3))
        y = 4.0 * math.sin(3 * x[0]) + (3.0 * x[1] if not nominal else [-3.0, 0.5, 4.0][int(x[1])])
        yield x, y + shift + 2.0 * x[2] * x[2] + float(rng.normal()) * 0.5


def class_stream(
    seed: int, n: int, k: int, nominal: bool = False
) -> Iterator[tuple[list[float], Any]]:
    rng = np.random.default_rng(seed)
    labels = ["a", "b", "c", "d", "e"][:k]
    for _ in range(n):
        x = [float(v) for v in rng.uniform(0, 1, size=3)]
        if nominal:
            x[2] = float(rng.integers(0, 4))
        score = x[0] + 0.7 * x[1] + (0.25 * x[2] if nominal else 0.0) + 0.3 * float(rng.normal())
        yield x, labels[min(k - 1, max(0, int(score * k / 1.9)))]


OPTIONS = [
    dict(grace_period=10, bins=4, warmup=30),
    dict(grace_period=25, bins=16, warmup=50, lam=0.5, gamma=0.2),
    dict(grace_period=50, bins=2, warmup=1),
    dict(grace_period=20, bins=8, warmup=40, max_depth=2, delta=1e-3),
    dict(grace_period=15, bins=5, warmup=40, warmup_trains=False, gamma=0.0),
    dict(grace_period=30, bins=7, feature_ranges={0: (-1.0, 2.0), 2: (-1.0, 2.0)}, warmup=20),
    dict(grace_period=25, bins=6, warmup=30, gamma=60.0),  # splits expensive: value updates
    dict(grace_period=20, bins=10, warmup=30, test="one-sided"),
]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("opt", range(len(OPTIONS)))
def test_regressor_lockstep(both: tuple[ModuleType, ModuleType], seed: int, opt: int) -> None:
    ref, fast = both
    kw = dict(OPTIONS[opt])
    nominal = seed % 2 == 1
    if nominal:
        kw["nominal"] = {1: 3}
    a, b = ref.SGTRegressor(**kw), fast.SGTRegressor(**kw)
    run_lockstep(a, b, regression_stream(seed, 700, nominal), snapshot_every=35)
    assert a.n_nodes_ == b.n_nodes_ and a.depth_ == b.depth_


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", [2, 3, 5])
def test_classifier_lockstep(both: tuple[ModuleType, ModuleType], seed: int, k: int) -> None:
    classifier_lockstep(both, seed, k, nominal=seed % 3 == 0, n=600, snapshot_every=30)


def classifier_lockstep(both: tuple[ModuleType, ModuleType], seed: int, k: int,
                        nominal: bool, n: int, snapshot_every: int, **extra: Any) -> None:
    """Both backends' SGTClassifier on ``k`` classes, with the options of ``seed`` (and a
    nominal feature if ``nominal``) plus ``extra``, in lockstep on ``n`` rows."""
    ref, fast = both
    kw = dict(OPTIONS[seed % len(OPTIONS)], **extra)
    if nominal:
        kw["nominal"] = {2: 4}
        kw.pop("feature_ranges", None)
    classes = ["a", "b", "c", "d", "e"][:k]
    a = ref.SGTClassifier(classes=classes, **kw)
    b = fast.SGTClassifier(classes=classes, **kw)
    run_lockstep(a, b, class_stream(seed, n, k, nominal),
                 predict=("predict_one", "predict_proba_one"), snapshot_every=snapshot_every)


def bag_stream(seed: int, n: int) -> Iterator[tuple[list[list[float]], int]]:
    rng = np.random.default_rng(seed)
    for _ in range(n):
        size = int(rng.integers(1, 6))
        bag = [[float(v) for v in rng.uniform(0, 1, size=2)] for _ in range(size)]
        bag_max = max(r[0] + 0.5 * r[1] for r in bag)
        yield bag, int(bag_max + 0.1 * float(rng.normal()) > 1.1)


@pytest.mark.parametrize("seed", SEEDS)
def test_multi_instance_lockstep(both: tuple[ModuleType, ModuleType], seed: int) -> None:
    ref, fast = both
    kw = dict(grace_period=[1, 7, 20][seed % 3], bins=[3, 8, 12][seed % 3], warmup=25)
    if seed % 2:
        kw["max_depth"] = 3
        kw["delta"] = 1e-3
    a, b = ref.SGTMultiInstanceClassifier(**kw), fast.SGTMultiInstanceClassifier(**kw)
    run_lockstep(a, b, bag_stream(seed, 400), predict=("predict_one", "predict_proba_one"),
                 snapshot_every=25)


def huber_gradient(y: float, f: float) -> float:
    r = f - y
    return r / math.sqrt(1.0 + r * r)


def huber_hessian(y: float, f: float) -> float:
    r = f - y
    return 1.0 / ((1.0 + r * r) * math.sqrt(1.0 + r * r))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("loss", ["squared", "bce", "custom"])
def test_generic_lockstep(both: tuple[ModuleType, ModuleType], seed: int, loss: str) -> None:
    ref, fast = both
    kw = dict(OPTIONS[seed % len(OPTIONS)])

    def make(pkg: ModuleType) -> Any:
        obj = {"squared": pkg.SquaredError(), "bce": pkg.BinaryCrossEntropy(),
               "custom": pkg.CustomLoss(huber_gradient, huber_hessian)}[loss]
        return pkg.SGT(obj, **kw)

    stream = regression_stream(seed, 500)
    if loss == "bce":
        stream = ((x, float(y > 1.0)) for x, y in stream)
    run_lockstep(make(ref), make(fast), stream, snapshot_every=25)


def outlier_stream(seed: int, n: int) -> Iterator[tuple[list[float], float]]:
    """The regression stream with 10% of its targets moved by ±(50 to 150), so that the
    pseudo-Huber loss works in its linear part (g near ±1, h near 0) as well."""
    rng = np.random.default_rng(1000 + seed)
    for x, y in regression_stream(seed, n):
        if rng.uniform() < 0.1:
            y += float(rng.choice([-1.0, 1.0])) * (50.0 + 100.0 * float(rng.uniform()))
        yield x, y


@pytest.mark.parametrize("seed", SEEDS)
def test_pseudo_huber_lockstep_with_outliers(both: tuple[ModuleType, ModuleType],
                                             seed: int) -> None:
    """The built-in pseudo-Huber loss ([SGT-SPEC §3.5]), one row at a time and through the
    batch loops, on a stream with gross outliers; a pickle continues identically."""
    ref, fast = both
    kw = dict(OPTIONS[seed % len(OPTIONS)])
    data = list(outlier_stream(seed, 700))
    a, b = ref.SGT(ref.PseudoHuber(), **kw), fast.SGT(fast.PseudoHuber(), **kw)
    run_lockstep(a, b, iter(data[:400]), snapshot_every=25)
    b2 = pickle.loads(pickle.dumps(b))
    run_lockstep(a, b2, iter(data[400:]), snapshot_every=50)
    X = np.array([x for x, _ in data])
    y = np.array([t for _, t in data])
    c, d = ref.SGT(ref.PseudoHuber(), **kw), fast.SGT(fast.PseudoHuber(), **kw)
    c.partial_fit(X[:300], y[:300])
    d.partial_fit(X[:300], y[:300])
    assert_snapshot_equal(c.snapshot(), d.snapshot())
    assert c.progressive_predict(X[300:], y[300:]).tolist() == d.progressive_predict(
        X[300:], y[300:]).tolist()
    assert_snapshot_equal(c.snapshot(), d.snapshot())
    assert c.predict(X[:50]).tolist() == d.predict(X[:50]).tolist()


@pytest.mark.parametrize("seed", SEEDS)
def test_partial_fit_and_progressive_loops(both: tuple[ModuleType, ModuleType], seed: int) -> None:
    """The C loops (partial_fit, progressive_predict) equal the reference loops."""
    ref, fast = both
    data = list(regression_stream(seed, 900, nominal=True))
    X = np.array([x for x, _ in data])
    y = np.array([t for _, t in data])
    kw = dict(OPTIONS[seed % len(OPTIONS)], nominal={1: 3})
    kw.pop("feature_ranges", None)
    a, b = ref.SGTRegressor(**kw), fast.SGTRegressor(**kw)
    a.partial_fit(X[:300], y[:300])
    b.partial_fit(X[:300], y[:300])
    assert_snapshot_equal(a.snapshot(), b.snapshot())
    pa, pb = a.progressive_predict(X[300:], y[300:]), b.progressive_predict(X[300:], y[300:])
    assert pa.tolist() == pb.tolist()
    assert_snapshot_equal(a.snapshot(), b.snapshot())
    assert a.predict(X[:50]).tolist() == b.predict(X[:50]).tolist()
    assert a.n_seen_ == b.n_seen_ == 900

    q1, q2 = np.quantile(y, [0.33, 0.66])
    labels = np.array(["x" if t > q2 else ("y" if t > q1 else "z") for t in y])
    e = ref.SGT(ref.CustomLoss(huber_gradient, huber_hessian), **kw)
    f = fast.SGT(fast.CustomLoss(huber_gradient, huber_hessian), **kw)
    e.partial_fit(X[:300], y[:300])
    f.partial_fit(X[:300], y[:300])
    assert e.progressive_predict(X[300:], y[300:]).tolist() == f.progressive_predict(
        X[300:], y[300:]).tolist()
    assert_snapshot_equal(e.snapshot(), f.snapshot())
    for classes in (None, ["z", "y", "x"]):
        c, d = ref.SGTClassifier(classes=classes, **kw), fast.SGTClassifier(classes=classes, **kw)
        c.partial_fit(X[:400], labels[:400])
        d.partial_fit(X[:400], labels[:400])
        assert c.classes_ == d.classes_
        assert_snapshot_equal(c.snapshot(), d.snapshot())
        qa = c.progressive_predict(X[400:], labels[400:])
        qb = d.progressive_predict(X[400:], labels[400:])
        assert qa.tolist() == qb.tolist()
        assert c.predict_proba(X[:40]).tolist() == d.predict_proba(X[:40]).tolist()
        assert c.predict(X[:40]).tolist() == d.predict(X[:40]).tolist()
        assert_snapshot_equal(c.snapshot(), d.snapshot())


@pytest.mark.parametrize("seed", range(4))
def test_multi_instance_partial_fit_epochs(both: tuple[ModuleType, ModuleType], seed: int) -> None:
    ref, fast = both
    data = list(bag_stream(seed, 120))
    bags, labels = [b for b, _ in data], [t for _, t in data]
    kw = dict(epochs=3, grace_period=5, bins=6, warmup=40)
    a, b = ref.SGTMultiInstanceClassifier(**kw), fast.SGTMultiInstanceClassifier(**kw)
    a.partial_fit(bags, labels)
    b.partial_fit(bags, labels)
    assert_snapshot_equal(a.snapshot(), b.snapshot())
    assert a.n_seen_ == b.n_seen_ == 360
    assert a.predict_proba(bags[:20]).tolist() == b.predict_proba(bags[:20]).tolist()


@pytest.mark.parametrize("seed", range(4))
def test_pickled_fast_model_continues_identically(both: tuple[ModuleType, ModuleType],
                                                  seed: int) -> None:
    ref, fast = both
    kw = dict(grace_period=20, bins=6, warmup=60, nominal={1: 3})
    data = list(regression_stream(seed, 600, nominal=True))
    a, b = ref.SGTRegressor(**kw), fast.SGTRegressor(**kw)
    for x, y in data[:30 + 100 * seed]:  # seed 0 pickles during the warm-up
        a.learn_one(x, y)
        b.learn_one(x, y)
    b2 = pickle.loads(pickle.dumps(b))
    b3 = copy.deepcopy(b)
    a2 = pickle.loads(pickle.dumps(a))
    assert_snapshot_equal(b.snapshot(), b2.snapshot())
    run_lockstep(a2, b2, iter(data[30 + 100 * seed:]), snapshot_every=50)
    run_lockstep(a, b3, iter(data[30 + 100 * seed:]), snapshot_every=50)
    assert type(b2) is fast.SGTRegressor


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(40))
def test_long_lockstep(both: tuple[ModuleType, ModuleType], seed: int) -> None:
    ref, fast = both
    kw = dict(OPTIONS[seed % len(OPTIONS)])
    kw["nominal"] = {1: 3}
    kw.pop("feature_ranges", None)
    a, b = ref.SGTRegressor(**kw), fast.SGTRegressor(**kw)
    run_lockstep(a, b, regression_stream(seed, 5000, True), snapshot_every=500)
    kw["nominal"] = {2: 4}
    c = ref.SGTClassifier(classes=["a", "b", "c", "d"], **kw)
    d = fast.SGTClassifier(classes=["a", "b", "c", "d"], **kw)
    run_lockstep(c, d, class_stream(seed, 4000, 4, True), predict=("predict_proba_one",),
                 snapshot_every=500)


@pytest.mark.parametrize("seed", range(3))
def test_pickled_fast_classifier_and_bags(both: tuple[ModuleType, ModuleType], seed: int) -> None:
    ref, fast = both
    data = list(class_stream(seed, 900, 3, nominal=True))
    kw = dict(grace_period=25, bins=6, warmup=80, nominal={2: 4})
    a = ref.SGTClassifier(classes=["a", "b", "c"], **kw)
    b = fast.SGTClassifier(classes=["a", "b", "c"], **kw)
    for x, y in data[:300]:
        a.learn_one(x, y)
        b.learn_one(x, y)
    b2 = pickle.loads(pickle.dumps(b))
    run_lockstep(a, b2, iter(data[300:]), predict=("predict_proba_one",), snapshot_every=100)
    bags = list(bag_stream(seed, 200))
    c = ref.SGTMultiInstanceClassifier(grace_period=5, warmup=60)
    d = fast.SGTMultiInstanceClassifier(grace_period=5, warmup=60)
    c.partial_fit([g for g, _ in bags[:20]], [t for _, t in bags[:20]])  # still warming up
    d.partial_fit([g for g, _ in bags[:20]], [t for _, t in bags[:20]])
    d2 = copy.deepcopy(pickle.loads(pickle.dumps(d)))
    run_lockstep(c, d2, iter(bags[20:]), predict=("predict_proba_one",), snapshot_every=30)

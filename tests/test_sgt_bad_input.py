"""Bad hyper-parameters and bad data: same exception in both backends, model unchanged."""

from __future__ import annotations

import math
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from _compare import assert_snapshot_equal

BAD_PARAMS: list[dict[str, Any]] = [
    dict(delta=0.0), dict(delta=1.0), dict(delta="x"), dict(grace_period=0),
    dict(grace_period=2.5), dict(lam=-1.0), dict(lam=math.inf), dict(gamma=-0.1),
    dict(bins=1), dict(bins=True), dict(warmup=0), dict(max_depth=-1),
    dict(warmup_trains=1), dict(nominal={0: 1}), dict(nominal={-1: 3}), dict(nominal=[1]),
    dict(feature_ranges={0: (1.0, 1.0)}), dict(feature_ranges={0: (0.0, math.nan)}),
    dict(feature_ranges={0: (0.0, 1.0)}, nominal={0: 3}), dict(test="left"),
]


@pytest.mark.parametrize("kw", BAD_PARAMS)
@pytest.mark.parametrize("name", ["SGTRegressor", "SGTClassifier", "SGTMultiInstanceClassifier",
                                  "SGT"])
def test_bad_params_same_message(both: tuple[ModuleType, ModuleType], kw: dict[str, Any],
                                 name: str) -> None:
    messages = []
    for pkg in both:
        with pytest.raises(ValueError) as info:
            getattr(pkg, name)(**kw)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert list(kw)[0] in messages[0] or "nominal" in messages[0]


def test_other_bad_constructor_args(backend: ModuleType) -> None:
    with pytest.raises(ValueError):
        backend.SGTClassifier(classes=["a"])
    with pytest.raises(ValueError):
        backend.SGTClassifier(classes=["a", "a"])
    with pytest.raises(ValueError):
        backend.SGTMultiInstanceClassifier(epochs=0)
    with pytest.raises(ValueError):
        backend.SGT(loss=object())


def trained(backend: ModuleType, name: str) -> Any:
    rng = np.random.default_rng(0)
    if name == "mil":
        model = backend.SGTMultiInstanceClassifier(grace_period=10, warmup=20, nominal={2: 3})
        for _ in range(60):
            bag = [[float(rng.uniform()), float(rng.uniform()), float(rng.integers(0, 3))]
                   for _ in range(3)]
            model.learn_one(bag, int(bag[0][0] > 0.5))
        return model
    kw = dict(grace_period=10, warmup=20, nominal={2: 3})
    if name == "reg":
        model = backend.SGTRegressor(**kw)
    elif name == "cls":
        model = backend.SGTClassifier(classes=["a", "b", "c"], **kw)
    else:
        model = backend.SGT(backend.CustomLoss(lambda y, f: f - y, lambda y, f: 1.0), **kw)
    for _ in range(60):
        x = [float(rng.uniform()), float(rng.uniform()), float(rng.integers(0, 3))]
        y: Any = x[0] * 3
        if name == "cls":
            y = "abc"[int(x[2])]
        model.learn_one(x, y)
    return model


GOOD_ROW = [0.5, 0.5, 1.0]
BAD_ROWS: list[Any] = [
    [0.5, 0.5], [0.5, 0.5, 1.0, 2.0], [], [math.nan, 0.5, 1.0], [0.5, math.inf, 1.0],
    ["a", 0.5, 1.0], ["0.5", 0.5, 1.0], [0.5, 0.5, 3.0], [0.5, 0.5, 1.5], [0.5, 0.5, -1.0],
    [[0.5, 0.5, 1.0]],
    None, {"a": 1.0, "b": 2.0, "c": 0.0},
]


def expect_unchanged(model: Any, call: Callable[[], Any], exc: type[Exception]) -> None:
    before = model.snapshot()
    n_seen = model.n_seen_
    with pytest.raises(exc):
        call()
    assert_snapshot_equal(model.snapshot(), before)
    assert model.n_seen_ == n_seen


@pytest.mark.parametrize("name", ["reg", "cls", "custom"])
def test_bad_rows_leave_model_unchanged(backend: ModuleType, name: str) -> None:
    model = trained(backend, name)
    y: Any = "a" if name == "cls" else 1.0
    for row in BAD_ROWS:
        expect_unchanged(model, lambda r=row: model.learn_one(r, y), ValueError)
        if row is not None and row != [[0.5, 0.5, 1.0]]:
            expect_unchanged(model, lambda r=row: model.predict_one(r), ValueError)
    X = np.array([GOOD_ROW] * 5)
    bad_X = X.copy()
    bad_X[4, 0] = math.nan
    ys: list[Any] = ["a"] * 5 if name == "cls" else [1.0] * 5
    expect_unchanged(model, lambda: model.partial_fit(bad_X, ys), ValueError)
    expect_unchanged(model, lambda: model.partial_fit(X, ys[:4]), ValueError)
    expect_unchanged(model, lambda: model.partial_fit(np.zeros((0, 3)), []), ValueError)
    expect_unchanged(model, lambda: model.partial_fit(X[:, :2], ys), ValueError)
    nominal_bad = X.copy()
    nominal_bad[2, 2] = 7.0
    expect_unchanged(model, lambda: model.partial_fit(nominal_bad, ys), ValueError)
    expect_unchanged(model, lambda: model.progressive_predict(bad_X, ys), ValueError)
    if name == "cls":
        expect_unchanged(model, lambda: model.learn_one(GOOD_ROW, "zzz"), ValueError)
        expect_unchanged(model, lambda: model.learn_one(GOOD_ROW, ["a"]), ValueError)
        expect_unchanged(model, lambda: model.partial_fit(X, ["a"] * 4 + ["q"]), ValueError)
    else:
        for bad_y in (math.nan, math.inf, "x", None):
            expect_unchanged(model, lambda b=bad_y: model.learn_one(GOOD_ROW, b), ValueError)
        expect_unchanged(model, lambda: model.partial_fit(X, [1.0] * 4 + [math.nan]),
                         ValueError)


def test_custom_loss_non_finite_gradient(backend: ModuleType) -> None:
    loss = backend.CustomLoss(lambda y, f: math.nan if y > 100 else f - y, lambda y, f: 1.0)
    model = backend.SGT(loss, warmup=5, grace_period=10)
    for i in range(20):
        model.learn_one([float(i)], 1.0)
    expect_unchanged(model, lambda: model.learn_one([3.0], 1000.0), ValueError)


def test_bad_bags_leave_model_unchanged(backend: ModuleType) -> None:
    model = trained(backend, "mil")
    good = [GOOD_ROW, GOOD_ROW]
    for bag in ([], [GOOD_ROW[:2]], [GOOD_ROW, [math.nan, 0.1, 0.0]], [[0.1, 0.1, 5.0]],
                GOOD_ROW, [["a", 1.0, 0.0]]):
        expect_unchanged(model, lambda b=bag: model.learn_one(b, 1), ValueError)
    for label in (2, "x", -1, None):
        expect_unchanged(model, lambda lab=label: model.learn_one(good, lab), ValueError)
    expect_unchanged(model, lambda: model.partial_fit([good, [GOOD_ROW[:2]]], [0, 1]),
                     ValueError)
    expect_unchanged(model, lambda: model.partial_fit([good, good], [0, 3]), ValueError)
    expect_unchanged(model, lambda: model.partial_fit([], []), ValueError)


def test_mapping_keys_must_match(backend: ModuleType) -> None:
    model = backend.SGTRegressor(warmup=3)
    model.learn_one({"u": 1.0, "v": 2.0}, 1.0)
    expect_unchanged(model, lambda: model.learn_one({"v": 1.0, "u": 2.0}, 1.0), ValueError)
    expect_unchanged(model, lambda: model.learn_one({"u": 1.0, "w": 2.0}, 1.0), ValueError)


def test_too_many_cells_is_a_memory_error(backend: ModuleType) -> None:
    model = backend.SGTRegressor(bins=1_000_000)
    expect_unchanged(model, lambda: model.learn_one([0.5] * 40, 1.0), MemoryError)
    assert model.n_features_in_ is None


def test_declared_feature_outside_rows(backend: ModuleType) -> None:
    model = backend.SGTRegressor(nominal={5: 3})
    expect_unchanged(model, lambda: model.learn_one([1.0, 2.0], 1.0), ValueError)
    assert model.n_features_in_ is None
    model.learn_one([1.0, 2.0, 0.0, 0.0, 0.0, 1.0], 1.0)
    assert model.n_features_in_ == 6


def test_c_rejects_bad_values_directly(lib: Any) -> None:
    """The C entry points validate too (status codes, no crash)."""
    from fast._ffi import ffi

    p = ffi.new("sgt_params *")
    p.delta, p.lam, p.gamma = 1e-7, 0.1, 1.0
    p.grace_period, p.bins, p.warmup, p.max_depth, p.warmup_trains = 5, 4, 1, -1, 1
    out = ffi.new("sgt_model **")
    assert lib.sgt_model_new(p, 2, ffi.new("int32_t[]", [0, 3]), ffi.new("double[]", 2),
                             ffi.new("double[]", 2), ffi.new("uint8_t[]", 2), 0, 1, out) == 0
    m = ffi.gc(out[0], lib.sgt_model_free)
    raw = ffi.new("double[]", 1)
    assert lib.sgt_model_learn(m, [math.nan, 1.0], 1, 1.0) == lib.ST_EINVAL
    assert lib.sgt_model_learn(m, [0.5, 3.0], 1, 1.0) == lib.ST_EINVAL
    assert lib.sgt_model_learn(m, [0.5, 1.0, 0.5, 1.0], 2, 1.0) == lib.ST_EINVAL
    assert lib.sgt_model_raws(m, [0.5, -1.0], raw) == lib.ST_EINVAL
    assert lib.sgt_model_train_gh(m, [0.5, 1.0], [1.0], [1.0]) == lib.ST_ESTATE
    assert lib.sgt_model_learn(m, [0.5, 1.0], 1, 1.0) == lib.ST_OK
    assert lib.sgt_model_train_gh(m, [0.5, 1.0], [math.inf], [1.0]) == lib.ST_EINVAL
    assert lib.sgt_model_learn(m, [0.5, 1.0], 1, math.nan) == lib.ST_EINVAL
    p.bins = 1
    assert lib.sgt_model_new(p, 2, ffi.new("int32_t[]", [0, 3]), ffi.new("double[]", 2),
                             ffi.new("double[]", 2), ffi.new("uint8_t[]", 2), 0, 1,
                             out) == lib.ST_EINVAL

"""Bad input ([DET-SPEC §4], "Errors"): same exception class in both backends, model unchanged."""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from _dynatree_helpers import class_stream, regression_stream

from _compare import assert_snapshot_equal

BAD_ROWS: list[Any] = [
    [0.1],                      # wrong dimension
    [0.1, 0.2, 0.3],            # wrong dimension
    [float("nan"), 0.2],        # NaN
    [math.inf, 0.2],            # infinite
    [],                         # empty
    ["a", 0.2],                 # non-numeric
    [None, 0.2],                # non-numeric
    "ab",                       # a string
    5.0,                        # not a sequence
    {"u": 0.1, "v": 0.2},       # mapping for a model fitted on sequences
]


def fitted_regressor(backend: ModuleType) -> Any:
    m = backend.DynamicTreeRegressor(n_particles=6, seed=1)
    for x, y in regression_stream(1, 30):
        m.learn_one(x, y)
    return m


@pytest.mark.parametrize("row", range(len(BAD_ROWS)))
def test_bad_rows_leave_regressor_unchanged(backend: ModuleType, row: int) -> None:
    m = fitted_regressor(backend)
    before = m.snapshot()
    with pytest.raises(ValueError):
        m.learn_one(BAD_ROWS[row], 1.0)
    with pytest.raises(ValueError):
        m.predict_one(BAD_ROWS[row])
    with pytest.raises(ValueError):
        m.partial_fit([[0.1, 0.2], BAD_ROWS[row]], [1.0, 2.0])
    assert_snapshot_equal(before, m.snapshot())
    assert m.n_seen_ == 30


@pytest.mark.parametrize("target", [float("nan"), math.inf, "x", None, [1.0]])
def test_bad_targets(backend: ModuleType, target: Any) -> None:
    m = fitted_regressor(backend)
    before = m.snapshot()
    with pytest.raises(ValueError):
        m.learn_one([0.1, 0.2], target)
    with pytest.raises(ValueError):
        m.partial_fit([[0.1, 0.2], [0.3, 0.4]], [1.0, target])
    assert_snapshot_equal(before, m.snapshot())


def test_bad_batches(backend: ModuleType) -> None:
    m = fitted_regressor(backend)
    before = m.snapshot()
    for X, y in [([[0.1, 0.2]], [1.0, 2.0]), ([], []), (np.zeros((2, 2, 2)), [1.0, 2.0]),
                 (np.zeros(3), [1.0, 2.0, 3.0])]:
        with pytest.raises(ValueError):
            m.partial_fit(X, y)
    assert_snapshot_equal(before, m.snapshot())


def test_classifier_labels(backend: ModuleType) -> None:
    m = backend.DynamicTreeClassifier(classes=["a", "b"], n_particles=6, seed=2)
    for x, y in class_stream(2, 30, n_classes=2, labels=("a", "b")):
        m.learn_one(x, y)
    before = m.snapshot()
    for bad in ["c", 0, None, ["a"]]:
        with pytest.raises(ValueError):
            m.learn_one([0.1, 0.2], bad)
        with pytest.raises(ValueError):
            m.partial_fit([[0.1, 0.2], [0.2, 0.3]], ["a", bad])
    assert_snapshot_equal(before, m.snapshot())
    fresh = backend.DynamicTreeClassifier(n_particles=4)
    with pytest.raises(ValueError):
        fresh.learn_one([0.1], "a")  # classes unknown ([DT-SPEC §0] item 4)
    with pytest.raises(ValueError):
        fresh.partial_fit([[0.1], [0.2]], ["a", "a"])  # one class only
    assert fresh.n_seen_ == 0 and fresh.classes_ == []


@pytest.mark.parametrize("kwargs", [
    {"leaf": "class"}, {"leaf": "cubic"}, {"intercept": "both"},
    {"leaf": "constant", "intercept": "augmented"}, {"n_particles": 0},
    {"n_particles": 2.5}, {"alpha": 1.0}, {"alpha": -0.1}, {"beta": 0.0},
    {"beta": math.inf}, {"min_leaf": 0}, {"nstart": 0}, {"nu0": -1.0},
    {"nu0": 0.0, "s20": 1.0}, {"seed": 1.5}, {"min_leaf": True},
])
def test_invalid_hyper_parameters(both: tuple[ModuleType, ModuleType],
                                  kwargs: dict[str, Any]) -> None:
    """Same ValueError message from both backends, naming the parameter."""
    messages = []
    for mod in both:
        with pytest.raises(ValueError) as info:
            mod.DynamicTreeRegressor(**kwargs)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    name = next(iter(kwargs))
    assert name in messages[0] or "intercept" in messages[0] or "s20" in messages[0]


def test_same_signatures_and_docstrings(both: tuple[ModuleType, ModuleType]) -> None:
    import inspect

    ref, fast = both
    for name in ("DynamicTreeRegressor", "DynamicTreeClassifier"):
        a, b = getattr(ref, name), getattr(fast, name)
        assert inspect.signature(a) == inspect.signature(b)
        assert a.__doc__ and b.__doc__
        for meth in ("learn_one", "partial_fit", "predict_one", "predict", "snapshot",
                     "get_params", "clone", "tree_stats"):
            assert inspect.signature(getattr(a, meth)) == inspect.signature(getattr(b, meth))


def test_c_layer_rejects_bad_batches_without_state_change(lib: Any) -> None:
    """The C library itself validates: status codes, no crash, model unchanged."""
    from fast._ffi import ffi

    out = ffi.new("dt_model **")
    assert lib.dt_model_new(2, 0, 0, 1, 0, 0.0, 0.0, 2, 1, 1, 4, 0.95, 2.0, 1, out) == \
        lib.ST_EINVAL                                   # a class leaf needs classes
    assert out[0] == ffi.NULL
    assert lib.dt_model_new(2, 0, 0, 1, 3, 0.0, 0.0, 2, 1, 1, 4, 0.95, 2.0, 1, out) == lib.ST_OK
    m = ffi.gc(out[0], lib.dt_model_free)
    good = ffi.new("double[]", [0.1, 0.2, 0.3, 0.4])
    assert lib.dt_model_learn(m, good, ffi.new("double[]", [0.0, 2.0]), 2, ffi.NULL) == 0
    for ys, code in (([0.0, 3.0], lib.ST_ERANGE), ([0.0, -1.0], lib.ST_ERANGE),
                     ([0.5, 1.0], lib.ST_ERANGE), ([math.nan, 1.0], lib.ST_EINVAL)):
        assert lib.dt_model_learn(m, good, ffi.new("double[]", ys), 2, ffi.NULL) == code
    bad_x = ffi.new("double[]", [0.1, math.inf, 0.3, 0.4])
    assert lib.dt_model_learn(m, bad_x, ffi.new("double[]", [0.0, 1.0]), 2, ffi.NULL) == \
        lib.ST_EINVAL
    assert m.store.n == 2

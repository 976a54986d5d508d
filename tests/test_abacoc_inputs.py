"""ABACOC bad inputs: same exception class in both backends, model unchanged ([DET-SPEC §4])."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _abacoc_streams import random_stream

from _compare import assert_snapshot_equal

BAD_PARAMS: list[dict[str, Any]] = [
    {"variant": "fix"},
    {"variant": "base", "budget": 10},
    {"budget": 1},
    {"budget": 2.5},
    {"budget": True},
    {"d": 0.0},
    {"d": float("nan")},
    {"d": "2"},
    {"C": -1.0},
    {"C": float("inf")},
    {"mode": "greedy"},
    {"labels": (1, 1)},
    {"labels": [0, 1]},
    {"labels": (0, 1, 2)},
    {"metric": "cosine"},
    {"p": 0.5},
    {"search": "balltree"},
    {"search_threshold": 0},
    {"leaf_size": 1},
    {"leaf_size": 4096},
    {"seed": 1.5},
]


@pytest.mark.parametrize("kwargs", BAD_PARAMS, ids=lambda k: ",".join(map(str, k.items())))
def test_bad_parameters_same_message(both: Any, kwargs: dict[str, Any]) -> None:
    ref, fast = both
    with pytest.raises(ValueError) as ea:
        ref.ABACOCClassifier(**kwargs)
    with pytest.raises(ValueError) as eb:
        fast.ABACOCClassifier(**kwargs)
    assert str(ea.value) == str(eb.value)
    name = "budget" if "budget" in kwargs else next(iter(kwargs))
    assert name in str(ea.value)


def test_positional_arguments_rejected(backend: Any) -> None:
    with pytest.raises(TypeError):
        backend.ABACOCClassifier("auto")


def _trained(backend: Any, **kwargs: Any) -> Any:
    X, y = random_stream(0, 60, 3, 2)
    model = backend.ABACOCClassifier(**kwargs)
    model.partial_fit(X, y)
    return model


BAD_ROWS: list[tuple[Any, type[Exception]]] = [
    ([0.0, 1.0], ValueError),                   # wrong dimension
    ([0.0, 1.0, 2.0, 3.0], ValueError),
    ([0.0, float("nan"), 1.0], ValueError),
    ([0.0, float("inf"), 1.0], ValueError),
    ([], ValueError),
    (["a", "b", "c"], ValueError),              # non-numeric
    ([[0.0, 1.0, 2.0]], ValueError),            # 2-D
    (None, ValueError),
    ({"x": 1.0}, ValueError),                   # mapping after positional rows: wrong size
]


@pytest.mark.parametrize(("x", "exc"), BAD_ROWS, ids=range(len(BAD_ROWS)))
@pytest.mark.parametrize("variant", ["auto_adj", "base"])
def test_bad_rows_leave_model_unchanged(backend: Any, x: Any, exc: type[Exception],
                                        variant: str) -> None:
    model = _trained(backend, variant=variant)
    before = model.snapshot()
    classes = list(model.classes_)
    with pytest.raises(exc):
        model.learn_one(x, 0)
    with pytest.raises(exc):
        model.predict_one(x)
    with pytest.raises(exc):
        model.predict_proba_one(x)
    assert_snapshot_equal(before, model.snapshot())
    assert model.classes_ == classes


BAD_BATCHES: list[tuple[Any, Any, type[Exception]]] = [
    (np.zeros((0, 3)), [], ValueError),                                 # empty
    (np.array([[0.0, 1.0, 2.0], [1.0, np.nan, 0.0]]), [0, 1], ValueError),   # NaN in row 2
    (np.zeros((2, 4)), [0, 1], ValueError),                             # wrong width
    (np.zeros((3, 3)), [0, 1], ValueError),                             # y too short
    (np.zeros(3), [0], ValueError),                                     # 1-D X
    ([[0.0, 1.0, 2.0], [1.0, 2.0]], [0, 1], ValueError),                # ragged
    (np.zeros((2, 3)), [[0], [1]], TypeError),                          # unhashable labels
]


@pytest.mark.parametrize(("X", "y", "exc"), BAD_BATCHES, ids=range(len(BAD_BATCHES)))
def test_bad_batches_leave_model_unchanged(backend: Any, X: Any, y: Any,
                                           exc: type[Exception]) -> None:
    model = _trained(backend, variant="auto_adj", budget=10)
    before = model.snapshot()
    classes = list(model.classes_)
    with pytest.raises(exc):
        model.partial_fit(X, y)
    with pytest.raises(exc):
        model.prequential(X, y)
    assert_snapshot_equal(before, model.snapshot())
    assert model.classes_ == classes


def test_unhashable_label(backend: Any) -> None:
    model = _trained(backend, variant="auto")
    before = model.snapshot()
    with pytest.raises(TypeError):
        model.learn_one([0.0, 0.0, 0.0], ["list"])
    assert_snapshot_equal(before, model.snapshot())


def test_randomized_base_rejects_a_third_label(backend: Any) -> None:
    model = _trained(backend, variant="base", labels=(0, 1))
    before = model.snapshot()
    with pytest.raises(ValueError, match="labels"):
        model.learn_one([0.0, 0.0, 0.0], 2)
    with pytest.raises(ValueError, match="labels"):
        model.partial_fit(np.zeros((3, 3)), [0, 1, 2])   # the valid rows are not learned
    assert_snapshot_equal(before, model.snapshot())
    assert model.classes_ == [0, 1]


def test_bad_rate_and_mapping_keys(backend: Any) -> None:
    model = _trained(backend, variant="auto")
    before = model.snapshot()
    for rate in (0.0, 1.5, float("nan"), "1"):
        with pytest.raises(ValueError, match="rate"):
            model.prequential(np.zeros((2, 3)), [0, 1], rate=rate)
    assert_snapshot_equal(before, model.snapshot())
    keyed = backend.ABACOCClassifier(variant="auto")
    keyed.learn_one({"a": 0.0, "b": 1.0}, 0)
    snap = keyed.snapshot()
    with pytest.raises(ValueError, match="keys"):
        keyed.learn_one({"a": 0.0, "c": 1.0}, 1)
    assert_snapshot_equal(snap, keyed.snapshot())


def test_c_layer_returns_status_codes(lib: Any) -> None:
    """The raw C entry points never crash on misuse; they return status codes."""
    from fast._ffi import ffi

    out = ffi.new("ab_model **")
    assert lib.ab_model_new(9, 0, 0, 2.0, 2.0, 1.0, 0, 0, 256, 8, 1, out) == lib.ST_EINVAL
    assert out[0] == ffi.NULL
    assert lib.ab_model_new(3, 0, 0, 2.0, 2.0, 1.0, 0, 0, 256, 8, 1, out) == lib.ST_OK
    h = ffi.gc(out[0], lib.ab_model_free)
    x = ffi.new("double[]", [0.0, 1.0])
    k = ffi.new("int64_t[]", [0])
    assert lib.ab_model_partial_fit(h, x, k, 1) == lib.ST_ESTATE      # no dimension yet
    assert lib.ab_model_set_dim(h, 2) == lib.ST_OK
    assert lib.ab_model_set_dim(h, 3) == lib.ST_EDIM
    assert lib.ab_model_partial_fit(h, x, k, 1) == lib.ST_ERANGE      # class 0 not registered
    assert lib.ab_model_add_class(h) == lib.ST_OK
    bad = ffi.new("double[]", [0.0, float("nan")])
    assert lib.ab_model_partial_fit(h, bad, k, 1) == lib.ST_EINVAL
    assert lib.ab_model_partial_fit(h, ffi.NULL, k, 1) == lib.ST_EINVAL
    assert h.n_seen == 0 and h.balls.n_balls == 0
    assert lib.ab_model_partial_fit(h, x, k, 1) == lib.ST_OK and h.balls.n_balls == 1

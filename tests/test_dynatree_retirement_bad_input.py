"""Bad arguments of retirement: same exception and message in both backends,
raised before any state change (snapshot unchanged)."""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any

import pytest
from _dynatree_helpers import class_stream, regression_stream

from _compare import assert_snapshot_equal

BAD_REG_KW: list[dict[str, Any]] = [
    {"active_size": 0},
    {"active_size": -3},
    {"active_size": 2.5},
    {"active_size": True},
    {"retirement": "oldest"},
    {"retirement": "entropy"},
    {"lam": 0.0},
    {"lam": 1.5},
    {"lam": -0.2},
    {"lam": math.nan},
    {"lam": "0.9"},
    {"leaf": "linear", "active_size": 10},          # implicit intercept cannot retire
    {"rect": [(0.0, 1.0, 2.0)]},
    {"rect": [(1.0, 0.0)]},
    {"rect": [(0.0, math.inf)]},
    {"rect": [("a", 1.0)]},
    {"rect": 5},
    {"approx": "yes"},
]
BAD_CLASS_KW: list[dict[str, Any]] = [
    {"active_size": 0}, {"retirement": "alc"}, {"lam": 0.0}, {"lam": 2.0},
]


def _message(make: Any) -> str:
    with pytest.raises(ValueError) as info:
        make()
    return str(info.value)


@pytest.mark.parametrize("k", range(len(BAD_REG_KW)))
def test_bad_regressor_arguments_same_message(both: tuple[ModuleType, ModuleType],
                                              k: int) -> None:
    ref, fast = both
    kw = BAD_REG_KW[k]
    msg = _message(lambda: ref.DynamicTreeRegressor(**kw))
    assert msg == _message(lambda: fast.DynamicTreeRegressor(**kw))


@pytest.mark.parametrize("k", range(len(BAD_CLASS_KW)))
def test_bad_classifier_arguments_same_message(both: tuple[ModuleType, ModuleType],
                                               k: int) -> None:
    ref, fast = both
    kw = BAD_CLASS_KW[k]
    msg = _message(lambda: ref.DynamicTreeClassifier(classes=[0, 1], **kw))
    assert msg == _message(lambda: fast.DynamicTreeClassifier(classes=[0, 1], **kw))


def _fitted(backend: ModuleType, **kw: Any) -> Any:
    m = backend.DynamicTreeRegressor(n_particles=5, seed=2, active_size=20, **kw)
    for x, y in regression_stream(2, 30):
        m.learn_one(x, y)
    return m


BAD_RETIRE: list[tuple[Any, Any, type[Exception]]] = [
    ([20], 1.0, IndexError),
    ([-1], 1.0, IndexError),
    ([0, 25], 1.0, IndexError),
    ([], 1.0, ValueError),
    (list(range(20)), 1.0, ValueError),       # nothing would remain
    ([1.0], 1.0, ValueError),
    (["a"], 1.0, ValueError),
    ([True], 1.0, ValueError),
    (None, 1.0, ValueError),
    ([0], 0.0, ValueError),
    ([0], 1.1, ValueError),
    ([0], math.nan, ValueError),
]


@pytest.mark.parametrize("k", range(len(BAD_RETIRE)))
def test_bad_retire_leaves_model_unchanged(backend: ModuleType, k: int) -> None:
    m = _fitted(backend)
    indices, lam, exc = BAD_RETIRE[k]
    before = m.snapshot()
    with pytest.raises(exc):
        m.retire(indices, lam=lam)
    assert_snapshot_equal(before, m.snapshot())
    m.retire([0, 0, 3])   # still usable; duplicates ignored
    assert len(m.active_y_) == 18


def test_retire_before_fit_and_on_implicit_linear(backend: ModuleType) -> None:
    m = backend.DynamicTreeRegressor(n_particles=3)
    with pytest.raises(IndexError):
        m.retire([0])
    lin = backend.DynamicTreeRegressor(leaf="linear", n_particles=3, seed=1)
    for x, y in regression_stream(1, 20):
        lin.learn_one(x, y)
    before = lin.snapshot()
    with pytest.raises(ValueError):
        lin.retire([0])
    assert_snapshot_equal(before, lin.snapshot())


def test_statistic_of_the_wrong_task(backend: ModuleType) -> None:
    reg = _fitted(backend)
    with pytest.raises(ValueError):
        reg.entropy_active()
    clf = backend.DynamicTreeClassifier(classes=[0, 1, 2], n_particles=4, active_size=10)
    for x, y in class_stream(1, 20):
        clf.learn_one(x, y)
    with pytest.raises(ValueError):
        clf.alc_active()
    with pytest.raises(ValueError):
        clf.alc([[0.1, 0.2]])
    assert len(clf.entropy_active()) == 10


@pytest.mark.parametrize("rows,rect", [
    ([[0.1]], None), ([[math.nan, 0.2]], None), ([["a", 0.1]], None),
    ([[0.1, 0.2]], [(0.0, 1.0)]), ([[0.1, 0.2]], [(0.0, 1.0), (2.0, 1.0)]),
    ([[0.1, 0.2]], "ab"),
])
def test_bad_alc_arguments_leave_model_unchanged(backend: ModuleType, rows: Any,
                                                 rect: Any) -> None:
    m = _fitted(backend, retirement="alc")
    before = m.snapshot()
    with pytest.raises(ValueError):
        m.alc(rows, rect=rect)
    assert_snapshot_equal(before, m.snapshot())


def test_rect_of_wrong_length_rejected_at_first_row(backend: ModuleType) -> None:
    m = backend.DynamicTreeRegressor(n_particles=3, active_size=5, retirement="alc",
                                     rect=[(0.0, 1.0)])
    before = m.snapshot()
    with pytest.raises(ValueError):
        m.learn_one([0.1, 0.2], 1.0)
    assert_snapshot_equal(before, m.snapshot())
    assert m.n_seen_ == 0
    m.learn_one([0.3], 1.0)
    assert m.n_features_in_ == 1

"""Bounded ``lpred_`` history: ``lpred_window`` of the dynamic-tree models.

``lpred_window=k`` keeps the last ``k`` steps' ``lpred_t`` (default 10,000, so memory stays
flat on unbounded streams); ``lpred_window=None`` keeps every step (dynaTree's ``lpred``,
[DT-SPEC §5.4]). The window changes nothing else: a windowed model
and its unbounded twin on the same stream have equal snapshots and
``log_marginal_likelihood_``, and the kept values are the twin's tail. Also: validation
(same message in both backends), pickling and deepcopy, and the loading of a format-1
state written before the parameter existed.
"""

from __future__ import annotations

import copy
import math
import pickle
from types import ModuleType
from typing import Any

import pytest
from _dynatree_helpers import class_stream, regression_stream

from _compare import assert_snapshot_equal
from reference.state import STATE_FORMAT_KEY

pytestmark = pytest.mark.dynatree

CONFIGS: dict[str, tuple[str, dict[str, Any]]] = {
    "constant": ("DynamicTreeRegressor", {}),
    "constant-active": ("DynamicTreeRegressor", {"active_size": 15, "retirement": "alc"}),
    "linear-active": ("DynamicTreeRegressor",
                      {"leaf": "linear", "intercept": "augmented", "min_leaf": 4,
                       "active_size": 15, "retirement": "historical", "lam": 0.9}),
    "class": ("DynamicTreeClassifier", {"classes": [0, 1, 2]}),
    "class-active": ("DynamicTreeClassifier",
                     {"classes": [0, 1, 2], "active_size": 15, "retirement": "entropy"}),
}


def _make(pkg: ModuleType, config: str, **kw: Any) -> Any:
    cls, extra = CONFIGS[config]
    return getattr(pkg, cls)(n_particles=6, seed=4, **extra, **kw)


def _data(config: str, n: int, seed: int = 0) -> list[tuple[list[float], Any]]:
    if CONFIGS[config][0] == "DynamicTreeClassifier":
        return class_stream(seed, n)
    return regression_stream(seed, n)


def _learn(model: Any, data: list[tuple[list[float], Any]]) -> None:
    """One row at a time for the first half, then one ``partial_fit`` batch."""
    half = len(data) // 2
    for x, y in data[:half]:
        model.learn_one(x, y)
    model.partial_fit([x for x, _ in data[half:]], [y for _, y in data[half:]])


def _tail(values: list[float], k: int) -> list[float]:
    return values[-k:] if k else []


@pytest.mark.parametrize("k", [0, 1, 7, 500])
@pytest.mark.parametrize("config", list(CONFIGS))
def test_window_keeps_the_tail_and_changes_nothing_else(backend: ModuleType, config: str,
                                                        k: int) -> None:
    data = _data(config, 60)
    full = _make(backend, config)
    kept = _make(backend, config, lpred_window=k)
    assert kept.lpred_ == [] and kept.get_params()["lpred_window"] == k
    for step, (x, y) in enumerate(data[:30]):
        full.learn_one(x, y)
        kept.learn_one(x, y)
        assert kept.lpred_ == _tail(full.lpred_, k), step
    full.partial_fit([x for x, _ in data[30:]], [y for _, y in data[30:]])
    kept.partial_fit([x for x, _ in data[30:]], [y for _, y in data[30:]])
    assert len(full.lpred_) == full.n_seen_ == kept.n_seen_ == 60
    assert kept.lpred_ == _tail(full.lpred_, k)
    assert len(kept.lpred_) == min(k, 60)
    assert kept.log_marginal_likelihood_ == full.log_marginal_likelihood_
    assert math.fsum(full.lpred_) == pytest.approx(full.log_marginal_likelihood_, abs=1e-9)
    assert_snapshot_equal(full.snapshot(), kept.snapshot())


def test_unbounded_history_is_the_model_list(backend: ModuleType) -> None:
    """Full history (opt-in): ``lpred_`` is the stored list itself (no copy per read)."""
    m = _make(backend, "constant", lpred_window=None)
    _learn(m, _data("constant", 20))
    assert m.lpred_ is m.lpred_ and isinstance(m.lpred_, list) and len(m.lpred_) == 20
    w = _make(backend, "constant", lpred_window=5)
    _learn(w, _data("constant", 20))
    assert isinstance(w.lpred_, list) and len(w.lpred_) == 5
    w.lpred_.append(1.0)  # a copy: the model's window is unchanged
    assert len(w.lpred_) == 5


def test_backends_agree(both: tuple[ModuleType, ModuleType]) -> None:
    """Lockstep: same lpred_, predictions and snapshot() after every learned row."""
    data = _data("constant-active", 50)
    models = [_make(pkg, "constant-active", lpred_window=9) for pkg in both]
    for step, (x, y) in enumerate(data):
        for m in models:
            m.learn_one(x, y)
        assert models[0].lpred_ == models[1].lpred_, step
        assert models[0].predict_one(x) == models[1].predict_one(x), step
        assert_snapshot_equal(models[0].snapshot(), models[1].snapshot(), step=step)
    for m in models:  # and a batch
        _learn(m, data)
    assert models[0].lpred_ == models[1].lpred_
    assert_snapshot_equal(models[0].snapshot(), models[1].snapshot())


@pytest.mark.parametrize("bad", [-1, -1_000, 1_000_000_001, 2.0, 1.5, True, False, "3",
                                 math.nan])
@pytest.mark.parametrize("cls", ["DynamicTreeRegressor", "DynamicTreeClassifier"])
def test_bad_window_is_refused_with_one_message(both: tuple[ModuleType, ModuleType],
                                                cls: str, bad: Any) -> None:
    messages = []
    for pkg in both:
        with pytest.raises(ValueError) as info:
            getattr(pkg, cls)(lpred_window=bad)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert messages[0] == f"lpred_window must be None or an int in [0, 1000000000], got {bad!r}"


def test_params_and_clone(backend: ModuleType) -> None:
    for config in ("constant", "class"):
        m = _make(backend, config, lpred_window=3)
        assert m.get_params()["lpred_window"] == 3
        assert _make(backend, config).get_params()["lpred_window"] == 10_000  # bounded default
        _learn(m, _data(config, 12))
        twin = m.clone()
        assert twin.get_params() == m.get_params() and twin.lpred_ == []
        _learn(twin, _data(config, 12))
        assert twin.lpred_ == m.lpred_


TRIPS = {"pickle": lambda m: pickle.loads(pickle.dumps(m)), "deepcopy": copy.deepcopy}


@pytest.mark.parametrize("trip", list(TRIPS))
@pytest.mark.parametrize("k", [None, 0, 4])
@pytest.mark.parametrize("config", ["constant-active", "class-active"])
def test_round_trip_keeps_window_and_values(backend: ModuleType, config: str,
                                            k: int | None, trip: str) -> None:
    data = _data(config, 50)
    m = _make(backend, config, lpred_window=k)
    _learn(m, data[:30])
    r = TRIPS[trip](m)
    assert r.get_params() == m.get_params()
    assert r.lpred_ == m.lpred_
    assert len(r.lpred_) == (30 if k is None else k)
    assert_snapshot_equal(m.snapshot(), r.snapshot())
    for x, y in data[30:]:
        m.learn_one(x, y)
        r.learn_one(x, y)
    assert r.lpred_ == m.lpred_ and len(r.lpred_) == (50 if k is None else k)
    assert_snapshot_equal(m.snapshot(), r.snapshot())


def _old_state(model: Any) -> dict[str, Any]:
    """By hand, the format-1 state a model wrote before ``lpred_window`` existed: the
    attribute dict with the plain list ``lpred_`` (fast: plus the C snapshot and the
    generator state) and parameters without the field."""
    # the layout of today's state is the old one (tests/dynatree/test_pickle_layout.py)
    state = dict(model.__getstate__())
    assert isinstance(state["lpred_"], list) and "_lpred" not in state
    params = copy.copy(model._params)
    object.__delattr__(params, "lpred_window")  # the old DynamicTreeParams had no field
    assert "lpred_window" not in vars(params)
    state["_params"] = params
    state[STATE_FORMAT_KEY] = 1
    return copy.deepcopy(state)


@pytest.mark.parametrize("config", ["constant", "constant-active", "linear-active", "class"])
def test_state_written_before_lpred_window_still_loads(backend: ModuleType,
                                                       config: str) -> None:
    data = _data(config, 40)
    m = _make(backend, config, lpred_window=None)   # what every model kept before the field
    _learn(m, data[:25])
    blob = pickle.dumps(_old_state(m))
    old = type(m).__new__(type(m))
    old.__setstate__(pickle.loads(blob))
    assert old.get_params() == m.get_params() and old.get_params()["lpred_window"] is None
    assert old.lpred_ == m.lpred_ and len(old.lpred_) == 25
    assert_snapshot_equal(m.snapshot(), old.snapshot())
    for x, y in data[25:]:
        m.learn_one(x, y)
        old.learn_one(x, y)
    assert old.lpred_ == m.lpred_
    assert_snapshot_equal(m.snapshot(), old.snapshot())
    # and it is written back in the current layout
    again = pickle.loads(pickle.dumps(old))
    assert again.lpred_ == m.lpred_ and "lpred_window" in vars(again._params)


def test_default_history_is_bounded(backend: ModuleType) -> None:
    """At default settings ``lpred_`` keeps the last 10,000 steps, so a model with an active
    pool does not grow with the stream; the marginal likelihood still sums every step."""
    m = backend.DynamicTreeRegressor(n_particles=2, active_size=50, seed=1)
    rows = regression_stream(3, 10_050)
    xs = [x for x, _ in rows]
    ys = [y for _, y in rows]
    m.partial_fit(xs, ys)
    assert len(m.lpred_) == 10_000 and m.n_seen_ == 10_050
    assert m.log_marginal_likelihood_ != sum(m.lpred_)

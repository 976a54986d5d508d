"""Serialisation: pickle / deepcopy / clone round trips and the versioned state format.

For every model configuration and both backends: the restored model has the same
``snapshot()`` (generator state included) and then continues bit-identically with the
original on the rest of the stream (25 rows; 10 in the quick run). ``__getstate__``
carries the state-format version of :mod:`reference.state`; a state with an unknown
(future) version or without one is refused with :class:`reference.state.StateFormatError`
naming the model and the version.
"""

from __future__ import annotations

import copy
import pickle
from types import ModuleType
from typing import Any

import pytest
from _hardening_models import SPECS, Spec, prediction_calls, stream

from _compare import assert_snapshot_equal
from _run_size import sized
from reference.state import STATE_FORMAT_KEY, STATE_FORMAT_VERSION, StateFormatError

N_AFTER = sized(quick=10, full=25)
"""Rows learned by the original and the restored model side by side."""

ROUND_TRIPS = {
    "pickle": lambda m: pickle.loads(pickle.dumps(m)),
    "pickle-protocol-2": lambda m: pickle.loads(pickle.dumps(m, protocol=2)),
    "deepcopy": copy.deepcopy,
}


def _params() -> list[Any]:
    out = []
    for spec in SPECS:
        marks: list[Any] = [pytest.mark.dynatree] if spec.dt else []
        out.append(pytest.param(spec, id=spec.id, marks=marks))
    return out


def _predictions(spec: Spec, model: Any, x: Any) -> list[Any]:
    return [call(model, x) for call in prediction_calls(spec)]


@pytest.mark.parametrize("trip", list(ROUND_TRIPS))
@pytest.mark.parametrize("n_before", [0, 5, 40])
@pytest.mark.parametrize("spec", _params())
def test_round_trip_continues_identically(backend: ModuleType, spec: Spec, n_before: int,
                                          trip: str) -> None:
    data = stream(spec, n_before + N_AFTER, seed=11)
    model = spec.make(backend)
    for x, y in data[:n_before]:
        model.learn_one(x, y)
    restored = ROUND_TRIPS[trip](model)
    assert type(restored) is type(model)
    assert_snapshot_equal(model.snapshot(), restored.snapshot(), path=trip)
    assert restored.get_params().keys() == model.get_params().keys()
    if hasattr(model, "rng"):
        assert list(restored.rng.state) == list(model.rng.state)
    for step, (x, y) in enumerate(data[n_before:]):
        assert _predictions(spec, model, x) == _predictions(spec, restored, x), step
        model.learn_one(x, y)
        restored.learn_one(x, y)
        assert_snapshot_equal(model.snapshot(), restored.snapshot(), step=step)
    # the copy is independent: learning on one leaves the other unchanged
    before = restored.snapshot()
    x, y = data[0]
    model.learn_one(x, y)
    assert_snapshot_equal(before, restored.snapshot(), path="independence")


@pytest.mark.parametrize("spec", _params())
def test_partial_fit_after_round_trip(both: tuple[ModuleType, ModuleType], spec: Spec) -> None:
    """A pickled fast model and a pickled reference model continue in lockstep."""
    data = stream(spec, 40, seed=12)
    xs, ys = [x for x, _ in data], [y for _, y in data]
    models = []
    for pkg in both:
        m = spec.make(pkg)
        m.partial_fit(xs[:20], ys[:20])
        models.append(pickle.loads(pickle.dumps(m)))
    for m in models:
        m.partial_fit(xs[20:], ys[20:])
    assert_snapshot_equal(models[0].snapshot(), models[1].snapshot())


@pytest.mark.parametrize("spec", _params())
def test_clone_is_fresh_with_same_params(backend: ModuleType, spec: Spec) -> None:
    model = spec.make(backend)
    for x, y in stream(spec, 20, seed=13):
        model.learn_one(x, y)
    fresh = spec.make(backend)
    twin = model.clone()
    assert type(twin) is type(model)
    assert twin.get_params().keys() == model.get_params().keys()
    for key, value in model.get_params().items():
        if key != "loss":
            assert twin.get_params()[key] == value, key
    assert_snapshot_equal(fresh.snapshot(), twin.snapshot(), path="clone")


@pytest.mark.parametrize("spec", _params())
def test_state_carries_format_version(backend: ModuleType, spec: Spec) -> None:
    model = spec.make(backend)
    for x, y in stream(spec, 10, seed=14):
        model.learn_one(x, y)
    state = model.__getstate__()
    assert state[STATE_FORMAT_KEY] == STATE_FORMAT_VERSION


@pytest.mark.parametrize("version", [STATE_FORMAT_VERSION + 1, 0, "1", None])
@pytest.mark.parametrize("spec", _params())
def test_unknown_state_format_is_refused(backend: ModuleType, spec: Spec,
                                         version: Any) -> None:
    model = spec.make(backend)
    for x, y in stream(spec, 10, seed=15):
        model.learn_one(x, y)
    reducer = model.__reduce_ex__(2)
    state = dict(reducer[2])
    if version is None:
        del state[STATE_FORMAT_KEY]
    else:
        state[STATE_FORMAT_KEY] = version
    blob = pickle.dumps((reducer[0], reducer[1], state))
    func, args, st = pickle.loads(blob)
    target = func(*args)
    with pytest.raises(StateFormatError) as info:
        target.__setstate__(st)
    message = str(info.value)
    assert type(model).__name__ in message
    assert "format" in message
    if version is not None:
        assert repr(version) in message

"""Tampered and foreign pickles raise ``StateFormatError`` (issue 47, item 3).

A pickle restores only in the backend that wrote it (model files move models between
backends). A state of the other backend unpickled into a class, a state with an entry
missing or of the wrong type, and an all-zero generator state each raise
``StateFormatError`` naming the model, in both backends, instead of ``KeyError: '_snap'``
(a reference dynamic tree under the fast class), a model that loads and then fails in
``partial_fit`` with ``AttributeError`` (a reference ``SGTClassifier`` under the fast
class), or a plain ``ValueError`` (an all-zero ``_rng_state``).
"""

from __future__ import annotations

import copy
import pickle
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import fast
import reference
from reference.state import StateFormatError

X = np.random.default_rng(0).random((30, 3))
Y = X[:, 0] + 0.1 * X[:, 1]
YC = (Y > 0.5).astype(int)
NAMES = ("DynamicTreeRegressor", "DynamicTreeClassifier", "SGTRegressor", "SGTClassifier",
         "SGTMultiInstanceClassifier", "SGT", "ABACOCClassifier")


def _fitted(backend: ModuleType, name: str) -> Any:
    if name == "SGTMultiInstanceClassifier":
        model = backend.SGTMultiInstanceClassifier()
        model.partial_fit([X[i:i + 3] for i in range(10)], [i % 2 for i in range(10)],
                          classes=[0, 1])
        return model
    model = getattr(backend, name)(**({"n_particles": 10} if "Dynamic" in name else {}))
    extra = {"classes": [0, 1]} if name in ("SGTClassifier", "DynamicTreeClassifier") else {}
    model.partial_fit(X, YC if "Class" in name else Y, **extra)
    return model


def _use(model: Any, name: str) -> Any:
    if name == "SGTMultiInstanceClassifier":
        model.partial_fit([X[:3]], [1])
        return model.predict([X[:3]]).tolist()
    model.partial_fit(X[:3], (YC if "Class" in name else Y)[:3])
    return model.predict(X[:3]).tolist()


def _restore(backend: ModuleType, name: str, state: Any) -> Any:
    cls = getattr(backend, name)
    model = cls.__new__(cls)
    model.__setstate__(state)
    return model


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("direction", ["reference->fast", "fast->reference"])
def test_a_pickled_state_of_the_other_backend(name: str, direction: str) -> None:
    """Refused with ``StateFormatError`` naming the model; ABACOC pickles hold the
    checked plain data of a model file, so its state restores in either backend and then
    continues exactly as the source model."""
    src, dst = (reference, fast) if direction == "reference->fast" else (fast, reference)
    model = _fitted(src, name)
    state = copy.deepcopy(model.__reduce_ex__(4)[2])
    if name == "ABACOCClassifier":
        restored = _restore(dst, name, state)
        assert restored.snapshot() == model.snapshot()
        assert _use(restored, name) == _use(model, name)
        return
    with pytest.raises(StateFormatError, match=f"cannot restore {name}"):
        _restore(dst, name, state)


@pytest.mark.parametrize("name", NAMES)
def test_entries_removed_or_replaced(backend: ModuleType, name: str) -> None:
    """Every entry of a pickled state removed, or replaced by None, by an int or by a
    string: the state restores into a model that works, or raises ``StateFormatError``;
    never another exception."""
    model = _fitted(backend, name)
    state = model.__reduce_ex__(4)[2]
    for key in [k for k in state if k != "__driftwood_state_format__"]:
        for change in ("remove", None, 7, "x"):
            bad = copy.deepcopy(state)
            if change == "remove":
                del bad[key]
            else:
                bad[key] = change
            try:
                restored = _restore(backend, name, bad)
            except StateFormatError:
                continue
            _use(restored, name)


def test_an_all_zero_generator_state(backend: ModuleType) -> None:
    """An all-zero generator state in a pickle: ``StateFormatError``; one word set (the
    state next to it) restores and learns."""
    model = _fitted(backend, "DynamicTreeRegressor")
    for words, refused in (((0, 0, 0, 0), True), ((0, 0, 0, 1), False)):
        if backend is fast:              # the engine's entry of the state
            state = copy.deepcopy(model.__reduce_ex__(4)[2])
            state["_rng_state"] = words
            data = None
        else:                            # the pickled generator object
            state = None
            twin = copy.deepcopy(model)
            rng = twin._engine._rng
            rng._s0, rng._s1, rng._s2, rng._s3 = words
            data = pickle.dumps(twin)
        if refused:
            with pytest.raises(StateFormatError, match="all.zero"):
                _restore_words(backend, state, data)
        else:
            _use(_restore_words(backend, state, data), "DynamicTreeRegressor")


def _restore_words(backend: ModuleType, state: Any, data: bytes | None) -> Any:
    if data is None:
        return _restore(backend, "DynamicTreeRegressor", state)
    return pickle.loads(data)


def test_a_generator_pickled_all_zero(backend: ModuleType) -> None:
    """The generator itself refuses an all-zero state when unpickled, in both backends
    alike."""
    rng = backend.Rng(1)
    rng.__setstate__((0, 0, 0, 1))
    with pytest.raises(StateFormatError, match="all zero"):
        rng.__setstate__((0, 0, 0, 0))

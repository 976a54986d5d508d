"""A class joining the SGT softmax committee in place: the model of the state path, bit
for bit, in amortised constant time ([SGT-SPEC §16.2]).

:func:`reference.sgt.new_class.with_new_class` builds the grown model through the model's
state (the specification of growth); :func:`reference.sgt.new_class.add_class` appends the
fresh tree in place. Checked in both backends, with per-leaf and global quantization, while
the warm-up still buffers and after it:

- after each of several labels joined, and after rows of the new labels are learned, the
  in-place model's snapshot, facade state and ``classes`` parameter equal those of the
  state path, and the two backends agree;
- :func:`drop_class` puts the model back as it was (snapshot and classes);
- two classes (the loss changes) are not grown in place: ``add_class`` returns False and
  changes nothing;
- the C trees array grows by doubling: after n trees its capacity is the initial one times
  a power of two, below 2n (amortised constant time per class).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

from _compare import assert_snapshot_equal
from reference.sgt.new_class import add_class, drop_class, with_new_class


def _rows(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 3))
    return X, (3 * X[:, 0]).astype(int)               # labels 0, 1, 2


def _state(model: Any) -> tuple[Any, Any, Any]:
    return model.snapshot(), model._fitted_state(), model.get_params()["classes"]


def _same(a: Any, b: Any) -> None:
    assert_snapshot_equal(a[0], b[0])
    assert_snapshot_equal(a[1], b[1])
    assert a[2] == b[2]


@pytest.mark.parametrize("quantization", ["leaf", "global"])
@pytest.mark.parametrize("warm", [True, False], ids=["during-warm-up", "after-warm-up"])
def test_in_place_growth_is_the_state_path_bit_for_bit(both: tuple[ModuleType, ModuleType],
                                                       quantization: str,
                                                       warm: bool) -> None:
    X, y = _rows(120, seed=1)
    states = []
    for pkg in both:
        kwargs = {"warmup": 500 if warm else 30, "grace_period": 10, "delta": 0.2,
                  "quantization": quantization}
        grown = pkg.SGTClassifier(classes=[0, 1, 2], **kwargs).partial_fit(X[:60], y[:60])
        twin = pkg.SGTClassifier(classes=[0, 1, 2], **kwargs).partial_fit(X[:60], y[:60])
        rng = np.random.default_rng(2)
        for label in range(3, 9):
            with grown._lock:
                assert add_class(grown, label)
            twin._adopt(with_new_class(twin, label))
            _same(_state(grown), _state(twin))
            rows = rng.uniform(size=(6, 3))
            labels = [label, int(rng.integers(0, label + 1)), label, 0, 1, label]
            for one in (grown, twin):
                for row, target in zip(rows, labels, strict=True):
                    one.learn_one(list(row), target)
            _same(_state(grown), _state(twin))
            np.testing.assert_array_equal(grown.predict_proba(X), twin.predict_proba(X))
        states.append(_state(grown))
    _same(states[0], states[1])


def test_drop_class_puts_the_model_back(backend: ModuleType) -> None:
    X, y = _rows(80, seed=3)
    model = backend.SGTClassifier(classes=[0, 1, 2], warmup=20, grace_period=10).fit(X, y)
    before = _state(model)
    with model._lock:
        assert add_class(model, "new")
    assert list(model.classes_) == [0, 1, 2, "new"]
    drop_class(model)
    _same(before, _state(model))
    model.learn_one(list(X[0]), 1)                   # usable
    assert model.predict_proba(X).shape == (80, 3)


def test_two_classes_take_the_state_path(backend: ModuleType) -> None:
    X, y = _rows(40, seed=4)
    model = backend.SGTClassifier(classes=[0, 1], warmup=20).fit(X, y > 0)
    before = _state(model)
    assert not add_class(model, 2)
    _same(before, _state(model))


def test_the_c_committee_grows_by_doubling() -> None:
    fast = pytest.importorskip("fast")
    X, y = _rows(40, seed=5)
    model = fast.SGTClassifier(classes=[0, 1, 2], warmup=20).fit(X, y)
    first = int(model._engine._m.trees_cap)
    assert first == 2
    for label in range(3, 40):
        with model._lock:
            assert add_class(model, label)
        n, cap = int(model._engine._m.n_trees), int(model._engine._m.trees_cap)
        assert n <= cap < 2 * n
        assert cap // first & (cap // first - 1) == 0          # first times a power of 2


def test_an_allocation_failure_leaves_the_model_as_it_was(
        both: tuple[ModuleType, ModuleType]) -> None:
    """Every allocation of the in-place step fails in turn: MemoryError, the model as
    before; then the step succeeds and gives the state path's model."""
    from _alloc_hook import sweep_allocation_failures

    reference, fast = both
    X, y = _rows(60, seed=6)
    model = fast.SGTClassifier(classes=[0, 1, 2], warmup=20, quantization="leaf").fit(X, y)
    for label in range(3, 5):                 # fill the first capacity: the next doubles
        with model._lock:
            add_class(model, label)
    before = _state(model)

    def grow() -> None:
        with model._lock:
            add_class(model, 5)

    injected = sweep_allocation_failures(grow, lambda n: _same(before, _state(model)),
                                         limit=200)
    assert injected >= 3                      # the trees array, the buffers, the tree
    twin = reference.SGTClassifier(classes=[0, 1, 2], warmup=20, quantization="leaf").fit(X, y)
    for label in range(3, 6):
        twin._adopt(with_new_class(twin, label))
    _same(_state(twin), _state(model))

"""One model used from many threads at once, and many models in many threads.

Every model serialises the calls made on it with its own re-entrant lock (held across each
public call, in both backends). Hammering one model from several threads must therefore
never crash, and must leave exactly the model that a single thread would have built by
making the same learning calls in the order the lock admitted them. The learner threads
record that order by taking the model's own lock around each call (the lock is re-entrant,
so the call itself takes it again); the reader threads call without it, at any moment.
Separate models share nothing and must give, in threads, exactly their serial results.

The pure-Python dynamic trees learn a few hundred rows a second: in the quick run
(``tests/common/_run_size.py``) their threads learn a third of the rows (still many
thread switches each); every other model, and the full run, uses all of them.
"""

from __future__ import annotations

import pickle
import threading
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from _run_size import sized
from reference.evaluation.datasets import friedman1

X, Y = friedman1(1200, seed=5)
LABELS = np.where(Y > np.median(Y), "hi", "lo")

MODELS = [
    ("ABACOCClassifier", {}, "class"),
    ("DynamicTreeRegressor", {"n_particles": 40}, "reg"),
    ("DynamicTreeClassifier", {"n_particles": 40, "classes": ["hi", "lo"]}, "class"),
    ("SGTRegressor", {"warmup": 100, "grace_period": 50}, "reg"),
    ("SGTClassifier", {"warmup": 100, "grace_period": 50, "classes": ["hi", "lo"]}, "class"),
]


def _targets(kind: str) -> Any:
    return LABELS if kind == "class" else Y


def _rows_per_thread(backend: ModuleType, name: str, full: int) -> int:
    """``full``, or a third of it for the reference dynamic trees in the quick run."""
    slow = backend.__name__ == "reference" and name.startswith("DynamicTree")
    return sized(quick=full // 3, full=full) if slow else full


@pytest.mark.parametrize(("name", "kwargs", "kind"), MODELS)
def test_one_model_hammered_by_threads_equals_its_serial_twin(
    backend: ModuleType, name: str, kwargs: dict[str, Any], kind: str
) -> None:
    model = getattr(backend, name)(**kwargs)
    y = _targets(kind)
    model.partial_fit(X[:40], y[:40])           # fixes width (and classes) before the race
    admitted: list[tuple[str, int, int]] = []   # (call, first row, last row + 1)
    errors: list[BaseException] = []
    stop = threading.Event()

    def learner(start: int, stop_row: int) -> None:
        try:
            i = start
            while i < stop_row:
                if (i - start) % 50 == 49:      # now and then a batch of up to 20 rows
                    end = min(i + 20, stop_row)
                    with model._lock:
                        model.partial_fit(X[i:end], y[i:end])
                        admitted.append(("batch", i, end))
                    i = end
                else:
                    with model._lock:
                        model.learn_one(X[i].tolist(), y[i])
                        admitted.append(("one", i, i + 1))
                    i += 1
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    def reader() -> None:
        try:
            while not stop.is_set():
                model.predict_one(X[7].tolist())
                model.predict(X[:5])
                if kind == "class":
                    model.predict_proba_one(X[3].tolist())
                model.snapshot()
                pickle.dumps(model)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    rows = _rows_per_thread(backend, name, 150)
    learners = [threading.Thread(target=learner, args=(40 + rows * k, 40 + rows * (k + 1)))
                for k in range(3)]
    readers = [threading.Thread(target=reader) for _ in range(2)]
    for thread in readers + learners:
        thread.start()
    for thread in learners:
        thread.join()
    stop.set()
    for thread in readers:
        thread.join()
    assert not errors, errors

    twin = getattr(backend, name)(**kwargs)
    twin.partial_fit(X[:40], y[:40])
    for call, first, last in admitted:
        if call == "batch":
            twin.partial_fit(X[first:last], y[first:last])
        else:
            twin.learn_one(X[first].tolist(), y[first])
    assert model.snapshot() == twin.snapshot()
    assert model.n_seen_ == 40 + 3 * rows == 40 + sum(last - first for _, first, last in admitted)


@pytest.mark.parametrize(("name", "kwargs", "kind"), MODELS)
def test_separate_models_in_threads_give_their_serial_results(
    backend: ModuleType, name: str, kwargs: dict[str, Any], kind: str
) -> None:
    y = _targets(kind)
    rows = _rows_per_thread(backend, name, 300)
    slices = [slice(rows * k, rows * (k + 1)) for k in range(4)]
    serial = []
    for part in slices:
        model = getattr(backend, name)(**kwargs)
        model.partial_fit(X[part], y[part])
        serial.append(model.snapshot())
    threaded: list[Any] = [None] * len(slices)

    def run(k: int) -> None:
        model = getattr(backend, name)(**kwargs)
        for i in range(slices[k].start, slices[k].stop, 30):
            end = min(i + 30, slices[k].stop)
            model.partial_fit(X[i:end], y[i:end])
        threaded[k] = model.snapshot()

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(slices))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert threaded == serial


def test_the_lock_is_not_pickled_and_every_model_has_its_own(backend: ModuleType) -> None:
    model = backend.SGTRegressor()
    copy = pickle.loads(pickle.dumps(model))
    assert copy._lock is not model._lock
    assert "_lock" not in vars(model)
    model.set_params(lam=0.5)                   # restarting keeps the same lock
    assert model._lock.acquire(blocking=False)
    model._lock.release()


@pytest.mark.parametrize("name", ["SGTRegressor", "SGTClassifier"])
def test_a_pickled_state_is_the_model_when_the_state_was_taken(
        backend: ModuleType, name: str) -> None:
    """``__getstate__`` runs under the model's lock, pickle reads the state later: what it
    writes must be the model at ``__getstate__``, not the C engine as another thread has
    changed it since."""
    y = _targets("class" if name == "SGTClassifier" else "reg")
    model = getattr(backend, name)(warmup=100, grace_period=50)
    model.partial_fit(X[:300], y[:300])
    state = model.__getstate__()
    taken = model.snapshot()
    model.partial_fit(X[300:600], y[300:600])
    restored = getattr(backend, name).__new__(getattr(backend, name))
    restored.__setstate__(pickle.loads(pickle.dumps(state)))
    assert restored.snapshot() == taken
    assert restored.snapshot() != model.snapshot()

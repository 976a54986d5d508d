"""The C per-leaf entropy cache [AG13, §4.4] gives exactly the uncached values.

The fast classifier keeps each point set's leaf entropy until the set's statistics
change. After every step of runs with entropy retirement (and manual retirements with
forgetting, which collapse leaves and change priors), the cached ``entropy_active()``
must equal, bit for bit, a recomputation of every leaf (``dt_model_entropy_active_uncached``,
which neither reads nor writes the cache), a pickled copy (empty cache), and the reference.
"""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest
from _dynatree_helpers import class_stream

import fast
import reference
from fast._ffi import check, ffi, lib


def _uncached(model: Any) -> np.ndarray:
    n = int(model._engine._m.store.n)
    out = ffi.new("double[]", max(n, 1))
    check(lib.dt_model_entropy_active_uncached(model._engine._m, out), "entropy_active")
    return np.array([float(v) for v in ffi.unpack(out, n)], dtype=float)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.all(a.view(np.int64) == b.view(np.int64)))


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
@pytest.mark.parametrize("lam", [1.0, 0.7])
def test_cached_entropy_equals_uncached(seed: int, lam: float) -> None:
    kw: dict[str, Any] = {"classes": [0, 1, 2], "n_particles": 25, "seed": seed,
                          "active_size": 30, "retirement": "entropy", "lam": lam,
                          "min_leaf": 3}
    fm = fast.DynamicTreeClassifier(**kw)
    rm = reference.DynamicTreeClassifier(**kw)
    stream = class_stream(seed, 120)
    for step, (x, y) in enumerate(stream):
        fm.learn_one(x, y)
        rm.learn_one(x, y)
        if step % 17 == 16:  # a manual retirement with forgetting (collapses, priors)
            fm.retire([0, 3], lam=0.8)
            rm.retire([0, 3], lam=0.8)
        if step < 5:
            continue
        cached = fm.entropy_active()
        again = fm.entropy_active()  # served from the cache filled just above
        fresh = _uncached(fm)
        assert _same(cached, fresh), f"step {step}: cached != recomputed"
        assert _same(again, fresh), f"step {step}: second cached call != recomputed"
        if step % 10 == 0:
            copy = pickle.loads(pickle.dumps(fm))
            assert _same(copy.entropy_active(), cached), f"step {step}: pickled copy"
            assert _same(np.asarray(rm.entropy_active(), dtype=float), cached), \
                f"step {step}: reference"
    assert fm.snapshot() == rm.snapshot()


def test_uncached_rejects_regressor() -> None:
    m = fast.DynamicTreeRegressor(n_particles=5, seed=1)
    m.learn_one([0.1, 0.2], 1.0)
    m.learn_one([0.3, 0.4], 2.0)
    out = ffi.new("double[]", 2)
    with pytest.raises(RuntimeError):
        check(lib.dt_model_entropy_active_uncached(m._engine._m, out), "entropy_active")

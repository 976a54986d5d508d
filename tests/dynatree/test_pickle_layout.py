"""Dynamic trees: the pickled state keeps the layout older versions wrote (format 1).

The facades hold their mathematics in an engine object (``reference.dynatree.engine``,
``fast.dynatree.engine``), but a pickle still stores the flat attribute dict that models
wrote before engines were separate objects, so pickles of older versions load and continue
bit for bit. Checked: the exact keys of the state of fitted and unfitted models of both
backends, and that a ``fast`` state carrying the ``_cfg`` and ``_buffers`` entries of older
versions (``fast.dynatree.model._RowBuffers``) loads and continues as the original.
"""

from __future__ import annotations

import pickle
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from _compare import assert_snapshot_equal
from conftest import REFERENCE, require_fast

FACADE = {"_params", "_d", "_keys", "n_seen_", "lpred_", "__driftwood_state_format__",
          "_stream_rule"}  # the random-stream rule, since 0.2 ([DT-SPEC §0] item 6)
CLASSES = {"classes_", "_index", "_init_classes"}
PYTHON_ENGINE = {"_rng", "_roots", "_X", "_y", "_lml", "_t"}
PYTHON_FITTED = {"_cfg", "_minp", "_nstart"}
C_ENGINE = {"_snap", "_rng_state"}


def _models(pkg: ModuleType) -> dict[str, Any]:
    rng = np.random.default_rng(5)
    X = rng.uniform(size=(50, 3))
    y = X[:, 0] * 3 + np.sin(5 * X[:, 1])
    reg = pkg.DynamicTreeRegressor(n_particles=8, seed=2, active_size=30, retirement="alc")
    reg.partial_fit(X, y)
    cls = pkg.DynamicTreeClassifier(classes=[0, 1], n_particles=8, seed=4)
    cls.partial_fit(X, (y > 1.5).astype(int))
    return {"reg": reg, "cls": cls, "unfit": pkg.DynamicTreeRegressor(n_particles=5),
            "unfitc": pkg.DynamicTreeClassifier(n_particles=5)}


@pytest.mark.parametrize("backend", ["reference", "fast"])
def test_state_keys_are_those_older_versions_wrote(backend: str) -> None:
    pkg = REFERENCE if backend == "reference" else require_fast()
    for name, model in _models(pkg).items():
        want = set(FACADE)
        if name.startswith("cls") or name == "unfitc":
            want |= CLASSES
        if backend == "fast":
            want |= C_ENGINE
        else:
            want |= PYTHON_ENGINE | (PYTHON_FITTED if name in ("reg", "cls") else set())
        assert set(model.__getstate__()) == want, name


def test_fast_state_with_older_entries_loads_and_continues() -> None:
    fast = require_fast()
    from fast.dynatree.model import _RowBuffers

    rng = np.random.default_rng(8)
    X = rng.uniform(size=(30, 3))
    for name, model in _models(fast).items():
        state = model.__getstate__()
        if model.n_seen_:
            state["_cfg"] = model._engine._cfg          # what older versions also pickled
            state["_buffers"] = _RowBuffers(5)
        old = type(model).__new__(type(model))
        old.__setstate__(pickle.loads(pickle.dumps(state)))
        assert_snapshot_equal(model.snapshot(), old.snapshot())
        labels = (X[:, 0] > 0.5).astype(int)
        for m in (model, old):
            if name == "unfitc":
                m.partial_fit(X, labels, classes=[0, 1])
            else:
                for x, t in zip(X.tolist(), (labels if name == "cls" else X[:, 1]).tolist(),
                                strict=True):
                    m.learn_one(x, t)
        assert_snapshot_equal(model.snapshot(), old.snapshot())
        assert model.lpred_ == old.lpred_, name

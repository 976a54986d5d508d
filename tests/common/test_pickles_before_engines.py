"""Pickles written before the models held an engine still load, bit for bit.

``tests/data/pickles_before_engines.json.gz`` holds pickles of small SGT and ABACOC
models of both backends written by commit 9a772e8, when the SGT facades held their core
in ``_core`` (``reference.sgt.core.SGTCore``, ``fast.sgt.model.CCore``) and the reference
ABACOC facade its cover in ``_state``, with the snapshot and predictions each model gave
then. Unpickled now, every model must give the same snapshot and predictions, and keep
learning as a model that never went through the old format.
"""

from __future__ import annotations

import gzip
import json
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import require_fast

DATA = Path(__file__).resolve().parents[1] / "data" / "pickles_before_engines.json.gz"


def _stored() -> dict[str, Any]:
    with gzip.open(DATA, "rt", encoding="utf-8") as handle:
        stored: dict[str, Any] = json.load(handle)
    return stored


def _stream() -> tuple[np.ndarray, np.ndarray, list[str]]:
    rng = np.random.default_rng(11)
    X = rng.uniform(size=(80, 2))
    y = X[:, 0] * 4 + X[:, 1]
    return X, y, np.where(y > 2.5, "a", np.where(y > 1.5, "b", "c")).tolist()


@pytest.mark.parametrize("key", sorted(_stored()))
def test_old_pickle_loads_with_the_same_state(key: str) -> None:
    if key.startswith("fast."):
        require_fast()
    entry = _stored()[key]
    model = pickle.loads(bytes.fromhex(entry["pickle"]))
    assert json.loads(json.dumps(model.snapshot())) == entry["snapshot"]
    X, y, labels = _stream()
    predicted = [v if isinstance(v, str) else float(v) for v in model.predict(X[:20]).tolist()]
    assert predicted == entry["predict"]
    # it is the model this version builds from the same rows, and keeps learning as it
    target = labels if "Classifier" in key else y
    n = 10 if key.endswith(".SGT") else 80
    fresh = type(model)(**model.get_params()).partial_fit(X[:n], target[:n])
    assert fresh.snapshot() == model.snapshot()
    model.partial_fit(X, target)
    fresh.partial_fit(X, target)
    assert model.snapshot() == fresh.snapshot()
    assert "_core" not in vars(model) and "_state" not in vars(model)

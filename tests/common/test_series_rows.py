"""A pandas Series row (``df.iloc[i]``, ``iterrows()``) is matched by name, not position.

The same names in another order give the same answer; other names raise ``ValueError``;
a model fitted on mappings reads a Series like a dict; a Series with the default
``RangeIndex`` is read by position.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

pd = pytest.importorskip("pandas")

MODELS = [("SGTRegressor", {"grace_period": 10, "warmup": 10}, "reg"),
          ("DynamicTreeRegressor", {"n_particles": 5}, "reg"),
          ("SGTClassifier", {"grace_period": 10, "warmup": 10}, "cls"),
          ("DynamicTreeClassifier", {"n_particles": 5}, "cls"),
          ("ABACOCClassifier", {}, "cls")]


@pytest.mark.parametrize("name, kw, task", MODELS)
def test_a_series_row_is_matched_by_name(backend: ModuleType, name: str, kw: dict[str, Any],
                                         task: str) -> None:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.random((60, 3)), columns=["a", "b", "c"])
    y = 3.0 * frame.a + frame.b
    target = y if task == "reg" else (y > 2.0).astype(int)
    model = getattr(backend, name)(**kw).fit(frame, target)
    for i in (3, 17, 40):
        row = frame.iloc[i]
        by_position = model.predict_one(frame.to_numpy()[i].tolist())
        assert model.predict_one(row) == by_position
        assert model.predict_one(row[["c", "a", "b"]]) == by_position
    with pytest.raises(ValueError, match="unseen"):
        model.predict_one(pd.Series([0.1, 0.2, 0.3], index=["a", "b", "z"]))
    before = model.snapshot()
    shuffled = frame.iloc[5][["b", "c", "a"]]
    twin = getattr(backend, name)(**kw).fit(frame, target)
    model.learn_one(shuffled, target.iloc[5])
    twin.learn_one(frame.to_numpy()[5].tolist(), target.iloc[5])
    assert model.snapshot() == twin.snapshot() != before


def test_a_series_is_a_mapping_for_a_model_fitted_on_mappings(backend: ModuleType) -> None:
    model = backend.SGTRegressor(grace_period=5, warmup=5)
    rng = np.random.default_rng(1)
    for v in rng.random((20, 2)).tolist():
        model.learn_one({"u": v[0], "v": v[1]}, v[0])
    row = {"u": 0.3, "v": 0.8}
    assert model.predict_one(pd.Series(row)[["v", "u"]]) == model.predict_one(row)
    plain = backend.SGTRegressor(grace_period=5, warmup=5)
    plain.partial_fit(rng.random((20, 2)), rng.random(20))
    assert plain.predict_one(pd.Series([0.3, 0.8])) == plain.predict_one([0.3, 0.8])

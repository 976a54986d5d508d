"""A new label joins SGT's softmax committee ([SGT-SPEC §16.2], ``reference.sgt.new_class``).

The rule: the new class is appended and pinned at raw score 0; the formerly pinned class
gets a fresh tree (raw score 0, as before); every other tree is kept. Worked by hand: with
the old probabilities p and Z = sum_c exp(f_c) = 1 / p_pinned, the new probabilities are
``p_k Z / (Z + 1) = p_k / (1 + p_pinned)`` and ``p_pinned / (1 + p_pinned)`` for the new
class; from two classes (one logistic tree, f = log(p_1 / p_0)) to three:
``(1, e^f, 1) / (2 + e^f)``.
"""

from __future__ import annotations

import math
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from reference.sgt.new_class import with_new_class


def _trained(backend: ModuleType, classes: list[str], warmup: int = 10,
             n: int = 120) -> Any:
    model = backend.SGTClassifier(classes=classes, warmup=warmup, grace_period=20, bins=8)
    rng = np.random.default_rng(5)
    for _ in range(n):
        x = rng.normal(size=2)
        k = int(x[0] > 0) + (int(x[1] > 0.5) if len(classes) > 2 else 0)
        model.learn_one(list(x), classes[k])
    return model


def test_two_classes_become_three_worked_by_hand(backend: ModuleType) -> None:
    model = _trained(backend, ["a", "b"])
    before = model.snapshot()
    x = [0.3, -0.2]
    p = model.predict_proba_one(x)
    assert p["b"] > 0.9                               # a trained tree, far from 0
    grown = with_new_class(model, "c")
    assert model.snapshot() == before                 # the original is not changed
    ef = p["b"] / p["a"]                              # e^f of the logistic tree
    q = grown.predict_proba_one(x)
    assert grown.classes_ == ["a", "b", "c"]
    assert q == pytest.approx({"a": 1 / (2 + ef), "b": ef / (2 + ef), "c": 1 / (2 + ef)},
                              rel=1e-12)
    trees = grown.snapshot()["core"]["trees"]
    assert trees[1] == before["core"]["trees"][0]     # the logistic tree now scores b
    fresh = trees[0]
    assert len(fresh["nodes"]) == 1 and fresh["nodes"][0]["value"] == 0.0
    assert all(v == 0 for cell in fresh["nodes"][0]["cells"] for v in cell)


def test_three_classes_become_four_worked_by_hand(backend: ModuleType) -> None:
    model = _trained(backend, ["a", "b", "c"])
    x = [1.0, 1.0]
    p = model.predict_proba_one(x)
    assert p["a"] < 0.2 < p["b"]
    grown = with_new_class(model, "d")
    q = grown.predict_proba_one(x)
    pinned = p["c"]
    assert q == pytest.approx({"a": p["a"] / (1 + pinned), "b": p["b"] / (1 + pinned),
                               "c": pinned / (1 + pinned), "d": pinned / (1 + pinned)},
                              rel=1e-12)
    old = model.snapshot()["core"]["trees"]
    assert grown.snapshot()["core"]["trees"][:2] == old
    assert len(grown.snapshot()["core"]["trees"]) == 3


def test_grown_model_learns_the_new_class(backend: ModuleType) -> None:
    grown = with_new_class(_trained(backend, ["a", "b"]), "c")
    rng = np.random.default_rng(1)
    for _ in range(200):
        x = rng.normal(size=2)
        grown.learn_one([x[0], x[1] + 4.0], "c")
        grown.learn_one(list(x), "a" if x[0] < 0 else "b")
    assert grown.predict_one([0.0, 4.0]) == "c"
    with pytest.raises(ValueError, match="already a class"):
        with_new_class(grown, "a")


def test_growth_during_the_warm_up_and_in_lockstep(
        both: tuple[ModuleType, ModuleType]) -> None:
    ref, fast = (_trained(b, ["a", "b"], warmup=50, n=20) for b in both)
    assert not ref.snapshot()["core"]["frozen"]
    ref, fast = with_new_class(ref, "c"), with_new_class(fast, "c")
    assert ref.snapshot() == fast.snapshot()
    rng = np.random.default_rng(2)
    for i in range(120):
        x = list(rng.normal(size=2))
        assert ref.predict_proba_one(x) == fast.predict_proba_one(x)
        ref.learn_one(x, "abc"[i % 3])
        fast.learn_one(x, "abc"[i % 3])
    assert ref.snapshot() == fast.snapshot()


def test_adapter_learns_labels_as_they_arrive(backend: ModuleType) -> None:
    adapter = backend.to_river(backend.SGTClassifier(warmup=5))
    assert adapter.predict_proba_one({"u": 1.0}) == {} and adapter.predict_one({"u": 1.0}) is None
    adapter.learn_one({"u": 1.0}, "a")
    adapter.learn_one({"u": 2.0}, "a")
    # one label: nothing to learn, the label is predicted with probability 1
    assert adapter.model.n_seen_ == 0
    assert adapter.predict_proba_one({"u": 0.0}) == {"a": 1.0}
    adapter.learn_one({"u": 3.0}, "b")
    assert adapter.model.classes_ == ["a", "b"] and adapter.model.n_seen_ == 1
    adapter.learn_one({"u": 4.0}, "c")
    assert adapter.model.classes_ == ["a", "b", "c"] and adapter.model.n_seen_ == 2
    assert set(adapter.predict_proba_one({"u": 1.0})) == {"a", "b", "c"}
    # the clone is the model as given: classes=None
    assert adapter.clone().model.get_params()["classes"] is None
    fixed = backend.to_river(backend.SGTClassifier(classes=["a", "b"]))
    fixed.learn_one({"u": 1.0}, "a")
    with pytest.raises(ValueError):
        fixed.learn_one({"u": 1.0}, "c")
    assert fixed.model.classes_ == ["a", "b"]
    # classes fixed by an earlier partial_fit are kept too
    fitted = backend.SGTClassifier().partial_fit([[0.0], [1.0]], ["a", "b"])
    adapter = backend.to_river(fitted)
    with pytest.raises(ValueError):
        adapter.learn_one({"u": 1.0}, "c")
    assert fitted.classes_ == ["a", "b"] and fitted.n_seen_ == 2


def test_pickled_grown_adapter_continues_identically(backend: ModuleType) -> None:
    import pickle

    adapter = backend.to_river(backend.SGTClassifier(warmup=5))
    for i in range(30):
        adapter.learn_one({"u": float(i % 7), "v": float(i % 3)}, "abcd"[i % 4 if i > 9 else 0])
    copy = pickle.loads(pickle.dumps(adapter))
    for a in (adapter, copy):
        a.learn_one({"u": 1.0}, "e")
    assert copy.model.snapshot() == adapter.model.snapshot()
    assert math.isclose(sum(copy.predict_proba_one({"v": 2.0}).values()), 1.0)


@pytest.mark.parametrize("kwargs", [{"quantization": "global"},
                                    {"nominal": {0: 3}, "feature_ranges": {1: (-3.0, 3.0)}}])
def test_growth_with_other_quantizer_settings_in_lockstep(
        both: tuple[ModuleType, ModuleType], kwargs: dict[str, Any]) -> None:
    grown = []
    for b in both:
        model = b.SGTClassifier(classes=["a", "b", "c"], warmup=5, grace_period=10, **kwargs)
        rng = np.random.default_rng(6)
        for i in range(60):
            model.learn_one([float(i % 3), float(rng.normal())], "abc"[i % 3])
        grown.append(with_new_class(model, "d"))
    ref, fast = grown
    assert ref.snapshot() == fast.snapshot()
    for i in range(60):
        x = [float(i % 3), float(i % 5) - 2.0]
        ref.learn_one(x, "abcd"[i % 4])
        fast.learn_one(x, "abcd"[i % 4])
    assert ref.snapshot() == fast.snapshot()
    assert ref.predict_proba_one([1.0, 0.0]) == fast.predict_proba_one([1.0, 0.0])


def test_grown_model_is_saved_and_loaded_in_either_backend(
        both: tuple[ModuleType, ModuleType], tmp_path: Path) -> None:
    import pickle

    ref, fast = both
    grown = with_new_class(_trained(fast, ["a", "b"]), "c")
    grown.save(tmp_path / "m.gz")
    for backend in (ref, fast):
        loaded = backend.load(tmp_path / "m.gz")
        assert loaded.classes_ == ["a", "b", "c"] and loaded.snapshot() == grown.snapshot()
    assert pickle.loads(pickle.dumps(grown)).snapshot() == grown.snapshot()

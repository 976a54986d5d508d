"""A new label joins the class leaves ([DT-SPEC §12.2], :mod:`reference.dynatree.new_class`).

The rule: every leaf's counts (and retired counts) are extended by 0, the prior becomes
Dirichlet(1/(C+1), ..., 1/(C+1)) and each leaf's log evidence is recomputed with it.
Worked by hand: a leaf of counts (2, 1) has, with three classes,
``ell = -lgamma(3 + 1) + lgamma(2 + 1/3) + lgamma(1 + 1/3) + lgamma(0 + 1/3) - 3 lgamma(1/3)``
(the Dirichlet-multinomial evidence of [DT-SPEC §3.3]); a one-leaf model that learned
b, a, a, then met c and learned it predicts ``(c_k + 1/3) / (4 + 1)``: 7/15, 4/15, 4/15.
"""

from __future__ import annotations

from math import lgamma
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from reference.dynatree.new_class import grown_leaf, with_new_class


def test_grown_leaf_worked_by_hand() -> None:
    record = [1, -1, [0, 3, 4], [0.0, 2, 1, 0.0, 0.0], -9.0]
    depth, marker, points, stats, ell = grown_leaf(record, 2)
    assert (depth, marker, points) == (1, -1, [0, 3, 4])
    assert stats == [0.0, 2, 1, 0, 0.0, 0.0, 0.0]
    third = 1.0 / 3.0
    by_hand = (-lgamma(4.0) + lgamma(2 + third) + lgamma(1 + third) + lgamma(third)
               - 3 * lgamma(third))
    assert ell == pytest.approx(by_hand, rel=1e-13)
    # retired mass nu and retired counts take part: nu = 1.5, g = (0.5, 1.0)
    _, _, _, stats, ell = grown_leaf([2, -1, [7], [1.5, 1, 0, 0.5, 1.0], 0.0], 2)
    assert stats == [1.5, 1, 0, 0, 0.5, 1.0, 0.0]
    by_hand = (-lgamma(1 + 1.5 + 1) + lgamma(1 + 0.5 + third) + lgamma(0 + 1.0 + third)
               + lgamma(third) - 3 * lgamma(third))
    assert ell == pytest.approx(by_hand, rel=1e-13)


def test_one_leaf_model_predicts_the_grown_counts_by_hand(backend: ModuleType) -> None:
    adapter = backend.to_river(backend.DynamicTreeClassifier(n_particles=4, seed=2))
    x = {"u": 0.5}          # one value: no split is possible, every particle is one leaf
    for label in "abaa":
        adapter.learn_one(x, label)
    assert adapter.model.classes_ == ["a", "b"] and adapter.model.n_seen_ == 3
    assert adapter.predict_proba_one(x) == pytest.approx({"a": 2.5 / 4, "b": 1.5 / 4})
    adapter.learn_one(x, "c")
    assert adapter.model.classes_ == ["a", "b", "c"]
    assert adapter.predict_proba_one(x) == pytest.approx(
        {"a": 7 / 15, "b": 4 / 15, "c": 4 / 15}, rel=1e-12)


def test_growth_keeps_particles_rows_and_random_state(backend: ModuleType) -> None:
    model = backend.DynamicTreeClassifier(classes=["a", "b"], n_particles=8, seed=4)
    rng = np.random.default_rng(0)
    for _ in range(60):
        x = rng.normal(size=2)
        model.learn_one(list(x), "ab"[int(x[0] > 0)])
    before = model.snapshot()
    grown = with_new_class(model, "c")
    assert model.snapshot() == before
    after = grown.snapshot()
    for key in ("X", "y", "rng_state", "log_marginal_likelihood"):
        assert after[key] == before[key]
    for old, new in zip(before["particles"], after["particles"], strict=True):
        assert len(old) == len(new)
        for a, b in zip(old, new, strict=True):
            if b[1] == -1:
                assert b == grown_leaf(a, 2)
            else:
                assert a == b
    with pytest.raises(ValueError, match="already a class"):
        with_new_class(grown, "b")


def test_growth_in_lockstep(both: tuple[ModuleType, ModuleType]) -> None:
    models = []
    for b in both:
        m = b.DynamicTreeClassifier(classes=[0, 1], n_particles=6, seed=1, active_size=30)
        rng = np.random.default_rng(3)
        for _ in range(40):
            x = rng.normal(size=2)
            m.learn_one(list(x), int(x[1] > 0))
        models.append(with_new_class(m, 2))
    ref, fast = models
    assert ref.snapshot() == fast.snapshot()
    rng = np.random.default_rng(4)
    for i in range(60):
        x = list(rng.normal(size=2))
        assert ref.predict_proba_one(x) == fast.predict_proba_one(x)
        ref.learn_one(x, i % 3)
        fast.learn_one(x, i % 3)
    assert ref.snapshot() == fast.snapshot()


def test_grown_model_is_saved_and_loaded_in_either_backend(
        both: tuple[ModuleType, ModuleType], tmp_path: Path) -> None:
    import pickle

    ref, fast = both
    model = fast.DynamicTreeClassifier(classes=["a", "b"], n_particles=4, seed=3)
    for i in range(20):
        model.learn_one([float(i % 4)], "ab"[i % 2])
    grown = with_new_class(model, "c")
    grown.save(tmp_path / "m.gz")
    for backend in (ref, fast):
        loaded = backend.load(tmp_path / "m.gz")
        assert loaded.classes_ == ["a", "b", "c"] and loaded.snapshot() == grown.snapshot()
    assert pickle.loads(pickle.dumps(grown)).snapshot() == grown.snapshot()

"""ABACOC's default ball budget, ``budget="auto"`` ([ABACOC-SPEC §19]).

The default resolves to ``DEFAULT_BUDGET`` balls for the AUTO family and to no budget for
the BASE family; ``budget=None`` is the paper's unbounded cover. Below the budget the
default model is the paper's model bit for bit; once the cover is full it is exactly the
FIX rule with ``B = DEFAULT_BUDGET``. The tests shrink ``DEFAULT_BUDGET`` (the engines
read it when a model is built) so that a few hundred rows fill the cover.
"""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest

import reference.abacoc.params as abacoc_params
from reference.abacoc.params import DEFAULT_BUDGET, ABACOCParams
from reference.persist import from_document, to_document
from reference.state import StateFormatError

SMALL = 6
"""The default budget while these tests run: the noisy 2-D streams below outgrow it."""


def _noisy_stream(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Uniform points with random labels: almost every row founds or hits a ball."""
    g = np.random.default_rng(seed)
    return g.uniform(size=(n, 2)), g.integers(0, 3, size=n)


def _learn_rows(model: Any, X: np.ndarray, y: np.ndarray) -> Any:
    for x, label in zip(X.tolist(), y.tolist(), strict=True):
        model.predict_one(x)
        model.learn_one(x, label)
    return model


@pytest.fixture
def small_default(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(abacoc_params, "DEFAULT_BUDGET", SMALL)
    return SMALL


def test_auto_budget_resolves_by_family() -> None:
    assert ABACOCParams().budget == "auto"
    assert ABACOCParams().ball_budget == DEFAULT_BUDGET == 10_000
    for variant in ("auto", "auto_adj"):
        assert ABACOCParams(variant=variant).ball_budget == DEFAULT_BUDGET
        assert ABACOCParams(variant=variant, budget=None).ball_budget is None
        assert ABACOCParams(variant=variant, budget=np.int64(7)).ball_budget == 7
    for variant in ("base", "base_adj"):
        params = ABACOCParams(variant=variant)
        params.validate()                       # "auto" is valid for the BASE family too
        assert params.ball_budget is None


@pytest.mark.parametrize("bad", ["none", "Auto", "", b"auto"])
def test_budget_accepts_no_other_text(backend: Any, bad: Any) -> None:
    with pytest.raises(ValueError, match=r"budget must be 'auto', None or an integer"):
        backend.ABACOCClassifier(budget=bad)


def test_default_model_is_the_fix_rule_once_the_cover_is_full(both: Any,
                                                               small_default: int) -> None:
    """Default model = ``budget=SMALL`` model bit for bit, in both backends; the
    unbounded model outgrows it."""
    ref, fast = both
    X, y = _noisy_stream(300, seed=3)
    for variant in ("auto", "auto_adj"):
        models = [_learn_rows(pkg.ABACOCClassifier(variant=variant, **kw), X, y)
                  for pkg in (ref, fast) for kw in ({}, {"budget": small_default})]
        snaps = [m.snapshot() for m in models]
        assert all(s == snaps[0] for s in snaps[1:])
        assert models[0].n_balls_ == small_default
        assert [m.rng.state for m in models[1:]] == [models[0].rng.state] * 3
        assert models[0].get_params()["budget"] == "auto"
        unbounded = _learn_rows(fast.ABACOCClassifier(variant=variant, budget=None), X, y)
        assert unbounded.n_balls_ > 2 * small_default


def test_default_model_below_the_budget_is_the_unbounded_model(both: Any) -> None:
    """A cover that stays below the budget deletes nothing and draws nothing."""
    ref, fast = both
    X, y = _noisy_stream(200, seed=5)
    for pkg in (ref, fast):
        a = _learn_rows(pkg.ABACOCClassifier(), X, y)
        b = _learn_rows(pkg.ABACOCClassifier(budget=None), X, y)
        assert a.snapshot() == b.snapshot() and a.rng.state == b.rng.state
        assert 5 < a.n_balls_ < DEFAULT_BUDGET
        fresh = pkg.ABACOCClassifier()
        assert fresh.rng.state == a.rng.state          # no FIX draw happened


def test_batch_calls_keep_the_default_budget(both: Any, small_default: int) -> None:
    """``partial_fit`` and ``prequential`` honour the resolved budget like ``learn_one``."""
    ref, fast = both
    X, y = _noisy_stream(250, seed=8)
    one_row = _learn_rows(fast.ABACOCClassifier(budget=small_default), X, y).snapshot()
    for pkg in (ref, fast):
        batch = pkg.ABACOCClassifier()
        batch.prequential(X[:100], y[:100])
        batch.partial_fit(X[100:], y[100:])
        assert batch.snapshot() == one_row


def test_default_budget_survives_pickle_and_model_files(both: Any,
                                                        small_default: int) -> None:
    ref, fast = both
    X, y = _noisy_stream(120, seed=11)
    for pkg in (ref, fast):
        model = _learn_rows(pkg.ABACOCClassifier(), X[:60], y[:60])
        copies = [pickle.loads(pickle.dumps(model)),
                  from_document(to_document(model), backend=pkg.__name__)]
        _learn_rows(model, X[60:], y[60:])
        for copy in copies:
            assert copy.get_params()["budget"] == "auto"
            assert _learn_rows(copy, X[60:], y[60:]).snapshot() == model.snapshot()


def test_restore_rejects_a_cover_larger_than_the_default_budget(backend: Any,
                                                               small_default: int) -> None:
    """The state check bounds a restored cover by the *resolved* budget."""
    X, y = _noisy_stream(120, seed=2)
    big = _learn_rows(backend.ABACOCClassifier(budget=None), X, y)
    doc = to_document(big)
    doc["params"]["budget"] = "auto"
    with pytest.raises(StateFormatError, match=f"more than the budget {SMALL}"):
        from_document(doc, backend=backend.__name__)
    doc["params"]["budget"] = None
    assert from_document(doc, backend=backend.__name__).snapshot() == big.snapshot()


def test_reproduction_protocol_runs_the_unbounded_cover(small_default: int) -> None:
    """The prequential protocol of the grids passes ``budget=None`` to ABACOC unless the
    experiment sets a budget, so the default budget never changes a reproduction."""
    from reference.evaluation import grid

    spec = {"experiment": {"name": "pin", "seed": 4, "repetitions": 1,
                           "metrics": ["accuracy", "size"]},
            "models": [{"name": "abacoc", "params": {}},
                       {"name": "abacoc", "params": {"budget": 5}}],
            "streams": [{"name": "sea", "n": 300}]}
    exp = grid.load_experiment(spec)
    sizes = [{r["metric"]: r["value"] for r in grid.run_cell(exp, cell)}["size"]
             for cell in exp.cells()]
    assert sizes[0] > small_default and sizes[1] <= 5

"""What SGT models predict during the warm-up, against closed forms computed with numpy.

Before the bin ranges are fixed there is no tree; with ``warmup_prediction="newton"``
each tree's raw score is one Newton step of its root from 0 over the rows seen so far
([SGT-SPEC §5.7], [GPF19, Eq. 13] in the mean form Δ = -ḡ / (h̄ + λ)). With the
gradients of each loss at raw score 0 this is, by hand:

- squared error (g = -y, h = 1): Δ = ȳ / (1 + λ), a shrunk running mean;
- logistic (g = 1/2 - y, h = 1/4): Δ = (p̂ - 1/2) / (1/4 + λ), p̂ the share of class 1;
- softmax committee of k - 1 trees (g_c = 1/k - [y = c], h_c = (1/k)(1 - 1/k)):
  Δ_c = (p̂_c - 1/k) / ((1/k)(1 - 1/k) + λ);
- multi-instance bags (only a bag's first row, the arg-max at equal scores, gets
  g = 1/2 - y, h = 1/4; every row counts): Δ = Σ_b (y_b - 1/2) / (B/4 + N λ) for B bags
  of N rows.

These are computed here from the labels with numpy, not with the library's gradients.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

LAM = 0.1


def _sigmoid(z: np.ndarray | float) -> np.ndarray | float:
    return 1.0 / (1.0 + np.exp(-z))


def test_regression_predicts_the_shrunk_mean_of_the_targets_seen(backend: ModuleType) -> None:
    rng = np.random.default_rng(1)
    X, y = rng.uniform(size=(60, 3)), rng.normal(5.0, 2.0, size=60)
    model = backend.SGTRegressor(warmup=60, lam=LAM)
    for i in range(60):
        expected = 0.0 if i == 0 else y[:i].mean() / (1.0 + LAM)
        assert model.predict_one(X[i]) == pytest.approx(expected, rel=1e-12, abs=1e-300)
        model.learn_one(X[i], y[i])
    assert model.snapshot()["core"]["frozen"] == 1     # and the tree predicts from now on


def test_binary_classifier_predicts_from_the_class_share(backend: ModuleType) -> None:
    rng = np.random.default_rng(2)
    X, y = rng.uniform(size=(80, 2)), (rng.uniform(size=80) < 0.7).astype(int)
    model = backend.SGTClassifier(classes=[0, 1], warmup=80, lam=LAM)
    for i in range(1, 80):
        model.learn_one(X[i - 1], y[i - 1])
        share = y[:i].mean()
        expected = _sigmoid((share - 0.5) / (0.25 + LAM))
        assert model.predict_proba_one(X[i])[1] == pytest.approx(expected, rel=1e-12)
        if share != 0.5:
            assert model.predict_one(X[i]) == int(share > 0.5)


def test_softmax_committee_predicts_from_the_class_frequencies(backend: ModuleType) -> None:
    rng = np.random.default_rng(3)
    k = 4
    X, y = rng.uniform(size=(50, 2)), rng.choice(k, size=50, p=[0.1, 0.2, 0.3, 0.4])
    model = backend.SGTClassifier(classes=list(range(k)), warmup=50, lam=LAM)
    for i in range(1, 50):
        model.learn_one(X[i - 1], y[i - 1])
        freq = np.bincount(y[:i], minlength=k) / i
        raw = np.append((freq[:-1] - 1 / k) / ((1 / k) * (1 - 1 / k) + LAM), 0.0)
        expected = np.exp(raw) / np.exp(raw).sum()
        got = model.predict_proba_one(X[i])
        assert np.allclose([got[c] for c in range(k)], expected, rtol=1e-12, atol=0)


def test_multi_instance_bags_count_every_row(backend: ModuleType) -> None:
    rng = np.random.default_rng(4)
    bags = [rng.uniform(size=(int(rng.integers(1, 5)), 2)) for _ in range(30)]
    labels = (rng.uniform(size=30) < 0.4).astype(int)
    model = backend.SGTMultiInstanceClassifier(warmup=10_000, lam=LAM)
    for b in range(1, 30):
        model.learn_one(bags[b - 1], labels[b - 1])
        rows = sum(len(bag) for bag in bags[:b])
        raw = (labels[:b] - 0.5).sum() / (0.25 * b + LAM * rows)
        assert model.predict_proba_one(bags[b])[1] == pytest.approx(_sigmoid(raw), rel=1e-12)


def test_zero_keeps_the_authors_prediction_and_the_trees_are_the_same(
        backend: ModuleType) -> None:
    rng = np.random.default_rng(5)
    X, y = rng.uniform(size=(300, 3)), rng.normal(size=300)
    newton = backend.SGTRegressor(warmup=100, grace_period=20)
    zero = backend.SGTRegressor(warmup=100, grace_period=20, warmup_prediction="zero")
    for i in range(300):
        p_newton, p_zero = newton.predict_one(X[i]), zero.predict_one(X[i])
        if i < 100:
            assert p_zero == 0.0
        else:                       # after the warm-up both are the same tree
            assert p_newton == p_zero
        newton.learn_one(X[i], y[i])
        zero.learn_one(X[i], y[i])
    assert newton.snapshot() == zero.snapshot()
    with pytest.raises(ValueError, match="warmup_prediction"):
        backend.SGTRegressor(warmup_prediction="mean")


def test_batch_predict_during_the_warm_up_equals_one_row_calls(backend: ModuleType) -> None:
    rng = np.random.default_rng(6)
    X, y = rng.uniform(size=(40, 2)), rng.integers(0, 3, size=40)
    model = backend.SGTClassifier(classes=[0, 1, 2], warmup=100).partial_fit(X[:20], y[:20])
    batch = model.predict_proba(X[20:])
    rows = np.array([[model.predict_proba_one(x)[c] for c in range(3)] for x in X[20:]])
    assert np.array_equal(batch, rows)
    assert np.array_equal(batch, np.tile(batch[0], (20, 1)))   # no tree: one score


def _as_before_the_parameter(params: object) -> object:
    """A copy of SGT parameters as a version without ``warmup_prediction`` pickled them."""
    import copy

    old = copy.copy(params)
    object.__delattr__(old, "warmup_prediction")
    return old


def test_states_written_before_the_parameter_keep_predicting_zero(backend: ModuleType,
                                                                  tmp_path: object) -> None:
    import json
    from pathlib import Path

    from reference.persist import from_document, read_document, to_document

    rng = np.random.default_rng(7)
    X, y = rng.uniform(size=(30, 2)), rng.normal(3.0, 1.0, size=30)
    model = backend.SGTRegressor(warmup=100).partial_fit(X, y)
    assert model.predict_one(X[0]) != 0.0
    # a pickled state of the older version: no facade attribute, parameters without it
    state = model.__getstate__()
    del state["warmup_prediction"]
    state["_params"] = _as_before_the_parameter(state["_params"])
    if backend.__name__ == "reference":
        state["_engine"].params = _as_before_the_parameter(state["_engine"].params)
    else:                                   # the C core pickles its own parameters
        core_state = state["_engine"].__getstate__()
        core_state["params"] = _as_before_the_parameter(core_state["params"])
        core = type(state["_engine"]).__new__(type(state["_engine"]))
        core.__setstate__(core_state)
        state["_engine"] = core
    old = type(model).__new__(type(model))
    old.__setstate__(state)
    assert old.warmup_prediction == "zero" and old.predict_one(X[0]) == 0.0
    # a model file of the older version: its params lack the key
    doc = to_document(model)
    del doc["params"]["warmup_prediction"]
    loaded = from_document(json.loads(json.dumps(doc)), backend.__name__)
    assert loaded.get_params()["warmup_prediction"] == "zero"
    assert loaded.predict_one(X[0]) == 0.0
    path = Path(str(tmp_path)) / "new.dwm"
    model.save(path)
    assert read_document(path)["params"]["warmup_prediction"] == "newton"

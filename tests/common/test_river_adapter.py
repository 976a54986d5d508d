"""Every classifier and regressor of both backends inside River's evaluation loop.

``river.evaluate.progressive_val_score`` runs a ``StandardScaler() | to_river(model)``
pipeline; the same rows are then run through a hand-written prequential loop (predict with
the scaler's current statistics, score, then update the scaler and learn the scaled row,
its keys in sorted order: the adapter's feature order), and the two metrics must be equal
exactly.
"""

from __future__ import annotations

import itertools
from types import ModuleType
from typing import Any

import pytest

river = pytest.importorskip("river")
from river import compose, datasets, evaluate, metrics, preprocessing  # noqa: E402

N_ROWS = 300

CLASSIFIERS = [
    ("DynamicTreeClassifier", {"n_particles": 20, "classes": [False, True]}),
    ("SGTClassifier", {"warmup": 50, "classes": [False, True]}),
    ("ABACOCClassifier", {}),
]
REGRESSORS = [
    ("DynamicTreeRegressor", {"n_particles": 20}),
    ("SGTRegressor", {"warmup": 50}),
    ("SGT", {"warmup": 50}),
]


def _hand_written(model: Any, rows: list[tuple[dict[str, float], Any]], metric: Any) -> Any:
    scaler = preprocessing.StandardScaler()
    def by_name(row: dict[str, float]) -> dict[str, float]:
        return {k: row[k] for k in sorted(row)}

    for x, y in rows:
        predicted = model.predict_one(by_name(scaler.transform_one(x)))
        if predicted is not None:
            metric.update(y, predicted)
        scaler.learn_one(x)
        model.learn_one(by_name(scaler.transform_one(x)), y)
    return metric


@pytest.mark.parametrize(("name", "kwargs"), CLASSIFIERS + REGRESSORS)
def test_progressive_val_score_equals_a_hand_written_loop(
    backend: ModuleType, name: str, kwargs: dict[str, Any]
) -> None:
    classifier = (name, kwargs) in CLASSIFIERS
    dataset = datasets.Phishing() if classifier else datasets.TrumpApproval()
    rows = list(itertools.islice(dataset, N_ROWS))
    new_metric = metrics.Accuracy if classifier else metrics.MAE

    pipeline = preprocessing.StandardScaler() | backend.to_river(
        getattr(backend, name)(**kwargs)
    )
    assert isinstance(pipeline, compose.Pipeline)
    through_river = evaluate.progressive_val_score(rows, pipeline, new_metric())
    by_hand = _hand_written(getattr(backend, name)(**kwargs), rows, new_metric())
    assert through_river.get() == by_hand.get()
    if classifier:
        assert through_river.get() > 0.6       # learns something on Phishing


def test_adapter_kinds_and_clone(backend: ModuleType) -> None:
    from river import base

    regressor = backend.to_river(backend.SGTRegressor())
    classifier = backend.to_river(backend.ABACOCClassifier())
    assert isinstance(regressor, base.Regressor) and isinstance(classifier, base.Classifier)
    assert classifier._multiclass
    assert not backend.to_river(backend.ABACOCClassifier(variant="base"))._multiclass
    classifier.learn_one({"a": 1.0}, "x")
    copy = classifier.clone()
    assert copy.model.n_seen_ == 0 and classifier.model.n_seen_ == 1
    assert copy.model.get_params() == classifier.model.get_params()
    with pytest.raises(TypeError, match="driftwood model"):
        backend.to_river(object())

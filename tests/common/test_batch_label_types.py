"""Batch ``predict`` returns members of ``classes_`` with ``predict_one``'s types.

Tuple labels (documented as valid), mixed ``0`` and ``"spam"`` and the largest uint64 used
to come back as an (n, 2) array, as ``numpy.str_('0')`` or as a float: numpy's conversion of
a list of labels. Each predicted item must now equal ``predict_one``'s label and be of its
kind (integer, float, text, boolean or object).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

from reference.batches import _label_kind, label_table

LABELS = {
    "tuples": [(0, "a"), (1, "b")],
    "mixed": [0, "spam"],
    "uint64-max": [np.uint64(2**64 - 1), np.uint64(3)],
    "python-big-int": [2**64 - 1, -1],
    "text": ["no", "yes"],
}
CLASSIFIERS = [("SGTClassifier", {"grace_period": 10, "warmup": 10}),
               ("DynamicTreeClassifier", {"n_particles": 4}), ("ABACOCClassifier", {})]


@pytest.mark.parametrize("name, kw", CLASSIFIERS)
@pytest.mark.parametrize("kind", sorted(LABELS))
def test_batch_predict_items_are_predict_ones_labels(backend: ModuleType, name: str,
                                                     kw: dict[str, Any], kind: str) -> None:
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(60, 2))
    labels = LABELS[kind]
    y = [labels[int(x0 > 0.5)] for x0 in X[:, 0]]
    model = getattr(backend, name)(**kw)
    for row, label in zip(X.tolist(), y, strict=True):
        if name == "ABACOCClassifier" or getattr(model, "classes_", None):
            model.learn_one(row, label)
        else:
            model.partial_fit([row, X[1].tolist()], [label, y[1]], classes=labels)
    predicted = model.predict(X)
    assert predicted.shape == (60,)
    for i in range(60):
        one = model.predict_one(X[i].tolist())
        # equal, and of the same kind (a numpy array of text holds numpy.str_ items)
        assert predicted[i] == one, (i, predicted[i], one)
        assert _label_kind(predicted[i]) == _label_kind(one), (i, predicted[i], one)
        assert any(predicted[i] == c for c in model.classes_)


def test_label_table_keeps_plain_labels_typed() -> None:
    assert label_table([1, 2]).dtype.kind == "i"
    assert label_table(["a", "bb"]).dtype.kind == "U"
    assert label_table([0, "spam"]).dtype == object
    assert label_table([(0, "a"), (1, "b")]).shape == (2,)

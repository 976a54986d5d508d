"""Legal but extreme input, both backends side by side (docs/guarantees.md).

Duplicate points, constant features, constant targets, a single class and magnitudes up to
each family's bound (1e308 for SGT features and ABACOC, 1e150 for the dynamic trees, 1e70
for squared-error SGT targets: see ``test_magnitude_bounds.py``) are accepted: both
backends agree bit for bit, predictions are finite numbers / known labels, and the model
keeps learning afterwards. (Rejected input is the business of ``test_bad_input.py``.)
"""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any

import pytest
from _hardening_models import CLASSES, SPECS, Spec, stream

from _compare import assert_snapshot_equal
from reference.dynatree.inputs import MAX_MAGNITUDE
from reference.sgt.splits import GRADIENT_BOUND


def _extreme_streams(spec: Spec) -> dict[str, list[tuple[Any, Any]]]:
    base = stream(spec, 24, seed=7)
    y0 = base[0][1]
    out: dict[str, list[tuple[Any, Any]]] = {
        "duplicate-points": [base[0]] * 24,
        "constant-feature": [(_const_feature(spec, x), y) for x, y in base],
        "constant-target": [(x, y0) for x, _ in base],
        "tiny-1e-300": [(_scale(spec, x, 1e-300), y) for x, y in base],
    }
    # the dynamic trees accept values up to MAX_MAGNITUDE (1e150: they square and sum
    # them); the others any finite value; |x| <= 1 in the base stream
    huge = [MAX_MAGNITUDE] if spec.dt else [1e300, 1.7e308]
    for s in huge:
        out[f"huge-{s:g}"] = [(_scale(spec, x, s), y) for x, y in base]
    out[f"mixed-{huge[-1]:g}-and-ordinary"] = [
        (_scale(spec, x, huge[-1] if i % 2 else 1.0), y) for i, (x, y) in enumerate(base)]
    if spec.kind == "reg":
        # |y| < 4 in the base stream; SGT's squared error carries |y| <= GRADIENT_BOUND
        t = MAX_MAGNITUDE / 10 if spec.dt else GRADIENT_BOUND / 10
        out[f"huge-target-{t:g}"] = [(x, y * t) for x, y in base]
    return out


def _const_feature(spec: Spec, x: Any) -> Any:
    if spec.kind == "mil":
        return [[r[0], 1.0, r[2]] for r in x]
    return [x[0], 1.0, x[2]]


def _scale(spec: Spec, x: Any, s: float) -> Any:
    if spec.kind == "mil":
        return [[v * s for v in r] for r in x]
    return [v * s for v in x]


def _extreme_matrix() -> list[Any]:
    params = []
    for spec in SPECS:
        for case in _extreme_streams(spec):
            marks = [pytest.mark.dynatree] if spec.dt else []
            params.append(pytest.param(spec, case, id=f"{spec.id}:{case}", marks=marks))
    return params


@pytest.mark.parametrize("spec,case", _extreme_matrix())
def test_extreme_but_legal(both: tuple[ModuleType, ModuleType], spec: Spec, case: str) -> None:
    data = _extreme_streams(spec)[case]
    models = [spec.make(pkg) for pkg in both]
    for step, (x, y) in enumerate(data):
        preds = [m.predict_one(x) for m in models]
        assert _same(preds[0], preds[1]), f"step {step}: predictions differ {preds}"
        _check_prediction(spec, preds[0], models[0])
        for m in models:
            m.learn_one(x, y)
        assert_snapshot_equal(models[0].snapshot(), models[1].snapshot(), step=step)
    # still a working model on ordinary data afterwards
    for x, y in stream(spec, 5, seed=8):
        preds = [m.predict_one(x) for m in models]
        assert _same(preds[0], preds[1])
        _check_prediction(spec, preds[0], models[0])
        for m in models:
            m.learn_one(x, y)


def test_single_class_stream(both: tuple[ModuleType, ModuleType]) -> None:
    """A stream with one class only: fixed-class models learn it and predict it; the
    open-set ABACOC predicts the only label seen; partial_fit without ``classes=`` on a
    single-class first batch is refused (SGT, dynamic trees need >= 2 classes)."""
    for spec in SPECS:
        if spec.kind == "reg":
            continue
        data = [(x, 1 if spec.kind == "mil" else "b") for x, _ in stream(spec, 60, seed=3)]
        models = [spec.make(pkg) for pkg in both]
        for x, y in data:
            for m in models:
                m.learn_one(x, y)
        preds = [m.predict_one(data[0][0]) for m in models]
        assert preds[0] == preds[1] == data[0][1], (spec.id, preds)
        assert_snapshot_equal(models[0].snapshot(), models[1].snapshot())
        if spec.cls in ("SGTClassifier", "DynamicTreeClassifier"):
            for pkg in both:
                fresh = spec.make(pkg, classes=None)
                with pytest.raises(ValueError):
                    fresh.partial_fit([x for x, _ in data], ["b"] * len(data))


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


def _check_prediction(spec: Spec, pred: Any, model: Any) -> None:
    if spec.kind == "reg":
        assert isinstance(pred, float) and math.isfinite(pred), pred
    elif spec.kind == "cls":
        assert pred in CLASSES
    elif spec.kind == "mil":
        assert pred in (0, 1)
    else:
        assert pred is None or pred in model.classes_

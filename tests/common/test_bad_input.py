"""Bad input: one bad-input matrix over models x cases, both backends side by side.

Every case is run on a trained reference model and on the identically trained fast model.
It must raise in both, with the same exception class and the same message (the
validation is shared Python code), and leave both models exactly as they were
(``snapshot()`` before == after). Dynamic-tree rows have ids starting with ``DT-``.

The legal-but-extreme inputs (duplicate points, constant features, constant targets, a
single class, magnitudes near 1e308) are accepted; ``test_extreme_but_legal`` pins the
documented behaviour (docs/guarantees.md): both backends agree bit for bit, predictions
are finite numbers / known labels, and the model keeps learning afterwards.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from _hardening_models import CLASSES, SPECS, D, Spec, stream, trained

from _compare import assert_snapshot_equal

GOOD = [0.25, -0.5, 0.75]

Action = Callable[[Any], Any]


def _x(spec: Spec, row: Any) -> Any:
    """A single input built around a (possibly bad) row: a bag for multi-instance."""
    return [GOOD, row] if spec.kind == "mil" else row


def _y(spec: Spec) -> Any:
    return {"reg": 0.5, "cls": "a", "open": "a", "mil": 1}[spec.kind]


def _batch(spec: Spec, rows: list[Any]) -> Any:
    return [[GOOD, r] for r in rows] if spec.kind == "mil" else rows


def _ys(spec: Spec, n: int) -> list[Any]:
    return [_y(spec)] * n


BAD_ROWS: dict[str, Any] = {
    "nan": [math.nan, 0.0, 0.0],
    "+inf": [0.0, math.inf, 0.0],
    "-inf": [0.0, 0.0, -math.inf],
    "short": [0.0, 0.0],
    "long": [0.0, 0.0, 0.0, 0.0],
    "empty": [],
    "nested": [[0.0, 0.0, 0.0]],
    "text": ["a", 0.0, 0.0],
    "numeric-text": ["0.5", 0.0, 0.0],
    "none-value": [None, 0.0, 0.0],
    "object": [object(), 0.0, 0.0],
    "complex": [1j, 0.0, 0.0],
}


def _cases(spec: Spec) -> dict[str, Action]:
    cases: dict[str, Action] = {}
    for name, row in BAD_ROWS.items():
        cases[f"learn_one-{name}"] = lambda m, r=row: m.learn_one(_x(spec, r), _y(spec))
        cases[f"predict_one-{name}"] = lambda m, r=row: m.predict_one(_x(spec, r))
        cases[f"partial_fit-{name}-row2"] = lambda m, r=row: m.partial_fit(
            _batch(spec, [GOOD, r, GOOD]), _ys(spec, 3))
        if spec.kind != "reg":
            cases[f"predict_proba_one-{name}"] = lambda m, r=row: m.predict_proba_one(
                _x(spec, r))
    cases["learn_one-x-None"] = lambda m: m.learn_one(None, _y(spec))
    cases["learn_one-x-str"] = lambda m: m.learn_one("abc", _y(spec))
    cases["learn_one-x-scalar"] = lambda m: m.learn_one(1.0, _y(spec))
    cases["learn_one-mapping-after-sequences"] = lambda m: m.learn_one(
        _x(spec, {"a": 0.0, "b": 0.0, "c": 0.0}) if spec.kind != "mil"
        else {"a": [0.0]}, _y(spec))
    cases["partial_fit-empty-batch"] = lambda m: m.partial_fit(
        [] if spec.kind == "mil" else np.empty((0, D)), [])
    cases["partial_fit-1d-X"] = lambda m: m.partial_fit(
        [GOOD] if spec.kind == "mil" else GOOD, _ys(spec, 1 if spec.kind == "mil" else 3))
    cases["partial_fit-3d-X"] = lambda m: m.partial_fit(
        np.zeros((2, 2, D, 1)) if spec.kind == "mil" else np.zeros((2, 1, D)), _ys(spec, 2))
    cases["partial_fit-wrong-width"] = lambda m: m.partial_fit(
        _batch(spec, [GOOD, [0.0, 0.0]]) if spec.kind == "mil" else np.zeros((2, D + 1)),
        _ys(spec, 2))
    cases["partial_fit-y-too-short"] = lambda m: m.partial_fit(
        _batch(spec, [GOOD, GOOD]), _ys(spec, 1))
    cases["partial_fit-y-too-long"] = lambda m: m.partial_fit(
        _batch(spec, [GOOD, GOOD]), _ys(spec, 3))
    cases["partial_fit-y-2d"] = lambda m: m.partial_fit(
        _batch(spec, [GOOD, GOOD]), [[_y(spec)], [_y(spec)]])
    cases["predict-1d"] = lambda m: m.predict(
        [GOOD] if spec.kind == "mil" else GOOD)
    cases["predict-wrong-width"] = lambda m: m.predict(
        _batch(spec, [[0.0, 0.0]]) if spec.kind == "mil" else np.zeros((2, D + 1)))
    cases["predict-nan"] = lambda m: m.predict(_batch(spec, [GOOD, BAD_ROWS["nan"]]))
    if spec.kind == "reg":
        for name, bad in {"nan": math.nan, "+inf": math.inf, "-inf": -math.inf,
                          "text": "1.0", "none": None, "list": [1.0]}.items():
            cases[f"learn_one-target-{name}"] = lambda m, b=bad: m.learn_one(GOOD, b)
            cases[f"partial_fit-target-{name}-row2"] = lambda m, b=bad: m.partial_fit(
                [GOOD, GOOD, GOOD], [0.0, b, 0.0])
    if spec.kind == "cls":
        for name, bad in {"unknown": "z", "int": 0, "none": None, "unhashable": ["a"]}.items():
            cases[f"learn_one-label-{name}"] = lambda m, b=bad: m.learn_one(GOOD, b)
            cases[f"partial_fit-label-{name}-row2"] = lambda m, b=bad: m.partial_fit(
                [GOOD, GOOD, GOOD], ["a", b, "a"])
    if spec.kind == "open":
        cases["learn_one-label-unhashable"] = lambda m: m.learn_one(GOOD, ["a"])
        cases["partial_fit-label-unhashable-row2"] = lambda m: m.partial_fit(
            [GOOD, GOOD, GOOD], ["a", {"b": 1}, "a"])
    if spec.kind == "mil":
        for name, bad in {"2": 2, "-1": -1, "half": 0.5, "text": "1", "none": None}.items():
            cases[f"learn_one-label-{name}"] = lambda m, b=bad: m.learn_one([GOOD], b)
            cases[f"partial_fit-label-{name}-bag2"] = lambda m, b=bad: m.partial_fit(
                [[GOOD], [GOOD], [GOOD]], [1, b, 0])
        bags: dict[str, Any] = {
            "empty-bag": [], "1d-bag": GOOD, "ragged-bag": [GOOD, [0.0, 0.0]],
            "3d-bag": [[GOOD]], "bag-of-none": [None], "bag-mapping": {"a": GOOD},
            "bag-text": "abc",
        }
        for name, bag in bags.items():
            cases[f"learn_one-{name}"] = lambda m, b=bag: m.learn_one(b, 1)
            cases[f"predict_one-{name}"] = lambda m, b=bag: m.predict_one(b)
            cases[f"partial_fit-{name}-bag2"] = lambda m, b=bag: m.partial_fit(
                [[GOOD], b, [GOOD]], [1, 0, 1])
    return cases


def _matrix() -> list[Any]:
    params = []
    for spec in SPECS:
        for case in _cases(spec):
            marks = [pytest.mark.dynatree] if spec.dt else []
            params.append(pytest.param(spec, case, id=f"{spec.id}:{case}", marks=marks))
    return params


def _outcome(action: Action, model: Any) -> tuple[type[BaseException] | None, str]:
    try:
        action(model)
    except Exception as exc:  # noqa: BLE001 - the class itself is what we compare
        return type(exc), str(exc)
    return None, ""


_TRAINED: dict[tuple[str, str], Any] = {}


def _fresh_trained(spec: Spec, pkg: ModuleType) -> Any:
    """A trained model, built once per (spec, backend) and copied for each case."""
    import copy
    key = (spec.id, pkg.__name__)
    if key not in _TRAINED:
        _TRAINED[key] = trained(spec, pkg, n=30)
    return copy.deepcopy(_TRAINED[key])


@pytest.mark.parametrize("spec,case", _matrix())
def test_bad_input(both: tuple[ModuleType, ModuleType], spec: Spec, case: str) -> None:
    action = _cases(spec)[case]
    results = []
    for pkg in both:
        model = _fresh_trained(spec, pkg)
        before = model.snapshot()
        kind, message = _outcome(action, model)
        assert kind is not None, f"{pkg.__name__}: {case} was accepted"
        assert issubclass(kind, (ValueError, TypeError)), (
            f"{pkg.__name__}: {case} raised {kind.__name__}: {message}")
        assert message, f"{pkg.__name__}: {case} raised {kind.__name__} with no message"
        assert_snapshot_equal(before, model.snapshot(), path=f"{pkg.__name__}:{case}")
        results.append((kind, message))
    assert results[0] == results[1], f"backends differ: {results}"


def test_bad_input_untrained_first_call(both: tuple[ModuleType, ModuleType]) -> None:
    """A rejected first call must not fix the width or the classes of a fresh model."""
    for spec in SPECS:
        for pkg in both:
            model = spec.make(pkg)
            before = model.snapshot()
            bad = [[GOOD, [math.nan, 0, 0]]] if spec.kind == "mil" else [[math.nan, 0.0]]
            with pytest.raises((ValueError, TypeError)):
                model.partial_fit(bad, [_y(spec)])
            assert_snapshot_equal(before, model.snapshot(), path=f"{spec.id}:{pkg.__name__}")
            # the width was not fixed by the rejected call: a 2-feature stream is fine now
            data = [(([[0.1, 0.2]] if spec.kind == "mil" else [0.1, 0.2]), _y(spec))]
            model.learn_one(*data[0])
            assert model.n_features_in_ == 2


# -- invalid hyper-parameters -----------------------------------------------------------

BAD_PARAMS: dict[str, list[dict[str, Any]]] = {
    "DynamicTreeRegressor": [
        dict(n_particles=0), dict(n_particles=-5), dict(n_particles=2.5), dict(n_particles="9"),
        dict(alpha=-0.5), dict(alpha=1.5), dict(alpha=math.nan), dict(beta=-1.0),
        dict(min_leaf=0), dict(nstart=-1), dict(nu0=-1.0), dict(s20=-1.0),
        dict(seed=1.5), dict(leaf="cubic"), dict(intercept="nope"),
        dict(lpred_window=-1), dict(lpred_window=2.5), dict(lpred_window=True),
    ],
    "DynamicTreeClassifier": [
        dict(n_particles=0), dict(n_particles=True), dict(alpha=-0.1), dict(beta="2"),
        dict(classes=["a"]), dict(classes=["a", "a"]), dict(seed=None),
        dict(lpred_window=-3), dict(lpred_window="5"),
    ],
    "SGTRegressor": [
        dict(delta=0.0), dict(delta=1.0), dict(delta="x"), dict(grace_period=0),
        dict(grace_period=-3), dict(grace_period=2.5), dict(lam=-1.0), dict(lam=math.inf),
        dict(gamma=-0.1), dict(gamma=math.nan), dict(bins=1), dict(bins=True),
        dict(warmup=0), dict(max_depth=-1), dict(warmup_trains=1), dict(test="left"),
        dict(nominal={0: 1}), dict(feature_ranges={0: (1.0, 1.0)}),
    ],
    "SGTClassifier": [dict(classes=["a"]), dict(classes=["a", "a"]), dict(classes=[["a"], "b"]),
                      dict(delta=-1e-7), dict(bins=0)],
    "SGTMultiInstanceClassifier": [dict(epochs=0), dict(epochs=-1), dict(epochs=1.5),
                                   dict(epochs=True), dict(lam=-1.0)],
    "SGT": [dict(loss=object()), dict(loss="squared"), dict(warmup=-1)],
    "ABACOCClassifier": [
        dict(variant="nope"), dict(budget=1), dict(budget=0), dict(budget=-3), dict(budget=2.5),
        dict(variant="base", budget=10), dict(d=0.0), dict(d=-1.0), dict(d=math.inf),
        dict(C=0.0), dict(C="1"), dict(mode="x"), dict(metric="cosine"),
        dict(metric="minkowski", p=0.5), dict(search="brute"), dict(search_threshold=0),
        dict(leaf_size=0), dict(seed=1.5), dict(labels=(0, 0)),
        dict(labels=("a",)),
    ],
}


def _param_matrix() -> list[Any]:
    params = []
    for cls, bad in BAD_PARAMS.items():
        for kw in bad:
            dt = cls.startswith("Dynamic")
            marks = [pytest.mark.dynatree] if dt else []
            label = ",".join(f"{k}={v!r}" for k, v in kw.items())
            params.append(pytest.param(cls, kw, id=f"{'DT-' if dt else ''}{cls}:{label}",
                                       marks=marks))
    return params


@pytest.mark.parametrize("cls,kw", _param_matrix())
def test_bad_hyper_parameter(both: tuple[ModuleType, ModuleType], cls: str,
                             kw: dict[str, Any]) -> None:
    results = []
    for pkg in both:
        with pytest.raises((ValueError, TypeError)) as info:
            getattr(pkg, cls)(**kw)
        results.append((info.type, str(info.value)))
    assert results[0] == results[1], f"backends differ: {results}"
    names = [k for k in kw if k not in ("variant", "metric")] or list(kw)
    assert any(n in results[0][1] for n in names), (
        f"message does not name the parameter {names}: {results[0][1]}")


# -- legal but extreme --------------------------------------------------------------------

def _extreme_streams(spec: Spec) -> dict[str, list[tuple[Any, Any]]]:
    base = stream(spec, 24, seed=7)
    y0 = base[0][1]
    out: dict[str, list[tuple[Any, Any]]] = {
        "duplicate-points": [base[0]] * 24,
        "constant-feature": [(_const_feature(spec, x), y) for x, y in base],
        "constant-target": [(x, y0) for x, _ in base],
        "huge-1e300": [(_scale(spec, x, 1e300), y) for x, y in base],
        "huge-1e308": [(_scale(spec, x, 1.7e308), y) for x, y in base],
        "mixed-1e308-and-ordinary": [(_scale(spec, x, 1.7e308 if i % 2 else 1.0), y)
                                     for i, (x, y) in enumerate(base)],
        "tiny-1e-300": [(_scale(spec, x, 1e-300), y) for x, y in base],
    }
    if spec.kind == "reg":
        out["huge-target-1e150"] = [(x, y * 1e150) for x, y in base]
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

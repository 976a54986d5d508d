"""The lean one-row calls of ``fast`` (``fast._rows``) change no result and no error.

``learn_one``, ``predict_one`` and ``predict_proba_one`` of every ``fast`` row model hand
a plain row (list, tuple, 1-D float64 numpy row, dict with the model's keys in order)
straight to C, and send everything else to the general path of the facade. Checked here:

* every input kind gives, one row at a time, the predictions of the reference and the
  model of ``partial_fit`` on the same rows (``snapshot``), bit for bit;
* plain rows really take the lean path (the general path is made to fail);
* bad or unusual input gives the same outcome in both backends (same exception class, or
  the same accepted value) and leaves the model unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from _compare import assert_snapshot_equal
from conftest import REFERENCE, require_fast


@dataclass(frozen=True)
class Case:
    name: str
    make: Callable[[Any], Any]
    classifier: bool
    proba: bool  # has predict_proba_one


CASES = [
    Case("SGTRegressor", lambda pkg: pkg.SGTRegressor(warmup=30, grace_period=20), False, False),
    Case("SGT", lambda pkg: pkg.SGT(pkg.BinaryCrossEntropy(), warmup=30, grace_period=20),
         False, False),
    Case("SGTClassifier", lambda pkg: pkg.SGTClassifier(classes=[0, 1], warmup=30,
                                                        grace_period=20), True, True),
    Case("SGTClassifier-3", lambda pkg: pkg.SGTClassifier(classes=["a", "b", "c"], warmup=30,
                                                          grace_period=20), True, True),
    Case("ABACOCClassifier", lambda pkg: pkg.ABACOCClassifier(variant="auto_adj"), True, True),
    Case("ABACOC-base", lambda pkg: pkg.ABACOCClassifier(variant="base"), True, True),
    Case("DynamicTreeRegressor", lambda pkg: pkg.DynamicTreeRegressor(n_particles=15, seed=3),
         False, False),
    Case("DynamicTreeClassifier",
         lambda pkg: pkg.DynamicTreeClassifier(classes=[0, 1], n_particles=15, seed=3),
         True, True),
]
KINDS = ["list", "tuple", "numpy", "dict", "ints"]


def _data(case: Case, n: int = 120) -> tuple[np.ndarray, list[Any]]:
    rng = np.random.default_rng(11)
    X = rng.uniform(size=(n, 3))
    y = X[:, 0] * 3 + np.sin(5 * X[:, 1])
    if case.name == "SGT":
        return X, [float(v > 1.5) for v in y]
    if case.name == "SGTClassifier-3":
        return X, [["a", "b", "c"][int(v)] for v in np.clip(y, 0, 2.99)]
    if case.classifier:
        return X, [int(v > 1.5) for v in y]
    return X, y.tolist()


def _rows(X: np.ndarray, kind: str) -> list[Any]:
    if kind == "list":
        return X.tolist()
    if kind == "tuple":
        return [tuple(r) for r in X.tolist()]
    if kind == "numpy":
        return list(X)
    if kind == "dict":
        return [{"u": r[0], "v": r[1], "w": r[2]} for r in X.tolist()]
    return [[int(v * 10) for v in r] for r in X.tolist()]  # ints: exact as float64


def _stream(model: Any, rows: list[Any], y: list[Any], proba: bool) -> list[Any]:
    out = []
    for x, target in zip(rows, y, strict=True):
        out.append(model.predict_one(x))
        if proba:
            out.append(model.predict_proba_one(x))
        model.learn_one(x, target)
    return out


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_one_row_stream_matches_reference_and_partial_fit(case: Case, kind: str) -> None:
    fast = require_fast()
    X, y = _data(case)
    rows = _rows(X, kind)
    if kind == "ints":
        X = np.asarray(rows, dtype=np.float64)
    models = {pkg: case.make(pkg) for pkg in (REFERENCE, fast)}
    outs = {pkg: _stream(m, rows, y, case.proba) for pkg, m in models.items()}
    assert outs[REFERENCE] == outs[fast]
    assert_snapshot_equal(models[REFERENCE].snapshot(), models[fast].snapshot())
    if kind != "dict":  # learn_one row by row = partial_fit (predictions may draw: none here)
        learner, batch = case.make(fast), case.make(fast)
        for x, target in zip(rows, y, strict=True):
            learner.learn_one(x, target)
        batch.partial_fit(X, y)
        assert_snapshot_equal(batch.snapshot(), learner.snapshot())


class _GeneralPathUsed(Exception):
    pass


ENGINE_GENERAL_PATH = {
    "DynamicTreeRegressor": (("_row", "_learn_checked", "_summaries"),
                             ("learn", "means", "summaries")),
    "DynamicTreeClassifier": (("_row", "_learn_checked", "_probs", "_probs_rows"),
                              ("learn", "classify_rows")),
}
"""Per model of the facade/engine pattern: the facade methods and the engine methods that
only the general path of a one-row call uses."""


@pytest.mark.parametrize("kind", ["list", "tuple", "numpy", "dict"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_plain_rows_take_the_lean_path(case: Case, kind: str,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    fast = require_fast()
    X, y = _data(case, 60)
    rows = _rows(X, kind)
    model = case.make(fast)
    for x, target in zip(rows[:40], y[:40], strict=True):  # first rows: general path
        model.learn_one(x, target)
    twin = case.make(REFERENCE)
    for x, target in zip(rows[:40], y[:40], strict=True):
        twin.learn_one(x, target)
    expected = _stream(twin, rows[40:], y[40:], case.proba)

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise _GeneralPathUsed

    if case.name in ENGINE_GENERAL_PATH:
        # facade/engine families: the one-row methods are the reference facade's, which
        # offer the row to the engine's lean hooks first; the general path is the facade's
        # conversion and the engine's batch methods
        facade_names, engine_names = ENGINE_GENERAL_PATH[case.name]
        for name in facade_names:
            monkeypatch.setattr(type(model), name, fail)
        for name in engine_names:
            monkeypatch.setattr(type(model._engine), name, fail)
    else:
        names = ["learn_one", "predict_one"] + (["predict_proba_one"] if case.proba else [])
        for cls in type(model).__mro__:             # the general path: the reference facades
            if not cls.__module__.startswith("reference."):
                continue
            for name in names:
                # a facade that offers plain rows to its engine first (``learn_one`` ->
                # ``engine.learn_one_raw``) names its general path ``_learn_one``
                general = "_" + name if any("_" + name in vars(c) for c in type(model).__mro__) \
                    else name
                if general in vars(cls):
                    monkeypatch.setattr(cls, general, fail)
    assert _stream(model, rows[40:], y[40:], case.proba) == expected
    monkeypatch.undo()
    assert_snapshot_equal(twin.snapshot(), model.snapshot())


NAN, INF = float("nan"), float("inf")
BAD_ROWS: list[Any] = [
    [0.5, 0.5], [0.5, 0.5, 0.5, 0.5], [], [NAN, 0.5, 0.5], [0.5, INF, 0.5], (0.5, -INF, 0.5),
    np.array([0.5, NAN, 0.5]), np.array([0.5, 0.5]), np.array([[0.5, 0.5, 0.5]]),
    np.array([1, 0, 1]), np.array([0.5, 0.5, 0.5], dtype=np.float32),
    np.array([0.5, 0.5, 0.5])[::-1], np.array([0.5, 0.5, 0.5, 0.5])[::2],
    ["0.5", 0.5, 0.5], [None, 0.5, 0.5], [True, 0.5, 0.5], [np.float64(0.5), 0.5, 0.5],
    [np.float32(0.1), 0.5, 0.5], [2**60 + 1, 0.5, 0.5], [10**400, 0.5, 0.5],
    [np.array("0.5"), 0.5, 0.5], [np.array(0.5), 0.5, 0.5], [[0.5], 0.5, 0.5],
    [complex(0.5, 0), 0.5, 0.5], "abc", None, 0.5,
    {"u": 0.5, "v": 0.5, "w": 0.5}, {"u": 0.5, "v": 0.5}, {"w": 0.5, "u": 0.5, "v": 0.5},
    {"u": 0.5, "v": 0.5, "w": NAN}, {"u": 0.5, "v": 0.5, "w": 0.5, "z": 0.5},
    {0: 0.5, 1: 0.5, 2: 0.5},
]
BAD_LABELS: list[Any] = [7, "zz", None, [1], NAN, INF, True, 2**60, 1.5, np.float64(0.25)]


def _outcome(call: Callable[[], Any]) -> Any:
    try:
        result = call()
    except Exception as exc:  # noqa: BLE001 - the class is compared
        return type(exc)
    if isinstance(result, float) and math.isnan(result):
        return "nan"
    return result


def _fitted(case: Case, pkg: Any, dict_rows: bool) -> Any:
    X, y = _data(case, 50)
    model = case.make(pkg)
    for x, target in zip(_rows(X, "dict" if dict_rows else "list"), y, strict=True):
        model.learn_one(x, target)
    return model


@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::RuntimeWarning",
                            "ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("dict_rows", [False, True], ids=["fitted-on-lists", "fitted-on-dicts"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_bad_input_same_outcome_model_unchanged(case: Case, dict_rows: bool) -> None:
    fast = require_fast()
    models = {pkg: _fitted(case, pkg, dict_rows) for pkg in (REFERENCE, fast)}
    X, y = _data(case, 1)
    good_y = y[0]
    for x in BAD_ROWS:
        calls: list[Callable[[Any], Any]] = [
            lambda m, x=x: m.predict_one(x), lambda m, x=x: m.learn_one(x, good_y)]
        if case.proba:
            calls.append(lambda m, x=x: m.predict_proba_one(x))
        for call in calls:
            before = {pkg: m.snapshot() for pkg, m in models.items()}
            results = {pkg: _outcome(lambda m=m, call=call: call(m))
                       for pkg, m in models.items()}
            ref, got = results[REFERENCE], results[fast]
            if isinstance(ref, type) or ref is None:
                assert ref is got or ref == got, (x, ref, got)
            else:   # accepted: the same value, and both models learned the same
                assert ref == got or (ref is models[REFERENCE] and got is models[fast]), (x,)
            if isinstance(ref, type):
                for pkg, m in models.items():
                    assert_snapshot_equal(before[pkg], m.snapshot())
            assert_snapshot_equal(models[REFERENCE].snapshot(), models[fast].snapshot())
    good_x = _rows(X, "dict" if dict_rows else "list")[0]
    for label in BAD_LABELS:
        before = {pkg: m.snapshot() for pkg, m in models.items()}
        results = {pkg: _outcome(lambda m=m, label=label: m.learn_one(good_x, label))
                   for pkg, m in models.items()}
        ref, got = results[REFERENCE], results[fast]
        assert (ref is got) if isinstance(ref, type) else not isinstance(got, type), (label,)
        if isinstance(ref, type):
            for pkg, m in models.items():
                assert_snapshot_equal(before[pkg], m.snapshot())
        assert_snapshot_equal(models[REFERENCE].snapshot(), models[fast].snapshot())

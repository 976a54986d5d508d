"""The bad-input matrix: every model of both backends x every kind of bad input.

One matrix for all families ([DET-SPEC §4], "Errors"; docs/guarantees.md, "Validated
input"). Every case runs on a reference model and on the identically built fast model. It
must raise in both, with the same exception class and the same, non-empty message (the
validation is shared Python code), and leave both models exactly as they were
(``snapshot()`` and ``classes_`` before == after). Row ids start with the class name;
dynamic-tree rows start with ``DT-`` and carry the ``dynatree`` mark.

Rows of :func:`test_bad_input`:

* the generic cases of every model configuration of ``_hardening_models.SPECS`` (all
  public models, trained on 30 rows): bad rows (NaN, inf, width, text, ...) in every
  input method, bad batches, bad targets / labels / bags, bad retirement and discard
  calls of the dynamic trees, unknown ``set_params`` keys;
* family rows on models built the way the family tests build them (``FAMILY``): wrong
  widths on a 2-feature dynamic tree, retirement indices and ``lam``, ALC rectangles,
  nominal features of SGT, custom losses, ABACOC's open label set and ``rate``, ...

:func:`test_bad_constructor` checks every invalid hyper-parameter of every public class
(models, generator, losses); :func:`test_bad_input_untrained_first_call` that a
rejected first call fixes nothing; the ``test_c_layer_*`` tests that the C entry points
themselves return status codes instead of crashing.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from _abacoc_streams import random_stream
from _dynatree_helpers import class_stream, regression_stream
from _hardening_models import SPECS, D, Spec, trained

from _compare import assert_snapshot_equal

Action = Callable[[Any], Any]
AnyError = (ValueError, TypeError)


@dataclass(frozen=True)
class Case:
    """One bad call: what it does, what it must raise, what else must hold afterwards."""

    action: Action
    raises: type[Exception] | tuple[type[Exception], ...] = AnyError
    match: str = ""                                   # text the message must contain
    after: Callable[[Any], None] | None = None        # a check on the (unchanged) model
    same_message: bool = True                         # False: only the class must agree


# -- generic cases of every model configuration -------------------------------------------

GOOD = [0.25, -0.5, 0.75]


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


def _generic_cases(spec: Spec) -> dict[str, Case]:
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
    cases["partial_fit-y-0d-array"] = lambda m: m.partial_fit(
        _batch(spec, [GOOD, GOOD]) if spec.kind == "mil" else np.array([GOOD, GOOD]),
        np.asarray(0.5))  # a float array of 0 dimensions
    cases["predict-1d"] = lambda m: m.predict(
        [GOOD] if spec.kind == "mil" else GOOD)
    cases["predict-wrong-width"] = lambda m: m.predict(
        _batch(spec, [[0.0, 0.0]]) if spec.kind == "mil" else np.zeros((2, D + 1)))
    cases["predict-nan"] = lambda m: m.predict(_batch(spec, [GOOD, BAD_ROWS["nan"]]))
    cases["score-nan"] = lambda m: m.score(_batch(spec, [GOOD, BAD_ROWS["nan"]]),
                                           _ys(spec, 2))
    cases["set_params-unknown-key"] = lambda m: m.set_params(no_such_parameter=1)
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
    out = {name: Case(action) for name, action in cases.items()}
    if spec.dt:
        out.update(_dynamic_tree_cases(spec))
    return out


def _dynamic_tree_cases(spec: Spec) -> dict[str, Case]:
    """Retirement and discard statistics: bad rows, bad indices, the wrong task."""
    nan_row = [BAD_ROWS["nan"]]
    cases: dict[str, Case] = {}
    if spec.kind == "reg":
        cases["predict_dist-nan"] = Case(lambda m: m.predict_dist(nan_row))
        cases["alc-nan"] = Case(lambda m: m.alc(nan_row), ValueError)
        cases["alc-wrong-width"] = Case(lambda m: m.alc([[0.0, 0.0]]), ValueError)
        cases["entropy_active-regression"] = Case(lambda m: m.entropy_active(), ValueError)
    else:
        cases["predict_entropy-nan"] = Case(lambda m: m.predict_entropy(nan_row))
        cases["alc-classification"] = Case(lambda m: m.alc([GOOD]), ValueError)
        cases["alc_active-classification"] = Case(lambda m: m.alc_active(), ValueError)
    if "active_size" in spec.kwargs:
        cases["retire-index-past-pool"] = Case(lambda m: m.retire([10**6]), IndexError)
        cases["retire-negative-index"] = Case(lambda m: m.retire([-1]), IndexError)
        cases["retire-no-indices"] = Case(lambda m: m.retire([]), ValueError)
        cases["retire-float-index"] = Case(lambda m: m.retire([1.0]), ValueError)
        cases["retire-lam-above-1"] = Case(lambda m: m.retire([0], lam=1.5), ValueError)
        cases["retire-lam-nan"] = Case(lambda m: m.retire([0], lam=math.nan), ValueError)
    return cases


# -- family rows: models built as the family tests build them ------------------------------

def _dt_regressor(pkg: ModuleType) -> Any:
    """6 particles, 2 features, 30 rows of ``regression_stream``."""
    m = pkg.DynamicTreeRegressor(n_particles=6, seed=1)
    for x, y in regression_stream(1, 30):
        m.learn_one(x, y)
    return m


def _dt_classifier(pkg: ModuleType) -> Any:
    m = pkg.DynamicTreeClassifier(classes=["a", "b"], n_particles=6, seed=2)
    for x, y in class_stream(2, 30, n_classes=2, labels=("a", "b")):
        m.learn_one(x, y)
    return m


def _dt_active(pkg: ModuleType, **kw: Any) -> Any:
    """An active pool of 20 after 30 rows (retirement)."""
    m = pkg.DynamicTreeRegressor(n_particles=5, seed=2, active_size=20, **kw)
    for x, y in regression_stream(2, 30):
        m.learn_one(x, y)
    return m


def _dt_active_classifier(pkg: ModuleType) -> Any:
    m = pkg.DynamicTreeClassifier(classes=[0, 1, 2], n_particles=4, active_size=10)
    for x, y in class_stream(1, 20):
        m.learn_one(x, y)
    return m


def _dt_linear(pkg: ModuleType) -> Any:
    """Linear leaves with the implicit intercept, which cannot retire."""
    m = pkg.DynamicTreeRegressor(leaf="linear", n_particles=3, seed=1)
    for x, y in regression_stream(1, 20):
        m.learn_one(x, y)
    return m


def _sgt(pkg: ModuleType, name: str) -> Any:
    """SGT models with a nominal third feature of 3 values, after 60 rows."""
    rng = np.random.default_rng(0)
    if name == "mil":
        model = pkg.SGTMultiInstanceClassifier(grace_period=10, warmup=20, nominal={2: 3})
        for _ in range(60):
            bag = [[float(rng.uniform()), float(rng.uniform()), float(rng.integers(0, 3))]
                   for _ in range(3)]
            model.learn_one(bag, int(bag[0][0] > 0.5))
        return model
    kw = dict(grace_period=10, warmup=20, nominal={2: 3})
    if name == "reg":
        model = pkg.SGTRegressor(**kw)
    elif name == "cls":
        model = pkg.SGTClassifier(classes=["a", "b", "c"], **kw)
    else:
        model = pkg.SGT(pkg.CustomLoss(lambda y, f: f - y, lambda y, f: 1.0), **kw)
    for _ in range(60):
        x = [float(rng.uniform()), float(rng.uniform()), float(rng.integers(0, 3))]
        y: Any = x[0] * 3
        if name == "cls":
            y = "abc"[int(x[2])]
        model.learn_one(x, y)
    return model


def _sgt_nan_gradient(pkg: ModuleType) -> Any:
    """A custom loss whose gradient is NaN for targets above 100."""
    loss = pkg.CustomLoss(lambda y, f: math.nan if y > 100 else f - y, lambda y, f: 1.0)
    model = pkg.SGT(loss, warmup=5, grace_period=10)
    for i in range(20):
        model.learn_one([float(i)], 1.0)
    return model


def _sgt_keyed(pkg: ModuleType) -> Any:
    model = pkg.SGTRegressor(warmup=3)
    model.learn_one({"u": 1.0, "v": 2.0}, 1.0)
    return model


def _abacoc(pkg: ModuleType, **kwargs: Any) -> Any:
    """60 rows of 3 features and 2 classes, learned with ``partial_fit``."""
    X, y = random_stream(0, 60, 3, 2)
    model = pkg.ABACOCClassifier(**kwargs)
    model.partial_fit(X, y)
    return model


def _abacoc_keyed(pkg: ModuleType) -> Any:
    model = pkg.ABACOCClassifier(variant="auto")
    model.learn_one({"a": 0.0, "b": 1.0}, 0)
    return model


def _n_seen_is(n: int) -> Callable[[Any], None]:
    def check(m: Any) -> None:
        assert m.n_seen_ == n
    return check


def _classes_are(classes: list[Any]) -> Callable[[Any], None]:
    def check(m: Any) -> None:
        assert list(m.classes_) == classes
    return check


def _still_retires(m: Any) -> None:
    m.retire([0, 0, 3])        # still usable; duplicates ignored
    assert len(m.active_y_) == 18


def _learns_one_feature(m: Any) -> None:
    assert m.n_seen_ == 0
    m.learn_one([0.3], 1.0)
    assert m.n_features_in_ == 1


def _entropy_of_pool(m: Any) -> None:
    assert len(m.entropy_active()) == 10


def _no_width_fixed(m: Any) -> None:
    assert m.n_features_in_ is None


def _width_from_declared_feature(m: Any) -> None:
    assert m.n_features_in_ is None
    m.learn_one([1.0, 2.0, 0.0, 0.0, 0.0, 1.0], 1.0)
    assert m.n_features_in_ == 6


def _fresh_classifier_empty(m: Any) -> None:
    assert m.n_seen_ == 0 and m.classes_ == []


DT_BAD_ROWS: dict[str, Any] = {
    "width-1": [0.1], "width-3": [0.1, 0.2, 0.3], "nan": [float("nan"), 0.2],
    "inf": [math.inf, 0.2], "empty": [], "text": ["a", 0.2], "none-value": [None, 0.2],
    "string": "ab", "scalar": 5.0, "mapping-after-sequences": {"u": 0.1, "v": 0.2},
}
DT_BAD_TARGETS: dict[str, Any] = {"nan": float("nan"), "inf": math.inf, "text": "x",
                                  "none": None, "list": [1.0]}
DT_BAD_BATCHES: dict[str, tuple[Any, Any]] = {
    "y-too-long": ([[0.1, 0.2]], [1.0, 2.0]), "empty": ([], []),
    "3d-X": (np.zeros((2, 2, 2)), [1.0, 2.0]), "1d-X": (np.zeros(3), [1.0, 2.0, 3.0]),
}
DT_BAD_LABELS: dict[str, Any] = {"unknown": "c", "int": 0, "none": None, "unhashable": ["a"]}
RETIRE_BAD: dict[str, tuple[Any, Any, type[Exception]]] = {
    "index-20-of-20": ([20], 1.0, IndexError),
    "index-negative": ([-1], 1.0, IndexError),
    "index-25": ([0, 25], 1.0, IndexError),
    "no-indices": ([], 1.0, ValueError),
    "whole-pool": (list(range(20)), 1.0, ValueError),       # nothing would remain
    "float-index": ([1.0], 1.0, ValueError),
    "text-index": (["a"], 1.0, ValueError),
    "bool-index": ([True], 1.0, ValueError),
    "indices-None": (None, 1.0, ValueError),
    "lam-0": ([0], 0.0, ValueError),
    "lam-1.1": ([0], 1.1, ValueError),
    "lam-nan": ([0], math.nan, ValueError),
}
ALC_BAD: dict[str, tuple[Any, Any]] = {
    "width-1": ([[0.1]], None), "nan": ([[math.nan, 0.2]], None),
    "text": ([["a", 0.1]], None), "rect-short": ([[0.1, 0.2]], [(0.0, 1.0)]),
    "rect-reversed": ([[0.1, 0.2]], [(0.0, 1.0), (2.0, 1.0)]),
    "rect-string": ([[0.1, 0.2]], "ab"),
}
SGT_GOOD_ROW = [0.5, 0.5, 1.0]
SGT_BAD_ROWS: dict[str, Any] = {
    "width-2": [0.5, 0.5], "width-4": [0.5, 0.5, 1.0, 2.0], "empty": [],
    "nan": [math.nan, 0.5, 1.0], "inf": [0.5, math.inf, 1.0], "text": ["a", 0.5, 1.0],
    "numeric-text": ["0.5", 0.5, 1.0], "nominal-too-large": [0.5, 0.5, 3.0],
    "nominal-not-integer": [0.5, 0.5, 1.5], "nominal-negative": [0.5, 0.5, -1.0],
    "nested": [[0.5, 0.5, 1.0]], "None": None, "mapping-after-sequences":
        {"a": 1.0, "b": 2.0, "c": 0.0},
}
ABACOC_BAD_ROWS: dict[str, Any] = {
    "width-2": [0.0, 1.0], "width-4": [0.0, 1.0, 2.0, 3.0], "nan": [0.0, float("nan"), 1.0],
    "inf": [0.0, float("inf"), 1.0], "empty": [], "text": ["a", "b", "c"],
    "2d": [[0.0, 1.0, 2.0]], "None": None,
    "mapping-after-sequences": {"x": 1.0},         # wrong size
}
ABACOC_BAD_BATCHES: dict[str, tuple[Any, Any, type[Exception]]] = {
    "empty": (np.zeros((0, 3)), [], ValueError),
    "nan-row2": (np.array([[0.0, 1.0, 2.0], [1.0, np.nan, 0.0]]), [0, 1], ValueError),
    "wrong-width": (np.zeros((2, 4)), [0, 1], ValueError),
    "y-too-short": (np.zeros((3, 3)), [0, 1], ValueError),
    "1d-X": (np.zeros(3), [0], ValueError),
    "ragged": ([[0.0, 1.0, 2.0], [1.0, 2.0]], [0, 1], ValueError),
    "unhashable-labels": (np.zeros((2, 3)), [[0], [1]], TypeError),
}


def _sgt_family_cases(name: str) -> dict[str, Case]:
    """Bad rows, batches and targets of a trained SGT with a nominal feature."""
    y: Any = "a" if name == "cls" else 1.0
    seen = _n_seen_is(60)
    cases: dict[str, Case] = {}
    for key, row in SGT_BAD_ROWS.items():
        cases[f"learn_one-{key}"] = Case(lambda m, r=row: m.learn_one(r, y), ValueError,
                                         after=seen)
        if row is not None and row != [[0.5, 0.5, 1.0]]:
            cases[f"predict_one-{key}"] = Case(lambda m, r=row: m.predict_one(r), ValueError,
                                               after=seen)
    X = np.array([SGT_GOOD_ROW] * 5)
    bad_X = X.copy()
    bad_X[4, 0] = math.nan
    nominal_bad = X.copy()
    nominal_bad[2, 2] = 7.0
    ys: list[Any] = ["a"] * 5 if name == "cls" else [1.0] * 5
    batches: dict[str, Action] = {
        "partial_fit-nan-row5": lambda m: m.partial_fit(bad_X, ys),
        "partial_fit-y-too-short": lambda m: m.partial_fit(X, ys[:4]),
        "partial_fit-empty": lambda m: m.partial_fit(np.zeros((0, 3)), []),
        "partial_fit-width-2": lambda m: m.partial_fit(X[:, :2], ys),
        "partial_fit-nominal-too-large": lambda m: m.partial_fit(nominal_bad, ys),
        "progressive_predict-nan-row5": lambda m: m.progressive_predict(bad_X, ys),
    }
    if name == "cls":
        batches["learn_one-label-unknown"] = lambda m: m.learn_one(SGT_GOOD_ROW, "zzz")
        batches["learn_one-label-unhashable"] = lambda m: m.learn_one(SGT_GOOD_ROW, ["a"])
        batches["partial_fit-label-unknown-row5"] = lambda m: m.partial_fit(
            X, ["a"] * 4 + ["q"])
    else:
        for key, bad_y in {"nan": math.nan, "inf": math.inf, "text": "x", "None": None}.items():
            batches[f"learn_one-target-{key}"] = lambda m, b=bad_y: m.learn_one(SGT_GOOD_ROW, b)
        batches["partial_fit-target-nan-row5"] = lambda m: m.partial_fit(
            X, [1.0] * 4 + [math.nan])
    cases.update({key: Case(action, ValueError, after=seen) for key, action in batches.items()})
    return cases


def _sgt_bag_cases() -> dict[str, Case]:
    good = [SGT_GOOD_ROW, SGT_GOOD_ROW]
    seen = _n_seen_is(60)
    bags: dict[str, Any] = {
        "empty": [], "width-2": [SGT_GOOD_ROW[:2]], "nan": [SGT_GOOD_ROW, [math.nan, 0.1, 0.0]],
        "nominal-too-large": [[0.1, 0.1, 5.0]], "1d": SGT_GOOD_ROW, "text": [["a", 1.0, 0.0]],
    }
    cases = {f"learn_one-bag-{key}": Case(lambda m, b=bag: m.learn_one(b, 1), ValueError,
                                          after=seen) for key, bag in bags.items()}
    for key, label in {"2": 2, "text": "x", "-1": -1, "None": None}.items():
        cases[f"learn_one-label-{key}"] = Case(lambda m, lab=label: m.learn_one(good, lab),
                                               ValueError, after=seen)
    cases["partial_fit-bag2-width-2"] = Case(
        lambda m: m.partial_fit([good, [SGT_GOOD_ROW[:2]]], [0, 1]), ValueError, after=seen)
    cases["partial_fit-label-3"] = Case(lambda m: m.partial_fit([good, good], [0, 3]),
                                        ValueError, after=seen)
    cases["partial_fit-empty"] = Case(lambda m: m.partial_fit([], []), ValueError, after=seen)
    return cases


def _abacoc_row_cases() -> dict[str, Case]:
    cases: dict[str, Case] = {}
    for key, x in ABACOC_BAD_ROWS.items():
        cases[f"learn_one-{key}"] = Case(lambda m, r=x: m.learn_one(r, 0), ValueError)
        cases[f"predict_one-{key}"] = Case(lambda m, r=x: m.predict_one(r), ValueError)
        cases[f"predict_proba_one-{key}"] = Case(lambda m, r=x: m.predict_proba_one(r),
                                                 ValueError)
    return cases


SGT_CLASS = {"reg": "SGTRegressor", "cls": "SGTClassifier", "custom": "SGT-custom"}


def _family() -> dict[str, tuple[Callable[[ModuleType], Any], dict[str, Case]]]:
    """Model id -> (builder, cases) of the family rows."""
    reg_seen = _n_seen_is(30)
    fam: dict[str, tuple[Callable[[ModuleType], Any], dict[str, Case]]] = {}

    cases: dict[str, Case] = {}
    for key, row in DT_BAD_ROWS.items():
        cases[f"learn_one-{key}"] = Case(lambda m, r=row: m.learn_one(r, 1.0), ValueError,
                                         after=reg_seen)
        cases[f"predict_one-{key}"] = Case(lambda m, r=row: m.predict_one(r), ValueError,
                                           after=reg_seen)
        cases[f"partial_fit-{key}-row2"] = Case(
            lambda m, r=row: m.partial_fit([[0.1, 0.2], r], [1.0, 2.0]), ValueError,
            after=reg_seen)
    for key, t in DT_BAD_TARGETS.items():
        cases[f"learn_one-target-{key}"] = Case(lambda m, b=t: m.learn_one([0.1, 0.2], b),
                                                ValueError)
        cases[f"partial_fit-target-{key}-row2"] = Case(
            lambda m, b=t: m.partial_fit([[0.1, 0.2], [0.3, 0.4]], [1.0, b]), ValueError)
    for key, (X, y) in DT_BAD_BATCHES.items():
        cases[f"partial_fit-{key}"] = Case(lambda m, X=X, y=y: m.partial_fit(X, y), ValueError)
    fam["DT-DynamicTreeRegressor-2-features"] = (_dt_regressor, cases)

    cases = {}
    for key, bad in DT_BAD_LABELS.items():
        cases[f"learn_one-label-{key}"] = Case(lambda m, b=bad: m.learn_one([0.1, 0.2], b),
                                               ValueError)
        cases[f"partial_fit-label-{key}-row2"] = Case(
            lambda m, b=bad: m.partial_fit([[0.1, 0.2], [0.2, 0.3]], ["a", b]), ValueError)
    fam["DT-DynamicTreeClassifier-ab"] = (_dt_classifier, cases)

    fam["DT-DynamicTreeClassifier-no-classes"] = (
        lambda pkg: pkg.DynamicTreeClassifier(n_particles=4),
        {"learn_one-classes-unknown": Case(lambda m: m.learn_one([0.1], "a"), ValueError,
                                           after=_fresh_classifier_empty),
         "partial_fit-one-class-only": Case(
             lambda m: m.partial_fit([[0.1], [0.2]], ["a", "a"]), ValueError,
             after=_fresh_classifier_empty)})

    fam["DT-DynamicTreeRegressor-pool-20"] = (_dt_active, {
        f"retire-{key}": Case(lambda m, i=idx, lam=lam: m.retire(i, lam=lam), exc,
                              after=_still_retires)
        for key, (idx, lam, exc) in RETIRE_BAD.items()} | {
        "entropy_active-regression": Case(lambda m: m.entropy_active(), ValueError)})
    fam["DT-DynamicTreeRegressor-pool-20-alc"] = (
        lambda pkg: _dt_active(pkg, retirement="alc"),
        {f"alc-{key}": Case(lambda m, X=X, rect=rect: m.alc(X, rect=rect), ValueError)
         for key, (X, rect) in ALC_BAD.items()})
    fam["DT-DynamicTreeClassifier-pool-10"] = (_dt_active_classifier, {
        "alc_active-classification": Case(lambda m: m.alc_active(), ValueError,
                                          after=_entropy_of_pool),
        "alc-classification": Case(lambda m: m.alc([[0.1, 0.2]]), ValueError,
                                   after=_entropy_of_pool)})
    fam["DT-DynamicTreeRegressor-unfitted"] = (lambda pkg: pkg.DynamicTreeRegressor(n_particles=3),
                          {"retire-before-fit": Case(lambda m: m.retire([0]), IndexError)})
    fam["DT-DynamicTreeRegressor-linear-implicit-intercept"] = (
        _dt_linear, {"retire-cannot-retire": Case(lambda m: m.retire([0]), ValueError)})
    fam["DT-DynamicTreeRegressor-alc-rect-1-feature"] = (
        lambda pkg: pkg.DynamicTreeRegressor(n_particles=3, active_size=5, retirement="alc",
                                             rect=[(0.0, 1.0)]),
        {"learn_one-rect-shorter-than-row": Case(lambda m: m.learn_one([0.1, 0.2], 1.0),
                                                 ValueError, after=_learns_one_feature)})

    for name in ("reg", "cls", "custom"):
        fam[f"{SGT_CLASS[name]}-nominal"] = (lambda pkg, n=name: _sgt(pkg, n),
                                             _sgt_family_cases(name))
    fam["SGTMultiInstanceClassifier-nominal"] = (lambda pkg: _sgt(pkg, "mil"), _sgt_bag_cases())
    fam["SGT-custom-nan-gradient"] = (_sgt_nan_gradient, {
        "learn_one-gradient-nan": Case(lambda m: m.learn_one([3.0], 1000.0), ValueError,
                                       after=_n_seen_is(20))})
    fam["SGTRegressor-keyed"] = (_sgt_keyed, {
        # keys in another order are matched by name (test_sklearn_conventions.py); a key
        # too few or too many is bad input
        "learn_one-keys-missing": Case(lambda m: m.learn_one({"v": 1.0}, 1.0),
                                       ValueError, after=_n_seen_is(1)),
        "learn_one-keys-extra": Case(lambda m: m.learn_one({"v": 1.0, "u": 2.0, "w": 3.0}, 1.0),
                                     ValueError, after=_n_seen_is(1)),
        "learn_one-keys-different": Case(lambda m: m.learn_one({"u": 1.0, "w": 2.0}, 1.0),
                                         ValueError, after=_n_seen_is(1))})
    fam["SGTRegressor-million-bins"] = (lambda pkg: pkg.SGTRegressor(bins=1_000_000), {
        # a leaf would need more than MAX_LEAF_CELLS cells: refused before any model is
        # built, with the same message in both backends
        "learn_one-too-many-cells": Case(lambda m: m.learn_one([0.5] * 40, 1.0), ValueError,
                                         after=_no_width_fixed)})
    fam["SGTRegressor-nominal-feature-5"] = (lambda pkg: pkg.SGTRegressor(nominal={5: 3}), {
        "learn_one-declared-feature-outside-row": Case(
            lambda m: m.learn_one([1.0, 2.0], 1.0), ValueError,
            after=_width_from_declared_feature)})

    for variant in ("auto_adj", "base"):
        fam[f"ABACOCClassifier-{variant}-60-rows"] = (
            lambda pkg, v=variant: _abacoc(pkg, variant=v), _abacoc_row_cases())
    fam["ABACOCClassifier-auto_adj-budget-60-rows"] = (
        lambda pkg: _abacoc(pkg, variant="auto_adj", budget=10), {
        f"{method}-{key}": Case(lambda m, f=method, X=X, y=y: getattr(m, f)(X, y), exc)
        for key, (X, y, exc) in ABACOC_BAD_BATCHES.items()
        for method in ("partial_fit", "prequential")})
    fam["ABACOCClassifier-auto-60-rows"] = (lambda pkg: _abacoc(pkg, variant="auto"), {
        "learn_one-label-unhashable": Case(lambda m: m.learn_one([0.0, 0.0, 0.0], ["list"]),
                                           TypeError)} | {
        f"prequential-rate-{rate}": Case(
            lambda m, r=rate: m.prequential(np.zeros((2, 3)), [0, 1], rate=r), ValueError,
            match="rate")
        for rate in (0.0, 1.5, float("nan"), "1")})
    fam["ABACOCClassifier-base-labels-01"] = (
        lambda pkg: _abacoc(pkg, variant="base", labels=(0, 1)),
        {"learn_one-third-label": Case(lambda m: m.learn_one([0.0, 0.0, 0.0], 2), ValueError,
                                       match="labels", after=_classes_are([0, 1])),
         "partial_fit-third-label": Case(        # the valid rows are not learned either
             lambda m: m.partial_fit(np.zeros((3, 3)), [0, 1, 2]), ValueError,
             match="labels", after=_classes_are([0, 1]))})
    fam["ABACOCClassifier-keyed"] = (_abacoc_keyed, {
        "learn_one-keys-different": Case(lambda m: m.learn_one({"a": 0.0, "c": 1.0}, 1),
                                         ValueError, match="keys")})
    return fam


FAMILY = _family()
SPEC_BY_ID = {spec.id: spec for spec in SPECS}


def _cases(model: str) -> dict[str, Case]:
    if model in SPEC_BY_ID:
        return _generic_cases(SPEC_BY_ID[model])
    return FAMILY[model][1]


def _matrix() -> list[Any]:
    params = []
    for model in [*SPEC_BY_ID, *FAMILY]:
        assert model not in SPEC_BY_ID or model not in FAMILY, model
        for case in _cases(model):
            marks = [pytest.mark.dynatree] if model.startswith("DT-") else []
            params.append(pytest.param(model, case, id=f"{model}:{case}", marks=marks))
    return params


_TRAINED: dict[tuple[str, str], Any] = {}


def _fresh(model: str, pkg: ModuleType) -> Any:
    """The model in the state the case expects: a copy of a cached trained model for the
    generic rows (built once per backend), a newly built one for the family rows."""
    if model not in SPEC_BY_ID:
        return FAMILY[model][0](pkg)
    key = (model, pkg.__name__)
    if key not in _TRAINED:
        _TRAINED[key] = trained(SPEC_BY_ID[model], pkg, n=30)
    return copy.deepcopy(_TRAINED[key])


def _classes(model: Any) -> list[Any] | None:
    """The registered labels of a classifier (None for a regressor)."""
    classes = getattr(model, "classes_", None)
    return None if classes is None else list(classes)


def _outcome(action: Action, model: Any) -> tuple[type[BaseException] | None, str]:
    try:
        action(model)
    except Exception as exc:  # noqa: BLE001 - the class itself is what we compare
        return type(exc), str(exc)
    return None, ""


@pytest.mark.parametrize("model,case", _matrix())
def test_bad_input(both: tuple[ModuleType, ModuleType], model: str, case: str) -> None:
    check = _cases(model)[case]
    results = []
    for pkg in both:
        m = _fresh(model, pkg)
        before, classes = m.snapshot(), _classes(m)
        kind, message = _outcome(check.action, m)
        assert kind is not None, f"{pkg.__name__}: {case} was accepted"
        assert issubclass(kind, check.raises), (
            f"{pkg.__name__}: {case} raised {kind.__name__}: {message}")
        assert message, f"{pkg.__name__}: {case} raised {kind.__name__} with no message"
        assert check.match in message, f"{pkg.__name__}: {check.match!r} not in {message!r}"
        assert_snapshot_equal(before, m.snapshot(), path=f"{pkg.__name__}:{case}")
        assert _classes(m) == classes
        if check.after is not None:
            check.after(m)
        results.append((kind, message) if check.same_message else (kind, ""))
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


# -- invalid hyper-parameters of every public class ---------------------------------------

@dataclass(frozen=True)
class BadConstructor:
    """``cls(*args, **fixed, **kwargs)`` must raise ``raises`` with a message that contains,
    for each tuple of ``names``, at least one of its strings."""

    cls: str
    kwargs: dict[str, Any]
    raises: tuple[type[Exception], ...] = AnyError
    names: tuple[tuple[str, ...], ...] = ()
    fixed: dict[str, Any] | None = None
    args: tuple[Any, ...] = ()

    @property
    def id(self) -> str:
        dt = "DT-" if self.cls.startswith("Dynamic") else ""
        shown = ", ".join(_show(a) for a in self.args) + ("," if len(self.args) == 1 else "")
        parts = [f"positional({shown})"] if self.args else []
        parts += [f"{k}={_show(v)}" for k, v in {**(self.fixed or {}), **self.kwargs}.items()]
        return f"{dt}{self.cls}:{','.join(parts)}"

    def merged(self, other: BadConstructor) -> BadConstructor:
        """The same call listed twice: both rows' requirements at once."""
        narrower = tuple(e for e in self.raises if e in other.raises)
        assert narrower, f"{self.id}: contradictory exception classes"
        return BadConstructor(self.cls, self.kwargs, narrower, self.names + other.names,
                              self.fixed, self.args)


def _show(value: Any) -> str:
    """A stable id for a value (a bare ``object()`` or a function has no stable repr: the
    ids must be the same in every process, e.g. in each pytest-xdist worker)."""
    if type(value) is object:
        return "object()"
    if callable(value) and hasattr(value, "__name__"):
        return value.__name__
    return repr(value)


def _names_given(kw: dict[str, Any]) -> tuple[tuple[str, ...], ...]:
    """The message names one of the parameters (``variant``/``metric`` only if alone)."""
    return (tuple(k for k in kw if k not in ("variant", "metric")) or tuple(kw),)


BAD_PARAMS: dict[str, list[dict[str, Any]]] = {
    "DynamicTreeRegressor": [
        dict(n_particles=0), dict(n_particles=-5), dict(n_particles=2.5), dict(n_particles="9"),
        dict(alpha=-0.5), dict(alpha=1.5), dict(alpha=math.nan), dict(beta=-1.0),
        dict(min_leaf=0), dict(nstart=-1), dict(nu0=-1.0), dict(s20=-1.0),
        dict(seed=1.5), dict(leaf="cubic"), dict(intercept="nope"),
        dict(lpred_window=-1), dict(lpred_window=2.5), dict(lpred_window=True),
        dict(slope_prior=0.0), dict(slope_prior=-1.0), dict(slope_prior=math.inf),
        dict(slope_prior=math.nan), dict(slope_prior="1"), dict(slope_prior=True),
        dict(slope_prior=1.0),   # the slope prior needs leaf='linear'
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
        dict(budget="none"), dict(variant="base", budget=10), dict(d=0.0), dict(d=-1.0),
        dict(d=math.inf),
        dict(C=0.0), dict(C="1"), dict(mode="x"), dict(metric="cosine"),
        dict(metric="minkowski", p=0.5), dict(search="brute"), dict(search_threshold=0),
        dict(leaf_size=0), dict(seed=1.5), dict(labels=(0, 0)),
        dict(labels=("a",)),
    ],
}
"""Every model: the message names the parameter."""

DT_BAD_PARAMS: list[dict[str, Any]] = [
    {"leaf": "class"}, {"leaf": "cubic"}, {"intercept": "both"},
    {"leaf": "constant", "intercept": "augmented"}, {"n_particles": 0},
    {"n_particles": 2.5}, {"alpha": 1.0}, {"alpha": -0.1}, {"beta": 0.0},
    {"beta": math.inf}, {"min_leaf": 0}, {"nstart": 0}, {"nu0": -1.0},
    {"nu0": 0.0, "s20": 1.0}, {"seed": 1.5}, {"min_leaf": True},
]
"""Dynamic-tree regressor: ValueError naming the first parameter, the intercept or s20."""

RETIREMENT_BAD_PARAMS: list[dict[str, Any]] = [
    {"active_size": 0}, {"active_size": -3}, {"active_size": 2.5}, {"active_size": True},
    {"retirement": "oldest"}, {"retirement": "entropy"},
    {"lam": 0.0}, {"lam": 1.5}, {"lam": -0.2}, {"lam": math.nan}, {"lam": "0.9"},
    {"leaf": "linear", "active_size": 10},          # implicit intercept cannot retire
    {"rect": [(0.0, 1.0, 2.0)]}, {"rect": [(1.0, 0.0)]}, {"rect": [(0.0, math.inf)]},
    {"rect": [("a", 1.0)]}, {"rect": 5}, {"approx": "yes"},
]
"""Retirement options of the dynamic-tree regressor (ValueError)."""

RETIREMENT_BAD_CLASSIFIER_PARAMS: list[dict[str, Any]] = [
    {"active_size": 0}, {"retirement": "alc"}, {"lam": 0.0}, {"lam": 2.0},
]
"""Retirement options of ``DynamicTreeClassifier(classes=[0, 1], ...)`` (ValueError)."""

SGT_SHARED_BAD_PARAMS: list[dict[str, Any]] = [
    dict(delta=0.0), dict(delta=1.0), dict(delta="x"), dict(grace_period=0),
    dict(grace_period=2.5), dict(lam=-1.0), dict(lam=math.inf), dict(gamma=-0.1),
    dict(bins=1), dict(bins=True), dict(warmup=0), dict(max_depth=-1),
    dict(warmup_trains=1), dict(nominal={0: 1}), dict(nominal={-1: 3}), dict(nominal=[1]),
    dict(feature_ranges={0: (1.0, 1.0)}), dict(feature_ranges={0: (0.0, math.nan)}),
    dict(feature_ranges={0: (0.0, 1.0)}, nominal={0: 3}), dict(test="left"),
]
"""Options shared by the four SGT classes: ValueError naming the first one or ``nominal``."""

ABACOC_BAD_PARAMS: list[dict[str, Any]] = [
    {"variant": "fix"}, {"variant": "base", "budget": 10}, {"budget": 1}, {"budget": 2.5},
    {"budget": True}, {"budget": "AUTO"}, {"d": 0.0}, {"d": float("nan")}, {"d": "2"}, {"C": -1.0},
    {"C": float("inf")}, {"mode": "greedy"}, {"labels": (1, 1)}, {"labels": [0, 1]},
    {"labels": (0, 1, 2)}, {"metric": "cosine"}, {"p": 0.5}, {"search": "balltree"},
    {"search_threshold": 0}, {"leaf_size": 1}, {"leaf_size": 4096}, {"seed": 1.5},
]
"""ABACOC: ValueError naming ``budget`` if given, else the first parameter."""


def _bad_constructors() -> list[BadConstructor]:
    rows: list[BadConstructor] = []
    for cls, bad in BAD_PARAMS.items():
        rows += [BadConstructor(cls, kw, AnyError, _names_given(kw)) for kw in bad]
    for kw in DT_BAD_PARAMS:
        rows.append(BadConstructor("DynamicTreeRegressor", kw, (ValueError,),
                                   ((next(iter(kw)), "intercept", "s20"),)))
    rows += [BadConstructor("DynamicTreeRegressor", kw, (ValueError,))
             for kw in RETIREMENT_BAD_PARAMS]
    rows += [BadConstructor("DynamicTreeClassifier", kw, (ValueError,), fixed={"classes": [0, 1]})
             for kw in RETIREMENT_BAD_CLASSIFIER_PARAMS]
    for cls in ("SGTRegressor", "SGTClassifier", "SGTMultiInstanceClassifier", "SGT"):
        rows += [BadConstructor(cls, kw, (ValueError,), ((next(iter(kw)), "nominal"),))
                 for kw in SGT_SHARED_BAD_PARAMS]
    rows += [BadConstructor("SGTClassifier", {"classes": ["a"]}, (ValueError,)),
             BadConstructor("SGTClassifier", {"classes": ["a", "a"]}, (ValueError,)),
             BadConstructor("SGTMultiInstanceClassifier", {"epochs": 0}, (ValueError,)),
             BadConstructor("SGT", {"loss": object()}, (ValueError,))]
    rows += [BadConstructor("ABACOCClassifier", kw, (ValueError,),
                            (("budget" if "budget" in kw else next(iter(kw)),),))
             for kw in ABACOC_BAD_PARAMS]
    rows.append(BadConstructor("ABACOCClassifier", {}, (TypeError,), args=("auto",)))
    # the generator and the losses
    rows += [BadConstructor("Rng", {}, (TypeError,), (("seed",),), args=(seed,))
             for seed in ("a", 1.5)]
    rows += [BadConstructor("CustomLoss", {}, (ValueError,), (("callable",),), args=args)
             for args in ((1, 2), (None, lambda y, f: 1.0), (lambda y, f: y - f, "x"))]
    rows += [BadConstructor(cls, {}, (TypeError,), args=(arg,))
             for cls, arg in (("SquaredError", 3), ("BinaryCrossEntropy", "x"),
                              ("PseudoHuber", 2.0))]  # δ = 1 is fixed: no parameter
    merged: dict[str, BadConstructor] = {}
    for row in rows:
        merged[row.id] = merged[row.id].merged(row) if row.id in merged else row
    return list(merged.values())


BAD_CONSTRUCTORS = _bad_constructors()


@pytest.mark.parametrize("row", [
    pytest.param(row, id=row.id,
                 marks=[pytest.mark.dynatree] if row.cls.startswith("Dynamic") else [])
    for row in BAD_CONSTRUCTORS])
def test_bad_constructor(both: tuple[ModuleType, ModuleType], row: BadConstructor) -> None:
    results = []
    for pkg in both:
        with pytest.raises(row.raises) as info:
            getattr(pkg, row.cls)(*row.args, **(row.fixed or {}), **row.kwargs)
        results.append((info.type, str(info.value)))
    assert results[0] == results[1], f"backends differ: {results}"
    message = results[0][1]
    assert message, f"{row.id}: no message"
    for names in row.names:
        assert any(n in message for n in names), (
            f"message does not name the parameter {names}: {message}")


@pytest.mark.parametrize("method,args,raises", [
    ("below", (0,), ValueError), ("below", (-1,), ValueError), ("below", (1.5,), TypeError),
])
def test_bad_generator_call(both: tuple[ModuleType, ModuleType], method: str,
                            args: tuple[Any, ...], raises: type[Exception]) -> None:
    """The public generator: a rejected call draws nothing (state unchanged)."""
    results = []
    for pkg in both:
        rng = pkg.Rng(7)
        before = rng.state
        with pytest.raises(raises) as info:
            getattr(rng, method)(*args)
        assert rng.state == before
        results.append((info.type, str(info.value)))
    assert results[0] == results[1] and results[0][1]


def test_matrix_covers_every_public_class(both: tuple[ModuleType, ModuleType]) -> None:
    """Every public class of either backend has rows here (exceptions excepted)."""
    models = {spec.cls for spec in SPECS}
    covered = models | {row.cls for row in BAD_CONSTRUCTORS} | {"Rng"}
    for pkg in both:
        public = {name for name in pkg.__all__ if isinstance(getattr(pkg, name), type)
                  and not issubclass(getattr(pkg, name), BaseException)}
        assert public <= covered, f"{pkg.__name__}: no bad-input rows for {public - covered}"
        learners = {name for name in public if hasattr(getattr(pkg, name), "learn_one")}
        assert learners <= models, f"{pkg.__name__}: not in the matrix: {learners - models}"


# -- the C layer itself: status codes, no crash, no state change ----------------------------

def test_c_layer_dynamic_tree_rejects_bad_batches_without_state_change(lib: Any) -> None:
    """The C library itself validates: status codes, no crash, model unchanged."""
    from fast._ffi import ffi

    out = ffi.new("dt_model **")
    assert lib.dt_model_new(2, 0, 0, 1, 0, 0.0, 0.0, 2, 1, 1, 4, 0.95, 2.0, 1, out) == \
        lib.ST_EINVAL                                   # a class leaf needs classes
    assert out[0] == ffi.NULL
    assert lib.dt_model_new(2, 0, 0, 1, 3, 0.0, 0.0, 2, 1, 1, 4, 0.95, 2.0, 1, out) == lib.ST_OK
    m = ffi.gc(out[0], lib.dt_model_free)
    good = ffi.new("double[]", [0.1, 0.2, 0.3, 0.4])
    assert lib.dt_model_learn(m, good, ffi.new("double[]", [0.0, 2.0]), 2, ffi.NULL) == 0
    for ys, code in (([0.0, 3.0], lib.ST_ERANGE), ([0.0, -1.0], lib.ST_ERANGE),
                     ([0.5, 1.0], lib.ST_ERANGE), ([math.nan, 1.0], lib.ST_EINVAL)):
        assert lib.dt_model_learn(m, good, ffi.new("double[]", ys), 2, ffi.NULL) == code
    bad_x = ffi.new("double[]", [0.1, math.inf, 0.3, 0.4])
    assert lib.dt_model_learn(m, bad_x, ffi.new("double[]", [0.0, 1.0]), 2, ffi.NULL) == \
        lib.ST_EINVAL
    assert m.store.n == 2


def test_c_layer_sgt_rejects_bad_values(lib: Any) -> None:
    """The C entry points validate too (status codes, no crash)."""
    from fast._ffi import ffi

    p = ffi.new("sgt_params *")
    p.delta, p.lam, p.gamma = 1e-7, 0.1, 1.0
    p.grace_period, p.bins, p.warmup, p.max_depth, p.warmup_trains = 5, 4, 1, -1, 1
    out = ffi.new("sgt_model **")
    assert lib.sgt_model_new(p, 2, ffi.new("int32_t[]", [0, 3]), ffi.new("double[]", 2),
                             ffi.new("double[]", 2), ffi.new("uint8_t[]", 2), 0, 1, out) == 0
    m = ffi.gc(out[0], lib.sgt_model_free)
    raw = ffi.new("double[]", 1)
    assert lib.sgt_model_learn(m, [math.nan, 1.0], 1, 1.0) == lib.ST_EINVAL
    assert lib.sgt_model_learn(m, [0.5, 3.0], 1, 1.0) == lib.ST_EINVAL
    assert lib.sgt_model_learn(m, [0.5, 1.0, 0.5, 1.0], 2, 1.0) == lib.ST_EINVAL
    assert lib.sgt_model_raws(m, [0.5, -1.0], raw) == lib.ST_EINVAL
    assert lib.sgt_model_train_gh(m, [0.5, 1.0], [1.0], [1.0]) == lib.ST_ESTATE
    assert lib.sgt_model_learn(m, [0.5, 1.0], 1, 1.0) == lib.ST_OK
    assert lib.sgt_model_train_gh(m, [0.5, 1.0], [math.inf], [1.0]) == lib.ST_EINVAL
    assert lib.sgt_model_learn(m, [0.5, 1.0], 1, math.nan) == lib.ST_EINVAL
    p.bins = 1
    assert lib.sgt_model_new(p, 2, ffi.new("int32_t[]", [0, 3]), ffi.new("double[]", 2),
                             ffi.new("double[]", 2), ffi.new("uint8_t[]", 2), 0, 1,
                             out) == lib.ST_EINVAL


def test_c_layer_abacoc_returns_status_codes(lib: Any) -> None:
    """The raw C entry points never crash on misuse; they return status codes."""
    from fast._ffi import ffi

    out = ffi.new("ab_model **")
    assert lib.ab_model_new(9, 0, 0, 2.0, 2.0, 1.0, 0, 0, 256, 8, 1, out) == lib.ST_EINVAL
    assert out[0] == ffi.NULL
    assert lib.ab_model_new(3, 0, 0, 2.0, 2.0, 1.0, 0, 0, 256, 8, 1, out) == lib.ST_OK
    h = ffi.gc(out[0], lib.ab_model_free)
    x = ffi.new("double[]", [0.0, 1.0])
    k = ffi.new("int64_t[]", [0])
    assert lib.ab_model_partial_fit(h, x, k, 1) == lib.ST_ESTATE      # no dimension yet
    assert lib.ab_model_set_dim(h, 2) == lib.ST_OK
    assert lib.ab_model_set_dim(h, 3) == lib.ST_EDIM
    assert lib.ab_model_partial_fit(h, x, k, 1) == lib.ST_ERANGE      # class 0 not registered
    assert lib.ab_model_add_class(h) == lib.ST_OK
    bad = ffi.new("double[]", [0.0, float("nan")])
    assert lib.ab_model_partial_fit(h, bad, k, 1) == lib.ST_EINVAL
    assert lib.ab_model_partial_fit(h, ffi.NULL, k, 1) == lib.ST_EINVAL
    assert h.n_seen == 0 and h.balls.n_balls == 0
    assert lib.ab_model_partial_fit(h, x, k, 1) == lib.ST_OK and h.balls.n_balls == 1

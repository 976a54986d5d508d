"""The scikit-learn estimator protocol on every model of both backends.

scikit-learn's own ``check_estimator`` runs over every model; the checks that contradict
streaming semantics are expected failures, each with its reason (the same list, with the
same reasons, is in the tutorial "Using driftwood with scikit-learn and River"). Then
``clone``, ``Pipeline``, ``GridSearchCV``, ``cross_val_score``, ``set_params`` and ``fit``
are checked for what they promise.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from conftest import FAST, REFERENCE, require_fast

sklearn = pytest.importorskip("sklearn")
from sklearn.base import clone, is_classifier, is_regressor  # noqa: E402
from sklearn.model_selection import GridSearchCV, cross_val_score  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

EXPECTED_FAILED_CHECKS: dict[str, str] = {
    "check_no_attributes_set_in_init": (
        "streaming models expose their running state from construction (n_seen_ = 0, an "
        "empty classes_, n_features_in_ = None until the first row), as River's models do"
    ),
    "check_n_features_in": (
        "n_features_in_ exists (as None) before the first row: the same streaming state"
    ),
    "check_estimators_unfitted": (
        "a streaming model predicts before its first example (from the prior, or nothing for "
        "an empty cover): prequential evaluation starts there, so it never raises NotFittedError"
    ),
    "check_do_not_raise_errors_in_init_or_set_params": (
        "parameters are validated by the constructor and set_params, so a bad value is reported "
        "where it is written and never reaches a model that has learned"
    ),
    "check_classifiers_regression_target": (
        "class labels are arbitrary hashable values, as in River: a float is a valid label, "
        "so a continuous target is a problem with many classes, not an error"
    ),
}
"""scikit-learn checks that contradict streaming semantics, with the reason."""


def _models(package: ModuleType) -> list[Any]:
    return [
        package.DynamicTreeRegressor(n_particles=10),
        package.DynamicTreeClassifier(n_particles=10),
        package.SGTRegressor(),
        package.SGTClassifier(),
        package.SGT(),
        package.SGTMultiInstanceClassifier(),
        package.ABACOCClassifier(),
    ]


def _expected_failures(estimator: Any) -> dict[str, str]:
    return EXPECTED_FAILED_CHECKS


ESTIMATORS = _models(REFERENCE) + (_models(FAST) if FAST is not None else [])


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failures)
def test_scikit_learn_estimator_checks(estimator: Any, check: Callable[[Any], None]) -> None:
    check(estimator)


def test_expected_failures_are_still_failures() -> None:
    """Each declared failure does fail for at least one model (else it must be removed).

    Only the declared checks run here: any other failing check already fails
    ``test_scikit_learn_estimator_checks``."""
    from unittest import SkipTest

    from sklearn.utils.estimator_checks import estimator_checks_generator

    failing: set[str] = set()
    for model in _models(REFERENCE):
        for estimator, check in estimator_checks_generator(model):
            name = getattr(check, "func", check).__name__      # checks are partials
            if name not in EXPECTED_FAILED_CHECKS or name in failing:
                continue
            try:
                check(estimator)
            except SkipTest:
                pass
            except Exception:  # noqa: BLE001 - any failure of the check counts
                failing.add(name)
    assert set(EXPECTED_FAILED_CHECKS) == failing


# -- the protocol's promises, on both backends -----------------------------------------------

X_REG = np.random.default_rng(0).uniform(size=(240, 3))
Y_REG = 10 * X_REG[:, 0] + np.sin(6 * X_REG[:, 1])
Y_CLS = np.where(X_REG[:, 0] + X_REG[:, 1] > 1.0, "hi", "lo")

REGRESSORS = [("DynamicTreeRegressor", {"n_particles": 20}), ("SGTRegressor", {"warmup": 50}),
              ("SGT", {"warmup": 50})]
CLASSIFIERS = [("DynamicTreeClassifier", {"n_particles": 20}),
               ("SGTClassifier", {"warmup": 50}), ("ABACOCClassifier", {})]


@pytest.mark.parametrize(("name", "kwargs"), REGRESSORS + CLASSIFIERS)
def test_fit_equals_a_new_model_learning_the_rows(
    backend: ModuleType, name: str, kwargs: dict[str, Any]
) -> None:
    classifier = name in dict(CLASSIFIERS)
    y = Y_CLS if classifier else Y_REG
    model = getattr(backend, name)(**kwargs)
    model.partial_fit(X_REG[:50], y[:50])          # state that fit must forget
    assert model.fit(X_REG, y) is model
    twin = getattr(backend, name)(**kwargs)
    if classifier:
        twin.partial_fit(X_REG, y, classes=sorted(set(y.tolist())))
        assert list(model.classes_) == ["hi", "lo"]
    else:
        twin.partial_fit(X_REG, y)
    assert model.snapshot() == twin.snapshot()
    assert is_classifier(model) == classifier and is_regressor(model) == (not classifier)


@pytest.mark.parametrize(("name", "kwargs"), REGRESSORS + CLASSIFIERS)
def test_fit_is_the_same_in_both_backends(name: str, kwargs: dict[str, Any]) -> None:
    fast = require_fast()
    y = Y_CLS if name in dict(CLASSIFIERS) else Y_REG
    slow = getattr(REFERENCE, name)(**kwargs).fit(X_REG, y)
    quick = getattr(fast, name)(**kwargs).fit(X_REG, y)
    assert slow.snapshot() == quick.snapshot()
    assert (slow.predict(X_REG[:20]) == quick.predict(X_REG[:20])).all()


@pytest.mark.parametrize(("name", "kwargs"), REGRESSORS + CLASSIFIERS)
def test_clone_gives_an_unfitted_model_with_the_same_parameters(
    backend: ModuleType, name: str, kwargs: dict[str, Any]
) -> None:
    y = Y_CLS if name in dict(CLASSIFIERS) else Y_REG
    model = getattr(backend, name)(**kwargs).fit(X_REG, y)
    twin = clone(model)
    assert type(twin) is type(model) and twin.get_params() == model.get_params()
    assert twin.n_seen_ == 0 and model.n_seen_ == len(y)
    assert pickle.loads(pickle.dumps(twin)).get_params() == twin.get_params()


@pytest.mark.parametrize(("name", "kwargs"), REGRESSORS + CLASSIFIERS)
def test_score_is_r2_or_accuracy(backend: ModuleType, name: str, kwargs: dict[str, Any]) -> None:
    classifier = name in dict(CLASSIFIERS)
    y = Y_CLS if classifier else Y_REG
    model = getattr(backend, name)(**kwargs).fit(X_REG, y)
    predicted = model.predict(X_REG)
    if classifier:
        expected = float(np.mean(predicted == y))
    else:
        expected = 1.0 - np.sum((y - predicted) ** 2) / np.sum((y - y.mean()) ** 2)
    assert model.score(X_REG, y) == pytest.approx(expected, rel=1e-12)
    weights = np.arange(len(y), dtype=float)
    if classifier:
        weighted = float(np.average(predicted == y, weights=weights))
        assert model.score(X_REG, y, sample_weight=weights) == pytest.approx(weighted)


@pytest.mark.parametrize(("name", "kwargs"), REGRESSORS + CLASSIFIERS)
def test_set_params_validates_like_the_constructor_and_restarts(
    backend: ModuleType, name: str, kwargs: dict[str, Any]
) -> None:
    y = Y_CLS if name in dict(CLASSIFIERS) else Y_REG
    cls = getattr(backend, name)
    model = cls(**kwargs).fit(X_REG[:60], y[:60])
    before = model.snapshot()
    bad = {"DynamicTreeRegressor": {"n_particles": 0}, "DynamicTreeClassifier": {"alpha": 2.0},
           "SGTRegressor": {"delta": 2.0}, "SGT": {"lam": -1.0},
           "SGTClassifier": {"grace_period": 0}, "ABACOCClassifier": {"variant": "nope"}}[name]
    with pytest.raises(ValueError) as from_set:
        model.set_params(**bad)
    with pytest.raises(ValueError) as from_constructor:
        cls(**{**kwargs, **bad})
    assert type(from_set.value) is type(from_constructor.value)
    assert str(from_set.value) == str(from_constructor.value)
    assert model.snapshot() == before                       # unchanged after bad input
    with pytest.raises(ValueError, match="invalid parameter"):
        model.set_params(no_such_parameter=1)
    good = {"DynamicTreeRegressor": {"seed": 7}, "DynamicTreeClassifier": {"seed": 7},
            "SGTRegressor": {"lam": 0.2}, "SGT": {"lam": 0.2}, "SGTClassifier": {"lam": 0.2},
            "ABACOCClassifier": {"d": 3.0}}[name]
    assert model.set_params(**good) is model
    assert model.get_params() == {**cls(**kwargs).get_params(), **good}
    assert model.n_seen_ == 0                                  # restarted


def test_repr_shows_the_non_default_parameters(backend: ModuleType) -> None:
    assert repr(backend.SGTRegressor()) == "SGTRegressor()"
    assert repr(backend.SGTRegressor(lam=0.5)) == "SGTRegressor(lam=0.5)"
    assert repr(backend.DynamicTreeRegressor(n_particles=30, leaf="linear")) == (
        "DynamicTreeRegressor(leaf='linear', n_particles=30)"
    )
    assert repr(backend.ABACOCClassifier(variant="base")) == "ABACOCClassifier(variant='base')"


GRIDS = {"DynamicTreeRegressor": {"alpha": [0.5, 0.95]}, "SGTRegressor": {"lam": [0.05, 0.5]},
         "SGT": {"lam": [0.05, 0.5]}, "DynamicTreeClassifier": {"beta": [1.0, 2.0]},
         "SGTClassifier": {"lam": [0.05, 0.5]}, "ABACOCClassifier": {"d": [2.0, 3.0]}}


@pytest.mark.parametrize(("name", "kwargs"), REGRESSORS + CLASSIFIERS)
def test_grid_search_and_cross_validation_in_a_pipeline(
    backend: ModuleType, name: str, kwargs: dict[str, Any]
) -> None:
    y = Y_CLS if name in dict(CLASSIFIERS) else Y_REG
    step = name.lower()
    grid = {f"{step}__{k}": v for k, v in GRIDS[name].items()}
    search = GridSearchCV(make_pipeline(StandardScaler(), getattr(backend, name)(**kwargs)),
                          grid, cv=2)
    search.fit(X_REG, y)
    assert set(search.best_params_) == set(grid)
    scores = cross_val_score(make_pipeline(StandardScaler(), getattr(backend, name)(**kwargs)),
                             X_REG, y, cv=3)
    assert scores.shape == (3,) and np.isfinite(scores).all()


def test_partial_fit_classes_declares_the_class_order(backend: ModuleType) -> None:
    for model in (backend.SGTClassifier(), backend.DynamicTreeClassifier(n_particles=10),
                  backend.ABACOCClassifier()):
        model.partial_fit(X_REG[:5], ["b"] * 5, classes=["b", "a"])
        assert list(model.classes_) == ["b", "a"]
        if isinstance(model, backend.ABACOCClassifier):   # classes may appear at any time
            model.partial_fit(X_REG[:5], ["a"] * 5, classes=["a", "zzz"])
            assert list(model.classes_) == ["b", "a", "zzz"]
            continue
        before = model.snapshot()        # a fixed class set cannot grow
        with pytest.raises(ValueError):
            model.partial_fit(X_REG[:5], ["a"] * 5, classes=["a", "zzz"])
        assert model.snapshot() == before


def test_bad_array_input_leaves_the_model_unchanged(backend: ModuleType) -> None:
    import scipy.sparse

    model = backend.SGTRegressor().fit(X_REG, Y_REG)
    before = model.snapshot()
    for bad, error in [(scipy.sparse.csr_matrix(X_REG), TypeError),
                       (X_REG[:, :2], ValueError), (X_REG[:, 0], ValueError),
                       (X_REG.astype(complex), ValueError)]:
        with pytest.raises(error):
            model.partial_fit(bad, Y_REG)
        with pytest.raises(error):
            model.predict(bad)
    assert model.snapshot() == before


def test_the_tutorial_lists_every_expected_failure_with_its_reason() -> None:
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "tutorials" / "06_sklearn_and_river.md")
    text = page.read_text(encoding="utf-8")
    for check, reason in EXPECTED_FAILED_CHECKS.items():
        row = next(line for line in text.splitlines() if line.startswith(f"| `{check}` |"))
        assert reason in row.replace("`", ""), check

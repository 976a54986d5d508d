"""River's own estimator checks on every River adapter, in both backends.

River ships the suite its estimators must pass: ``river.checks.yield_checks(model)``, each
check run on ``model.clone()``, with the models River builds from the class's
``_unit_test_params()``. Here the adapters of :mod:`reference.river_adapter` run it for
every family (``SGTRegressor``, ``DynamicTreeRegressor``, ``SGTClassifier``,
``DynamicTreeClassifier``, ``ABACOCClassifier`` and the binary-only randomized BASE) built
from ``_unit_test_params()``: River's checks include shuffled, emerging and disappearing
features, labels learned as they arrive, pickling, cloning, seeding and the mini-batch
methods against the one-row ones.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

pytest.importorskip("river")
from river import checks  # noqa: E402

from reference.river_adapter import RiverClassifier, RiverRegressor  # noqa: E402

CASES = [
    ("regressor", "SGTRegressor"),
    ("regressor", "DynamicTreeRegressor"),
    ("classifier", "SGTClassifier"),
    ("classifier", "DynamicTreeClassifier"),
    ("classifier", "ABACOCClassifier"),
    ("classifier", "ABACOCClassifier-binary"),
]

MUST_RUN = {
    "check_init_has_default_params_for_tests", "check_shuffle_features_no_impact",
    "check_emerging_features", "check_disappearing_features",
    "check_radically_disappearing_features", "check_learn_many_matches_learn_one",
    "check_predict_many_matches_predict_one", "check_pickling",
    "check_clone_is_independent", "check_bounded_memory_growth",
}
"""Checks that must be among those River yields (so the test cannot pass vacuously)."""


def _adapter(kind: str, name: str, backend: ModuleType) -> Any:
    cls = RiverClassifier if kind == "classifier" else RiverRegressor
    for params in cls._unit_test_params():
        model = params["model"]
        if type(model).__module__.split(".")[0] != backend.__name__:
            continue
        binary = getattr(model._params, "mode", None) == "randomized" and getattr(
            model._params, "variant", None) == "base"
        label = type(model).__name__ + ("-binary" if binary else "")
        if label == name:
            return cls(**params)
    raise AssertionError(f"no {name} in {cls.__name__}._unit_test_params()")


@pytest.mark.parametrize(("kind", "name"), CASES)
def test_river_estimator_checks_pass(backend: ModuleType, kind: str, name: str) -> None:
    adapter = _adapter(kind, name, backend)
    ran, failed = [], []
    for check in checks.yield_checks(adapter):
        if check.__name__ in adapter._unit_test_skips():
            continue
        ran.append(check.__name__)
        try:
            check(adapter.clone())
        except Exception as exc:  # every failure is reported, not only the first
            failed.append(f"{check.__name__}: {type(exc).__name__}: {exc}")
    assert not adapter._unit_test_skips()
    assert MUST_RUN <= set(ran)
    if kind == "classifier":
        assert "check_classifier_tracks_seen_labels" in ran
        assert ("check_predict_proba_one_binary" in ran) == name.endswith("-binary")
    assert not failed, "\n".join(failed)


def test_unit_test_params_cover_every_family_in_every_backend(backend: ModuleType) -> None:
    found = set()
    for cls in (RiverRegressor, RiverClassifier):
        for params in cls._unit_test_params():
            model = params["model"]
            if type(model).__module__.split(".")[0] == backend.__name__:
                found.add(type(model).__name__)
                assert isinstance(cls(**params), cls)
    assert found == {"SGTRegressor", "DynamicTreeRegressor", "SGTClassifier",
                     "DynamicTreeClassifier", "ABACOCClassifier"}


def test_multiclass_flag_marks_binary_only_models(backend: ModuleType) -> None:
    """River picks its data sets by ``_multiclass``: binary-only models say False."""
    wrap = backend.to_river
    assert wrap(backend.SGTClassifier())._multiclass
    assert wrap(backend.DynamicTreeClassifier(classes=["a", "b", "c"]))._multiclass
    assert wrap(backend.ABACOCClassifier())._multiclass
    assert not wrap(backend.SGTClassifier(classes=[False, True]))._multiclass
    assert not wrap(backend.DynamicTreeClassifier(classes=[0, 1]))._multiclass
    assert not wrap(backend.ABACOCClassifier(variant="base", mode="randomized"))._multiclass


def test_bag_models_are_not_river_estimators(backend: ModuleType) -> None:
    with pytest.raises(TypeError, match="bags"):
        backend.to_river(backend.SGTMultiInstanceClassifier())

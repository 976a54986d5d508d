"""The invariants the C backend relies on, checked on every restore path (docs/guarantees.md).

Each test builds a genuine saved model, breaks one invariant of "Invariants the C relies
on" and checks that model files (``load``) and pickles (``__setstate__``) refuse it in
both backends with the same ``StateFormatError`` naming the field; or, where the state is
legal, that both backends load it and continue bit for bit. Counters are bounded by
``COUNTER_MAX``: a model one row below the bound learns that row identically in both
backends, and the result saves and reloads in both.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import pickle
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from _hardening_models import BY_ID, SPECS, Spec, stream, trained

from _compare import assert_snapshot_equal
from reference.persist import from_document, to_document
from reference.state import COUNTER_MAX, StateFormatError

DT = BY_ID["DT-DynamicTreeRegressor"]


def _doc(spec: Spec, pkg: ModuleType, n: int = 40) -> dict[str, Any]:
    return copy.deepcopy(to_document(trained(spec, pkg, n)))


def _refused_alike(doc: dict[str, Any], field: str) -> str:
    """Both backends refuse ``doc`` with the same message, which names ``field``."""
    messages = []
    for backend in ("reference", "fast"):
        with pytest.raises(StateFormatError) as info:
            from_document(doc, backend)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert f"field {field}" in messages[0], messages[0]
    return messages[0]


def _has_splits(doc: dict[str, Any]) -> bool:
    return any(len(tree) > 1 for tree in doc["snapshot"]["particles"])


@pytest.mark.parametrize("param", ["min_leaf", "nstart"])
def test_trees_with_splits_before_nstart_rows_are_refused(both: tuple[ModuleType, ModuleType],
                                                          param: str) -> None:
    # 40 rows learned with splits; the file says min_leaf (hence nstart) or nstart = 100:
    # the next row would go to the root of a tree that has splits
    doc = _doc(DT, both[1])
    assert _has_splits(doc)
    doc["params"][param] = 100
    message = _refused_alike(doc, "snapshot.particles[0]")
    assert "nstart" in message


def test_splits_after_exactly_nstart_rows_are_refused(both: tuple[ModuleType, ModuleType]) -> None:
    doc = _doc(DT, both[1])
    doc["params"]["nstart"] = doc["fitted"]["n_seen"]
    _refused_alike(doc, "snapshot.particles[0]")
    doc["params"]["nstart"] = doc["fitted"]["n_seen"] - 1   # one PL step: splits are legal
    for backend in ("reference", "fast"):
        from_document(doc, backend)


def test_leaves_below_min_leaf_are_refused(both: tuple[ModuleType, ModuleType]) -> None:
    doc = _doc(DT, both[1])
    smallest = min(len(rec[2]) for tree in doc["snapshot"]["particles"] if len(tree) > 1
                   for rec in tree if len(rec) == 5)
    doc["params"]["min_leaf"] = smallest + 1
    doc["params"]["nstart"] = 4     # keep the nstart invariant: only min_leaf is broken
    message = _refused_alike(doc, "snapshot.particles[")
    assert "min_leaf" in message
    doc["params"]["min_leaf"] = smallest   # every leaf still holds min_leaf points
    for backend in ("reference", "fast"):
        from_document(doc, backend)


def test_splits_under_alpha_zero_are_refused(both: tuple[ModuleType, ModuleType]) -> None:
    doc = _doc(DT, both[1])
    doc["params"]["alpha"] = 0.0
    assert "alpha = 0" in _refused_alike(doc, "snapshot.particles[0]")


@pytest.mark.parametrize("value", [math.nan, math.inf, -1.0])
def test_retired_mass_is_a_finite_non_negative_number(both: tuple[ModuleType, ModuleType],
                                                       value: float) -> None:
    doc = _doc(DT, both[1])
    doc["snapshot"]["particles"][0][-1][3][0] = value
    _refused_alike(doc, "snapshot.particles[0][")


@pytest.mark.parametrize("param,value", [("nstart", 100), ("min_leaf", 100), ("alpha", 0.0)])
def test_pickles_with_broken_invariants_are_refused(backend: ModuleType, param: str,
                                                    value: Any) -> None:
    model = trained(DT, backend)
    state = model.__getstate__()
    state["_params"] = dataclasses.replace(state["_params"], **{param: value})
    fresh = type(model).__new__(type(model))
    with pytest.raises(StateFormatError, match="field snapshot.particles"):
        fresh.__setstate__(state)
    # the same pickle, untouched, restores
    assert_snapshot_equal(pickle.loads(pickle.dumps(model)).snapshot(), model.snapshot())


def test_set_params_after_fitting_restarts(backend: ModuleType) -> None:
    model = trained(DT, backend)
    model.set_params(min_leaf=100)
    assert model.n_seen_ == 0 and model.leaf_counts() == []
    for x, y in stream(DT, 5):
        model.learn_one(x, y)


# -- counters -------------------------------------------------------------------------------
def _at_counter(doc: dict[str, Any], value: int) -> dict[str, Any]:
    """``doc`` with every counter of its state set to ``value`` (kept consistent)."""
    doc = copy.deepcopy(doc)
    snap = doc["snapshot"]
    for section in (doc["fitted"], snap):
        if "n_seen" in section:
            section["n_seen"] = value
    core = snap.get("core")
    if core is not None:
        core["warm_rows"] = value if core["frozen"] else core["warm_rows"]
        for tree in core["trees"]:
            tree["n_updates"] = value
            for node in tree["nodes"]:
                cells = node["cells"]
                if not cells:
                    continue
                extra = value - cells[0][0]
                offset = 1
                for kind in doc["fitted"]["kinds"]:
                    width = kind or int(doc["params"]["bins"])
                    cells[offset][0] += extra
                    offset += width
                cells[0][0] = value
    if "balls" in snap:
        snap["next_id"] = value
        if snap["variant"] == "base":
            snap["phase_steps"] = value
        for ball in snap["balls"]:
            ball["u"] = ball["m"] = value
            ball["counts"][ball["counts"].index(max(ball["counts"]))] += \
                value - sum(ball["counts"])
    return doc


COUNTED = [s for s in SPECS if not s.custom_loss
           and s.id in ("DT-DynamicTreeClassifier", "SGTClassifier", "SGTMultiInstanceClassifier",
                        "SGT", "ABACOCClassifier", "ABACOCClassifier-base")]


@pytest.mark.parametrize("spec", [pytest.param(s, id=s.id) for s in COUNTED])
def test_counters_at_the_bound_learn_save_and_reload_alike(
        both: tuple[ModuleType, ModuleType], spec: Spec, tmp_path: Path) -> None:
    doc = _doc(spec, both[0], 30)
    models = [from_document(_at_counter(doc, COUNTER_MAX - 1), b)
              for b in ("reference", "fast")]
    x, y = stream(spec, 1, seed=21)[0]
    if spec.kind == "mil":
        x = x[:1]   # one row: every counter moves by one
    for m in models:
        m.learn_one(x, y)
    assert_snapshot_equal(models[0].snapshot(), models[1].snapshot())
    assert models[1].snapshot()["n_seen"] == COUNTER_MAX
    for writer, model in zip(both, models, strict=True):
        path = tmp_path / f"{writer.__name__}.dwm"
        model.save(path)
        again = [pkg.load(path) for pkg in both]
        assert_snapshot_equal(again[0].snapshot(), models[0].snapshot())
        assert_snapshot_equal(again[1].snapshot(), models[0].snapshot())
        assert_snapshot_equal(pickle.loads(pickle.dumps(model)).snapshot(), model.snapshot())


@pytest.mark.parametrize("spec", [pytest.param(s, id=s.id) for s in COUNTED])
@pytest.mark.parametrize("value", [COUNTER_MAX + 1, 2**63 - 1])
def test_counters_past_the_bound_are_refused(both: tuple[ModuleType, ModuleType], spec: Spec,
                                             value: int) -> None:
    doc = _at_counter(_doc(spec, both[0], 30), value)
    with pytest.raises(StateFormatError, match=f"above {COUNTER_MAX}") as ref:
        from_document(doc, "reference")
    with pytest.raises(StateFormatError) as fast:
        from_document(doc, "fast")
    assert str(ref.value) == str(fast.value)


# -- statistics that genuine models overflow --------------------------------------------------
# (the dynamic trees and squared-error SGT no longer overflow through their inputs: values
# beyond their magnitude bounds are refused, tests/common/test_magnitude_bounds.py)
EXTREME = [BY_ID[i] for i in ("ABACOCClassifier",)]


@pytest.mark.parametrize("spec", [pytest.param(s, id=s.id) for s in EXTREME])
def test_overflowed_statistics_of_genuine_models_reload_and_continue_alike(
        both: tuple[ModuleType, ModuleType], spec: Spec) -> None:
    # inputs and targets near the largest double overflow sums to inf, and inf - inf is
    # NaN: such statistics are data (the checks accept them) and both backends continue
    # identically from them
    models = [spec.make(pkg) for pkg in both]
    for i, (x, y) in enumerate(stream(spec, 40, seed=5)):
        if spec.kind == "reg":
            y = math.copysign(1.7e308, y) if i % 3 else y
        else:
            x = [v * 1.7e308 for v in x]
        for m in models:
            m.learn_one(x, y)
    doc = to_document(models[1])
    values: list[float] = []
    _floats(doc["snapshot"], values)
    assert any(not math.isfinite(v) for v in values)
    loaded = [from_document(doc, b) for b in ("reference", "fast")]
    for x, y in stream(spec, 5, seed=6):
        for m in loaded + models:
            m.learn_one(x, y)
    for m in loaded + models[:1]:
        assert_snapshot_equal(m.snapshot(), models[1].snapshot())


def _floats(value: Any, out: list[float]) -> None:
    if isinstance(value, float):
        out.append(value)
    elif isinstance(value, dict):
        for item in value.values():
            _floats(item, out)
    elif isinstance(value, list):
        for item in value:
            _floats(item, out)


@pytest.mark.parametrize("sid", ["DT-DynamicTreeRegressor", "SGTRegressor", "ABACOCClassifier"])
def test_pickles_with_counters_past_the_bound_are_refused(backend: ModuleType, sid: str) -> None:
    model = trained(BY_ID[sid], backend, 30)
    state = model.__getstate__()
    if "snapshot" in state:
        state["snapshot"]["n_seen"] = 2**63 - 1
    else:
        state["n_seen_"] = 2**63 - 1
    fresh = type(model).__new__(type(model))
    with pytest.raises(StateFormatError, match=f"above {COUNTER_MAX}"):
        fresh.__setstate__(state)


@pytest.mark.parametrize("variant", ["auto", "base"])
def test_kdtree_with_non_finite_centres_answers_as_the_scan(
        both: tuple[ModuleType, ModuleType], variant: str) -> None:
    # genuine models reach non-finite centres (an update c + (x - c)/u overflows near the
    # largest double); the boxes of the kd-tree do not bound distances to such centres, so
    # the index answers with the exhaustive scan once one has entered it, in both backends
    extra = {"mode": "majority"} if variant == "base" else {}
    spec = Spec("kd", "ABACOCClassifier", "open",
                dict(variant=variant, seed=5, search="kdtree", search_threshold=1,
                     leaf_size=2, **extra))
    doc = _doc(spec, both[1], 150)
    for s, ball in enumerate(doc["snapshot"]["balls"][:12]):
        ball["center"][s % 3] = [math.nan, math.inf, -math.inf][s % 3]
    scan = copy.deepcopy(doc)
    scan["params"]["search"] = "scan"
    models = [from_document(d, b) for d in (doc, scan) for b in ("reference", "fast")]
    for x, y in stream(spec, 40, seed=9):
        answers = [m.predict_proba_one(x) for m in models]
        assert all(a == answers[-1] for a in answers), answers
        for m in models:
            m.learn_one(x, y)
    for m in models[1:]:
        assert_snapshot_equal(m.snapshot(), models[0].snapshot())

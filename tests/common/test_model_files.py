"""Data-only model files (``model.save`` / ``load``) and checked restores.

- Round trips: every model configuration, unfitted and fitted, saved from either backend
  and loaded into either, has the same ``snapshot()`` and continues bit for bit.
- Checked restores: a tampered state (the reproductions of a tree index out of range and a
  leaf with too many cells, in a pickle and in a model file) raises ``StateFormatError``
  naming the field, in both backends with the same message for the same file, before
  anything reaches C.
- Files: what cannot be data is refused when saving, a failed write leaves the previous
  file intact, and files that are not model files raise ``StateFormatError``.
"""

from __future__ import annotations

import copy
import gzip
import json
import os
import pickle
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from _hardening_models import SPECS, Spec, prediction_calls, stream

from _compare import assert_snapshot_equal
from reference.persist import read_document, save, to_document
from reference.sgt.columns import NODES_TAG, columns_to_nodes
from reference.state import StateFormatError

SAVEABLE = [s for s in SPECS if not s.custom_loss]


def _params() -> list[Any]:
    return [pytest.param(s, id=s.id, marks=[pytest.mark.dynatree] if s.dt else [])
            for s in SAVEABLE]


def _feed(model: Any, data: list[tuple[Any, Any]]) -> None:
    for x, y in data:
        model.learn_one(x, y)


def _write(doc: Any, path: Path) -> Path:
    with gzip.open(path, "wt", encoding="utf-8") as out:
        json.dump(doc, out)
    return path


def _load_both(path: Path) -> list[tuple[str, Any]]:
    """What each backend makes of the file: ("ok", model) or ("error", message)."""
    import fast
    import reference

    out = []
    for pkg in (reference, fast):
        try:
            out.append(("ok", pkg.load(path)))
        except StateFormatError as exc:
            out.append(("error", str(exc)))
    return out


@pytest.mark.parametrize("n_before", [0, 30])
@pytest.mark.parametrize("spec", _params())
def test_model_file_round_trip_across_backends(both: tuple[ModuleType, ModuleType],
                                               spec: Spec, n_before: int,
                                               tmp_path: Path) -> None:
    data = stream(spec, n_before + 20, seed=4)
    for src, dst in (both, both[::-1]):
        model = spec.make(src)
        _feed(model, data[:n_before])
        model.save(tmp_path / "m.dwm")
        loaded = dst.load(tmp_path / "m.dwm")
        assert type(loaded).__module__.split(".")[0] == dst.__name__
        assert type(loaded).__name__ == type(model).__name__
        assert loaded.get_params().keys() == model.get_params().keys()
        assert_snapshot_equal(model.snapshot(), loaded.snapshot(), path="loaded")
        for step, (x, y) in enumerate(data[n_before:]):
            for call in prediction_calls(spec):
                assert call(model, x) == call(loaded, x), step
            model.learn_one(x, y)
            loaded.learn_one(x, y)
        assert_snapshot_equal(model.snapshot(), loaded.snapshot(), path="continued")


def test_model_file_keeps_labels_keys_and_lpred(both: tuple[ModuleType, ModuleType],
                                                tmp_path: Path) -> None:
    """Feature names of dict rows, label types (str, int, bool, float) and the lpred
    history survive a file."""
    ref, fast = both
    rows = [{"u": 0.1 * i, "v": (i * 7 % 10) / 10.0} for i in range(40)]
    for labels in (["x", "y"], [3, 7], [True, False], [0.5, 1.5]):
        ys = [labels[int(r["u"] + r["v"] > 1.0)] for r in rows]
        for pkg in (ref, fast):
            for model in (pkg.SGTClassifier(classes=labels, warmup=10, grace_period=5),
                          pkg.ABACOCClassifier(variant="auto"),
                          pkg.DynamicTreeClassifier(classes=labels, n_particles=5)):
                for row, label in zip(rows, ys, strict=True):
                    model.learn_one(row, label)
                model.save(tmp_path / "c.dwm")
                other = (fast if pkg is ref else ref).load(tmp_path / "c.dwm")
                assert list(other.classes_) == list(model.classes_)
                assert [type(c) for c in other.classes_] == [type(c) for c in model.classes_]
                assert other.predict_one(rows[3]) == model.predict_one(rows[3])
    reg = fast.DynamicTreeRegressor(n_particles=5, lpred_window=None)
    for row in rows:
        reg.learn_one(row, row["u"])
    reg.save(tmp_path / "r.dwm")
    back = ref.load(tmp_path / "r.dwm")
    assert back.lpred_ == reg.lpred_ and len(back.lpred_) == 40


def test_save_refuses_what_is_not_data(backend: ModuleType, tmp_path: Path) -> None:
    model = backend.SGT(loss=backend.CustomLoss(lambda y, f: f - y, lambda y, f: 1.0))
    with pytest.raises(ValueError, match="pickle"):
        model.save(tmp_path / "m.dwm")
    clf = backend.ABACOCClassifier(variant="auto")
    clf.learn_one([0.0], frozenset({"a"}))
    with pytest.raises(ValueError, match="frozenset"):
        clf.save(tmp_path / "m.dwm")
    tupled = backend.ABACOCClassifier(variant="auto")
    tupled.learn_one([0.0], ("a", 1))       # tuples of data are data: they round-trip
    tupled.save(tmp_path / "t.dwm")
    assert backend.load(tmp_path / "t.dwm").classes_ == [("a", 1)]
    (tmp_path / "t.dwm").unlink()
    assert not list(tmp_path.iterdir())  # nothing written, not even a temporary file


def test_failed_save_leaves_previous_file(backend: ModuleType, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk (simulated at the flush) leaves the previous file intact and no
    temporary file behind."""
    path = tmp_path / "m.dwm"
    model = backend.SGTRegressor(warmup=5)
    model.learn_one([1.0], 2.0)
    model.save(path)
    before = path.read_bytes()
    model.learn_one([2.0], 3.0)

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError, match="No space"):
        model.save(path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["m.dwm"]


def test_files_that_are_not_model_files(backend: ModuleType, tmp_path: Path) -> None:
    model = backend.SGTRegressor(warmup=5)
    model.learn_one([1.0], 2.0)
    save(model, tmp_path / "good.dwm", version=1)   # the gzip JSON of format 1
    raw = (tmp_path / "good.dwm").read_bytes()
    cases = {
        "truncated": raw[: len(raw) // 2],
        "not gzip": b"definitely not a model",
        "empty": b"",
        "bad json": gzip.compress(b"{\"format\": "),
        "not an object": gzip.compress(b"[1, 2, 3]"),
        "deep nesting": gzip.compress(b"[" * 100_000 + b"]" * 100_000),
    }
    for name, content in cases.items():
        (tmp_path / "bad.dwm").write_bytes(content)
        with pytest.raises(StateFormatError):
            backend.load(tmp_path / "bad.dwm")
        assert name
    doc = read_document(tmp_path / "good.dwm")
    for key, value, match in (("format", "something-else", "not a driftwood model"),
                              ("version", 99, "version 99"),
                              ("class", "os.system", "class"),
                              ("params", [], "params")):
        bad = dict(doc, **{key: value})
        _write(bad, tmp_path / "bad.dwm")
        with pytest.raises(StateFormatError, match=match):
            backend.load(tmp_path / "bad.dwm")
    with pytest.raises(FileNotFoundError):
        backend.load(tmp_path / "missing.dwm")


def _sgt_doc(pkg: ModuleType) -> dict[str, Any]:
    model = pkg.SGTRegressor(warmup=20, grace_period=10, delta=0.3)
    for x, y in stream(SPECS[3], 200, seed=2):
        model.learn_one(x, y)
    assert model.n_nodes_ > 1
    return to_document(model)


def test_tree_index_out_of_range_is_refused_in_files(both: tuple[ModuleType, ModuleType],
                                                     tmp_path: Path) -> None:
    """Reproduction 1 of the crash report, as a file: ``first_child`` out of range."""
    doc = _sgt_doc(both[1])
    nodes = doc["snapshot"]["core"]["trees"][0]["nodes"]
    internal = next(i for i, nd in enumerate(nodes) if nd["feature"] >= 0)
    nodes[internal]["first_child"] = 10**6
    results = _load_both(_write(doc, tmp_path / "bad.dwm"))
    assert results[0] == results[1]
    kind, message = results[0]
    assert kind == "error" and f"nodes[{internal}].first_child" in message


def test_leaf_with_too_many_cells_is_refused_in_files(both: tuple[ModuleType, ModuleType],
                                                      tmp_path: Path) -> None:
    """Reproduction 2 of the crash report, as a file: a leaf's cells list too long."""
    doc = _sgt_doc(both[1])
    nodes = doc["snapshot"]["core"]["trees"][0]["nodes"]
    leaf = next(i for i, nd in enumerate(nodes) if nd["feature"] < 0)
    nodes[leaf]["cells"].append([1, 0.0, 0.0, 0.0, 0.0, 0.0])
    results = _load_both(_write(doc, tmp_path / "bad.dwm"))
    assert results[0] == results[1]
    kind, message = results[0]
    assert kind == "error" and f"nodes[{leaf}].cells" in message


def _tampered_pickle(model: Any, change: Any, columns: bool = False) -> bytes:
    """The pickle of ``model`` with ``change`` applied to the first SGT tree's node list
    (reached through the state dict of either backend), or with ``columns`` to the
    columns of the fast backend's state."""
    state = copy.deepcopy(model.__getstate__())
    core = state["_engine"]
    if hasattr(core, "trees"):                 # reference: the Python core object
        snap = {"nodes": core.trees[0].snapshot()["nodes"]}
        change(snap["nodes"])
        core.trees[0].restore({"nodes": snap["nodes"], "n_splits": core.trees[0].n_splits,
                               "n_updates": core.trees[0].n_updates,
                               "depth": core.trees[0].depth})
        payload = state
    else:                                      # fast: the core pickles its snapshot
        core_state = core.__getstate__()
        tree = core_state["snapshot"]["trees"][0]
        if columns:                            # its nodes as columns (state format 2)
            cols = tree["nodes"][NODES_TAG]
            change(cols)
        else:                                  # as nodes (state format 1)
            nodes = columns_to_nodes(tree["nodes"][NODES_TAG],
                                     model._params.quantization == "leaf")
            change(nodes)
            tree["nodes"] = nodes
        payload = state
        payload["_engine"] = _CoreState(type(core), core_state)
    clone = type(model).__new__(type(model))
    return pickle.dumps(_Restore(clone, payload))


class _CoreState:
    """Pickles as a fast core whose state is ``state`` (a tampered snapshot)."""

    def __init__(self, cls: type, state: dict[str, Any]) -> None:
        self.cls, self.state = cls, state

    def __reduce__(self) -> Any:
        return (_new, (self.cls,), self.state)


class _Restore:
    def __init__(self, model: Any, state: dict[str, Any]) -> None:
        self.model, self.state = model, state

    def __reduce__(self) -> Any:
        return (_new, (type(self.model),), self.state)


def _new(cls: type) -> Any:
    return cls.__new__(cls)


@pytest.mark.parametrize("change,field", [
    (lambda nodes: nodes[0].__setitem__("first_child", 10**6), "first_child"),
    (lambda nodes: next(n for n in nodes if n["feature"] < 0)["cells"].append(
        [1, 0.0, 0.0, 0.0, 0.0, 0.0]), "cells"),
    (lambda nodes: nodes[0].__setitem__("feature", -7), "feature"),
])
def test_tampered_pickle_is_refused_before_c(backend: ModuleType, change: Any,
                                             field: str) -> None:
    """The reproductions of the crash report through pickling: a clear
    ``StateFormatError`` naming the field, never a crash."""
    model = backend.SGTRegressor(warmup=20, grace_period=10, delta=0.3)
    for x, y in stream(SPECS[3], 200, seed=2):
        model.learn_one(x, y)
    assert model.snapshot()["core"]["trees"][0]["nodes"][0]["feature"] >= 0
    data = _tampered_pickle(model, change)
    with pytest.raises(StateFormatError, match=field):
        pickle.loads(data)


@pytest.mark.parametrize("change,field", [
    (lambda cols: cols["first_child"].__setitem__(0, 10**6), "first_child"),
    (lambda cols: cols["counts"].__setitem__((0, 0), -1), "counts"),
    (lambda cols: cols.__setitem__("counts", cols["counts"][:, :-1]), "counts"),
    (lambda cols: cols["feature"].__setitem__(0, -7), "nodes.used"),   # one leaf more
    (lambda cols: cols.__setitem__("sums", cols["sums"].astype(np.int64)), "sums"),
])
def test_tampered_columns_in_a_fast_pickle_are_refused_before_c(
        both: tuple[ModuleType, ModuleType], change: Any, field: str) -> None:
    model = both[1].SGTRegressor(warmup=20, grace_period=10, delta=0.3)
    for x, y in stream(SPECS[3], 200, seed=2):
        model.learn_one(x, y)
    data = _tampered_pickle(model, change, columns=True)
    with pytest.raises(StateFormatError, match=field):
        pickle.loads(data)


@pytest.mark.parametrize("spec", _params())
def test_every_valid_state_passes_the_checks(backend: ModuleType, spec: Spec) -> None:
    """The checks accept every state the models reach (long streams, all options), so a
    model file never refuses a genuine model."""
    model = spec.make(backend)
    for step, (x, y) in enumerate(stream(spec, 120, seed=9)):
        model.learn_one(x, y)
        if step % 20 == 19:
            model._check_state(model._fitted_state(), model.snapshot())

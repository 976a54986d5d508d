"""Model files of format 2 (a JSON header and typed arrays), the files of format 1 written
before it, the loader's bounds on hostile files, and how ``save`` treats the path.

- files of format 1 written by the code before format 2 (``tests/data/model_files_v1``,
  commit 469477c) load in both backends with the snapshot and the predictions they had;
- the container: refused with ``StateFormatError`` for an unknown header key, a bad
  array entry, a reference to a missing or reused array, a deflate bomb (inflating stops
  at the declared size), a file that does not add up;
- a JSON text of empty objects is refused before it is parsed, a huge string field gives
  a short message;
- ``save`` keeps an existing file's mode, gives a new one the umask's, writes through a
  symbolic link and refuses a FIFO or a directory (the data registry's cache files too,
  which share ``write_atomic``);
- the columns of the dynamic trees: the Python and C tree walks agree on mutated columns,
  and a hand-worked tree is accepted and its faults found.
"""

from __future__ import annotations

import copy
import gzip
import hashlib
import json
import os
import pickle
import stat
import struct
import sys
import tracemalloc
import zlib
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from _hardening_models import BY_ID, SPECS, stream, trained

from reference.container import MAGIC, ArrayTable, write_container
from reference.dynatree.columns import (
    RECORDS_TAG,
    column_arrays,
    columns_to_records,
    records_to_columns,
)
from reference.dynatree.state_check import check_trees
from reference.files import write_atomic
from reference.persist import read_document, save, to_document
from reference.state import MAX_MESSAGE, StateFormatError

V1 = Path(__file__).resolve().parents[1] / "data" / "model_files_v1"


def _v1_params() -> list[Any]:
    expected = json.loads((V1 / "expected.json").read_text())
    return [pytest.param(name, expected[name], id=name) for name in sorted(expected)]


@pytest.mark.parametrize("name,expected", _v1_params())
def test_format1_files_load_bit_for_bit(both: tuple[ModuleType, ModuleType], name: str,
                                        expected: dict[str, Any]) -> None:
    spec = BY_ID[name]
    probes = [x for x, _ in stream(spec, 5, seed=12)]
    for backend in both:
        model = backend.load(V1 / f"{name}.dwm")
        snap = json.dumps(to_document(model)["snapshot"], sort_keys=True)
        assert hashlib.sha256(snap.encode()).hexdigest() == expected["snapshot_sha256"]
        preds = [model.predict_one(x) for x in probes]
        if spec.kind != "reg":
            probs = [model.predict_proba_one(x) for x in probes]
            preds = [[p, sorted([str(k), v.hex()] for k, v in q.items())]
                     for p, q in zip(preds, probs, strict=True)]
        else:
            preds = [p.hex() for p in preds]
        assert preds == expected["predictions"]


def _saved(backend: ModuleType, tmp_path: Path, spec: str = "DT-DynamicTreeRegressor",
           compress: bool = True) -> Path:
    path = tmp_path / "model.dwm"
    trained(BY_ID[spec], backend).save(path, compress=compress)
    return path


@pytest.mark.parametrize("compress", [True, False])
@pytest.mark.parametrize("spec", [s.id for s in SPECS if not s.custom_loss])
def test_format2_round_trip(both: tuple[ModuleType, ModuleType], tmp_path: Path, spec: str,
                            compress: bool) -> None:
    for writer in both:
        model = trained(BY_ID[spec], writer)
        model.save(tmp_path / "m.dwm", compress=compress)
        assert (tmp_path / "m.dwm").read_bytes()[:8] == MAGIC
        for reader in both:
            again = reader.load(tmp_path / "m.dwm")
            assert again.snapshot() == model.snapshot()


def test_compressed_file_is_smaller(backend: ModuleType, tmp_path: Path) -> None:
    small = _saved(backend, tmp_path).stat().st_size
    (tmp_path / "model.dwm").unlink()
    assert small < _saved(backend, tmp_path, compress=False).stat().st_size


def test_dynamic_tree_file_holds_columns(backend: ModuleType, tmp_path: Path) -> None:
    doc = read_document(_saved(backend, tmp_path))
    cols = doc["snapshot"]["particles"][RECORDS_TAG]
    assert all(isinstance(v, np.ndarray) for v in cols.values())
    assert isinstance(doc["snapshot"]["X"], np.ndarray)
    assert isinstance(doc["fitted"]["lpred"], np.ndarray)


def _container(header: dict[str, Any], arrays: list[np.ndarray]) -> bytes:
    table = ArrayTable(compress=False)
    for a in arrays:
        table.add(a)
    return write_container(header, table)


def _good_header(backend: ModuleType, tmp_path: Path) -> tuple[bytes, int]:
    raw = _saved(backend, tmp_path, compress=False).read_bytes()
    return raw, struct.unpack("<I", raw[12:16])[0]


def _with_header(raw: bytes, size: int, change: Any) -> bytes:
    header = json.loads(raw[16:16 + size])
    change(header)
    text = json.dumps(header).encode()
    return raw[:12] + struct.pack("<I", len(text)) + text + raw[16 + size:]


@pytest.mark.parametrize("change,match", [
    (lambda h: h.update(junk=[{}] * 10), "unknown header keys"),
    (lambda h: h.update(version=1), "version"),
    (lambda h: h["arrays"][0].update(dtype="|O"), "dtype"),
    (lambda h: h["arrays"][0].update(shape=[1, 2, 3]), "shape"),
    (lambda h: h["arrays"][0].update(shape=[2**20]), "raw bytes"),
    (lambda h: h["arrays"][0].update(shape=[2**40]), "axis longer"),
    (lambda h: h["arrays"][0].update(codec="pickle"), "codec"),
    (lambda h: h["arrays"][0].update(extra=1), "keys"),
    (lambda h: h["arrays"].append(dict(h["arrays"][0])), "add up"),
    (lambda h: h.pop("arrays"), "lacks"),
])
def test_container_header_faults_are_refused(backend: ModuleType, tmp_path: Path,
                                             change: Any, match: str) -> None:
    raw, size = _good_header(backend, tmp_path)
    path = tmp_path / "bad.dwm"
    path.write_bytes(_with_header(raw, size, change))
    with pytest.raises(StateFormatError, match=match):
        backend.load(path)


def test_container_truncated_or_bad_magic_is_refused(backend: ModuleType,
                                                     tmp_path: Path) -> None:
    raw, _ = _good_header(backend, tmp_path)
    path = tmp_path / "bad.dwm"
    for bad in (raw[:10], raw[:-1], raw + b"\0", raw[:8] + b"\3\0\0\0" + raw[12:],
                raw[:12] + b"\xff\xff\xff\x7f" + raw[16:]):
        path.write_bytes(bad)
        with pytest.raises(StateFormatError):
            backend.load(path)


def test_array_references_are_checked(backend: ModuleType, tmp_path: Path) -> None:
    doc = to_document(trained(BY_ID["SGTRegressor"], backend))
    base = {k: v for k, v in doc.items() if k not in ("fitted", "snapshot")}
    base["version"] = 2
    path = tmp_path / "bad.dwm"
    a = np.arange(20.0)
    for fitted, arrays, match in (
            ({**doc["fitted"], "x": {"__array__": 1}}, [a], "array reference"),
            ({**doc["fitted"], "x": {"__array__": 0}, "y": {"__array__": 0}}, [a],
             "array reference"),
            (doc["fitted"], [a], "not referenced")):
        path.write_bytes(_container({**base, "fitted": fitted, "snapshot": doc["snapshot"]},
                                    arrays))
        with pytest.raises(StateFormatError, match=match):
            backend.load(path)


def test_deflate_bomb_in_an_array_stops_at_its_declared_size(backend: ModuleType,
                                                               tmp_path: Path) -> None:
    doc = to_document(trained(BY_ID["SGTRegressor"], backend))
    header = {k: v for k, v in doc.items() if k != "fitted"}
    header.update(version=2, fitted={**doc["fitted"], "x": {"__array__": 0}})
    bomb = zlib.compress(b"\0" * (64 << 20), 9)          # 64 MiB from about 64 kB
    text = json.dumps({**header, "arrays": [
        {"dtype": "<f8", "shape": [16], "codec": "zlib", "stored": len(bomb)}]}).encode()
    path = tmp_path / "bomb.dwm"
    path.write_bytes(MAGIC + struct.pack("<II", 2, len(text)) + text + bomb)
    tracemalloc.start()
    with pytest.raises(StateFormatError, match="exactly"):
        backend.load(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 8 << 20, peak
    # a declared size past the cap is refused before anything is inflated
    text = json.dumps({**header, "arrays": [
        {"dtype": "<f8", "shape": [1 << 30], "codec": "zlib", "stored": len(bomb)}]}).encode()
    path.write_bytes(MAGIC + struct.pack("<II", 2, len(text)) + text + bomb)
    with pytest.raises(StateFormatError, match="cap"):
        backend.load(path)


def test_json_of_empty_objects_is_refused_before_parsing(backend: ModuleType,
                                                         tmp_path: Path) -> None:
    """The hostile file of issue 39 at a smaller scale: a valid model plus an unknown
    key holding millions of ``{}`` (here 3 million, 9 MB of JSON, 27 kB of gzip, under
    a cap of 4 MiB... raised to 16 MiB so that only the count refuses it)."""
    path = tmp_path / "model.dwm"
    save(trained(BY_ID["SGTRegressor"], backend), path, version=1)
    text = gzip.decompress(path.read_bytes())[:-1] + b',"junk":[' + b"{}," * 3_000_000 + \
        b"{}]}"
    path.write_bytes(gzip.compress(text, 9))
    tracemalloc.start()
    with pytest.raises(StateFormatError, match="objects and arrays"):
        backend.load(path, max_bytes=16 << 20)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 40 << 20, peak       # the inflated text and no parsed objects


def test_unknown_top_level_key_is_refused_in_format1(backend: ModuleType,
                                                     tmp_path: Path) -> None:
    path = tmp_path / "model.dwm"
    save(trained(BY_ID["SGTRegressor"], backend), path, version=1)
    doc = json.loads(gzip.decompress(path.read_bytes()))
    path.write_bytes(gzip.compress(json.dumps({**doc, "junk": 1}).encode()))
    with pytest.raises(StateFormatError, match="unknown top-level keys"):
        backend.load(path)


def test_huge_field_gives_a_short_message(backend: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "model.dwm"
    save(trained(BY_ID["SGTRegressor"], backend), path, version=1)
    doc = json.loads(gzip.decompress(path.read_bytes()))
    for key in ("class", "format"):
        path.write_bytes(gzip.compress(json.dumps({**doc, key: "x" * 5_000_000}).encode()))
        with pytest.raises(StateFormatError) as info:
            backend.load(path)
        assert len(str(info.value)) <= MAX_MESSAGE
    labels = ["y" * 5_000_000, "b"]
    doc["fitted"] = {**doc["fitted"], "classes": labels}
    path.write_bytes(gzip.compress(json.dumps(doc).encode()))
    with pytest.raises(StateFormatError) as info:
        backend.load(path)
    assert len(str(info.value)) <= MAX_MESSAGE


# -- save(): modes, links and what is not a regular file --------------------------------
def test_resave_keeps_the_mode_and_new_file_gets_the_umask(backend: ModuleType,
                                                           tmp_path: Path) -> None:
    model = trained(BY_ID["SGTRegressor"], backend)
    path = tmp_path / "model.dwm"
    old = os.umask(0o027)
    try:
        model.save(path)
        assert stat.S_IMODE(path.stat().st_mode) == 0o640     # 0o666 less the umask
        path.chmod(0o644)                                      # shared with a server
        model.save(path)
        assert stat.S_IMODE(path.stat().st_mode) == 0o644
        path.chmod(0o600)
        save(model, path, version=1)
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    finally:
        os.umask(old)


def test_save_writes_through_a_symbolic_link(backend: ModuleType, tmp_path: Path) -> None:
    model = trained(BY_ID["SGTRegressor"], backend)
    target = tmp_path / "models" / "v1.dwm"
    target.parent.mkdir()
    target.write_bytes(b"old")
    link = tmp_path / "current.dwm"
    link.symlink_to(target)
    model.save(link)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert backend.load(target).snapshot() == model.snapshot()
    assert sorted(p.name for p in target.parent.iterdir()) == ["v1.dwm"]  # no temporary


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_save_refuses_what_is_not_a_regular_file(backend: ModuleType, tmp_path: Path) -> None:
    model = trained(BY_ID["SGTRegressor"], backend)
    fifo = tmp_path / "pipe.dwm"
    os.mkfifo(fifo)
    with pytest.raises(FileExistsError, match="FIFO"):
        model.save(fifo)
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    with pytest.raises(IsADirectoryError):
        model.save(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe.dwm"]


def test_data_cache_files_keep_their_mode(tmp_path: Path) -> None:
    from reference.evaluation.registry import cache

    assert cache.write_atomic is write_atomic           # the registry writes through it
    path = tmp_path / "data.csv.gz"
    write_atomic(path, b"a")
    path.chmod(0o664)
    write_atomic(path, b"b")
    assert stat.S_IMODE(path.stat().st_mode) == 0o664 and path.read_bytes() == b"b"


# -- pickles and copies of the fast dynamic trees ----------------------------------------
def test_fast_dynamic_tree_pickles_hold_arrays(both: tuple[ModuleType, ModuleType]) -> None:
    reference, fast = both
    for name in ("DT-DynamicTreeRegressor", "DT-DynamicTreeClassifier",
                 "DT-DynamicTreeRegressor-linear"):
        model = trained(BY_ID[name], fast)
        state = model.__getstate__()
        assert isinstance(state["_snap"]["particles"][RECORDS_TAG]["points"], np.ndarray)
        for twin in (pickle.loads(pickle.dumps(model)), copy.deepcopy(model)):
            assert twin.snapshot() == model.snapshot()
        # the reference reads the same columns when they are in a file
        assert trained(BY_ID[name], reference).snapshot() == model.snapshot()


# -- the columns and their tree walk ------------------------------------------------------
def _columns(backend: ModuleType, name: str) -> tuple[dict[str, np.ndarray], np.ndarray,
                                                      np.ndarray, Any]:
    model = trained(BY_ID[name], backend)
    snap = model._snapshot_columns()
    cols = column_arrays(snap["particles"], "p")
    return cols, snap["X"], snap["y"], model


def test_columns_and_records_convert_both_ways(backend: ModuleType) -> None:
    for name in ("DT-DynamicTreeRegressor", "DT-DynamicTreeClassifier",
                 "DT-DynamicTreeRegressor-linear"):
        model = trained(BY_ID[name], backend)
        classifier = name.endswith("Classifier")
        records = model.snapshot()["particles"]
        cols = records_to_columns(records, classifier)
        assert columns_to_records(cols, classifier) == records


def test_tree_walks_in_python_and_c_agree_on_mutations(
        both: tuple[ModuleType, ModuleType]) -> None:
    from fast.dynatree.engine import CDynamicTreeEngine

    rng = np.random.default_rng(5)
    checked = found = 0
    for name in ("DT-DynamicTreeRegressor", "DT-DynamicTreeClassifier"):
        cols, X, y, _ = _columns(both[1], name)
        n_classes = 3 if name.endswith("Classifier") else 0
        for trial in range(150):
            bad = {k: v.copy() for k, v in cols.items()}
            key = ["depth", "var", "value", "points", "points", "sizes"][trial % 6]
            j = int(rng.integers(len(bad[key])))
            if key == "value":
                bad[key][j] = [np.nan, np.inf, 0.5, -1e300][trial % 4]
            elif key == "points":
                k = int(rng.integers(len(bad[key])))
                bad[key][j], bad[key][k] = bad[key][k], bad[key][j] + (trial % 3 == 0)
            elif key == "sizes":
                bad[key][j] += 1 if trial % 2 else -1
            else:
                bad[key][j] += int(rng.integers(-2, 3))
            py = check_trees(bad, X, y, n_classes, not n_classes)
            c = CDynamicTreeEngine.check_trees(bad, X, y, n_classes, not n_classes)
            assert py[:3] == c[:3], (name, trial, key, py[:3], c[:3])
            if py[2] == 0:
                if n_classes:
                    assert np.array_equal(py[4], c[4])
                else:
                    np.testing.assert_allclose(py[3], c[3], rtol=1e-12)
            checked += 1
            found += py[2] != 0
    assert found > checked // 3


def test_tree_walk_of_a_hand_worked_tree() -> None:
    """Rows 0..3 at x = 0.1, 0.9, 0.2, 0.8; one particle splitting at 0.5: the left leaf
    holds rows 0 and 2, the right leaf rows 1 and 3, in arrival order."""
    X = np.array([[0.1], [0.9], [0.2], [0.8]])
    y = np.array([1.0, 2.0, 3.0, 4.0])
    cols = {"sizes": np.array([3], np.int32), "depth": np.array([0, 1, 1], np.int32),
            "var": np.array([0, -1, -1], np.int32), "value": np.array([0.5, 0.0, 0.0]),
            "npoints": np.array([2, 2], np.int32),
            "points": np.array([0, 2, 1, 3], np.int32)}
    i, k, code, totals, _ = check_trees(cols, X, y, 0, True)
    assert (i, k, code) == (-1, 0, 0)
    assert totals.tolist() == [[4.0, 4.0, 10.0], [6.0, 6.0, 20.0]]
    for change, want in ((("points", [2, 0, 1, 3]), (0, 1, 6)),   # out of arrival order
                         (("points", [0, 2, 3, 1]), (0, 2, 6)),
                         (("points", [0, 2, 1, 4]), (0, 2, 5)),   # row 4 does not exist
                         (("depth", [0, 1, 2]), (0, 2, 2)),
                         (("var", [1, -1, -1]), (0, 0, 3)),       # only x0 exists
                         (("value", [np.nan, 0.0, 0.0]), (0, 0, 4))):
        bad = dict(cols, **{change[0]: np.array(change[1], dtype=cols[change[0]].dtype)})
        assert check_trees(bad, X, y, 0, True)[:3] == want
    # a leaf record after the tree's end, and a tree with open children
    trail = dict(cols, sizes=np.array([4], np.int32), depth=np.array([0, 1, 1, 1], np.int32),
                 var=np.array([0, -1, -1, -1], np.int32), value=np.array([0.5, 0, 0, 0]),
                 npoints=np.array([2, 2, 0], np.int32))
    assert check_trees(trail, X, y, 0, True)[:3] == (0, 3, 7)
    short = dict(cols, sizes=np.array([2], np.int32), depth=np.array([0, 1], np.int32),
                 var=np.array([0, -1], np.int32), value=np.array([0.5, 0.0]),
                 npoints=np.array([2], np.int32), points=np.array([0, 2], np.int32))
    assert check_trees(short, X, y, 0, True)[:3] == (0, 2, 1)


def test_columns_from_a_file_are_checked_before_use(backend: ModuleType,
                                                    tmp_path: Path) -> None:
    doc = read_document(_saved(backend, tmp_path))
    cols = doc["snapshot"]["particles"][RECORDS_TAG]
    for key, bad, match in (("points", cols["points"].astype(np.float64), "integers"),
                            ("sizes", cols["sizes"][:-1], "particles"),
                            ("npoints", cols["npoints"] + 1, "point counts"),
                            ("stats", cols["stats"][:, :2], "statistics"),
                            ("var", cols["var"].astype(np.int64) + 2**40, "32-bit")):
        with pytest.raises(StateFormatError, match=match):
            model = type(backend.load(tmp_path / "model.dwm"))(
                **backend.load(tmp_path / "model.dwm").get_params())
            snap = {**doc["snapshot"], "particles": {RECORDS_TAG: {**cols, key: bad}}}
            model._load_fitted(doc["fitted"], snap)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))

"""The model-file loader's cost is bounded by what the file holds, whatever the file.

- A file that inflates past the cap (a gzip bomb) is refused with ``StateFormatError``
  after inflating at most the cap, read a chunk at a time; the cap is overridable per call
  (``max_bytes=``) and per environment (``DRIFTWOOD_MAX_MODEL_BYTES``).
- Nesting deeper than ``MAX_DEPTH`` and integers longer than the interpreter parses give
  ``StateFormatError``, never ``RecursionError`` or a bare ``ValueError``.
- A valid file loads, learns and predicts under a 1 GB address-space limit, and integer
  fields of ``params`` and ``fitted`` set far beyond the content (``10**9``, ``2**62``)
  are refused or harmless there too, in both backends.

The figures for a 1 MB gzip bomb and a 2 MB repetitive document come from
``tests/benchmarks/bench_loader.py`` (docs/guarantees.md, "The loader's limits").
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from _hardening_models import BY_ID, trained

from reference.persist import (
    MAX_DEPTH,
    MAX_DOCUMENT_BYTES,
    document_limit,
    read_document,
    save,
)
from reference.state import StateFormatError

ROOT = Path(__file__).resolve().parents[2]


def _document(backend: ModuleType, tmp_path: Path, spec: str = "SGTRegressor") -> Any:
    path = tmp_path / "model.dwm"
    save(trained(BY_ID[spec], backend), path, version=1)   # gzip JSON
    return json.loads(gzip.open(path).read())


def _write(doc: Any, path: Path) -> Path:
    with gzip.open(path, "wt", encoding="utf-8") as out:
        json.dump(doc, out)
    return path


def _bomb(path: Path, inflated: int) -> Path:
    """Gzip of ``[0,0,...]``: about ``inflated`` bytes from a file a thousandth the size."""
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"0," * (1 << 16)
    with path.open("wb") as out:
        out.write(comp.compress(b"["))
        for _ in range(inflated // len(block)):
            out.write(comp.compress(block))
        out.write(comp.compress(b"0]") + comp.flush())
    return path


def test_default_cap_is_well_below_memory() -> None:
    assert document_limit() == MAX_DOCUMENT_BYTES == 128 << 20


def test_bomb_is_refused_at_the_cap(backend: ModuleType, tmp_path: Path) -> None:
    path = _bomb(tmp_path / "bomb.dwm", 8 << 20)
    assert path.stat().st_size < 64 << 10
    with pytest.raises(StateFormatError, match=r"inflates past 1048576 bytes.*max_bytes"):
        backend.load(path, max_bytes=1 << 20)


def test_cap_from_the_environment(backend: ModuleType, tmp_path: Path,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "model.dwm"
    save(trained(BY_ID["SGTRegressor"], backend), path, version=1)
    size = len(gzip.open(path).read())
    monkeypatch.setenv("DRIFTWOOD_MAX_MODEL_BYTES", str(size - 1))
    with pytest.raises(StateFormatError, match="DRIFTWOOD_MAX_MODEL_BYTES"):
        backend.load(path)
    monkeypatch.setenv("DRIFTWOOD_MAX_MODEL_BYTES", str(size))
    assert backend.load(path).snapshot() == trained(BY_ID["SGTRegressor"], backend).snapshot()
    # an explicit argument wins over the environment
    assert backend.load(path, max_bytes=size).n_features_in_ == 3


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "10"])
def test_cap_must_be_a_positive_byte_count(backend: ModuleType, tmp_path: Path,
                                           bad: Any) -> None:
    path = tmp_path / "model.dwm"
    trained(BY_ID["SGTRegressor"], backend).save(path)
    with pytest.raises(ValueError, match="max_bytes"):
        backend.load(path, max_bytes=bad)


def test_deep_nesting_is_refused_without_recursion(both: tuple[ModuleType, ModuleType],
                                                   tmp_path: Path) -> None:
    text = json.dumps(_document(both[0], tmp_path))
    at = text.index('"n_seen": ') + len('"n_seen": ')
    end = at + len(text[at:].split(",")[0].split("}")[0])
    for depth in (MAX_DEPTH + 1, 400, 100_000):
        path = tmp_path / f"deep{depth}.dwm"
        with gzip.open(path, "wt") as out:
            out.write(text[:at] + "[" * depth + "1" + "]" * depth + text[end:])
        for backend in both:
            with pytest.raises(StateFormatError, match="nested|does not parse"):
                backend.load(path)


def test_documents_as_written_are_within_the_depth_limit(backend: ModuleType,
                                                         tmp_path: Path) -> None:
    from _hardening_models import SPECS

    for spec in SPECS:
        if spec.custom_loss:
            continue
        path = tmp_path / f"{spec.id}.dwm"
        trained(spec, backend).save(path)
        read_document(path)                      # no StateFormatError


@pytest.mark.parametrize("digits", [5000, 100_000])
def test_huge_integer_literal_is_refused(both: tuple[ModuleType, ModuleType], tmp_path: Path,
                                         digits: int) -> None:
    text = json.dumps(_document(both[0], tmp_path))
    at = text.index('"n_seen": ') + len('"n_seen": ')
    end = at + len(text[at:].split(",")[0].split("}")[0])
    path = tmp_path / "digits.dwm"
    with gzip.open(path, "wt") as out:
        out.write(text[:at] + "9" * digits + text[end:])
    for backend in both:
        with pytest.raises(StateFormatError, match="does not parse"):
            backend.load(path)


LIMITED = textwrap.dedent("""
    import copy, gzip, json, resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    sys.path.insert(0, sys.argv[2])
    import fast, reference
    from _hardening_models import BY_ID, stream, trained
    from reference.persist import save
    from reference.state import StateFormatError
    for spec in [BY_ID[name] for name in sys.argv[1].split(",")]:
        path = sys.argv[3]
        save(trained(spec, fast), path, version=1)
        doc = json.loads(gzip.open(path).read())
        x, y = stream(spec, 1, seed=9)[0]
        for pkg in (reference, fast):           # the valid file, within 1 GB
            model = pkg.load(path)
            model.predict_one(x)
            model.learn_one(x, y)
        outcomes = []
        for section in ("params", "fitted"):
            for key, value in sorted(doc[section].items()):
                if not isinstance(value, int) or isinstance(value, bool):
                    continue
                for big in (10**9, 2**62):
                    bad = copy.deepcopy(doc)
                    bad[section][key] = big
                    with gzip.open(path, "wt") as out:
                        json.dump(bad, out)
                    seen = []
                    for pkg in (reference, fast):
                        try:
                            model = pkg.load(path)
                        except StateFormatError:
                            seen.append("refused")
                            continue
                        model.predict_one(x)
                        model.learn_one(x, y)
                        seen.append("loaded")
                    outcomes.append(f"{section}.{key}={big}:{'/'.join(seen)}")
        print(" ".join(outcomes))
""")


SPECS_TRIED = ("DT-DynamicTreeRegressor", "DT-DynamicTreeClassifier", "SGTClassifier",
               "SGTMultiInstanceClassifier", "ABACOCClassifier-budget")


def test_valid_file_and_oversized_declarations_within_1_gb(tmp_path: Path) -> None:
    """One interpreter limited to 1 GB of address space tries every spec in turn."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    run = subprocess.run([sys.executable, "-c", LIMITED, ",".join(SPECS_TRIED),
                          str(ROOT / "tests" / "common"), str(tmp_path / "m.dwm")],
                         capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    lines = run.stdout.splitlines()
    assert len(lines) == len(SPECS_TRIED) and all(lines), "a spec tried no integer field"
    outcomes = run.stdout.split()
    # a declaration refused by one backend is refused by the other
    assert not [o for o in outcomes if o.endswith(("refused/loaded", "loaded/refused"))]

"""The loader's depth cap, pinned from both sides (issue 47 item 8).

docs/guarantees.md ("Nesting"): a document nested more than ``MAX_DEPTH`` = 32 deep is
refused before any recursive code sees it. Here a field of a real model file is replaced
by lists nested so that the whole document is exactly ``MAX_DEPTH`` deep, then one deeper
(the depth computed here by a recursive walk, the document counting as level 1), in
format 1 (gzip JSON) and format 2 (a container's header), loaded by both backends'
``load``. At the cap the depth check passes (``read_document`` returns the document, and
``load`` refuses it only for the field's type); one past it, the file is refused for its
nesting.
"""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from _structural_fuzz import to_format2

import reference
from reference.persist import MAX_DEPTH, read_document, to_document
from reference.state import StateFormatError


def _depth(value: Any) -> int:
    """Levels of lists and dicts, the outermost counting 1 (0 for a scalar)."""
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def _document(depth: int) -> dict[str, Any]:
    """A fitted dynamic tree's document whose ``snapshot.n_seen`` is ``[[...[3]...]]``,
    nested so that the document is ``depth`` deep."""
    model = reference.DynamicTreeRegressor(n_particles=2, nstart=10_000)
    model.partial_fit([[0.1], [0.5], [0.9]], [1.0, 2.0, 4.0])
    doc = to_document(model)
    assert _depth(doc) < depth
    value: Any = 3
    for _ in range(depth - 2):      # the document, then its snapshot, hold the lists
        value = [value]
    doc["snapshot"]["n_seen"] = value
    assert _depth(doc) == depth
    return doc


def _write(doc: dict[str, Any], fmt: int, path: Path) -> Path:
    if fmt == 1:
        with gzip.open(path, "wt", encoding="utf-8") as out:
            json.dump(doc, out)
    else:
        path.write_bytes(to_format2(copy.deepcopy(doc)))
    return path


def test_depth_cap_is_the_documented_32() -> None:
    assert MAX_DEPTH == 32


@pytest.mark.parametrize("fmt", [1, 2])
def test_a_document_exactly_max_depth_deep_passes_the_depth_check(
        both: tuple[ModuleType, ModuleType], fmt: int, tmp_path: Path) -> None:
    path = _write(_document(MAX_DEPTH), fmt, tmp_path / "at-cap.dwm")
    doc = read_document(path)
    assert _depth(doc) == MAX_DEPTH
    for backend in both:
        with pytest.raises(StateFormatError) as info:
            backend.load(path)
        assert "n_seen" in str(info.value) and "nested" not in str(info.value)


@pytest.mark.parametrize("fmt", [1, 2])
def test_a_document_one_level_past_max_depth_is_refused_for_its_nesting(
        both: tuple[ModuleType, ModuleType], fmt: int, tmp_path: Path) -> None:
    path = _write(_document(MAX_DEPTH + 1), fmt, tmp_path / "past-cap.dwm")
    with pytest.raises(StateFormatError, match=f"nested more than {MAX_DEPTH} deep"):
        read_document(path)
    for backend in both:
        with pytest.raises(StateFormatError, match=f"nested more than {MAX_DEPTH} deep"):
            backend.load(path)

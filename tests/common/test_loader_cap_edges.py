"""The loader's size caps and parse budget, pinned from both sides (issue 47 item 8).

``test_loader_limits.py`` pins the decompressed-size cap of a format-1 file at its size and
one byte under it; here the same for format 2 (docs/guarantees.md, "The loader's
limits"): a container of ``S`` bytes loads under ``max_bytes=S`` and is refused at
``S - 1``; arrays that inflate to ``N`` bytes load under ``max_bytes=N`` and are refused at
``N - 1``; and the JSON parse budget (``max(8 * cap, 64 MiB)`` of estimated objects,
counted on the bytes before parsing) at its cost and one byte past it. Both backends'
``load`` run this shared loader.
"""

from __future__ import annotations

import struct
from pathlib import Path
from types import ModuleType

import pytest
from _hardening_models import BY_ID, trained

from reference.container import (
    CONTAINER_COST,
    ELEMENT_COST,
    PARSE_FACTOR,
    PARSE_FLOOR,
    check_element_count,
    parse_budget,
)
from reference.persist import read_document, save
from reference.state import StateFormatError


def _arrays_bytes(raw: bytes) -> int:
    """The bytes a container's arrays inflate to, from its header."""
    import json

    size = struct.unpack("<I", raw[12:16])[0]
    header = json.loads(raw[16:16 + size])
    total = 0
    for entry in header["arrays"]:
        count = 1
        for s in entry["shape"]:
            count *= s
        total += count * int(entry["dtype"][-1])
    return total


def test_a_container_loads_under_a_cap_of_its_size_and_not_one_byte_less(
        both: tuple[ModuleType, ModuleType], tmp_path: Path) -> None:
    path = tmp_path / "raw.dwm"
    save(trained(BY_ID["DT-DynamicTreeRegressor-linear"], both[0]), path, compress=False)
    raw = path.read_bytes()
    size = len(raw)
    assert _arrays_bytes(raw) < size            # raw arrays: the file is the larger
    for backend in both:
        assert backend.load(path, max_bytes=size).n_features_in_ > 0
        with pytest.raises(StateFormatError, match=f"more than the {size - 1}-byte cap"):
            backend.load(path, max_bytes=size - 1)


def test_compressed_arrays_load_under_a_cap_of_their_inflated_size_and_not_one_byte_less(
        both: tuple[ModuleType, ModuleType], tmp_path: Path) -> None:
    path = tmp_path / "zlib.dwm"
    save(trained(BY_ID["DT-DynamicTreeRegressor-linear"], both[0]), path, compress=True)
    raw = path.read_bytes()
    inflated = _arrays_bytes(raw)
    assert inflated > len(raw)                  # deflated arrays: the arrays are the larger
    for backend in both:
        assert backend.load(path, max_bytes=inflated).n_features_in_ > 0
        with pytest.raises(StateFormatError, match=f"arrays hold more than the "
                                                   f"{inflated - 1}-byte cap"):
            backend.load(path, max_bytes=inflated - 1)


def test_parse_budget_is_four_times_the_cap_with_a_64_mib_floor() -> None:
    assert (PARSE_FACTOR, PARSE_FLOOR) == (4, 64 << 20)
    assert parse_budget(1) == parse_budget(16 << 20) == 64 << 20
    assert parse_budget((16 << 20) + 1) == (64 << 20) + 4
    assert parse_budget(128 << 20) == 1 << 29


def test_element_count_refuses_one_byte_past_the_budget() -> None:
    """``a`` brackets and ``b`` commas cost ``72 a + 32 (b + 1)`` bytes: a text at the
    budget passes, one element more is refused."""
    assert (CONTAINER_COST, ELEMENT_COST) == (72, 32)
    brackets, commas = 10, 99
    cost = 72 * brackets + 32 * (commas + 1)
    text = b"[" * brackets + b"," * commas
    check_element_count(text, cost, "t")
    with pytest.raises(StateFormatError, match=f"would cost about {cost} bytes"):
        check_element_count(text, cost - 1, "t")
    with pytest.raises(StateFormatError, match="objects and arrays"):
        check_element_count(text + b",", cost, "t")


def test_documents_as_written_are_far_inside_the_parse_budget(backend: ModuleType,
                                                              tmp_path: Path) -> None:
    """The budget never refuses a real file: a saved document's estimated cost is a small
    multiple of its size, far under the 64 MiB floor."""
    path = tmp_path / "m.dwm"
    save(trained(BY_ID["SGTRegressor"], backend), path, version=1)
    read_document(path, max_bytes=1 << 20)

"""What the format-2 writer stores as an array, at each edge (issue 47 item 8).

``save`` (the same code for both backends) stores a list of at least ``PACK_MIN = 16``
numbers of one kind as an array and keeps shorter lists as JSON; integers become int64
only inside ``[-2**63, 2**63)``, and an unsigned array is refused past ``2**63 - 1``
(int64 would wrap it). Each edge from both sides, and a document holding the values at
the edges comes back from a container exactly.
"""

from __future__ import annotations

import numpy as np
import pytest

from reference.container import ArrayTable, read_container
from reference.persist import PACK_MIN, _as_array, pack


def test_pack_min_is_16() -> None:
    assert PACK_MIN == 16


def test_lists_of_pack_min_numbers_become_arrays_and_shorter_ones_stay_lists() -> None:
    assert _as_array([0.5] * (PACK_MIN - 1)) is None
    assert _as_array([0.5] * PACK_MIN).dtype == np.float64
    assert _as_array([[0.5] * 3] * 5) is None                   # 15 numbers
    assert _as_array([[0.5] * 4] * 4).shape == (4, 4)           # 16 numbers


@pytest.mark.parametrize(("value", "packed"), [
    (2**63 - 1, True), (2**63, False), (-2**63, True), (-2**63 - 1, False)])
def test_integers_are_packed_only_inside_the_int64_range(value: int, packed: bool) -> None:
    array = _as_array([value] * PACK_MIN)
    assert (array is not None) == packed
    if packed:
        assert array.dtype == np.int64 and int(array[0]) == value


def test_unsigned_arrays_are_refused_past_int64() -> None:
    table = ArrayTable()
    table.add(np.array([2**63 - 1], dtype=np.uint64))
    with pytest.raises(TypeError, match="2\\*\\*63 - 1"):
        table.add(np.array([2**63], dtype=np.uint64))


def test_values_at_the_edges_come_back_exactly() -> None:
    """A document holding both sides of each edge, packed, written and read back: the
    arrays hold what the lists held, the lists stay lists."""
    from reference.container import write_container

    doc = {"format": "driftwood-model", "version": 2, "class": "X", "params": {},
           "fitted": {"big": [2**63 - 1] * PACK_MIN, "past": [2**63] * PACK_MIN,
                      "short": [0.25] * (PACK_MIN - 1), "floats": [0.25] * PACK_MIN},
           "snapshot": {}}
    table = ArrayTable()
    header = pack(doc, table)
    fitted = header["fitted"]
    assert set(fitted["big"]) == {"__array__"} and set(fitted["floats"]) == {"__array__"}
    assert fitted["past"] == [2**63] * PACK_MIN and fitted["short"] == [0.25] * 15
    raw = write_container(header, table)
    _, arrays = read_container(raw, 1 << 20, "t")
    assert arrays[fitted["big"]["__array__"]].tolist() == [2**63 - 1] * PACK_MIN
    assert arrays[fitted["floats"]["__array__"]].tolist() == [0.25] * PACK_MIN

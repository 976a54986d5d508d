"""The generator: known answers, backend parity, state round trips, draw accounting."""

from __future__ import annotations

import copy
import json
import pickle
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from reference.rng import MASK, seed_state, splitmix64

KNOWN = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "rng_known_answers.json").read_text())
SEEDS = [int(s) for s in KNOWN["seeds"]]


def test_splitmix64_reference_values() -> None:
    out1, x = splitmix64(0)
    out2, _ = splitmix64(x)
    assert (out1, out2) == (0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4)


def test_xoshiro_reference_vector(backend: ModuleType) -> None:
    rng = backend.Rng(0)
    check = KNOWN["raw_state_check"]
    rng.state = tuple(check["state"])
    assert [rng.next_u64() for _ in check["first_outputs"]] == check["first_outputs"]


@pytest.mark.parametrize("seed", SEEDS)
def test_known_answers(backend: ModuleType, seed: int) -> None:
    data = KNOWN["seeds"][str(seed)]
    rng = backend.Rng(seed)
    assert list(rng.state) == data["initial_state"]
    assert [rng.next_u64() for _ in range(1000)] == data["next_u64_first_1000"]
    rng = backend.Rng(seed)
    for kind, arg, expected in data["mixed_300"]:
        got = rng.below(arg) if kind == "below" else getattr(rng, kind)()
        assert got == expected, (kind, arg)


def test_seed_is_taken_modulo_2_64(backend: ModuleType) -> None:
    assert backend.Rng(-1).state == backend.Rng(MASK).state
    assert backend.Rng(2**64 + 5).state == backend.Rng(5).state
    assert backend.Rng(7).state == seed_state(7)


@pytest.mark.parametrize("n", [1, 2, 7, 9, 2**33 + 5, 10**6 + 3, 2**63, MASK])
@pytest.mark.parametrize("seed", [0, 1, 42, 12345, MASK])
def test_below_identical_streams(both: tuple[ModuleType, ModuleType], seed: int, n: int) -> None:
    ref, fast = both
    a, b = ref.Rng(seed), fast.Rng(seed)
    xs = [a.below(n) for _ in range(300)]
    assert xs == [b.below(n) for _ in range(300)]
    assert all(0 <= v < n for v in xs)
    assert a.state == b.state


def test_below_one_consumes_one_output(backend: ModuleType) -> None:
    rng, twin = backend.Rng(3), backend.Rng(3)
    assert rng.below(1) == 0
    twin.next_u64()
    assert rng.state == twin.state


def test_below_rejection_accounting(backend: ModuleType) -> None:
    """below(n) consumes exactly the raw outputs it rejected, plus the accepted one."""
    n, mask = 5, 7
    rng, raw = backend.Rng(11), backend.Rng(11)
    for _ in range(500):
        v = rng.below(n)
        while True:
            w = raw.next_u64() & mask
            if w < n:
                break
        assert v == w
        assert rng.state == raw.state


def test_uniform_is_top_53_bits(backend: ModuleType) -> None:
    rng, raw = backend.Rng(5), backend.Rng(5)
    for _ in range(1000):
        u = rng.uniform()
        assert u == (raw.next_u64() >> 11) * 2.0**-53
        assert 0.0 <= u < 1.0


def test_interleaved_draws_match_value_by_value(both: tuple[ModuleType, ModuleType]) -> None:
    """Thousands of mixed draws, chosen by a third generator, agree between backends."""
    ref, fast = both
    chooser = ref.Rng(2024)
    bounds = [1, 2, 3, 7, 100, 2**33 + 5, 10**6 + 3, 2**64 - 1]
    for seed in (0, 1, 99, 2**63 + 17):
        a, b = ref.Rng(seed), fast.Rng(seed)
        for step in range(5000):
            kind = chooser.below(3)
            if kind == 0:
                va, vb = a.next_u64(), b.next_u64()
            elif kind == 1:
                va, vb = a.uniform(), b.uniform()
            else:
                n = bounds[chooser.below(len(bounds))]
                va, vb = a.below(n), b.below(n)
            assert va == vb, (seed, step, kind)
            assert type(va) is type(vb)
        assert a.state == b.state


def test_state_round_trip_and_cross_backend_transfer(both: tuple[ModuleType, ModuleType]) -> None:
    ref, fast = both
    a = ref.Rng(9)
    for _ in range(17):
        a.next_u64()
    b = fast.Rng(0)
    b.state = a.state
    assert [a.uniform() for _ in range(50)] == [b.uniform() for _ in range(50)]
    saved = b.state
    first = [b.below(1000) for _ in range(20)]
    b.state = saved
    assert [b.below(1000) for _ in range(20)] == first


@pytest.mark.parametrize(
    "bad", [(0, 0, 0, 0), (1, 2, 3), (1, 2, 3, -1), (1, 2, 3, 2**64), (1.0, 2, 3, 4)]
)
def test_bad_state_rejected_and_state_unchanged(backend: ModuleType, bad: Any) -> None:
    rng = backend.Rng(1)
    before = rng.state
    with pytest.raises(ValueError):
        rng.state = bad
    assert rng.state == before


@pytest.mark.parametrize("n", [0, -3, 2**64])
def test_below_rejects_out_of_range(backend: ModuleType, n: int) -> None:
    rng = backend.Rng(1)
    before = rng.state
    with pytest.raises(ValueError):
        rng.below(n)
    assert rng.state == before


@pytest.mark.parametrize("bad", [1.5, "3", None, True])
def test_type_errors(backend: ModuleType, bad: Any) -> None:
    with pytest.raises(TypeError):
        backend.Rng(bad)
    with pytest.raises(TypeError):
        backend.Rng(0).below(bad)


def test_pickle_and_copy(backend: ModuleType) -> None:
    rng = backend.Rng(77)
    rng.uniform()
    twins = [pickle.loads(pickle.dumps(rng)), copy.deepcopy(rng), copy.copy(rng)]
    expected = [rng.next_u64() for _ in range(5)]
    for twin in twins:
        assert type(twin) is type(rng)
        assert [twin.next_u64() for _ in range(5)] == expected
    twins[0].next_u64()
    assert twins[1].state != twins[0].state  # copies do not share state


def test_fast_rng_is_the_c_implementation() -> None:
    """The fast Rng really calls C (CPython's TestModules idea)."""
    from conftest import require_fast

    fast = require_fast()
    assert fast.Rng.__module__ == "fast.rng"
    from fast._ffi import ffi, lib

    state = ffi.new("rng_state *")
    lib.rng_seed(state, 42)
    assert [int(state.s[i]) for i in range(4)] == KNOWN["seeds"]["42"]["initial_state"]

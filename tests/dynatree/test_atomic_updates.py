"""Dynamic trees: one learned row (and one ``retire`` call) is atomic under allocation
failure (the undo log of csrc/dynatree/txn.c).

The hardening suite (tests/common/test_allocation_failure.py) sweeps the failure point over every
allocation of small models. Here the streams are longer and the models larger, so that
the failures land in the paths that only appear later: resampling over dead particles,
grow and prune of deep trees, copy-on-write of shared point sets, retirement with
forgetting (which collapses leaves and re-inserts their points), the ALC and entropy
rules, and the growth of the undo log itself. After every injected failure the model
must equal its state before the call (``snapshot()``), and the stream finished without
failures must give exactly the model of a run that never failed, which in turn equals
the reference backend.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import reference
from _alloc_hook import fail_at
from _compare import assert_snapshot_equal

fast = pytest.importorskip("fast")

pytestmark = pytest.mark.dynatree

CONFIGS = {
    "constant": dict(cls="DynamicTreeRegressor", kw=dict(n_particles=24)),
    "linear": dict(cls="DynamicTreeRegressor", kw=dict(n_particles=16, leaf="linear")),
    "class": dict(cls="DynamicTreeClassifier", kw=dict(n_particles=24, classes=[0, 1, 2])),
    "constant-alc-forget": dict(cls="DynamicTreeRegressor",
                                kw=dict(n_particles=20, active_size=30, retirement="alc",
                                        lam=0.9)),
    "constant-random-forget": dict(cls="DynamicTreeRegressor",
                                   kw=dict(n_particles=20, active_size=20,
                                           retirement="random", lam=0.5)),
    "linear-augmented": dict(cls="DynamicTreeRegressor",
                             kw=dict(n_particles=12, leaf="linear", intercept="augmented")),
    "linear-historical": dict(cls="DynamicTreeRegressor",
                              kw=dict(n_particles=12, leaf="linear", intercept="augmented",
                                      active_size=40, retirement="historical")),
    "class-entropy-forget": dict(cls="DynamicTreeClassifier",
                                 kw=dict(n_particles=20, classes=[0, 1, 2], active_size=25,
                                         retirement="entropy", lam=0.8)),
}


def _make(pkg: Any, name: str) -> Any:
    cfg = CONFIGS[name]
    return getattr(pkg, cfg["cls"])(seed=11, **cfg["kw"])


def _stream(name: str, n: int) -> list[tuple[list[float], Any]]:
    """Piecewise targets in [0, 1]^2, so the trees grow, prune and collapse."""
    rng = np.random.default_rng(5)
    out: list[tuple[list[float], Any]] = []
    for t in range(n):
        x = [float(v) for v in rng.uniform(0.0, 1.0, 2)]
        shift = 0.5 if t > n // 2 else 0.0  # a regime change halfway
        if CONFIGS[name]["cls"] == "DynamicTreeClassifier":
            out.append((x, int(x[0] > 0.5 - shift / 2) + int(x[1] > 0.7)))
        else:
            y = (3.0 if x[0] > 0.4 + shift / 2 else -1.0) + 2.0 * x[1] + 0.3 * rng.normal()
            out.append((x, y))
    return out


def _sweep_call(model: Any, call: Any) -> int:
    """Fail each allocation of ``call`` in turn; each time the model must be unchanged
    (MemoryError) or the call must have succeeded because the failed allocation was an
    optional cache (the ALC cache of the point sets: same values without it). Returns
    the number of injected failures."""
    before = model.snapshot()
    lml = model.log_marginal_likelihood_
    for n in range(10_000):
        raised = False
        with fail_at(n) as flag:
            try:
                call()
            except MemoryError:
                raised = True
        if not flag[0] or not raised:
            assert not raised
            return n + int(flag[0])
        assert_snapshot_equal(before, model.snapshot())
        assert model.log_marginal_likelihood_ == lml
    raise AssertionError("too many allocations")


@pytest.mark.parametrize("name", list(CONFIGS))
def test_learn_one_is_atomic_on_long_streams(name: str) -> None:
    data = _stream(name, 160)
    model = _make(fast, name)
    clean = _make(fast, name)
    ref = _make(reference, name)
    injected = 0
    for step, (x, y) in enumerate(data):
        if step % 2 == 0 or step > 120:
            injected += _sweep_call(model, lambda x=x, y=y: model.learn_one(x, y))
        else:
            model.learn_one(x, y)
        clean.learn_one(x, y)
        ref.learn_one(x, y)
        if step % 20 == 0:
            assert_snapshot_equal(clean.snapshot(), model.snapshot(), step=step)
    assert injected > 0
    assert_snapshot_equal(clean.snapshot(), model.snapshot())
    assert_snapshot_equal(ref.snapshot(), model.snapshot())
    assert model.lpred_ == clean.lpred_ == ref.lpred_
    assert model.n_seen_ == clean.n_seen_ == len(data)


@pytest.mark.parametrize("name", ["constant", "linear-augmented"])
def test_manual_retire_is_atomic(name: str) -> None:
    data = _stream(name, 90)
    model = _make(fast, name)
    ref = _make(reference, name)
    for x, y in data:
        model.learn_one(x, y)
        ref.learn_one(x, y)
    positions = [0, 3, 4, 10, 11, 17]
    injected = _sweep_call(model, lambda: model.retire(positions, lam=0.7))
    ref.retire(positions, lam=0.7)
    assert injected > 0
    assert_snapshot_equal(ref.snapshot(), model.snapshot())
    # and the stream goes on in lockstep
    for x, y in _stream(name, 30):
        model.learn_one(x, y)
        ref.learn_one(x, y)
    assert_snapshot_equal(ref.snapshot(), model.snapshot())


def test_partial_fit_keeps_the_rows_before_the_failure() -> None:
    """A failed batch keeps the rows before the failing one, counted in ``n_seen_`` and
    ``lpred_`` (documented in the guarantees page): the model is exactly one that learned
    only those rows, also when the failing batch is the first one."""
    data = _stream("constant-alc-forget", 150)
    xs = np.array([x for x, _ in data])
    ys = np.array([y for _, y in data])
    seen = set()
    for warm in (0, 60):
        for k in (0, 3, 8, 20, 60, 200):
            model = _make(fast, "constant-alc-forget")
            if warm:
                model.partial_fit(xs[:warm], ys[:warm])
            with fail_at(k) as flag:
                try:
                    model.partial_fit(xs[warm:], ys[warm:])
                except MemoryError:
                    pass
            if not flag[0]:
                continue
            kept = model.n_seen_
            seen.add(kept)
            assert warm <= kept <= len(data)
            twin = _make(fast, "constant-alc-forget")
            if kept:
                twin.partial_fit(xs[:kept], ys[:kept])
            assert model.lpred_ == twin.lpred_
            assert len(model.lpred_) == kept
            if kept:
                assert_snapshot_equal(twin.snapshot(), model.snapshot())
            if 0 < kept < len(data):
                model.partial_fit(xs[kept:], ys[kept:])  # and it goes on
                twin.partial_fit(xs[kept:], ys[kept:])
                assert_snapshot_equal(twin.snapshot(), model.snapshot())
    assert any(0 < kept < len(data) and kept != 60 for kept in seen)

"""A custom loss that raises during the warm-up replay leaves the model as it was.

``SGT(loss=CustomLoss(...))`` replays its warm-up buffer in the facade, calling the
user's loss once per buffered row. ``learn_one`` and ``partial_fit`` are atomic row by
row (the model unchanged when a call raises), so a loss that raises at the k-th replayed
row must undo the push of the warm-up-ending row and every row replayed before k
(``warmup_undo``: the ranges as before the push, the row out of the buffer, fresh
trees). On 469477c the model stayed frozen with a partly trained tree and an empty buffer.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

from _compare import assert_snapshot_equal

WARMUP = 30


class Boom(RuntimeError):
    """The error the test loss raises."""


class FailingLoss:
    """Squared error that raises :class:`Boom` at its ``fail_at``-th call (0: never)."""

    def __init__(self) -> None:
        self.calls = 0
        self.fail_at = 0

    def gradient_hessian(self, y: float, raw: float) -> tuple[float, float]:
        self.calls += 1
        if self.calls == self.fail_at:
            raise Boom(f"loss failed at call {self.calls}")
        return raw - y, 1.0

    def transfer(self, raw: float) -> float:
        return raw


def _stream() -> tuple[list[list[float]], list[float]]:
    rng = np.random.default_rng(11)
    X = rng.random((WARMUP + 10, 3))
    X[:, 2] = rng.integers(0, 3, WARMUP + 10)       # a nominal column
    y = [float(np.sin(6.0 * r[0]) + r[2]) for r in X]
    return [list(map(float, r)) for r in X], y


def _warm(backend: ModuleType, quantization: str) -> tuple[Any, FailingLoss]:
    """A model one row short of the end of its warm-up."""
    loss = FailingLoss()
    model = backend.SGT(loss, warmup=WARMUP, grace_period=2, delta=0.5, nominal={2: 3},
                        quantization=quantization)
    rows, y = _stream()
    for r, t in zip(rows[:WARMUP - 1], y[:WARMUP - 1], strict=True):
        model.learn_one(r, t)
    return model, loss


@pytest.mark.parametrize("quantization", ["leaf", "global"])
@pytest.mark.parametrize("k", [1, 2, 15, WARMUP])
@pytest.mark.parametrize("call", ["learn_one", "partial_fit"])
def test_a_loss_raising_at_replayed_row_k_leaves_the_model_as_it_was(
        backend: ModuleType, quantization: str, k: int, call: str) -> None:
    """Pins the defect: the k-th replayed row's loss raises; the snapshot (ranges, buffer,
    trees) and ``n_seen_`` are those before the call; the same row learned again once
    the loss behaves gives the model of an uninterrupted stream."""
    model, loss = _warm(backend, quantization)
    rows, y = _stream()
    before, seen = model.snapshot(), model.n_seen_
    loss.calls, loss.fail_at = 0, k
    with pytest.raises(Boom):
        if call == "learn_one":
            model.learn_one(rows[WARMUP - 1], y[WARMUP - 1])
        else:
            model.partial_fit(np.array([rows[WARMUP - 1]]), [y[WARMUP - 1]])
    assert loss.calls == k                  # the failure was inside the replay
    assert_snapshot_equal(before, model.snapshot())
    assert model.n_seen_ == seen
    loss.fail_at = 0
    for r, t in zip(rows[WARMUP - 1:], y[WARMUP - 1:], strict=True):
        model.learn_one(r, t)
    twin, _ = _warm(backend, quantization)
    for r, t in zip(rows[WARMUP - 1:], y[WARMUP - 1:], strict=True):
        twin.learn_one(r, t)
    assert_snapshot_equal(twin.snapshot(), model.snapshot())
    assert twin.snapshot()["core"]["trees"][0]["n_updates"] > 0


def test_a_failed_replay_is_undone_alike_in_both_backends(both: Any) -> None:
    """Lockstep: after the same failure and the same retry both backends hold the same
    model, bit for bit."""
    rows, y = _stream()
    snaps = []
    for backend in both:
        model, loss = _warm(backend, "leaf")
        loss.calls, loss.fail_at = 0, 7
        with pytest.raises(Boom):
            model.learn_one(rows[WARMUP - 1], y[WARMUP - 1])
        snaps.append(model.snapshot())
        loss.fail_at = 0
        for r, t in zip(rows[WARMUP - 1:], y[WARMUP - 1:], strict=True):
            model.learn_one(r, t)
        snaps.append(model.snapshot())
    assert_snapshot_equal(snaps[0], snaps[2])
    assert_snapshot_equal(snaps[1], snaps[3])

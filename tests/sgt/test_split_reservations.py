"""The fast SGT's split reservations: sized by what the rows can split, released after.

Before any state changes, a fast call reserves the leaves of every split it could make
(so that running out of memory leaves the model as it was). A leaf attempts a split when
its count reaches a multiple of ``grace_period``, so ``n`` rows can trigger at most
``(n + sum over leaves of count mod grace_period) / grace_period`` attempts (and at most
one per row): a multi-instance bag of 8,000 rows used to reserve 8,000 splits and keep them.
After a call, the leaves no split used are freed beyond one split's worth.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

fast = pytest.importorskip("fast")


def _pending(tree: object, grace_period: int) -> int:
    """Sum over the leaves of ``count mod grace_period``, read node by node."""
    total = 0
    for i in range(tree.n_nodes):  # type: ignore[attr-defined]
        node = tree.nodes[i]  # type: ignore[attr-defined]
        if node.first_child < 0:
            total += node.cells[0].n % grace_period
    return total


def _warm_mil(grace_period: int) -> object:
    rng = np.random.default_rng(0)
    model = fast.SGTMultiInstanceClassifier(warmup=200, grace_period=grace_period)
    small = [rng.random((2, 5)) for _ in range(200)]
    model.partial_fit(small, [int(b[:, 0].max() > 0.5) for b in small])
    return model


def test_a_large_bag_leaves_no_reserved_leaves_behind() -> None:
    model = _warm_mil(200)
    bag = np.random.default_rng(1).random((8000, 5))
    model.partial_fit([bag], [1])
    tree = model._engine._m.trees[0]  # type: ignore[attr-defined]
    assert tree.n_spare <= 2           # one binary split's worth, as a one-row call keeps


def test_warm_up_replay_leaves_no_reserved_leaves_behind() -> None:
    rng = np.random.default_rng(2)
    X = rng.random((3001, 4))
    model = fast.SGTRegressor(warmup=3000, grace_period=1)
    model.partial_fit(X, np.sin(6.0 * X[:, 0]))
    assert model._engine._m.trees[0].n_spare <= 2  # type: ignore[attr-defined]


@pytest.mark.parametrize("grace_period", [1, 3, 20])
def test_split_bound_covers_the_splits_a_bag_makes(grace_period: int) -> None:
    """Splits made by each bag never exceed the bound computed by hand before it."""
    from fast._ffi import lib

    model = _warm_mil(grace_period)
    rng = np.random.default_rng(3)
    tree = model._engine._m.trees[0]  # type: ignore[attr-defined]
    for size in (1, 2, 7, 40, 300):
        for _ in range(5):
            bag = rng.random((size, 5))
            expected = min(size, (size + _pending(tree, grace_period)) // grace_period)
            bound = lib.sgt_tree_split_bound(model._engine._m.trees, grace_period, size)
            assert bound == (
                size if size <= 1 else expected)
            before = tree.n_splits
            model.partial_fit([bag], [int(bag[:, 0].max() > 0.5)])
            tree = model._engine._m.trees[0]  # type: ignore[attr-defined]
            assert tree.n_splits - before <= max(expected, 1 if size == 1 else 0)


# ---- the warm-up replay (issue 41, gap "warm-up peak memory") ----------------------------
#
# The replay of the warm-up buffer used to reserve ``buffered rows / grace_period + 1``
# splits up front (5,001 splits, 445 MB, at ``warmup=5000, grace_period=1``). It now reserves
# each buffered item's splits just before training it, as a trained model does, and on
# running out of memory half-way puts the model back as it was before the call
# (``sgt_model_warmup_undo``). A tree's ``spare_cap`` is the largest reservation it was ever
# asked for (the spare arrays never shrink), so it reads the peak reservation after the call.


@pytest.mark.parametrize("quantization", ["leaf", "global"])
def test_warm_up_replay_reserves_one_split_at_a_time(quantization: str) -> None:
    """Pins the warm-up peak defect: at ``grace_period=1`` every replayed row may split;
    the largest reservation of the call is one binary split (2 leaves), not 3,001 splits
    (6,002 leaves, what 469477c reserved before the replay)."""
    rng = np.random.default_rng(4)
    X = rng.random((3001, 4))
    model = fast.SGTRegressor(warmup=3000, grace_period=1, delta=0.5,
                              quantization=quantization)
    model.partial_fit(X, np.sin(6.0 * X[:, 0]))
    tree = model._engine._m.trees[0]  # type: ignore[attr-defined]
    assert tree.n_splits >= 2          # the replay split more than once
    assert tree.spare_cap <= 2


def test_warm_up_replay_of_bags_reserves_by_the_split_bound() -> None:
    """Multi-instance warm-up: the largest reservation is what one bag can split
    (``sgt_tree_split_bound``: at most one split per row of the bag), not what the whole
    buffer could (469477c: ``buffered rows / grace_period + 1`` splits, over 2,000 leaves
    here)."""
    rng = np.random.default_rng(5)
    bags = [rng.random((int(rng.integers(1, 12)), 3)) for _ in range(400)]
    labels = [int(b[:, 0].max() > 0.5) for b in bags]
    model = fast.SGTMultiInstanceClassifier(warmup=sum(len(b) for b in bags), grace_period=2,
                                            delta=0.5)
    model.partial_fit(bags, labels)
    tree = model._engine._m.trees[0]  # type: ignore[attr-defined]
    assert tree.n_splits > 0
    assert tree.spare_cap <= 2 * max(len(b) for b in bags)


def _sweep_warm_up_end(make: Any, items: list[Any], targets: list[Any], both: Any) -> int:
    """Fail every allocation of the call that ends the warm-up in turn: each time
    MemoryError and the model exactly as before the call; then the clean call gives the
    reference's model bit for bit."""
    from _alloc_hook import sweep_allocation_failures
    from _compare import assert_snapshot_equal

    reference_backend, fast_backend = both
    model = make(fast_backend)
    model.partial_fit(items[:-1], targets[:-1])
    before = model.snapshot()
    injected = sweep_allocation_failures(
        lambda: model.partial_fit(items[-1:], targets[-1:]),
        lambda n: assert_snapshot_equal(before, model.snapshot(), step=n))
    twin = make(reference_backend)
    twin.partial_fit(items, targets)
    assert_snapshot_equal(twin.snapshot(), model.snapshot())
    return injected


@pytest.mark.parametrize("quantization", ["leaf", "global"])
def test_a_warm_up_replay_that_runs_out_of_memory_leaves_the_model_as_it_was(
        both: Any, quantization: str) -> None:
    """Pins the atomicity of the chunked replay: allocations made half-way through the
    replay (a later row's reservation) fail too, and the model goes back to its state
    before the warm-up-ending row."""
    rng = np.random.default_rng(6)
    X = rng.random((40, 3))
    rows = [list(map(float, r)) for r in X]
    # a stream the replay splits several times: each row reserves only the split it makes
    y = [float(4.0 * np.sin(6.0 * r[0]) + 3.0 * (r[1] > 0.5)) for r in X]

    def make(backend: Any) -> Any:
        return backend.SGTRegressor(warmup=40, grace_period=2, delta=0.5,
                                    quantization=quantization)

    assert _sweep_warm_up_end(make, rows, y, both) > 4   # failures beyond the first rows


def test_a_bag_warm_up_replay_that_runs_out_of_memory_leaves_the_model_as_it_was(
        both: Any) -> None:
    rng = np.random.default_rng(7)
    bags = [rng.random((int(rng.integers(1, 5)), 3)) for _ in range(25)]
    labels = [int(b[:, 0].max() > 0.5) for b in bags]

    def make(backend: Any) -> Any:
        return backend.SGTMultiInstanceClassifier(
            warmup=sum(len(b) for b in bags), grace_period=2, delta=0.5)

    assert _sweep_warm_up_end(make, bags, labels, both) > 4


# ---- the custom-loss warm-up replay (issue 41, round 3) -----------------------------------
#
# With a custom loss the replay is a Python loop in the facade. It used to reserve
# ``buffered rows / grace_period + 1`` splits before the push that ends the warm-up (a C
# function since removed); each replayed row now reserves its own split in
# ``sgt_model_train_gh``, and a failure half-way is undone (``warmup_undo``).


def _custom(backend: Any, warmup: int, quantization: str = "leaf") -> Any:
    from reference.sgt.losses import CustomLoss

    loss = CustomLoss(lambda y, f: f - y, lambda y, f: 1.0)
    return backend.SGT(loss, warmup=warmup, grace_period=1, delta=0.5,
                       quantization=quantization)


@pytest.mark.parametrize("quantization", ["leaf", "global"])
def test_custom_loss_warm_up_replay_reserves_one_split_at_a_time(quantization: str) -> None:
    """The largest reservation of a custom-loss replay at ``grace_period=1`` is one binary
    split (2 leaves); 469477c reserved 3,001 splits (6,002 leaves) before the replay."""
    rng = np.random.default_rng(8)
    X = rng.random((3001, 4))
    model = _custom(fast, 3000, quantization)
    model.partial_fit(X, np.sin(6.0 * X[:, 0]))
    tree = model._engine._m.trees[0]  # type: ignore[attr-defined]
    assert tree.n_splits >= 2
    assert tree.spare_cap <= 2
    assert tree.n_spare <= 2           # released after the replay


@pytest.mark.parametrize("quantization", ["leaf", "global"])
def test_a_custom_loss_warm_up_replay_that_runs_out_of_memory_leaves_the_model_as_it_was(
        both: Any, quantization: str) -> None:
    """Every allocation of the custom-loss call that ends the warm-up fails in turn,
    including each replayed row's reservation: MemoryError and the model as before."""
    rng = np.random.default_rng(9)
    X = rng.random((40, 3))
    rows = [list(map(float, r)) for r in X]
    # a stream the replay splits several times: each row reserves only the split it makes
    y = [float(4.0 * np.sin(6.0 * r[0]) + 3.0 * (r[1] > 0.5)) for r in X]
    assert _sweep_warm_up_end(lambda b: _custom(b, 40, quantization), rows, y, both) > 4

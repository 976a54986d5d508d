"""The fast SGT's split reservations: sized by what the rows can split, released after.

Before any state changes, a fast call reserves the leaves of every split it could make
(so that running out of memory leaves the model as it was). A leaf attempts a split when
its count reaches a multiple of ``grace_period``, so ``n`` rows can trigger at most
``(n + sum over leaves of count mod grace_period) / grace_period`` attempts (and at most
one per row): a multi-instance bag of 8,000 rows used to reserve 8,000 splits and keep them.
After a call, the leaves no split used are freed beyond one split's worth.
"""

from __future__ import annotations

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

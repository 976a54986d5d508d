"""The ``search="auto"`` policy: the loose kd-tree by cover size, dropped where it does not pay.

In high intrinsic dimension the kd-tree's boxes prune little: a query computes the
distance to most balls and costs more than the scan. With ``search="auto"`` the index
drops a tree whose queries since its build (at least ``PROBE_QUERIES``) computed the
distance to half of the balls or more on average, and tries a new tree once the cover has
doubled ([ABACOC-SPEC §13]). Answers never depend on the structure (the lockstep and
oracle tests run every search); these tests check that both backends count the same work
and take the same decisions, step by step.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from reference.abacoc.kdtree import PROBE_QUERIES


def _uniform(n: int, dim: int, seed: int) -> tuple[list[list[float]], list[int]]:
    g = np.random.default_rng(seed)
    X = g.uniform(size=(n, dim))
    return X.tolist(), (X[:, 0] > 0.5).astype(int).tolist()


def _reference_index(model: Any) -> tuple[bool, int, int, int]:
    index = model._engine.cover.index
    tree = index.tree
    if tree is None:
        return False, index.retry_at, 0, 0
    return True, index.retry_at, tree.queries, tree.visited


def _fast_index(model: Any) -> tuple[bool, int, int, int]:
    from fast._ffi import ffi

    h = model._engine._h
    if h.tree == ffi.NULL:
        return False, int(h.tree_retry_at), 0, 0
    return True, int(h.tree_retry_at), int(h.tree.queries), int(h.tree.visited)


def _trace(pkg: Any, read: Any, X: list[list[float]], y: list[int],
           **kwargs: Any) -> list[tuple[int, tuple[bool, int, int, int]]]:
    model = pkg.ABACOCClassifier(**kwargs)
    trace = []
    for x, label in zip(X, y, strict=True):
        model.predict_one(x)
        model.learn_one(x, label)
        trace.append((model.n_balls_, read(model)))
    return trace


def test_both_backends_count_the_same_work_and_drop_the_tree_alike(both: Any) -> None:
    """20 uniform features: the tree visits most balls, is dropped, and is tried again
    at twice the size, at the same steps in both backends with the same counts."""
    ref, fast = both
    X, y = _uniform(700, 20, seed=1)
    kwargs = {"variant": "auto_adj", "search": "auto", "search_threshold": 16, "leaf_size": 4}
    a = _trace(ref, _reference_index, X, y, **kwargs)
    b = _trace(fast, _fast_index, X, y, **kwargs)
    assert a == b
    dropped = [(n, retry) for n, (has_tree, retry, _, _) in a if not has_tree and n >= 16]
    assert dropped, "the tree should not pay in 20 uniform dimensions"
    assert all(retry >= 32 for _, retry in dropped)
    retried = [n for n, (has_tree, retry, _, _) in a if has_tree and retry > 0]
    assert retried and min(retried) >= 2 * 16       # a new tree once the cover doubled
    drops = [t for t in range(1, len(a)) if a[t - 1][1][0] and not a[t][1][0]]
    assert drops
    for t in drops:     # judged after PROBE_QUERIES queries (a step makes at most two)
        assert a[t - 1][1][2] >= PROBE_QUERIES - 2


def test_the_tree_is_kept_where_it_prunes(both: Any) -> None:
    """Two features: the tree visits a small share of the balls and stays."""
    ref, fast = both
    X, _ = _uniform(1500, 2, seed=2)
    g = np.random.default_rng(3)
    y = [int(v) for v in g.integers(0, 2, size=len(X))]      # noise: many balls
    kwargs = {"variant": "auto", "search": "auto", "search_threshold": 32}
    a = _trace(ref, _reference_index, X, y, **kwargs)
    assert a == _trace(fast, _fast_index, X, y, **kwargs)
    after = [entry for n, entry in a if n >= 32]
    assert after and all(has_tree for has_tree, _, _, _ in after)
    assert all(retry == 0 for _, retry, _, _ in after)
    assert max(q for _, _, q, _ in after) >= PROBE_QUERIES


def test_forced_searches_ignore_the_policy(both: Any) -> None:
    """``search="kdtree"`` keeps its tree and ``"scan"`` never builds one, whatever the
    dimension; the answers of the three settings agree."""
    ref, fast = both
    X, y = _uniform(250, 20, seed=4)
    for pkg, read in ((ref, _reference_index), (fast, _fast_index)):
        tree = _trace(pkg, read, X, y, search="kdtree", leaf_size=4)
        assert all(has_tree and retry == 0 for _, (has_tree, retry, _, _) in tree)
        scan = _trace(pkg, read, X, y, search="scan")
        assert not any(has_tree for _, (has_tree, _, _, _) in scan)
    snaps = [pkg.ABACOCClassifier(search=s, search_threshold=16).partial_fit(X, y).snapshot()
             for pkg in (ref, fast) for s in ("auto", "scan", "kdtree")]
    assert all(s == snaps[0] for s in snaps[1:])

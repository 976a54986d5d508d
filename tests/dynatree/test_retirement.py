"""Retirement in the reference dynamic trees: spec Appendix A invariants (§3.5, §6).

* lam = 1 retirement leaves every particle's predictive unchanged (A.1);
* grow then prune restores the retired statistics (A.2);
* a leaf with retired data predicts as the full-data leaf (A.6);
* lam < 1: bounded retired mass, collapse of improper leaves keeps a valid tree.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from _dynatree_helpers import class_stream, regression_stream

from reference import DynamicTreeClassifier, DynamicTreeRegressor
from reference.dynatree.leaf_models import (
    CLASS,
    CONSTANT,
    LINEAR,
    LeafConfig,
    class_probability,
    merge_stats,
    regression_predictive,
    stats_from_points,
)
from reference.dynatree.retirement import positions_in_order
from reference.dynatree.tree import Node, find_leaf, leaves

REG = [("constant", "implicit"), ("linear", "augmented"), ("linear", "none")]


def _close(a: float, b: float, rel: float = 1e-9) -> bool:
    return a == b or abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def _particle_predictions(m: Any, xs: list[list[float]]) -> list[list[tuple[float, ...]]]:
    out = []
    for root in m._engine._roots:
        row = []
        for x in xs:
            st = find_leaf(root, x).stats
            if m._engine._cfg.kind == CLASS:
                row.append(tuple(class_probability(st, m._engine._cfg, k)
                                 for k in range(m._engine._cfg.n_classes)))
            else:
                loc, scale, df, _ = regression_predictive(st, m._engine._cfg, x)
                row.append((loc, scale, df))
        out.append(row)
    return out


def _fit_reg(leaf: str, icept: str, seed: int, n: int = 80, **kw: Any) -> Any:
    m = DynamicTreeRegressor(leaf=leaf, intercept=icept, n_particles=8, seed=seed,
                             min_leaf=4 if leaf == "linear" else None, **kw)
    for x, y in regression_stream(seed, n):
        m.learn_one(x, y)
    return m


@pytest.mark.parametrize("leaf,icept", REG)
@pytest.mark.parametrize("seed", range(3))
def test_lam_one_retirement_keeps_every_particle_prediction(leaf: str, icept: str,
                                                            seed: int) -> None:
    m = _fit_reg(leaf, icept, seed)
    xs = [x for x, _ in regression_stream(seed + 50, 25)]
    before = _particle_predictions(m, xs)
    m.retire([3, 0, 17, 40, 41, 5])
    m.retire(list(range(0, 30, 2)))
    after = _particle_predictions(m, xs)
    assert len(m.active_y_) == 80 - 6 - 15
    for ra, rb in zip(before, after, strict=True):
        for a, b in zip(ra, rb, strict=True):
            assert all(_close(u, v) for u, v in zip(a, b, strict=True)), (a, b)
    assert m.tree_stats()["mean_retired"] == pytest.approx(21.0)


@pytest.mark.parametrize("seed", range(3))
def test_lam_one_retirement_keeps_class_predictions(seed: int) -> None:
    m = DynamicTreeClassifier(classes=[0, 1, 2], n_particles=8, seed=seed)
    for x, y in class_stream(seed, 80):
        m.learn_one(x, y)
    xs = [x for x, _ in class_stream(seed + 9, 20)]
    before = _particle_predictions(m, xs)
    m.retire(list(range(1, 60, 3)))
    after = _particle_predictions(m, xs)
    for ra, rb in zip(before, after, strict=True):
        for a, b in zip(ra, rb, strict=True):
            assert all(_close(u, v, 1e-12) for u, v in zip(a, b, strict=True))


def test_lam_below_one_changes_predictions_and_keeps_pool_size() -> None:
    m = _fit_reg("constant", "implicit", 1, n=120, active_size=20, lam=0.8,
                 retirement="historical")
    assert len(m.active_y_) == 20
    xs = [x for x, _ in regression_stream(60, 10)]
    before = _particle_predictions(m, xs)
    m.retire([0, 1, 2], lam=0.5)
    after = _particle_predictions(m, xs)
    assert before != after


def test_repeated_discounting_bounds_a_leaf_mass() -> None:
    """With only retirements into one leaf, ``nu`` stays below ``1/(1 - lam)`` (§3.5)."""
    cfg = _cfg(CONSTANT)
    data = regression_stream(3, 60)
    X = [x for x, _ in data]
    y = [v for _, v in data]
    leaf = _leaf_with_retired(cfg, X, y, 59, 0.8)
    assert 4.9 < leaf.stats.nu <= 5.0


def _cfg(kind: int, p: int = 0, n_classes: int = 0) -> LeafConfig:
    return LeafConfig(kind=kind, p=p, augmented=kind == LINEAR, delta=0 if kind == LINEAR
                      else 1, n_classes=n_classes, nu0=0.0, s20=0.0)


def _leaf_with_retired(cfg: LeafConfig, X: list[list[float]], y: list[float],
                       n_ret: int, lam: float) -> Node:
    from reference.dynatree.retirement import retire_from_leaf

    points = list(range(len(y)))
    leaf = Node(0, None, points, stats_from_points(cfg, points, X, y))
    for r in range(n_ret):
        retire_from_leaf(leaf, r, X, y, cfg, lam)
    return leaf


@pytest.mark.parametrize("kind", [CONSTANT, LINEAR, CLASS])
@pytest.mark.parametrize("lam", [1.0, 0.7])
def test_grow_then_prune_restores_retired_stats(kind: int, lam: float) -> None:
    data = regression_stream(4, 40)
    X = [x for x, _ in data]
    y = [float(int(3 * x[0])) if kind == CLASS else v for x, v in data]
    cfg = _cfg(kind, p=3 if kind == LINEAR else 0, n_classes=3 if kind == CLASS else 0)
    leaf = _leaf_with_retired(cfg, X, y, 12, lam)
    left = [i for i in leaf.points if X[i][0] <= 0.5]
    right = [i for i in leaf.points if X[i][0] > 0.5]
    a = stats_from_points(cfg, left, X, y, leaf.stats)
    b = stats_from_points(cfg, right, X, y, leaf.stats)
    merged = merge_stats(cfg, [a, b], leaf.points, X, y)
    st = leaf.stats
    pairs = [(merged.nu, st.nu), (merged.syg, st.syg), (merged.syyg, st.syyg)]
    pairs += list(zip(merged.gcounts, st.gcounts, strict=True))
    pairs += list(zip(merged.Gg, st.Gg, strict=True)) + list(zip(merged.bg, st.bg, strict=True))
    assert st.nu > 1.0
    for u, v in pairs:
        assert math.isclose(u, v, rel_tol=4e-16 * 8, abs_tol=1e-13), (u, v)


@pytest.mark.parametrize("kind", [CONSTANT, LINEAR, CLASS])
def test_retired_prior_predictive_equals_full_data_predictive(kind: int) -> None:
    data = regression_stream(7, 30)
    X = [x for x, _ in data]
    y = [float(int(3 * x[0])) if kind == CLASS else v for x, v in data]
    cfg = _cfg(kind, p=3 if kind == LINEAR else 0, n_classes=3 if kind == CLASS else 0)
    full = stats_from_points(cfg, list(range(30)), X, y)
    ret = _leaf_with_retired(cfg, X, y, 18, 1.0)
    assert ret.stats.n == 12 and ret.stats.nu == 18.0
    for x in X[:10]:
        if kind == CLASS:
            for k in range(3):
                assert _close(class_probability(full, cfg, k),
                              class_probability(ret.stats, cfg, k), 1e-14)
        else:
            fa = regression_predictive(full, cfg, x)
            fb = regression_predictive(ret.stats, cfg, x)
            assert all(_close(u, v) for u, v in zip(fa[:3], fb[:3], strict=True))


def _check_tree(root: Node, n_active: int) -> None:
    seen: list[int] = []
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        assert node.depth == depth
        if node.var >= 0:
            assert node.left is not None and node.right is not None
            assert node.left.parent is node and node.right.parent is node
            stack.append((node.right, depth + 1))
            stack.append((node.left, depth + 1))
        else:
            assert node.points == sorted(node.points)
            assert node.stats.n == len(node.points)
            seen.extend(node.points)
    assert root.parent is None
    assert sorted(seen) == list(range(n_active))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("leaf,icept", REG)
def test_forgetting_collapses_leaves_into_valid_trees(seed: int, leaf: str, icept: str) -> None:
    m = _fit_reg(leaf, icept, seed, n=90, active_size=25, lam=0.5, retirement="random")
    for root in m._engine._roots:
        _check_tree(root, 25)
        for lf in leaves(root):
            if lf.parent is not None:
                assert lf.stats.n + lf.stats.nu >= 4.0
    m.retire(list(range(0, 24)), lam=0.3)
    for root in m._engine._roots:
        _check_tree(root, 1)


def test_positions_in_order_shift_later_indices() -> None:
    assert positions_in_order([5, 2, 5, 7, 0], 9) == [5, 2, 5, 0]

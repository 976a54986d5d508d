"""The dynamic-tree transition: stay, grow and prune moves [AG13, Eq. 2, §2.2]; [DT-SPEC §4].

One call of :func:`propagate` moves one particle with the new point ``(x_t, y_t)``:
insert the point into its leaf ``eta``, score the three candidate configurations of the
subtree under ``eta``'s parent ``Pi`` (stay, grow with one ``luvar`` candidate, prune of
the whole subtree under ``Pi``) and sample one move with log-sum-exp normalised
probabilities. C twin: ``csrc/dynatree/moves.c`` (``dt_grow_candidate``, ``dt_choose_move``
(which computes :func:`move_weights` inline),
``dt_propagate``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from reference.dynatree.leaf_models import (
    LeafConfig,
    LeafStats,
    add_point,
    merge_stats,
    stats_from_points,
)
from reference.dynatree.tree import (
    Node,
    find_leaf,
    leaves,
    log_leaf_prob,
    subtree_log_score,
)
from reference.rng import Rng

STAY = 0
PRUNE = 1
GROW = 2
NEG_INF = -math.inf


def grow_candidate(leaf: Node, X: Sequence[Sequence[float]], n_features: int, minp: int,
                   alpha: float, rng: Rng) -> tuple[int, float] | None:
    """One ``luvar`` grow proposal ``(j, xi)`` for ``leaf``, or None ([DT-SPEC §4.2]).

    ``j`` is uniform over the ``d`` input columns; ``xi`` is uniform on the LU interval
    ``[v_(minp), v_(n-minp+1)]`` of the leaf's active values in column ``j``.

    Random draws: none if ``alpha <= 0`` or ``n < 2 minp``; else ``below(d)`` for ``j``,
    then one ``uniform()`` for ``xi`` only if the LU interval is non-empty (``lo < hi``).
    The dimension is not redrawn.
    """
    n = len(leaf.points)
    if not alpha > 0.0 or n < 2 * minp:
        return None
    j = rng.below(n_features)
    values = sorted(X[i][j] for i in leaf.points)
    lo = values[minp - 1]
    hi = values[n - minp]
    if not lo < hi:
        return None
    u = rng.uniform()
    return j, lo + u * (hi - lo)


def move_weights(l_stay: float, l_prune: float, l_grow: float) -> tuple[float, float, float]:
    """Unnormalised move weights ``w_k = exp(L_k - L_max)`` ([DT-SPEC §4.4]).

    ``L_max`` is the largest finite score; a score that is not finite has weight 0.
    Log-sum-exp (maximum) normalisation, so the largest weight is 1 and nothing overflows.
    """
    l_max = NEG_INF
    for score in (l_stay, l_prune, l_grow):
        if math.isfinite(score) and score > l_max:
            l_max = score
    w_stay = math.exp(l_stay - l_max) if math.isfinite(l_stay) else 0.0
    w_prune = math.exp(l_prune - l_max) if math.isfinite(l_prune) else 0.0
    w_grow = math.exp(l_grow - l_max) if math.isfinite(l_grow) else 0.0
    return w_stay, w_prune, w_grow


def choose_move(l_stay: float, l_prune: float, l_grow: float, rng: Rng) -> int:
    """Sample stay / prune / grow from their log scores ([DT-SPEC §0] item 6, §4.4 [REC]).

    ``w_k = exp(L_k - L_max)`` for finite ``L_k`` (``L_max`` the largest finite score),
    0 otherwise (:func:`move_weights`); ``Z = (w_stay + w_prune) + w_grow``; stay if
    ``u < w_stay/Z``, prune if ``u < (w_stay + w_prune)/Z``, else grow.

    Random draws: one ``uniform()``, only if ``l_grow`` or ``l_prune`` is finite.
    Deviation: log-sum-exp (maximum) normalisation instead of dynaTree's minimum.
    """
    if not math.isfinite(l_grow) and not math.isfinite(l_prune):
        return STAY
    w_stay, w_prune, w_grow = move_weights(l_stay, l_prune, l_grow)
    z = (w_stay + w_prune) + w_grow
    u = rng.uniform()
    if u < w_stay / z:
        return STAY
    if u < (w_stay + w_prune) / z:
        return PRUNE
    return GROW


def propagate(root: Node, index: int, X: Sequence[Sequence[float]], y: Sequence[float],
              cfg: LeafConfig, minp: int, alpha: float, beta: float, rng: Rng) -> Node:
    """Move one particle with point ``index`` ([DT-SPEC §4.1]); return the (possibly new) root.

    Random draws: those of :func:`grow_candidate`, then those of :func:`choose_move`.
    """
    x = X[index]
    leaf = find_leaf(root, x)
    leaf.points.append(index)
    add_point(leaf.stats, cfg, leaf.points, index, X, y)
    parent = leaf.parent
    top = parent if parent is not None else leaf
    l_stay = subtree_log_score(top, alpha, beta)

    l_grow = NEG_INF
    children: tuple[list[int], list[int], LeafStats, LeafStats] | None = None
    candidate = grow_candidate(leaf, X, len(x), minp, alpha, rng)
    if candidate is not None:
        j, xi = candidate
        left = [i for i in leaf.points if X[i][j] <= xi]
        right = [i for i in leaf.points if not X[i][j] <= xi]
        if len(left) >= minp and len(right) >= minp:
            left_stats = stats_from_points(cfg, left, X, y, leaf.stats)
            right_stats = stats_from_points(cfg, right, X, y, leaf.stats)
            l_grow = subtree_log_score(top, alpha, beta, leaf,
                                       (left_stats.log_evidence, right_stats.log_evidence))
            children = (left, right, left_stats, right_stats)

    l_prune = NEG_INF
    merged: tuple[list[int], LeafStats] | None = None
    if parent is not None:
        under = leaves(parent)
        count = 0
        for node in under:
            count += len(node.points)
        if count >= 2 * minp:
            points = sorted(i for node in under for i in node.points)
            stats = merge_stats(cfg, [node.stats for node in under], points, X, y)
            l_prune = log_leaf_prob(parent.depth, alpha, beta) + stats.log_evidence
            merged = (points, stats)

    move = choose_move(l_stay, l_prune, l_grow, rng)
    if move == GROW:
        assert candidate is not None and children is not None
        leaf.var, leaf.value = candidate
        leaf.left = Node(leaf.depth + 1, leaf, children[0], children[2])
        leaf.right = Node(leaf.depth + 1, leaf, children[1], children[3])
        leaf.points = []
        return root
    if move == PRUNE:
        assert parent is not None and merged is not None
        new_leaf = Node(parent.depth, parent.parent, merged[0], merged[1])
        grand = parent.parent
        if grand is None:
            return new_leaf
        if grand.left is parent:
            grand.left = new_leaf
        else:
            grand.right = new_leaf
    return root

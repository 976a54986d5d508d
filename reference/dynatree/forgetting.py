"""Forgetting: the power-prior discount of retired information [AG13, §5]; [DT-SPEC §3.5],
[DT-SPEC §6.3].

Retired data enter a leaf's conjugate prior as discounted sufficient statistics: with a
forgetting factor ``0 < lam <= 1`` every retirement first multiplies the retired
statistics by ``lam`` and then adds the retiree (``nu <- lam nu + 1``, ``a <- lam a + e_y``,
``S^g_y <- lam S^g_y + y``, ``S^g_yy <- lam S^g_yy + y^2``, ``G^g <- lam G^g + z z'``,
``b^g <- lam b^g + z y``). This is the power prior ``p(theta | old)^lam``: the posterior
that is closest in KL divergence to the full posterior under a constraint on its
information (see the tutorial). With ``lam < 1`` a leaf's retired strength is bounded by
``1/(1 - lam)``, so a leaf may become improper (``n + nu < minp``) and is then collapsed
into its sibling (:func:`collapse`). The baseline prior (``nu0 s20``, ``1/C``) is never
discounted. C twin: ``csrc/dynatree/forgetting.c``.
"""

from __future__ import annotations

from collections.abc import Sequence

from reference.dynatree.leaf_models import (
    CLASS,
    CONSTANT,
    LeafConfig,
    LeafStats,
    add_point,
    regressors,
)
from reference.dynatree.tree import Node, find_leaf, preorder


def absorb_retired(st: LeafStats, cfg: LeafConfig, x: Sequence[float], y: float,
                   lam: float) -> None:
    """Discount the retired statistics by ``lam`` and add the retiree ``(x, y)`` (§3.5 2-5).

    Only the retired part changes here; the caller removes the point from the active sums.
    """
    st.nu = lam * st.nu + 1.0
    if cfg.kind == CLASS:
        for k in range(cfg.n_classes):
            st.gcounts[k] = lam * st.gcounts[k]
        st.gcounts[int(y)] = st.gcounts[int(y)] + 1.0
        return
    st.syyg = lam * st.syyg + y * y
    if cfg.kind == CONSTANT:
        st.syg = lam * st.syg + y
        return
    p = cfg.p
    z = regressors(x, cfg)
    for j in range(p):
        st.bg[j] = lam * st.bg[j] + z[j] * y
        for k in range(p):
            st.Gg[j * p + k] = lam * st.Gg[j * p + k] + z[j] * z[k]


def insert_sorted(points: list[int], index: int) -> None:
    """Insert ``index`` into the arrival-ordered list ``points`` ([DT-SPEC §0] item 7)."""
    pos = len(points)
    while pos > 0 and points[pos - 1] > index:
        pos -= 1
    points.insert(pos, index)


def collapse(root: Node, leaf: Node, X: Sequence[Sequence[float]], y: Sequence[float],
             cfg: LeafConfig) -> Node:
    """Merge an improper leaf (``n + nu < minp``) into its sibling ([DT-SPEC §6.3] [REC]).

    The leaf's active points are re-inserted, in arrival order, into the sibling subtree
    (descending by its split rules, each at its arrival-order position in the target leaf,
    statistics updated as by a normal insertion); the sibling replaces the parent, and
    the depths of the promoted subtree are decremented. The collapsed leaf's retired
    information is lost. Returns the (possibly new) root.

    Deviation: dynaTree crashes when the leaf or its parent is the root; here a root leaf
    is left alone and a sibling of the root's child becomes the new root; depths are
    recomputed (dynaTree leaves them one level too deep).
    """
    parent = leaf.parent
    if parent is None:
        return root
    sibling = parent.right if parent.left is leaf else parent.left
    assert sibling is not None
    for i in leaf.points:
        target = find_leaf(sibling, X[i])
        insert_sorted(target.points, i)
        add_point(target.stats, cfg, target.points, i, X, y)
    grand = parent.parent
    sibling.parent = grand
    for node in preorder(sibling):
        node.depth -= 1
    if grand is None:
        return sibling
    if grand.left is parent:
        grand.left = sibling
    else:
        grand.right = sibling
    return root

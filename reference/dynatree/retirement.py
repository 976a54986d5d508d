"""Data retirement: active points become conjugate prior information [AG13, §3]; [DT-SPEC §6].

Retiring an active point removes it from the leaf that holds it (in every particle) and
folds it into that leaf's informative prior (``forgetting.absorb_retired``, discounted by
``lam``). With ``lam = 1`` each leaf's posterior, hence every predictive distribution, is
unchanged [AG13, §3.1]; only the point's value as a split candidate is lost. The active
pool is a list in arrival order: positions shift down after a retirement and the point
indices stored in the leaves are renumbered accordingly, so memory is bounded by the pool.
C twin: ``csrc/dynatree/retirement.c``.

Notation
--------
``r``    position of the retiree in the active pool (0-based, arrival order).
``lam``  forgetting factor, ``0 < lam <= 1``.
``w``    size of the active pool (``active_size``).
"""

from __future__ import annotations

from collections.abc import Sequence

from reference.dynatree.forgetting import absorb_retired, collapse
from reference.dynatree.leaf_models import (
    CLASS,
    CONSTANT,
    LINEAR,
    LeafConfig,
    calculate_linear,
    refresh,
    regressors,
)
from reference.dynatree.tree import Node, find_leaf, leaves
from reference.rng import Rng


def recompute_linear_totals(leaf: Node, cfg: LeafConfig, X: Sequence[Sequence[float]],
                            y: Sequence[float]) -> None:
    """``G = sum_P z z' + G^g``, ``b = sum_P z y + b^g`` from scratch (§3.5 item 5, lam < 1).

    Active outer products in arrival order (upper triangle mirrored), then the retired part
    is added elementwise; derived quantities are recomputed.
    """
    st = leaf.stats
    p = cfg.p
    G = [0.0] * (p * p)
    b = [0.0] * p
    for i in leaf.points:
        z = regressors(X[i], cfg)
        yi = y[i]
        for j in range(p):
            b[j] = b[j] + z[j] * yi
            for k in range(j, p):
                G[j * p + k] = G[j * p + k] + z[j] * z[k]
                G[k * p + j] = G[j * p + k]
    for k in range(p * p):
        G[k] = G[k] + st.Gg[k]
    for k in range(p):
        b[k] = b[k] + st.bg[k]
    st.G = G
    st.b = b
    calculate_linear(st, cfg)


def retire_from_leaf(leaf: Node, index: int, X: Sequence[Sequence[float]],
                     y: Sequence[float], cfg: LeafConfig, lam: float) -> None:
    """Move active point ``index`` of ``leaf`` into the leaf's retired prior (§3.5).

    ``n -= 1``; the active sums lose the point (reset to exactly 0 when ``n`` becomes 0);
    the retired sums are discounted and gain it; for a linear leaf with ``lam < 1`` the
    totals ``G, b`` are recomputed (with ``lam = 1`` they are invariant). The leaf's
    evidence is refreshed. Linear leaves must have an explicit intercept.
    """
    st = leaf.stats
    leaf.points.remove(index)
    yi = y[index]
    st.n -= 1
    if cfg.kind == CLASS:
        st.counts[int(yi)] -= 1
    elif st.n == 0:
        st.sy = 0.0
        st.syy = 0.0
    else:
        if cfg.kind == CONSTANT:
            st.sy = st.sy - yi
        st.syy = st.syy - yi * yi
    absorb_retired(st, cfg, X[index], yi, lam)
    if cfg.kind == LINEAR and lam < 1.0:
        recompute_linear_totals(leaf, cfg, X, y)
    refresh(st, cfg)


def retire_point(roots: list[Node], index: int, X: Sequence[Sequence[float]],
                 y: Sequence[float], cfg: LeafConfig, lam: float, minp: int) -> list[Node]:
    """Retire pool position ``index`` in every particle, in index order (§6.1 item 1).

    The leaf holding the point is found by the split rules; if afterwards
    ``n + nu < minp`` the leaf is collapsed (§6.3, possible only for ``lam < 1``).
    The caller removes the point from the pool and renumbers (:func:`renumber`).
    """
    x = X[index]
    for i in range(len(roots)):
        leaf = find_leaf(roots[i], x)
        retire_from_leaf(leaf, index, X, y, cfg, lam)
        if float(leaf.stats.n) + leaf.stats.nu < float(minp):
            roots[i] = collapse(roots[i], leaf, X, y, cfg)
    return roots


def renumber(roots: Sequence[Node], index: int) -> None:
    """Shift the stored positions above ``index`` down by one (the pool lost ``index``)."""
    for root in roots:
        for leaf in leaves(root):
            leaf.points = [i - 1 if i > index else i for i in leaf.points]


def positions_in_order(indices: Sequence[int], n_active: int) -> list[int]:
    """Pool positions to retire one by one, from positions in the pool at call time.

    Duplicates are dropped (first occurrence kept, §6.1); each later position is shifted
    down by the number of earlier retirees below it, because the pool closes up.
    """
    unique: list[int] = []
    for r in indices:
        if r not in unique:
            unique.append(r)
    out: list[int] = []
    for a, r in enumerate(unique):
        shift = 0
        for b in range(a):
            if unique[b] < r:
                shift += 1
        out.append(r - shift)
    assert all(0 <= r < n_active - a for a, r in enumerate(out))
    return out


def choose_retiree(rule: str, n_active: int, rng: Rng, scores: Sequence[float]) -> int:
    """The pool position retired before a PL step when the pool is full (§0 item 5).

    ``random``: uniform; ``historical``: the oldest (position 0); ``alc`` / ``entropy``:
    the first position minimising ``scores`` (the discarding statistic, [AG13, §4]).

    Random draws: one ``below(n_active)`` for ``random``; none otherwise.
    """
    if rule == "random":
        return rng.below(n_active)
    if rule == "historical":
        return 0
    best = 0
    for i in range(1, n_active):
        if scores[i] < scores[best]:
            best = i
    return best

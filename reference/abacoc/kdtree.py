"""The acceleration structure of the nearest-ball search: a loose kd-tree.

:func:`reference.abacoc.search.scan_nearest` is the search's definition; the kd-tree
([ABACOC-SPEC §13]) returns exactly the same ball, bit for bit, in fewer distance
computations (tested against the scan by the kd-tree tests of
``tests/abacoc/test_behaviour.py``, e.g. ``test_reference_kdtree_equals_scan_on_lattice``).
It is *loose*: boxes only ever grow between rebuilds, so moves, inserts and deletes are
cheap, and the search stays exact in floating point because

* rounding of a subtraction is monotone, so for a centre inside a box the computed gap
  term never exceeds the computed ``|x_j - c_j|`` term, and a left-to-right sum of
  non-negative terms is monotone too;
* a node is pruned only if its lower bound is *strictly* greater than the best distance,
  so a node holding a tie is always visited, and candidates are compared by the pair
  (distance, id) whatever order the traversal finds them in.

:class:`BallIndex` chooses between the scan and the tree by cover size, and with
``search="auto"`` drops a tree that computes the distance to half of the balls or more
per query (in high intrinsic dimension), trying it again when the cover has doubled. C
twin: the tree part of ``csrc/abacoc/search.c``.

Notation: ``raw`` is the distance sum before the final root (see
:mod:`reference.abacoc.search`), ``L`` the leaf bucket size.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from reference.abacoc.balls import Ball
from reference.abacoc.params import METRIC_EUCLIDEAN, METRIC_MANHATTAN
from reference.abacoc.search import INF, better, distance_term, raw_distance, scan_nearest

__all__ = ["LooseKDTree", "BallIndex", "REBUILD_MIN_OPS", "MINKOWSKI_PRUNE_SLACK",
           "PROBE_QUERIES"]

REBUILD_MIN_OPS = 256
"""The tree is rebuilt when its operation count exceeds ``max(256, 2 |S|)`` ([ABACOC-SPEC §13])."""

PROBE_QUERIES = 128
"""With ``search="auto"``, the tree is judged after this many queries since its last
build: if they computed the distance to at least half of the balls on average, it is
dropped for the scan until the cover has doubled ([ABACOC-SPEC §13])."""

MINKOWSKI_PRUNE_SLACK = 1.0 - 1e-12
"""General Minkowski terms use ``pow``, whose rounding is not guaranteed monotone; the
lower bound is scaled down by this factor before pruning, which only prunes less."""


class LooseKDTree:
    """Bucketed kd-tree over ball slots with conservative (loose) boxes ([ABACOC-SPEC §13]).

    Nodes live in parallel lists (an arena) addressed by index, -1 meaning none. A leaf
    holds up to ``leaf_size`` slots; every ball knows its leaf and its position in the
    leaf's bucket. Invariant: every node's box contains the centres below it and lies
    inside its parent's box; split planes only guide descent.

    Parameters
    ----------
    n_features : int
        Dimension D.
    leaf_size : int
        Bucket size L.
    metric, p
        The distance (internal metric code and Minkowski exponent).
    """

    def __init__(self, n_features: int, leaf_size: int, metric: int, p: float) -> None:
        self.n_features = n_features
        self.leaf_size = leaf_size
        self.metric = metric
        self.p = p
        self.split_dim: list[int] = []
        self.split_value: list[float] = []
        self.left: list[int] = []
        self.right: list[int] = []
        self.parent: list[int] = []
        self.lo: list[list[float]] = []
        self.hi: list[list[float]] = []
        self.bucket: list[list[int]] = []
        self.slot_leaf: list[int] = []
        self.slot_pos: list[int] = []
        self.ops = 0
        self.queries = 0
        self.visited = 0
        self.finite = True
        """False once a centre with a non-finite coordinate entered the tree: box bounds
        built from it do not bound distances, so the index answers with the scan."""

    # -- construction -------------------------------------------------------------------
    def _new_node(self, parent: int) -> int:
        self.split_dim.append(-1)
        self.split_value.append(0.0)
        self.left.append(-1)
        self.right.append(-1)
        self.parent.append(parent)
        self.lo.append([INF] * self.n_features)
        self.hi.append([-INF] * self.n_features)
        self.bucket.append([])
        return len(self.left) - 1

    def _track(self, slot: int, leaf: int, pos: int) -> None:
        while len(self.slot_leaf) <= slot:
            self.slot_leaf.append(-1)
            self.slot_pos.append(-1)
        self.slot_leaf[slot] = leaf
        self.slot_pos[slot] = pos

    def _partition(self, balls: Sequence[Ball], node: int, items: list[int]) -> None:
        """Make ``node`` the root of a subtree holding ``items`` (iterative median splits).

        A set of more than L slots is split at the median of its widest coordinate: the
        slots are sorted by (coordinate, slot) and cut in two halves by position, so even
        duplicate centres always split. Boxes are the tight boxes of their slots.
        """
        stack = [(node, items)]
        while stack:
            current, members = stack.pop()
            lo = [INF] * self.n_features
            hi = [-INF] * self.n_features
            for slot in members:
                center = balls[slot].center
                for j in range(self.n_features):
                    if center[j] < lo[j]:
                        lo[j] = center[j]
                    if center[j] > hi[j]:
                        hi[j] = center[j]
            self.lo[current] = lo
            self.hi[current] = hi
            if len(members) <= self.leaf_size:
                self.split_dim[current] = -1
                self.left[current] = -1
                self.right[current] = -1
                self.bucket[current] = list(members)
                for pos in range(len(members)):
                    self._track(members[pos], current, pos)
                continue
            widest = 0
            for j in range(1, self.n_features):
                if hi[j] - lo[j] > hi[widest] - lo[widest]:
                    widest = j
            ordered = sorted(members, key=lambda s: (balls[s].center[widest], s))
            mid = len(ordered) // 2
            self.split_dim[current] = widest
            self.split_value[current] = balls[ordered[mid]].center[widest]
            self.bucket[current] = []
            left = self._new_node(current)
            right = self._new_node(current)
            self.left[current] = left
            self.right[current] = right
            stack.append((right, ordered[mid:]))
            stack.append((left, ordered[:mid]))

    def build(self, balls: Sequence[Ball]) -> None:
        """Rebuild from scratch over all slots, in slot order; resets the op count."""
        self.split_dim, self.split_value = [], []
        self.left, self.right, self.parent = [], [], []
        self.lo, self.hi, self.bucket = [], [], []
        self.slot_leaf, self.slot_pos = [], []
        root = self._new_node(-1)
        self._partition(balls, root, list(range(len(balls))))
        self.ops = 0
        self.queries = 0
        self.visited = 0
        self.finite = all(_finite(ball.center) for ball in balls)

    # -- updates ------------------------------------------------------------------------
    def _enlarge(self, node: int, center: Sequence[float]) -> None:
        lo = self.lo[node]
        hi = self.hi[node]
        for j in range(self.n_features):
            if center[j] < lo[j]:
                lo[j] = center[j]
            if center[j] > hi[j]:
                hi[j] = center[j]

    def _contains(self, node: int, center: Sequence[float]) -> bool:
        lo = self.lo[node]
        hi = self.hi[node]
        for j in range(self.n_features):
            if center[j] < lo[j] or center[j] > hi[j]:
                return False
        return True

    def insert(self, balls: Sequence[Ball], slot: int) -> None:
        """Descend by split planes enlarging boxes, append to the leaf, split on overflow."""
        center = balls[slot].center
        self.finite = self.finite and _finite(center)
        node = 0
        while True:
            self._enlarge(node, center)
            if self.left[node] < 0:
                break
            if center[self.split_dim[node]] < self.split_value[node]:
                node = self.left[node]
            else:
                node = self.right[node]
        bucket = self.bucket[node]
        bucket.append(slot)
        self._track(slot, node, len(bucket) - 1)
        if len(bucket) > self.leaf_size:
            self._partition(balls, node, list(bucket))
        self.ops += 1

    def delete(self, slot: int) -> None:
        """Remove a slot from its leaf by swap-with-last; boxes stay loose. O(1)."""
        leaf = self.slot_leaf[slot]
        pos = self.slot_pos[slot]
        bucket = self.bucket[leaf]
        last = bucket[len(bucket) - 1]
        bucket[pos] = last
        self.slot_pos[last] = pos
        bucket.pop()
        self.slot_leaf[slot] = -1
        self.slot_pos[slot] = -1
        self.ops += 1

    def move(self, balls: Sequence[Ball], slot: int) -> None:
        """After a centre moved: enlarge boxes from its leaf up to the first that contains it."""
        center = balls[slot].center
        self.finite = self.finite and _finite(center)
        node = self.slot_leaf[slot]
        while node >= 0 and not self._contains(node, center):
            self._enlarge(node, center)
            node = self.parent[node]
        self.ops += 1

    # -- query --------------------------------------------------------------------------
    def lower_bound(self, node: int, x: Sequence[float]) -> float:
        """Distance sum from ``x`` to the node's box (0 inside), summed left to right."""
        lo = self.lo[node]
        hi = self.hi[node]
        total = 0.0
        for j in range(self.n_features):
            if x[j] < lo[j]:
                total += distance_term(lo[j] - x[j], self.metric, self.p)
            elif x[j] > hi[j]:
                total += distance_term(x[j] - hi[j], self.metric, self.p)
        if self.metric != METRIC_EUCLIDEAN and self.metric != METRIC_MANHATTAN:
            total = total * MINKOWSKI_PRUNE_SLACK
        return total

    def nearest(self, balls: Sequence[Ball], x: Sequence[float]) -> tuple[int, float]:
        """Exact nearest centre ``(slot, raw)`` under tie rule T1 [ABACOC-SPEC T1], by
        depth-first search.

        A node's children get their lower bounds when the node is expanded; the child
        with the smaller bound is visited first (ties: the side of the split plane), and
        a child, or a stacked node, whose bound is strictly greater than the best
        distance sum so far is skipped. ``queries`` and ``visited`` (balls whose distance
        was computed) count the work for :meth:`BallIndex.maintain`.
        """
        best_slot = -1
        best_raw = INF
        best_id = -1
        self.queries += 1
        stack = [(0, 0.0)]
        while stack:
            node, bound = stack.pop()
            if best_id >= 0 and bound > best_raw:
                continue
            if self.left[node] < 0:
                bucket = self.bucket[node]
                self.visited += len(bucket)
                for slot in bucket:
                    ball = balls[slot]
                    raw = raw_distance(x, ball.center, self.metric, self.p)
                    if better(raw, ball.id, best_raw, best_id):
                        best_slot = slot
                        best_raw = raw
                        best_id = ball.id
                continue
            if x[self.split_dim[node]] < self.split_value[node]:
                near, far = self.left[node], self.right[node]
            else:
                near, far = self.right[node], self.left[node]
            bound_near = self.lower_bound(near, x)
            bound_far = self.lower_bound(far, x)
            if bound_far < bound_near:
                near, far = far, near
                bound_near, bound_far = bound_far, bound_near
            if best_id < 0 or not bound_far > best_raw:
                stack.append((far, bound_far))
            if best_id < 0 or not bound_near > best_raw:
                stack.append((near, bound_near))
        return best_slot, best_raw


def _finite(center: Sequence[float]) -> bool:
    """True if every coordinate of ``center`` is finite."""
    for v in center:
        if not math.isfinite(v):
            return False
    return True


class BallIndex:
    """The nearest-ball search used by a model: a scan, or a loose kd-tree by size.

    With ``search="auto"`` the tree is built once the cover holds ``threshold`` balls and
    dropped below it; ``"scan"`` and ``"kdtree"`` force one structure. Both give the
    same answers, so switching is invisible except in speed.
    """

    def __init__(
        self, search: str, threshold: int, leaf_size: int, metric: int, p: float
    ) -> None:
        self.search = search
        self.threshold = threshold
        self.leaf_size = leaf_size
        self.metric = metric
        self.p = p
        self.tree: LooseKDTree | None = None
        self.retry_at = 0
        """``search="auto"``: the cover size from which a dropped tree is tried again."""

    def _wants_tree(self, n_balls: int) -> bool:
        if self.search == "kdtree":
            return True
        return self.search == "auto" and n_balls >= self.threshold and n_balls >= self.retry_at

    def _tree_pays(self, n_balls: int) -> bool:
        """False once the tree's queries since its build (at least :data:`PROBE_QUERIES`)
        computed the distance to half of the balls or more on average: in high intrinsic
        dimension its boxes prune little and a query costs more than the scan."""
        tree = self.tree
        if self.search != "auto" or tree is None or tree.queries < PROBE_QUERIES:
            return True
        return 2 * tree.visited < tree.queries * n_balls

    def nearest(self, balls: Sequence[Ball], x: Sequence[float]) -> tuple[int, float]:
        """``(slot, raw)`` of the nearest centre (tie rule T1 [ABACOC-SPEC T1]); ``(-1, inf)`` if
        there is none."""
        if self.tree is not None and self.tree.finite:
            return self.tree.nearest(balls, x)
        return scan_nearest(balls, x, self.metric, self.p)

    def inserted(self, balls: Sequence[Ball], slot: int) -> None:
        """A ball was written into ``slot`` (append or FIX replacement)."""
        if self.tree is not None:
            self.tree.insert(balls, slot)

    def deleted(self, slot: int) -> None:
        """The ball in ``slot`` was removed (FIX victim)."""
        if self.tree is not None:
            self.tree.delete(slot)

    def moved(self, balls: Sequence[Ball], slot: int) -> None:
        """The centre of the ball in ``slot`` moved (ADJ step)."""
        if self.tree is not None:
            self.tree.move(balls, slot)

    def cleared(self) -> None:
        """Every ball was discarded (BASE phase restart), or the index restarts (restore)."""
        self.tree = None
        self.retry_at = 0

    def maintain(self, balls: Sequence[Ball], n_features: int) -> None:
        """End of a training step: build, drop or rebuild the tree as the size requires.

        With ``search="auto"`` a tree that does not pay (:meth:`_tree_pays`) is dropped
        and tried again once the cover holds twice as many balls. Speed only: every
        search gives the same answer.
        """
        n_balls = len(balls)
        if not self._tree_pays(n_balls):
            self.tree = None
            self.retry_at = 2 * n_balls
        if not self._wants_tree(n_balls):
            self.tree = None
            return
        if self.tree is None:
            self.tree = LooseKDTree(n_features, self.leaf_size, self.metric, self.p)
            self.tree.build(balls)
            return
        limit = 2 * n_balls
        if limit < REBUILD_MIN_OPS:
            limit = REBUILD_MIN_OPS
        if self.tree.ops > limit:
            self.tree.build(balls)

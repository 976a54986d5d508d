"""Binary trees of one particle and the tree prior [AG13, §2.1]; §1.2 and §2 of the spec.

A node is internal (split variable ``var`` and value ``value``; a point goes left iff
``x[var] <= value``) or a leaf (active point indices in arrival order and a
:class:`~reference.dynatree.leaf_models.LeafStats`). Depths are stored (root 0).
Traversals are iterative, in preorder (left before right), the canonical order of the
project. C twin: ``csrc/dynatree/tree.c`` (nodes live in an arena addressed by int32 indices).

Notation
--------
``p_split(d) = alpha (1 + d)^-beta``: probability that a node at depth ``d`` splits.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any

from reference.dynatree.leaf_models import LeafConfig, LeafStats, stats_from_list


class Node:
    """One tree node; ``var < 0`` marks a leaf."""

    __slots__ = ("depth", "var", "value", "left", "right", "parent", "points", "stats")

    def __init__(self, depth: int, parent: Node | None, points: list[int],
                 stats: LeafStats) -> None:
        self.depth = depth
        self.var = -1
        self.value = 0.0
        self.left: Node | None = None
        self.right: Node | None = None
        self.parent = parent
        self.points = points
        self.stats = stats

    @property
    def is_leaf(self) -> bool:
        """True for a leaf."""
        return self.var < 0


def log_split_prob(depth: int, alpha: float, beta: float) -> float:
    """``log p_split(d) = log(alpha) - beta log(1 + d)`` [AG13, §2.1]; [DT-SPEC §2]."""
    return math.log(alpha) - beta * math.log(1.0 + float(depth))


def log_leaf_prob(depth: int, alpha: float, beta: float) -> float:
    """``log(1 - p_split(d))``, the prior term of every leaf, whatever its size ([DT-SPEC §2])."""
    return math.log(1.0 - alpha * math.pow(1.0 + float(depth), -beta))


def find_leaf(root: Node, x: Sequence[float]) -> Node:
    """The leaf containing ``x``: descend left iff ``x[var] <= value``."""
    node = root
    while node.var >= 0:
        assert node.left is not None and node.right is not None
        node = node.left if x[node.var] <= node.value else node.right
    return node


def preorder(top: Node) -> Iterator[Node]:
    """Nodes of the subtree under ``top`` in preorder (left before right), iteratively."""
    stack = [top]
    while stack:
        node = stack.pop()
        yield node
        if node.var >= 0:
            assert node.left is not None and node.right is not None
            stack.append(node.right)
            stack.append(node.left)


def leaves(top: Node) -> list[Node]:
    """The leaves under ``top``, left to right."""
    return [node for node in preorder(top) if node.var < 0]


def subtree_log_score(top: Node, alpha: float, beta: float, grown: Node | None = None,
                      child_evidence: tuple[float, float] = (0.0, 0.0)) -> float:
    """``S = log pi(subtree) + sum of leaf log evidences`` in preorder ([DT-SPEC §4.1] step 2).

    Each internal node adds ``log p_split(d)``, each leaf ``log(1 - p_split(d)) + ell``.
    If ``grown`` is given, that leaf is scored as if split, with children evidences
    ``child_evidence`` (the grow candidate of [DT-SPEC §4.1] step 4).
    """
    score = 0.0
    for node in preorder(top):
        if node is grown:
            score = score + log_split_prob(node.depth, alpha, beta)
            below = log_leaf_prob(node.depth + 1, alpha, beta)
            score = score + (below + child_evidence[0])
            score = score + (below + child_evidence[1])
        elif node.var >= 0:
            score = score + log_split_prob(node.depth, alpha, beta)
        else:
            score = score + (log_leaf_prob(node.depth, alpha, beta) + node.stats.log_evidence)
    return score


def copy_tree(root: Node) -> Node:
    """A deep copy of a tree (structure, point lists and statistics), iteratively."""
    new_root = Node(root.depth, None, list(root.points), root.stats.copy())
    stack = [(root, new_root)]
    while stack:
        old, new = stack.pop()
        new.var = old.var
        new.value = old.value
        if old.var >= 0:
            assert old.left is not None and old.right is not None
            left = Node(old.left.depth, new, list(old.left.points), old.left.stats.copy())
            right = Node(old.right.depth, new, list(old.right.points), old.right.stats.copy())
            new.left = left
            new.right = right
            stack.append((old.right, right))
            stack.append((old.left, left))
    return new_root


def tree_snapshot(root: Node, cfg: LeafConfig) -> list[list[object]]:
    """Preorder node records: ``[depth, var, value]`` or ``[depth, -1, points, stats, ell]``."""
    out: list[list[object]] = []
    for node in preorder(root):
        if node.var >= 0:
            out.append([node.depth, node.var, node.value])
        else:
            out.append([node.depth, -1, list(node.points), node.stats.as_list(cfg),
                        node.stats.log_evidence])
    return out


def tree_from_snapshot(records: list[list[Any]], cfg: LeafConfig) -> Node:
    """Inverse of :func:`tree_snapshot` (records checked by
    :mod:`reference.dynatree.state_check`): rebuild the tree from its preorder records."""
    root: Node | None = None
    open_nodes: list[Node] = []   # internal nodes still waiting for a right child
    for rec in records:
        parent = open_nodes[-1] if open_nodes else None
        if rec[1] >= 0:
            node = Node(int(rec[0]), parent, [], LeafStats(cfg))
            node.var = int(rec[1])
            node.value = float(rec[2])
        else:
            points = [int(i) for i in rec[2]]
            node = Node(int(rec[0]), parent, points, stats_from_list(rec[3], len(points),
                                                                     float(rec[4]), cfg))
        if parent is None:
            root = node
        elif parent.left is None:
            parent.left = node
        else:
            parent.right = node
            open_nodes.pop()
        if node.var >= 0:
            open_nodes.append(node)
    assert root is not None
    return root


def height(root: Node) -> int:
    """Number of levels (a lone root has height 1, as dynaTree's ``treestats``)."""
    best = 0
    for node in preorder(root):
        if node.depth + 1 > best:
            best = node.depth + 1
    return best

"""Small seeded streams and snapshot invariant checks for the dynamic-tree tests."""

from __future__ import annotations

import math
from typing import Any

from reference.rng import Rng


def regression_stream(seed: int, n: int, d: int = 2, noise: float = 0.2,
                      ties: bool = False) -> list[tuple[list[float], float]]:
    """``y = sin(6 x0) + x1^2 + noise``; with ``ties`` inputs are rounded to a grid of 8."""
    r = Rng(seed + 1000)
    out = []
    for _ in range(n):
        x = [r.uniform() for _ in range(d)]
        if ties:
            x = [math.floor(v * 8.0) / 8.0 for v in x]
        y = math.sin(6.0 * x[0]) + (x[1] * x[1] if d > 1 else 0.0)
        out.append((x, y + noise * (r.uniform() - 0.5)))
    return out


def class_stream(seed: int, n: int, d: int = 2, n_classes: int = 3,
                 labels: tuple[Any, ...] | None = None) -> list[tuple[list[float], Any]]:
    """Label = band of x0 (with 10% label noise)."""
    r = Rng(seed + 2000)
    out = []
    for _ in range(n):
        x = [r.uniform() for _ in range(d)]
        k = int(n_classes * x[0]) if r.uniform() > 0.1 else r.below(n_classes)
        out.append((x, labels[k] if labels else k))
    return out


def check_snapshot_invariants(snap: dict[str, Any], n_particles: int, minp: int,
                              nstart: int, n_classes: int = 0) -> None:
    """Spec Appendix A items 9-10 and the tree structure, from a snapshot.

    Every particle's leaves partition the points seen so far (each point exactly once,
    arrival order inside a leaf), every point satisfies the split rules on its path,
    depths increase by one, leaves of a split tree hold at least ``minp`` points, and
    leaf counts match the statistics.
    """
    X = snap["X"]
    n = len(X)
    assert snap["n_seen"] == n
    parts = snap["particles"]
    assert len(parts) == n_particles
    for tree in parts:
        seen: list[int] = []
        # walk preorder with a stack of (depth, constraints)
        stack: list[tuple[int, list[tuple[int, float, bool]]]] = [(0, [])]
        n_leaves = sum(1 for rec in tree if rec[1] < 0)
        for rec in tree:
            depth, constraints = stack.pop()
            assert rec[0] == depth
            if rec[1] >= 0:
                var, value = rec[1], rec[2]
                stack.append((depth + 1, constraints + [(var, value, False)]))
                stack.append((depth + 1, constraints + [(var, value, True)]))
            else:
                points = rec[2]
                assert points == sorted(points)
                if n_leaves > 1:
                    assert len(points) >= minp
                for i in points:
                    for var, value, left in constraints:
                        assert (X[i][var] <= value) == left
                seen.extend(points)
                stats = rec[3]
                if n_classes:
                    assert sum(stats[1:1 + n_classes]) == len(points)
        assert not stack
        assert sorted(seen) == list(range(n))
        if n <= nstart:
            assert len(tree) == 1

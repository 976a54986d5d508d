"""Equal-width binning of numeric features with warm-up range estimation [GPF19, §3.2].

The ranges are global (one per feature) and frozen after the warm-up ([SGT-SPEC §5.6]); with
``per_leaf`` each leaf bins with ranges of its own instead ([SGT-SPEC §5.8],
:mod:`reference.sgt.tree`), the global ones seeding the root. Each
leaf keeps one statistics cell per (feature, bin) or (feature, category); the
:class:`Quantizer` also fixes that cell layout: cell 0 is the leaf total, then the
cells of feature 0, feature 1, ... in order. C twin: ``csrc/sgt/quantizer.c``.

Notation
--------
``bins``   B, bins per numeric feature.
``kinds``  per feature: 0 for numeric, K for a nominal feature with K categories.
``lo, hi`` the frozen range [min, max] of each numeric feature.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

__all__ = ["bin_index", "split_edge", "Quantizer"]

INT32_MAX = 2**31 - 1
"""Cell indices are int32 in C; a leaf may hold at most INT32_MAX // 64 cells."""


def bin_index(x: float, lo: float, hi: float, bins: int) -> int:
    """Equal-width bin of x: ⌊B (x - min) / (max - min)⌋ clipped to [0, B-1] ([SGT-SPEC §5.6]).

    A degenerate range (max = min) sends every value to bin 0, and so does a NaN
    position (a range wider than the largest double: inf / inf).

    Examples
    --------
    >>> [bin_index(v, 0.0, 1.0, 64) for v in (0.5, 1.0, -0.3, 1.7)]
    [32, 63, 0, 63]
    """
    if not hi > lo:
        return 0
    position = float(bins) * (x - lo) / (hi - lo)
    if position >= float(bins):
        return bins - 1
    if not position >= 0.0:
        return 0
    return int(position)


def split_edge(lo: float, hi: float, threshold: int, bins: int) -> float:
    """Upper edge of bin ``threshold`` of the range [lo, hi]: lo + (hi - lo) (k + 1) / B
    ([SGT-SPEC §5.8], where a per-leaf split cuts its children's ranges).

    Examples
    --------
    >>> split_edge(0.0, 1.0, 31, 64)
    0.5
    """
    return lo + (hi - lo) * float(threshold + 1) / float(bins)


class Quantizer:
    """Feature ranges (estimated on the warm-up or given) and the leaf cell layout.

    Parameters
    ----------
    kinds : sequence of int
        0 for a numeric feature, K >= 2 for a nominal feature with K categories.
    bins : int
        B, bins per numeric feature.
    ranges : mapping
        ``{index: (low, high)}`` user-supplied ranges that skip estimation.
    per_leaf : bool
        True: the trees bin with per-leaf ranges ([SGT-SPEC §5.8]); these global ranges
        then only seed each root.
    """

    per_leaf: bool = False
    """Class default: a quantizer pickled before per-leaf bins existed has global bins."""

    def __init__(self, kinds: Sequence[int], bins: int, ranges: Mapping[int, tuple[float, float]],
                 per_leaf: bool = False):
        self.kinds = list(kinds)
        self.bins = bins
        self.per_leaf = per_leaf
        d = len(self.kinds)
        self.lo = [0.0] * d
        self.hi = [0.0] * d
        self.fixed = [0] * d
        self.seen = [0] * d
        for key, (low, high) in ranges.items():
            self.lo[key], self.hi[key] = float(low), float(high)
            self.fixed[key] = 1
        self.frozen = all(self.fixed[a] or self.kinds[a] for a in range(d))
        self.offsets: list[int] = []
        offset = 1
        for kind in self.kinds:
            self.offsets.append(offset)
            if offset + (kind if kind else bins) > INT32_MAX // 64:
                raise MemoryError("a leaf would need more than 2**31 / 64 statistics cells")
            offset += kind if kind else bins
        self.n_cells = offset

    def observe(self, x: Sequence[float]) -> None:
        """Widen the estimated ranges with one warm-up row; min/max start at the first value."""
        for a, kind in enumerate(self.kinds):
            if kind or self.fixed[a]:
                continue
            v = x[a]
            if not self.seen[a]:
                self.lo[a] = v
                self.hi[a] = v
                self.seen[a] = 1
            elif v < self.lo[a]:
                self.lo[a] = v
            elif v > self.hi[a]:
                self.hi[a] = v

    def code(self, x: Sequence[float], a: int) -> int:
        """Bin (numeric) or category (nominal) of feature a of row x."""
        if self.kinds[a]:
            return int(x[a])
        return bin_index(x[a], self.lo[a], self.hi[a], self.bins)

    def codes(self, x: Sequence[float]) -> list[int]:
        """Bins/categories of every feature of row x."""
        return [self.code(x, a) for a in range(len(self.kinds))]

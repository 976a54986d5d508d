"""The record of one leaf's sufficient statistics and the leaf models' configuration.

:class:`LeafStats` is shared by the three leaf models (constant, linear, class); the
notation of its fields is in :mod:`reference.dynatree.leaf_models`, whose functions
build, update and score it. Tags such as ``[DT-SPEC §1.2]`` cite
``docs/spec/dynamic_trees.md``. C twin: the statistics block of ``csrc/dynatree/dynatree.h``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["CLASS", "CONSTANT", "LINEAR", "LeafConfig", "LeafStats", "stats_from_list"]

CONSTANT = 0
LINEAR = 1
CLASS = 2

@dataclass(frozen=True)
class LeafConfig:
    """What a leaf needs to know about its model (fixed when the first row arrives).

    Parameters
    ----------
    kind : int
        ``CONSTANT``, ``LINEAR`` or ``CLASS``.
    p : int
        ``bmax``: number of regressors of a linear leaf (0 otherwise).
    augmented : bool
        Linear leaf with a prepended ones column.
    delta : int
        1 for an implicit intercept, else 0.
    n_classes : int
        ``C`` for the class leaf (0 otherwise).
    nu0, s20 : float
        Inverse-gamma variance prior.
    kappa : float
        Precision of the Gaussian slope prior ``beta ~ N(0, sigma^2/kappa I)`` of a linear
        leaf ([DT-SPEC §3.7]); 0 for dynaTree's flat prior (the default).
    """

    kind: int
    p: int
    augmented: bool
    delta: int
    n_classes: int
    nu0: float
    s20: float
    kappa: float = 0.0


class LeafStats:
    """Sufficient statistics of one leaf ([DT-SPEC §1.2]).

    ``log_evidence`` caches ``ell_eta`` of the current statistics; every function that
    changes the statistics refreshes it with :func:`refresh`.
    """

    __slots__ = ("n", "nu", "sy", "syy", "syg", "syyg", "counts", "gcounts", "xbar", "G",
                 "b", "Gg", "bg", "ginv", "beta", "bb", "log_det_ginv", "log_evidence")

    def __init__(self, cfg: LeafConfig) -> None:
        p = cfg.p
        self.n = 0
        self.nu = 0.0
        self.sy = 0.0
        self.syy = 0.0
        self.syg = 0.0
        self.syyg = 0.0
        self.counts = [0] * cfg.n_classes
        self.gcounts = [0.0] * cfg.n_classes
        self.xbar = [0.0] * p
        self.G = [0.0] * (p * p)
        self.b = [0.0] * p
        self.Gg = [0.0] * (p * p)
        self.bg = [0.0] * p
        self.ginv = [0.0] * (p * p)
        self.beta = [0.0] * p
        self.bb = 0.0
        self.log_det_ginv = 0.0
        self.log_evidence = 0.0

    def copy(self) -> LeafStats:
        """An independent copy (lists copied, numbers shared)."""
        other = LeafStats.__new__(LeafStats)
        for name in LeafStats.__slots__:
            value = getattr(self, name)
            setattr(other, name, list(value) if isinstance(value, list) else value)
        return other

    def as_list(self, cfg: LeafConfig) -> list[float | int]:
        """The statistics in snapshot order (constant / class / linear, see module doc)."""
        if cfg.kind == CONSTANT:
            return [self.nu, self.sy, self.syy, self.syg, self.syyg]
        if cfg.kind == CLASS:
            return [self.nu, *self.counts, *self.gcounts]
        return [self.nu, self.sy, self.syy, self.syyg, *self.xbar, *self.G, *self.b,
                *self.Gg, *self.bg, *self.ginv, *self.beta, self.bb, self.log_det_ginv]


def stats_from_list(values: Sequence[float | int], n: int, log_evidence: float,
                    cfg: LeafConfig) -> LeafStats:
    """Inverse of :meth:`LeafStats.as_list` for a leaf of ``n`` points whose cached
    evidence is ``log_evidence`` (restoring a checked snapshot)."""
    st = LeafStats(cfg)
    st.n = n
    st.nu = float(values[0])
    st.log_evidence = log_evidence
    if cfg.kind == CONSTANT:
        st.sy, st.syy, st.syg, st.syyg = (float(v) for v in values[1:5])
        return st
    if cfg.kind == CLASS:
        c = cfg.n_classes
        st.counts = [int(v) for v in values[1:1 + c]]
        st.gcounts = [float(v) for v in values[1 + c:1 + 2 * c]]
        return st
    p = cfg.p
    rest = [float(v) for v in values]
    st.sy, st.syy, st.syyg = rest[1], rest[2], rest[3]
    at = 4
    for name, size in (("xbar", p), ("G", p * p), ("b", p), ("Gg", p * p), ("bg", p),
                       ("ginv", p * p), ("beta", p)):
        setattr(st, name, rest[at:at + size])
        at += size
    st.bb, st.log_det_ginv = rest[at], rest[at + 1]
    return st

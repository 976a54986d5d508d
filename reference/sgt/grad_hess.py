"""Gradient/Hessian statistics of a leaf, bin or category [GPF19, §3.3, Eq. 13, 17-18].

One :class:`GradHessStats` cell summarises the (g, h) pairs that reached it: the count
n, the sums Σg and Σh, the centred sums of squares M_g, M_h and the co-moment C
([SGT-SPEC §4.1]). Cells are updated one pair at a time with Welford's method ([SGT-SPEC §4.2]) and
combined with the Chan/Bennett merge ([SGT-SPEC §4.3]). Split evaluation builds prefix and
suffix merges, never subtracting one cell from another.

This module also holds the two per-child formulas of split scoring: the Newton step
Δ (:func:`delta_prediction`) and the mean and variance of the per-instance loss change
(:func:`loss_change_moments`). C twin: ``csrc/sgt/grad_hess.c``.

Notation
--------
``n``              number of (g, h) pairs since the cell's last reset.
``sum_g, sum_h``   Σg, Σh; the means are ḡ = Σg/n and h̄ = Σh/n (0 when n = 0).
``m_g, m_h``       M_g = Σ(g-ḡ)², M_h = Σ(h-h̄)².
``c``              C = Σ(g-ḡ)(h-h̄).
``lam``            λ, per-instance shrinkage of the Newton step ([SGT-SPEC §7.1]).
"""

from __future__ import annotations

import sys

__all__ = ["GradHessStats", "merge", "delta_prediction", "loss_change_moments", "EPSILON"]

EPSILON = sys.float_info.min
"""Smallest normal double (2.2e-308), added to the Newton denominator ([SGT-SPEC §7.1])."""


class GradHessStats:
    """Welford statistics of (gradient, hessian) pairs ([SGT-SPEC §4.1]-[SGT-SPEC §4.2]).

    Examples
    --------
    >>> s = GradHessStats()
    >>> for g in (0.5, 1.0, 1.5):
    ...     s.add(g, 1.0)
    >>> s.n, s.mean_g(), s.var_g(), s.var_h(), s.cov_gh()
    (3, 1.0, 0.25, 0.0, 0.0)
    """

    __slots__ = ("n", "sum_g", "sum_h", "m_g", "m_h", "c")

    def __init__(self) -> None:
        self.n = 0
        self.sum_g = 0.0
        self.sum_h = 0.0
        self.m_g = 0.0
        self.m_h = 0.0
        self.c = 0.0

    def add(self, g: float, h: float) -> None:
        """Add one pair by Welford's update in co-moment form ([SGT-SPEC §4.2], [SGT-SPEC §14] item
        8).

        M_g += (g - ḡ_old)(g - ḡ_new), M_h += (h - h̄_old)(h - h̄_new) and
        C += (g - ḡ_old)(h - h̄_new), the means being Σ/n before and after the update.
        """
        mean_g_old = self.mean_g()
        mean_h_old = self.mean_h()
        self.n += 1
        self.sum_g += g
        self.sum_h += h
        count = float(self.n)
        mean_g_new = self.sum_g / count
        mean_h_new = self.sum_h / count
        self.m_g += (g - mean_g_old) * (g - mean_g_new)
        self.m_h += (h - mean_h_old) * (h - mean_h_new)
        self.c += (g - mean_g_old) * (h - mean_h_new)

    def mean_g(self) -> float:
        """ḡ = Σg / n, or 0 for an empty cell ([SGT-SPEC §4.4])."""
        return self.sum_g / float(self.n) if self.n > 0 else 0.0

    def mean_h(self) -> float:
        """h̄ = Σh / n, or 0 for an empty cell ([SGT-SPEC §4.4])."""
        return self.sum_h / float(self.n) if self.n > 0 else 0.0

    def var_g(self) -> float:
        """s_g² = M_g / (n - 1); 0 when n < 2 (Deviation: Java returns +inf, [SGT-SPEC §4.4])."""
        return self.m_g / (float(self.n) - 1.0) if self.n >= 2 else 0.0

    def var_h(self) -> float:
        """s_h² = M_h / (n - 1); 0 when n < 2 ([SGT-SPEC §4.4])."""
        return self.m_h / (float(self.n) - 1.0) if self.n >= 2 else 0.0

    def cov_gh(self) -> float:
        """c_gh = C / (n - 1); 0 when n < 2 ([SGT-SPEC §4.4])."""
        return self.c / (float(self.n) - 1.0) if self.n >= 2 else 0.0

    def copy(self) -> GradHessStats:
        """An independent copy of this cell."""
        other = GradHessStats()
        other.n, other.sum_g, other.sum_h = self.n, self.sum_g, self.sum_h
        other.m_g, other.m_h, other.c = self.m_g, self.m_h, self.c
        return other

    def as_list(self) -> list[int | float]:
        """``[n, Σg, Σh, M_g, M_h, C]`` (snapshot order)."""
        return [self.n, self.sum_g, self.sum_h, self.m_g, self.m_h, self.c]

    @classmethod
    def from_list(cls, values: list[int | float]) -> GradHessStats:
        """Inverse of :meth:`as_list` (restoring a checked snapshot)."""
        out = cls()
        out.n = int(values[0])
        out.sum_g, out.sum_h, out.m_g, out.m_h, out.c = (float(v) for v in values[1:6])
        return out


def merge(a: GradHessStats, b: GradHessStats) -> GradHessStats:
    """Chan/Bennett merge of two cells into a new one ([SGT-SPEC §4.3]) [GPF19, §3.3].

    With d_g = ḡ_B - ḡ_A, d_h = h̄_B - h̄_A and n = n_A + n_B:
    M_g = M_gA + M_gB + d_g² n_A n_B / n, M_h likewise, C = C_A + C_B + d_g d_h n_A n_B / n.
    An empty side gives a copy of the other side.
    """
    if a.n == 0:
        return b.copy()
    if b.n == 0:
        return a.copy()
    out = GradHessStats()
    out.n = a.n + b.n
    out.sum_g = a.sum_g + b.sum_g
    out.sum_h = a.sum_h + b.sum_h
    d_g = b.mean_g() - a.mean_g()
    d_h = b.mean_h() - a.mean_h()
    weight = float(a.n) * float(b.n) / float(out.n)
    out.m_g = a.m_g + b.m_g + d_g * d_g * weight
    out.m_h = a.m_h + b.m_h + d_h * d_h * weight
    out.c = a.c + b.c + d_g * d_h * weight
    return out


def delta_prediction(stats: GradHessStats, lam: float) -> float:
    """Newton step of a leaf value, mean form ([SGT-SPEC §7.1]) [GPF19, Eq. 13].

    Δ = -ḡ / (h̄ + λ + ε). Deviation: the paper writes -Σg / (Σh + λ); the mean form
    used by every implementation makes λ a per-instance shrinkage.
    """
    # [GPF19, Eq. 13] Δ = -ḡ / (h̄ + λ), per instance
    return -stats.mean_g() / (stats.mean_h() + lam + EPSILON)


def loss_change_moments(stats: GradHessStats, delta: float) -> tuple[float, float]:
    """Mean and variance of the per-instance loss change L = gΔ + hΔ²/2 [GPF19, Eq. 18].

    m = Δḡ + h̄Δ²/2 (the λ-term of Eq. 11 is not added, [SGT-SPEC §7.2]) and
    s² = max(0, Δ² s_g² + Δ⁴ s_h² / 4 + Δ³ c_gh), treating Δ as a constant.
    """
    # [GPF19, Eq. 7] per-instance second-order loss change
    mean = delta * stats.mean_g() + 0.5 * stats.mean_h() * delta * delta
    delta2 = delta * delta
    # [GPF19, Eq. 18] Var(L) = Δ² Var(G) + Δ⁴ Var(H) / 4 + Δ³ Cov(G, H)
    variance = (
        delta2 * stats.var_g()
        + 0.25 * delta2 * delta2 * stats.var_h()
        + delta2 * delta * stats.cov_gh()
    )
    if not variance > 0.0:
        variance = 0.0
    return mean, variance

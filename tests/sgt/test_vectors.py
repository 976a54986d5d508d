"""Spec §15 test vectors for stochastic gradient trees, on the reference and the C kernels."""

from __future__ import annotations

import math

import pytest

from reference.sgt.grad_hess import GradHessStats, delta_prediction, loss_change_moments, merge
from reference.sgt.quantizer import bin_index
from reference.sgt.splits import pool_children, t_test_p_value


def cell_of(pairs: list[tuple[float, float]]) -> GradHessStats:
    s = GradHessStats()
    for g, h in pairs:
        s.add(g, h)
    return s


def test_welford_one_cell() -> None:
    s = cell_of([(0.5, 1.0), (1.0, 1.0), (1.5, 1.0)])
    assert s.n == 3
    assert s.mean_g() == 1.0 and s.mean_h() == 1.0
    assert s.var_g() == pytest.approx(0.25, abs=1e-15)
    assert s.var_h() == 0.0 and s.cov_gh() == 0.0
    mean, var = loss_change_moments(s, -1.0)
    assert mean == pytest.approx(-0.5, abs=1e-15)
    assert var == pytest.approx(0.25, abs=1e-15)


A = [(0.5, 0.8), (1.0, 1.0), (1.5, 1.2)]
B = [(0.5, 1.2), (1.0, 1.0), (1.5, 0.9)]


def test_merge_vector() -> None:
    a, b = cell_of(A), cell_of(B)
    assert (a.m_g, a.m_h, a.c) == pytest.approx((0.5, 0.08, 0.2), abs=1e-12)
    assert (b.m_g, b.m_h, b.c) == pytest.approx((0.5, 0.046667, -0.15), abs=1e-6)
    ab = merge(a, b)
    assert ab.n == 6
    assert (ab.mean_g(), ab.mean_h()) == pytest.approx((1.0, 1.016667), abs=1e-6)
    assert (ab.m_g, ab.m_h, ab.c) == pytest.approx((1.0, 0.128333, 0.05), abs=1e-6)
    assert ab.var_g() == pytest.approx(0.2, abs=1e-12)
    assert ab.cov_gh() == pytest.approx(0.01, abs=1e-12)


def test_merge_with_empty_side_is_a_copy() -> None:
    a = cell_of(A)
    for merged in (merge(a, GradHessStats()), merge(GradHessStats(), a)):
        assert merged.as_list() == a.as_list()
        assert merged is not a


def test_pooled_scalar_variance() -> None:
    """(m, s², n) = (2, 1, 5) pooled with (3, 4, 3) -> m = 2.375, s² = 1.982142857.

    Built as two children whose loss-change moments are those numbers: with Δ fixed
    by the child, the pooled formula of [SGT-SPEC §7.3] must give the §15 values (the Java
    bug J1 gives 5.714285714).
    """
    m1, v1, n1, m2, v2, n2 = 2.0, 1.0, 5, 3.0, 4.0, 3
    mean = (n1 * m1 + n2 * m2) / (n1 + n2)
    var = ((n1 - 1) * v1 + (n2 - 1) * v2 + n1 * (m1 - mean) ** 2 + n2 * (m2 - mean) ** 2) / (
        n1 + n2 - 1
    )
    assert mean == pytest.approx(2.375)
    assert var == pytest.approx(1.982142857, abs=1e-9)


def test_pool_children_matches_direct_loss_changes() -> None:
    """Pooled moments equal the sample mean/variance of L_i = g_i Δ_j + h_i Δ_j² / 2."""
    children = [cell_of(A), cell_of(B)]
    deltas, mean, var = pool_children(children, 0.1)
    losses = []
    for pairs, delta in zip((A, B), deltas, strict=True):
        losses += [g * delta + 0.5 * h * delta * delta for g, h in pairs]
    mu = math.fsum(losses) / len(losses)
    direct_var = math.fsum((v - mu) ** 2 for v in losses) / (len(losses) - 1)
    assert mean == pytest.approx(mu, rel=1e-12)
    # Eq. 18 is exact for a fixed Δ: the pooled variance is the sample variance
    assert var == pytest.approx(direct_var, rel=1e-9)


def test_newton_step() -> None:
    s = GradHessStats()
    s.add(-2.0, 1.0)
    delta = delta_prediction(s, 0.1)
    assert delta == pytest.approx(1.818181818, abs=1e-9)
    mean, _ = loss_change_moments(s, delta)
    assert mean == pytest.approx(-1.983471074, abs=1e-9)


P_VALUES = [(200, 3.0, 3.044827e-3), (200, 5.0, 1.254739e-6), (200, 6.0, 9.178170e-9),
            (200, 7.0, 3.834070e-11), (1000, 5.5, 4.824195e-8)]


@pytest.mark.parametrize(("n", "t", "p"), P_VALUES)
def test_p_values(n: int, t: float, p: float) -> None:
    # t = m √n / s with m = -t, s² = n
    assert t_test_p_value(-t, float(n), n) == pytest.approx(p, rel=2e-6)


@pytest.mark.parametrize(("n", "t"), [(200, 5.5297), (400, 5.4263)])
def test_critical_t(n: int, t: float) -> None:
    assert t_test_p_value(-(t + 1e-3), float(n), n) < 1e-7 < t_test_p_value(-(t - 1e-3), n, n)


def test_one_sided_p_value_is_half_the_two_sided() -> None:
    from reference.sgt.splits import one_sided_p_value

    assert one_sided_p_value(-3.0, 200.0, 200) == 0.5 * t_test_p_value(-3.0, 200.0, 200)
    assert one_sided_p_value(3.0, 200.0, 200) == 1.0 - 0.5 * t_test_p_value(3.0, 200.0, 200)


def test_degenerate_p_values() -> None:
    assert t_test_p_value(-1.0, 1.0, 1) == 1.0
    assert t_test_p_value(-1.0, 0.0, 10) == 0.0
    assert t_test_p_value(1.0, 0.0, 10) == 1.0
    assert t_test_p_value(math.nan, 1.0, 10) == 1.0
    assert t_test_p_value(-1.0, math.inf, 10) == 1.0


def test_binning() -> None:
    assert bin_index(0.5, 0.0, 1.0, 64) == 32
    assert bin_index(1.0, 0.0, 1.0, 64) == 63
    assert bin_index(-0.3, 0.0, 1.0, 64) == 0
    assert bin_index(1.7, 0.0, 1.0, 64) == 63
    assert bin_index(3.0, 2.0, 2.0, 64) == 0
    assert bin_index(1e308, -1e308, 1e308, 64) == 0  # inf / inf guard
    assert bin_index(-5e307, -1e308, 1e308, 64) == 0


def test_vectors_in_c(lib: object) -> None:
    from fast._ffi import ffi

    clib: object = lib
    s = ffi.new("sgt_stats *")
    for g, h in A:
        clib.sgt_stats_add(s, g, h)  # type: ignore[attr-defined]
    t = ffi.new("sgt_stats *")
    for g, h in B:
        clib.sgt_stats_add(t, g, h)  # type: ignore[attr-defined]
    out = ffi.new("sgt_stats *")
    clib.sgt_merge(s, t, out)  # type: ignore[attr-defined]
    ref = merge(cell_of(A), cell_of(B))
    assert [out.n, out.sum_g, out.sum_h, out.m_g, out.m_h, out.c] == ref.as_list()
    for n, tt, p in P_VALUES:
        assert clib.sgt_t_test_p_value(-tt, float(n), n) == t_test_p_value(  # type: ignore
            -tt, float(n), n) == pytest.approx(p, rel=2e-6)
    for v, b in ((0.5, 32), (1.0, 63), (-0.3, 0), (1.7, 63)):
        assert clib.sgt_bin_index(v, 0.0, 1.0, 64) == b  # type: ignore[attr-defined]
    assert clib.sgt_bin_index(1.0, 1.0, 1.0, 64) == 0  # type: ignore[attr-defined]
    assert clib.sgt_bin_index(1e308, -1e308, 1e308, 64) == 0  # type: ignore[attr-defined]

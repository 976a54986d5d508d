"""Oracle: SGT's running statistics, Newton step and t-test, computed by other routes.

- The Welford cell of (g, h) pairs against numpy's two-pass mean, variance and
  covariance (``ddof=1``) of the same pairs [GPF19, §3.3; SGT-SPEC §4.2];
- the Newton step ``Δ = -ḡ / (h̄ + λ)`` of a cell written from [GPF19, Eq. 13];
- the split test's p-value against scipy's Student-t distribution: two-sided
  ``P(|T_{n-1}| >= |m| sqrt(n) / s)`` [GPF19, Eq. 16].

Both backends are checked (the C through its cell and test functions).
"""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

scipy_stats = pytest.importorskip("scipy.stats")

PAIRS = np.random.default_rng(3).normal(size=(37, 2)) * [1.5, 0.4] + [0.2, 1.0]


def _cell(backend: ModuleType, pairs: np.ndarray) -> dict[str, float]:
    """mean_g, mean_h, var_g, var_h, cov_gh and Δ(λ = 0.3) of a cell fed ``pairs``."""
    if backend.__name__ == "reference":
        from reference.sgt.grad_hess import GradHessStats, delta_prediction

        cell = GradHessStats()
        for g, h in pairs.tolist():
            cell.add(g, h)
        return {"mean_g": cell.mean_g(), "mean_h": cell.mean_h(), "var_g": cell.var_g(),
                "var_h": cell.var_h(), "cov_gh": cell.cov_gh(),
                "delta": delta_prediction(cell, 0.3)}
    from fast._ffi import ffi, lib

    c = ffi.new("sgt_stats *")
    for g, h in pairs.tolist():
        lib.sgt_stats_add(c, g, h)
    return {"mean_g": lib.sgt_stats_mean_g(c), "mean_h": lib.sgt_stats_mean_h(c),
            "var_g": lib.sgt_stats_var_g(c), "var_h": lib.sgt_stats_var_h(c),
            "cov_gh": lib.sgt_stats_cov_gh(c), "delta": lib.sgt_delta_prediction(c, 0.3)}


@pytest.mark.parametrize("n", [2, 3, 37])
def test_welford_cell_equals_two_pass_moments(backend: ModuleType, n: int) -> None:
    pairs = PAIRS[:n]
    got = _cell(backend, pairs)
    cov = np.cov(pairs[:, 0], pairs[:, 1], ddof=1)
    assert got["mean_g"] == pytest.approx(pairs[:, 0].mean(), rel=1e-12)
    assert got["mean_h"] == pytest.approx(pairs[:, 1].mean(), rel=1e-12)
    assert got["var_g"] == pytest.approx(cov[0, 0], rel=1e-10)
    assert got["var_h"] == pytest.approx(cov[1, 1], rel=1e-10)
    assert got["cov_gh"] == pytest.approx(cov[0, 1], rel=1e-10, abs=1e-14)


def test_newton_step_is_minus_mean_gradient_over_mean_hessian_plus_lambda(
        backend: ModuleType) -> None:
    got = _cell(backend, PAIRS)
    assert got["delta"] == pytest.approx(-PAIRS[:, 0].mean() / (PAIRS[:, 1].mean() + 0.3),
                                         rel=1e-12)


def _p_value(backend: ModuleType, mean: float, variance: float, n: int) -> float:
    if backend.__name__ == "reference":
        from reference.sgt.splits import t_test_p_value

        return t_test_p_value(mean, variance, n)
    from fast._ffi import lib

    return float(lib.sgt_t_test_p_value(mean, variance, n))


@pytest.mark.parametrize(("mean", "variance", "n"), [(0.3, 2.0, 10), (-0.05, 0.01, 200),
                                                     (1.2, 9.0, 3), (-2.0, 40.0, 1000)])
def test_split_test_p_value_is_the_two_sided_student_t_tail(backend: ModuleType, mean: float,
                                                            variance: float, n: int) -> None:
    t = abs(mean) * np.sqrt(n) / np.sqrt(variance)
    expected = 2.0 * scipy_stats.t.sf(t, n - 1)
    assert _p_value(backend, mean, variance, n) == pytest.approx(expected, rel=1e-9)

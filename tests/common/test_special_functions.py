"""Accuracy of the special functions against scipy and mpmath (test-only oracles).

Parity between the Python and C twins is exact and lives in
``tests/common/test_shared_kernels.py``; here the reference implementation is checked
against independent implementations, with a relative tolerance of about 1e-13 where the
function is smooth and well conditioned.
Where scipy itself is less accurate (tiny lower tails, a + b in the thousands), mpmath
at 40 digits is the oracle.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import scipy.special as sc
import scipy.stats as st

from reference import special as S

mpmath.mp.dps = 40
RNG = np.random.default_rng(20261121)


def rel(a: float, b: float) -> float:
    return abs(a - b) / abs(b)


def test_lgamma_against_scipy() -> None:
    xs = np.concatenate([10 ** RNG.uniform(-300, 300, 1500), RNG.uniform(0, 30, 1500)])
    for x in xs:
        got, want = S.lgamma(float(x)), float(sc.gammaln(x))
        if abs(want) > 0.1:
            assert rel(got, want) < 1e-13, x
        else:  # near the roots x = 1, 2 only absolute accuracy is meaningful
            assert abs(got - want) < 1e-14, x


def test_lgamma_integers_and_half_integers() -> None:
    for n in range(1, 60):
        assert rel(S.lgamma(float(n + 2)), math.log(math.factorial(n + 1))) < 1e-14
    assert abs(S.lgamma(0.5) - 0.5 * math.log(math.pi)) < 1e-15
    assert S.lgamma(1.0) == pytest.approx(0.0, abs=1e-15)
    assert S.lgamma(0.0) == math.inf and S.lgamma(-1.0) == math.inf
    assert math.isnan(S.lgamma(math.nan))


def test_log_beta_against_mpmath() -> None:
    for _ in range(400):
        a, b = (float(v) for v in 10 ** RNG.uniform(-2, 4, 2))
        want = float(mpmath.log(mpmath.beta(a, b)))
        assert abs(S.log_beta(a, b) - want) <= 1e-13 * max(abs(want), 1.0), (a, b)


def test_betainc_against_scipy_moderate_shapes() -> None:
    for _ in range(1500):
        a, b = (float(v) for v in 10 ** RNG.uniform(-1, 2, 2))
        x = float(RNG.uniform())
        want = float(sc.betainc(a, b, x))
        if want > 1e-250:
            assert rel(S.betainc(a, b, x), want) < 1e-12, (a, b, x)


def test_betainc_against_mpmath_large_shapes() -> None:
    for _ in range(150):
        a, b = (float(v) for v in 10 ** RNG.uniform(-1, 3.5, 2))
        x = float(RNG.uniform())
        want = float(mpmath.betainc(a, b, 0, x, regularized=True))
        if want > 1e-250:
            assert rel(S.betainc(a, b, x), want) < 1e-12, (a, b, x)


def test_betainc_edges_and_symmetry() -> None:
    assert S.betainc(2.0, 3.0, 0.0) == 0.0 and S.betainc(2.0, 3.0, 1.0) == 1.0
    assert math.isnan(S.betainc(0.0, 1.0, 0.5)) and math.isnan(S.betainc(1.0, 1.0, math.nan))
    for a, b, x in [(0.5, 3.0, 0.2), (7.0, 2.5, 0.9), (30.0, 40.0, 0.45)]:
        assert S.betainc(a, b, x) + S.betainc(b, a, 1.0 - x) == pytest.approx(1.0, abs=1e-14)
    assert S.betainc(1.0, 1.0, 0.3) == pytest.approx(0.3, rel=1e-15)


def test_student_t_logpdf_against_scipy() -> None:
    for _ in range(1500):
        df = float(10 ** RNG.uniform(-0.5, 2))
        x = float(RNG.standard_t(df) * RNG.uniform(0.1, 10))
        assert rel(S.student_t_logpdf(x, df), float(st.t.logpdf(x, df))) < 1e-13, (x, df)


def test_student_t_logpdf_against_mpmath_large_df() -> None:
    """scipy loses ~1e-12 at df in the thousands; mpmath is the oracle there."""
    for _ in range(200):
        df = mpmath.mpf(float(10 ** RNG.uniform(2, 4)))
        x = mpmath.mpf(float(RNG.standard_t(float(df)) * RNG.uniform(0.1, 10)))
        want = float(
            mpmath.loggamma((df + 1) / 2) - mpmath.loggamma(df / 2)
            - mpmath.log(df * mpmath.pi) / 2 - (df + 1) / 2 * mpmath.log1p(x * x / df)
        )
        assert rel(S.student_t_logpdf(float(x), float(df)), want) < 1e-13, (x, df)


def test_student_t_cdf_against_mpmath() -> None:
    def exact(x: float, df: float) -> float:
        w = mpmath.mpf(df) / (df + mpmath.mpf(x) ** 2)
        tail = mpmath.betainc(df / 2, 0.5, 0, w, regularized=True) / 2
        return float(tail if x < 0 else 1 - tail)

    for _ in range(300):
        df = float(10 ** RNG.uniform(-0.5, 4))
        x = float(RNG.standard_t(df) * RNG.uniform(0.1, 10))
        tol = 1e-13 if df <= 1000 else 1e-12  # the continued fraction needs ~sqrt(df) steps
        assert rel(S.student_t_cdf(x, df), exact(x, df)) < tol, (x, df)
    for x in (1e-10, -1e-10, 1e-5, -0.3):  # near the centre: Cauchy closed form
        assert rel(S.student_t_cdf(x, 1.0), 0.5 + math.atan(x) / math.pi) < 1e-14


def test_student_t_cdf_against_scipy_bulk() -> None:
    for _ in range(1500):
        df = float(10 ** RNG.uniform(-0.5, 2))
        x = float(RNG.uniform(-8, 8))
        assert rel(S.student_t_cdf(x, df), float(st.t.cdf(x, df))) < 1e-12, (x, df)


def test_student_t_ppf_against_scipy() -> None:
    for _ in range(1000):
        df = float(10 ** RNG.uniform(-0.5, 4))
        p = float(10 ** RNG.uniform(-12, math.log10(0.49)))
        if RNG.uniform() < 0.5:
            p = 1.0 - p
        assert rel(S.student_t_ppf(p, df), float(st.t.ppf(p, df))) < 1e-12, (p, df)


def test_student_t_ppf_inverts_cdf_and_edges() -> None:
    for df in (0.7, 1.0, 2.0, 5.0, 30.0, 1000.0):
        for p in (1e-9, 0.05, 0.3, 0.95):
            assert rel(S.student_t_cdf(S.student_t_ppf(p, df), df), p) < 1e-12
    assert S.student_t_ppf(0.5, 3.0) == 0.0
    assert S.student_t_ppf(0.0, 3.0) == -math.inf and S.student_t_ppf(1.0, 3.0) == math.inf
    assert math.isnan(S.student_t_ppf(1.5, 3.0)) and math.isnan(S.student_t_ppf(0.3, -1.0))
    assert S.student_t_ppf(0.75, 1.0) == pytest.approx(1.0, rel=1e-14)


@pytest.mark.parametrize(
    ("n", "t", "p"),
    [(200, 3.0, 3.044827e-3), (200, 5.0, 1.254739e-6), (200, 6.0, 9.178170e-9),
     (200, 7.0, 3.834070e-11), (1000, 5.5, 4.824195e-8)],
)
def test_sgt_spec_p_value_vectors(n: int, t: float, p: float) -> None:
    """[SGT-SPEC §15]: two-sided p = I_{ν/(ν+t²)}(ν/2, 1/2), ν = n - 1."""
    nu = n - 1.0
    assert S.betainc(nu / 2, 0.5, nu / (nu + t * t)) == pytest.approx(p, rel=5e-7)


def test_log_sum_exp() -> None:
    v = [float(x) for x in RNG.normal(size=50) * 30]
    assert rel(S.log_sum_exp(v), float(sc.logsumexp(v))) < 1e-14
    assert S.log_sum_exp([1000.0, 1000.0]) == pytest.approx(1000.0 + math.log(2.0), abs=1e-12)
    assert S.log_sum_exp([]) == -math.inf
    assert S.log_sum_exp([-math.inf, -math.inf]) == -math.inf
    assert S.log_sum_exp([0.0, math.inf]) == math.inf
    assert math.isnan(S.log_sum_exp([0.0, math.nan]))


def test_guards() -> None:
    assert S.exp_or_inf(710.0) == math.inf and S.exp_or_inf(1.0) == math.e
    assert S.log_or_neg_inf(0.0) == -math.inf and math.isnan(S.log_or_neg_inf(-1.0))
    assert S.log_or_neg_inf(math.e) == 1.0

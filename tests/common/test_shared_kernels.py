"""Per-function differential table: each C kernel against its Python twin, bit for bit.

This file runs first in spirit: when a lockstep test fails, the kernel table usually
names the C function whose operations drifted from the reference.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as hs

from _compare import assert_snapshot_equal
from reference import special as S

positive = hs.floats(min_value=1e-300, max_value=1e6, allow_nan=False)
shape = hs.floats(min_value=1e-3, max_value=1e4, allow_nan=False)
unit = hs.floats(min_value=0.0, max_value=1.0)
real = hs.floats(min_value=-1e6, max_value=1e6)
anyfloat = hs.floats(allow_nan=True, allow_infinity=True)

# (python function, C name, hypothesis strategy for the argument tuple)
TABLE: list[tuple[Callable[..., float], str, Any]] = [
    (S.lgamma, "special_lgamma", hs.tuples(hs.one_of(positive, anyfloat))),
    (S.log_beta, "special_log_beta", hs.tuples(shape, shape)),
    (S.betainc, "special_betainc", hs.tuples(shape, shape, hs.one_of(unit, anyfloat))),
    (S.student_t_logpdf, "special_student_t_logpdf", hs.tuples(real, shape)),
    (S.student_t_cdf, "special_student_t_cdf", hs.tuples(hs.one_of(real, anyfloat), shape)),
    (S.student_t_ppf, "special_student_t_ppf", hs.tuples(unit, shape)),
    (S.exp_or_inf, "special_exp_or_inf", hs.tuples(hs.floats(-800, 800))),
    (S.log_or_neg_inf, "special_log_or_neg_inf", hs.tuples(hs.one_of(real, anyfloat))),
]


@pytest.mark.parametrize(("py_fn", "c_name", "args"), TABLE, ids=[t[1] for t in TABLE])
def test_kernel_parity(lib: Any, py_fn: Callable[..., float], c_name: str, args: Any) -> None:
    c_fn = getattr(lib, c_name)

    @given(args)
    def check(a: tuple[float, ...]) -> None:
        assert_snapshot_equal(py_fn(*a), float(c_fn(*a)), path=f"{c_name}{a}")

    check()


def test_student_t_logpdf_with_a_given_log_beta(lib: Any) -> None:
    """The C-only split of the Student-t density (the particle weights cache its log-beta
    term per integer df): handed ``log_beta(df / 2, 1 / 2)``, it returns the reference's
    ``student_t_logpdf`` bit for bit."""

    @given(real, hs.one_of(shape, hs.integers(1, 5000).map(float)))
    def check(x: float, df: float) -> None:
        lb = S.log_beta(0.5 * df, 0.5)
        got = float(lib.special_student_t_logpdf_lb(x, df, lb))
        assert_snapshot_equal(S.student_t_logpdf(x, df), got, path=f"t_logpdf_lb({x}, {df})")

    check()


def test_log_sum_exp_parity(lib: Any) -> None:
    from fast._ffi import ffi

    rng = np.random.default_rng(3)
    cases = [[float(v) for v in rng.normal(size=n) * s] for n in (1, 2, 7, 100) for s in (1, 300)]
    cases += [[], [-math.inf, 0.0], [math.inf, 1.0], [math.nan, 0.0], [-math.inf]]
    for v in cases:
        got = lib.special_log_sum_exp(ffi.new("double[]", v), len(v))
        assert_snapshot_equal(S.log_sum_exp(v), float(got), path=f"log_sum_exp{v}")


def test_rng_fill_uniform_matches_python(lib: Any) -> None:
    from fast._ffi import ffi
    from reference.rng import Rng

    state = ffi.new("rng_state *")
    lib.rng_seed(state, 8)
    out = ffi.new("double[]", 1000)
    assert lib.rng_fill_uniform(state, out, 1000) == lib.ST_OK
    ref = Rng(8)
    assert [out[i] for i in range(1000)] == [ref.uniform() for _ in range(1000)]
    assert lib.rng_fill_uniform(ffi.NULL, out, 3) == lib.ST_EINVAL

"""ABACOC kernels: each C function against its Python twin on many inputs (exact)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from reference.abacoc.balls import randomized_probability
from reference.abacoc.search import distance_term, pow_or_inf, raw_distance, rho


def test_randomized_probability(lib: Any) -> None:
    for n in range(0, 60):
        for n1 in range(0, n + 1):
            assert lib.ab_randomized_probability(n1, n) == randomized_probability(n1, n)
    assert randomized_probability(0, 0) == 0.5
    assert randomized_probability(3, 3) == 1.0 and randomized_probability(0, 3) == 0.0


@pytest.mark.parametrize(("metric", "p"), [(0, 2.0), (1, 1.0), (2, 3.0), (2, 1.5)])
def test_distances(lib: Any, metric: int, p: float) -> None:
    from fast._ffi import ffi

    g = np.random.default_rng(metric)
    for _ in range(300):
        n_features = int(g.integers(1, 12))
        x = (g.normal(size=n_features) * 10.0 ** g.integers(-3, 4)).tolist()
        c = (g.normal(size=n_features) * 10.0 ** g.integers(-3, 4)).tolist()
        raw = raw_distance(x, c, metric, p)
        assert lib.ab_raw_distance(ffi.new("double[]", x), ffi.new("double[]", c),
                                   n_features, metric, p) == raw
        assert lib.ab_rho(raw, metric, p) == rho(raw, metric, p)
        assert lib.ab_distance_term(x[0] - c[0], metric, p) == distance_term(x[0] - c[0],
                                                                             metric, p)


def test_pow_guard(lib: Any) -> None:
    assert pow_or_inf(1e-5, -400.0) == math.inf == lib.ab_pow_or_inf(1e-5, -400.0)
    for base, exponent in [(2.0, 1.3), (0.37, -0.25), (7.0, -1.0 / 4.0), (1e300, 2.0)]:
        assert lib.ab_pow_or_inf(base, exponent) == pow_or_inf(base, exponent)

"""Benchmark: the generator and special functions, fast (C) vs reference (Python).

Prints ratios measured in one run. Usage::

    python tests/benchmarks/bench_rng.py [--n 200000]
"""

from __future__ import annotations

import argparse
import time

from fast._ffi import ffi, lib
from reference import special
from reference.rng import Rng


def per_call(fn: object, n: int) -> float:
    start = time.perf_counter()
    fn()  # type: ignore[operator]
    return (time.perf_counter() - start) / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=200_000)
    n = parser.parse_args().n

    ref = Rng(1)
    state = ffi.new("rng_state *")
    lib.rng_seed(state, 1)
    out = ffi.new("double[]", n)

    def ref_uniform() -> None:
        for _ in range(n):
            ref.uniform()

    t_ref = per_call(ref_uniform, n)
    t_c = per_call(lambda: lib.rng_fill_uniform(state, out, n), n)
    print(f"uniform(): reference {t_ref * 1e9:8.1f} ns  C bulk {t_c * 1e9:6.2f} ns  "
          f"ratio {t_ref / t_c:8.1f}x")

    m = n // 20
    xs = [ref.uniform() * 20.0 + 0.1 for _ in range(m)]
    for name, py, c in [
        ("lgamma", special.lgamma, lib.special_lgamma),
        ("student_t_cdf(df=5)", lambda x: special.student_t_cdf(x - 10.0, 5.0),
         lambda x: lib.special_student_t_cdf(x - 10.0, 5.0)),
        ("student_t_ppf(df=30)", lambda x: special.student_t_ppf(x / 21.0, 30.0),
         lambda x: lib.special_student_t_ppf(x / 21.0, 30.0)),
    ]:
        def run_py(f=py) -> None:  # type: ignore[no-untyped-def]
            for x in xs:
                f(x)

        def run_c(f=c) -> None:  # type: ignore[no-untyped-def]
            for x in xs:
                f(x)

        tp, tc = per_call(run_py, m), per_call(run_c, m)
        print(f"{name:22s}: reference {tp * 1e6:8.2f} us  C (via cffi) {tc * 1e6:6.2f} us  "
              f"ratio {tp / tc:6.1f}x")


if __name__ == "__main__":
    main()

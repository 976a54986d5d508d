"""Benchmark: the dynamic trees' batch predictions, fast against reference.

Prints the CPU time per row of ``predict`` (predictive means), ``predict_dist`` (the full
summary: mean, variance, 5% and 95% quantiles, df) and, for the classifier,
``predict_proba``, for models trained on Friedman-1 (5 inputs) with ``--particles``
particles, fast and reference in the same run, and checks that both backends give the
same values bit for bit. The reference runs on fewer rows (``--ref-rows``).

Usage::

    python tests/benchmarks/bench_predict.py                    # 1,000 particles
    python tests/benchmarks/bench_predict.py --particles 100
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import fast  # noqa: E402
import reference  # noqa: E402
from reference.evaluation.datasets import friedman1  # noqa: E402


def _per_row(call: Callable[[], Any], rows: int, repeats: int) -> tuple[float, Any]:
    """Best-of-``repeats`` CPU µs per row of ``call``, and its last result."""
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.process_time()
        result = call()
        best = min(best, time.process_time() - start)
    return 1e6 * best / rows, result


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return all(np.array_equal(a[k], b[k]) for k in a)
    return bool(np.array_equal(np.asarray(a), np.asarray(b)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--particles", type=int, default=1000)
    parser.add_argument("--train", type=int, default=300, help="training rows")
    parser.add_argument("--rows", type=int, default=200, help="rows predicted by fast")
    parser.add_argument("--ref-rows", type=int, default=5, help="rows predicted by reference")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    X, y = friedman1(args.train + args.rows, n_features=5, seed=3)
    labels = (y > 14.0).astype(int)
    train, test = slice(0, args.train), slice(args.train, None)
    print(f"CPU µs per predicted row, {args.particles} particles, trained on {args.train} "
          f"rows, best of {args.repeats}")
    print(f"{'model':<24} {'call':<14} {'reference':>11} {'fast':>9} {'ref/fast':>9}  check")
    for name, make, target, calls in [
        ("DynamicTreeRegressor",
         lambda pkg: pkg.DynamicTreeRegressor(n_particles=args.particles), y,
         ("predict", "predict_dist")),
        ("DynamicTreeClassifier",
         lambda pkg: pkg.DynamicTreeClassifier(classes=[0, 1], n_particles=args.particles),
         labels, ("predict_proba",)),
    ]:
        models = {}
        for pkg in (reference, fast):
            model = make(pkg)
            model.partial_fit(X[train], target[train])
            models[pkg.__name__] = model
        for call in calls:
            ref_us, ref_out = _per_row(
                lambda c=call, m=models: getattr(m["reference"], c)(X[test][:args.ref_rows]),
                args.ref_rows, 1)
            fast_us, fast_out = _per_row(
                lambda c=call, m=models: getattr(m["fast"], c)(X[test]), args.rows,
                args.repeats)
            fast_head = getattr(models["fast"], call)(X[test][:args.ref_rows])
            check = "identical" if _same(ref_out, fast_head) else "VALUES DIFFER"
            print(f"{name:<24} {call:<14} {ref_us:11.1f} {fast_us:9.1f} "
                  f"{ref_us / fast_us:8.0f}x  {check}")


if __name__ == "__main__":
    main()

"""Benchmark: per-call overhead of the one-example API (``learn_one`` + ``predict_one``).

Users who stream one example at a time pay the Python facade (input validation, buffer
transfers) on every call, on top of the model math. This script measures, in one run,
the mean wall time of one ``predict_one`` followed by one ``learn_one`` (test-then-train)
on Friedman-1 rows given as plain lists of floats, for both backends, and prints µs per
step and the reference/fast ratio.

Models: ``SGTRegressor`` (y), ``SGTClassifier`` (label 1[y > 14]) and
``ABACOCClassifier`` (same label). Both backends are also checked to give identical
predictions on the same stream.

Usage::

    python tests/benchmarks/bench_per_call.py            # 3000 steps per model
    python tests/benchmarks/bench_per_call.py --n 1000   # quicker
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from itertools import islice
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import fast  # noqa: E402
import reference  # noqa: E402
from reference.datasets import iter_friedman1  # noqa: E402

Stream = list[tuple[list[float], Any]]


def _time_loop(model: Any, stream: Stream, repeats: int) -> tuple[float, list[Any]]:
    """Best-of-``repeats`` µs per (predict_one, learn_one) step on fresh clones."""
    best = float("inf")
    preds: list[Any] = []
    for _ in range(repeats):
        m = model.clone()
        predict, learn = m.predict_one, m.learn_one
        out = []
        start = time.perf_counter()
        for x, y in stream:
            out.append(predict(x))
            learn(x, y)
        elapsed = time.perf_counter() - start
        best = min(best, elapsed)
        preds = out
    return 1e6 * best / len(stream), preds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=3000, help="steps per model")
    parser.add_argument("--repeats", type=int, default=3, help="best of this many runs")
    args = parser.parse_args()

    rows = list(islice(iter_friedman1(seed=7), args.n))
    reg: Stream = [(x, y) for x, y in rows]
    cls: Stream = [(x, int(y > 14.0)) for x, y in rows]
    cases: list[tuple[str, Callable[[Any], Any], Stream]] = [
        ("SGTRegressor", lambda pkg: pkg.SGTRegressor(warmup=200, grace_period=100), reg),
        ("SGTClassifier",
         lambda pkg: pkg.SGTClassifier(classes=[0, 1], warmup=200, grace_period=100), cls),
        ("ABACOCClassifier", lambda pkg: pkg.ABACOCClassifier(variant="auto_adj"), cls),
    ]
    print(f"per-call cost of predict_one + learn_one, {args.n} steps, Friedman-1 rows as lists")
    print(f"{'model':<18} {'reference µs':>13} {'fast µs':>9} {'ratio':>7}")
    for name, make, stream in cases:
        ref_us, ref_preds = _time_loop(make(reference), stream, args.repeats)
        fast_us, fast_preds = _time_loop(make(fast), stream, args.repeats)
        same = "identical" if ref_preds == fast_preds else "PREDICTIONS DIFFER"
        print(f"{name:<18} {ref_us:13.2f} {fast_us:9.2f} {ref_us / fast_us:6.1f}x  {same}")


if __name__ == "__main__":
    main()

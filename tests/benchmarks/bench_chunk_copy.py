"""Benchmark: what the private copy of each chunk costs the fast batch calls.

The fast engines read each chunk of a batch with the GIL released; since each chunk is a
private copy (:func:`reference.batches.as_float64`), another thread writing to the caller's
array cannot change the rows between the C's check and its use. This script times, in one
run and in alternation, the batch calls of a C-contiguous float64 input (the case where the
chunk used to be a view) with the copying ``as_float64`` and with a view in its place
(patched in for the measurement), and prints the median of each and their ratio.

Calls: ``SGTRegressor().predict`` and ``partial_fit`` (10^6 x 20), ``ABACOCClassifier``
``predict`` (2 x 10^5 x 20, budget 500), ``DynamicTreeRegressor(n_particles=10).predict``
(2 x 10^5 x 20) -- the cheapest per row of each family, where a copy weighs most.

Usage::

    python tests/benchmarks/bench_chunk_copy.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import fast  # noqa: E402
import reference.batches as batches  # noqa: E402


def _view(block: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(block, dtype=np.float64)


def _modules() -> list:
    """Every module that imported ``as_float64`` by name."""
    return [m for m in list(sys.modules.values())
            if getattr(m, "as_float64", None) is batches.as_float64]


def _timed(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(1_000_000, 20))
    y = np.sin(6.0 * X[:, 0])
    labels = (X[:, 0] > 0.5).astype(np.int64)
    sgt = fast.SGTRegressor().fit(X[:20_000], y[:20_000])
    ab = fast.ABACOCClassifier(budget=500).fit(X[:20_000], labels[:20_000])
    dt = fast.DynamicTreeRegressor(n_particles=10).fit(X[:2_000], y[:2_000])
    calls: dict[str, Callable[[], object]] = {
        "SGTRegressor.predict 1e6x20": lambda: sgt.predict(X),
        "SGTRegressor.partial_fit 1e6x20": lambda: fast.SGTRegressor().partial_fit(X, y),
        "ABACOCClassifier.predict 2e5x20": lambda: ab.predict(X[:200_000]),
        "DynamicTreeRegressor.predict 2e5x20": lambda: dt.predict(X[:200_000]),
    }
    copying = batches.as_float64
    modules = _modules()
    print(f"{'call':38s} {'copy [s]':>9s} {'view [s]':>9s} {'copy/view':>9s}")
    for name, call in calls.items():
        times: dict[str, list[float]] = {"copy": [], "view": []}
        for _ in range(args.repeats):
            for kind, fn in (("copy", copying), ("view", _view)):
                for m in modules:
                    m.as_float64 = fn  # type: ignore[attr-defined]
                times[kind].append(_timed(call))
        for m in modules:
            m.as_float64 = copying  # type: ignore[attr-defined]
        a, b = statistics.median(times["copy"]), statistics.median(times["view"])
        print(f"{name:38s} {a:9.3f} {b:9.3f} {a / b:9.3f}")


if __name__ == "__main__":
    main()

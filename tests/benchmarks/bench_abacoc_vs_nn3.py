"""ABACOC against DOC15's NN3 baseline at equal model size (a script, not a test).

DOC15 (Tables II-III) compare AUTO-ADJ-FIX with a budget of 1% or 10% of the stream
against three nearest neighbours storing a random sub-sample of the same size (the
online sub-sampling protocol, Alg. 5, with ``rate`` = the budget fraction), on min-max
scaled features with the Euclidean distance. This script runs that comparison on whole
streams and also prints NN3 storing every point, for reference.

The streams are larger than the package ships: ``driftwood data fetch elec_moa`` and
``driftwood data fetch covtype_50k`` (or ``DRIFTWOOD_DATA`` pointing at copies).

Usage::

    python tests/benchmarks/bench_abacoc_vs_nn3.py                  # elec_moa covtype_50k
    python tests/benchmarks/bench_abacoc_vs_nn3.py --streams elec_moa --full-nn3
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import fast  # noqa: E402
from reference.evaluation.datasets import load_csv  # noqa: E402
from reference.rng import Rng  # noqa: E402


def nn3(X: np.ndarray, y: np.ndarray, rate: float = 1.0, seed: int = 1) -> tuple[float, int]:
    """Prequential accuracy of 3-NN (majority, ties to the smallest label) learning each
    example with probability ``rate`` (coins from ``Rng(seed)``); and the points stored."""
    n = len(y)
    store = np.empty_like(X)
    labels = np.empty(n, dtype=np.int64)
    m = correct = 0
    coins = Rng(seed)
    for i in range(n):
        if m:
            d = ((store[:m] - X[i]) ** 2).sum(axis=1)
            k = min(3, m)
            idx = np.argpartition(d, k - 1)[:k] if m > k else np.arange(m)
            correct += int(np.bincount(labels[idx]).argmax() == y[i])
        if rate >= 1.0 or coins.uniform() < rate:
            store[m], labels[m] = X[i], y[i]
            m += 1
    return correct / n, m


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", nargs="+", default=["elec_moa", "covtype_50k"])
    parser.add_argument("--full-nn3", action="store_true",
                        help="also NN3 storing every point (minutes on covtype)")
    args = parser.parse_args()
    for name in args.streams:
        X, y = load_csv(name)
        span = X.max(axis=0) - X.min(axis=0)
        X = (X - X.min(axis=0)) / np.where(span > 0, span, 1.0)
        n = len(y)
        for frac in (0.01, 0.10):
            fix = fast.ABACOCClassifier(variant="auto_adj", budget=int(frac * n)).prequential(X, y)
            acc, points = nn3(X, y, rate=frac)
            print(f"{name:12s} n={n}  size {frac:4.0%}: AUTO-ADJ-FIX {fix['accuracy']:.3f} "
                  f"({fix['n_balls']} balls)   NN3 sub-sampled {acc:.3f} ({points} points)",
                  flush=True)
        if args.full_nn3:
            auto = fast.ABACOCClassifier(variant="auto_adj").prequential(X, y)
            acc, points = nn3(X, y)
            print(f"{name:12s} n={n}  unbounded: AUTO-ADJ {auto['accuracy']:.3f} "
                  f"({auto['n_balls']} balls)   NN3 {acc:.3f} ({points} points)", flush=True)


if __name__ == "__main__":
    main()

"""ABACOC benchmarks: fast vs reference, loose kd-tree vs scan, microseconds per example.

Run from the repository root (a script, not a pytest test)::

    python tests/benchmarks/bench_abacoc.py            # full scale (about 2-4 minutes)
    python tests/benchmarks/bench_abacoc.py --quick    # smaller streams (about 30 s)
    python tests/benchmarks/bench_abacoc.py --experiment   # + full-length accuracy vs
                                                           #   model size (several minutes)

Every ratio is measured within this one run, on this machine. Streams:

* ``bananas.csv`` in file order (5,300 points, 2-D), read from ``$DRIFTWOOD_DATA``;
* ``sine2d``: 100,000 points uniform on the unit square, label = above a sine curve,
  5 % label noise (about 1,300 AUTO-ADJ balls);
* ``manifold10d``: 100,000 points of a 3-D latent cube mapped into 10-D by
  ``tanh(Z A)`` plus noise, three classes from a nonlinear rule, 5 % label noise
  (about 4,000 AUTO-ADJ balls).

The two synthetic streams imitate the spec's (unshipped) ``sine2d``/``manifold10d``;
they are generated here with a seeded numpy generator.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

import numpy as np

import fast
import reference
from reference.evaluation.datasets import load_csv


def sine2d(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    g = np.random.default_rng(seed)
    X = g.uniform(0.0, 1.0, size=(n, 2))
    y = (X[:, 1] > 0.5 + 0.3 * np.sin(4.0 * np.pi * X[:, 0])).astype(np.int64)
    flip = g.uniform(size=n) < 0.05
    y[flip] = 1 - y[flip]
    return X, y


def manifold10d(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    g = np.random.default_rng(seed)
    Z = g.uniform(-1.0, 1.0, size=(n, 3))
    A = np.random.default_rng(99).normal(size=(3, 10))
    X = np.tanh(Z @ A) + 0.02 * g.normal(size=(n, 10))
    y = ((np.sin(6.0 * Z[:, 0]) + Z[:, 1] * Z[:, 2]) > 0).astype(np.int64) + (Z[:, 2] > 0.5)
    flip = g.uniform(size=n) < 0.05
    y[flip] = g.integers(0, 3, size=int(flip.sum()))
    return X, y


def bananas() -> tuple[np.ndarray, np.ndarray]:
    X, y = load_csv("bananas.csv", task="classification")
    return X, np.asarray(y, dtype=np.int64)


def best_of(repeats: int, fn: Any) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def section_fast_vs_reference(n: int) -> None:
    print(f"== fast vs reference: prequential (predict + learn) on bananas, first {n} rows ==")
    X, y = bananas()
    X, y = X[:n], y[:n]
    print("(time of the protocol loop itself: Python loop in reference, C loop in fast)")
    print(f"{'variant':<10} {'reference us/ex':>16} {'fast us/ex':>11} {'ratio':>8}  same result")
    for variant in ("base", "base_adj", "auto", "auto_adj"):
        kwargs: dict[str, Any] = {"variant": variant}
        if variant == "base":
            kwargs["mode"] = "majority"
        ref_model = reference.ABACOCClassifier(**kwargs)
        ref_res = ref_model.prequential(X, y)
        runs = [fast.ABACOCClassifier(**kwargs).prequential(X, y) for _ in range(5)]
        fast_res = runs[0]
        same = (ref_res["accuracy"] == fast_res["accuracy"]
                and ref_model.n_balls_ == fast_res["n_balls"])
        ref_us = ref_res["us_per_example"]
        fast_us = min(r["us_per_example"] for r in runs)
        print(f"{variant:<10} {ref_us:16.1f} {fast_us:11.3f} {ref_us / fast_us:8.0f}x  {same}")


def section_search(n: int, n_queries: int) -> None:
    print(f"\n== search: loose kd-tree vs exhaustive scan, manifold10d (10-D, {n} points) ==")
    X, y = manifold10d(n)
    Q, _ = manifold10d(n_queries, seed=1)
    models = {}
    for search in ("scan", "kdtree"):
        model = fast.ABACOCClassifier(variant="auto_adj", search=search)
        res = model.prequential(X, y)
        models[search] = model
        print(f"{search:<7} prequential {res['us_per_example']:8.2f} us/example, "
              f"{model.n_balls_} balls, accuracy {res['accuracy']:.4f}")
    same = models["scan"].snapshot() == models["kdtree"].snapshot()
    t_scan = best_of(3, lambda: models["scan"].predict(Q))
    t_tree = best_of(3, lambda: models["kdtree"].predict(Q))
    agree = list(models["scan"].predict(Q)) == list(models["kdtree"].predict(Q))
    print(f"query ({n_queries} predictions, {models['scan'].n_balls_} balls): scan "
          f"{1e6 * t_scan / n_queries:.2f} us, kd-tree {1e6 * t_tree / n_queries:.2f} us, "
          f"speed-up {t_scan / t_tree:.1f}x (goal >= 5x); identical states {same}, "
          f"identical predictions {agree}")


def section_throughput(n: int) -> None:
    print(f"\n== fast AUTO-ADJ throughput, search='auto' (prequential loop in C, {n} points) ==")
    streams = [("manifold10d 10-D", manifold10d(n), 3.0), ("sine2d 2-D", sine2d(n), 1.0),
               ("bananas 2-D", bananas(), None)]
    for name, (X, y), goal in streams:
        runs = [fast.ABACOCClassifier(variant="auto_adj").prequential(X, y) for _ in range(3)]
        res = runs[0]
        us = min(r["us_per_example"] for r in runs)
        learn_t = best_of(3, lambda X=X, y=y: fast.ABACOCClassifier(variant="auto_adj")
                          .partial_fit(X, y))
        goal_text = f" (goal <= {goal:g} us)" if goal else ""
        print(f"{name:<17} {len(y):>7} points, {res['n_balls']:>5} balls: prequential "
              f"{us:6.2f} us/example{goal_text}, partial_fit only "
              f"{1e6 * learn_t / len(y):6.2f} us/example, accuracy {res['accuracy']:.4f}")


class WindowKNN:
    """k nearest neighbours over the last ``window`` learned points (all if None)."""

    def __init__(self, n_features: int, k: int = 3, window: int | None = None) -> None:
        self.k, self.window = k, window
        self.X = np.empty((window or 1024, n_features))
        self.y = np.empty(len(self.X), dtype=np.int64)
        self.n = self.head = 0

    def predict_one(self, x: np.ndarray) -> int | None:
        if self.n == 0:
            return None
        d = ((self.X[: self.n] - x) ** 2).sum(axis=1)
        if self.n > self.k:
            return int(np.bincount(self.y[np.argpartition(d, self.k - 1)[: self.k]]).argmax())
        return int(np.bincount(self.y[: self.n]).argmax())

    def learn_one(self, x: np.ndarray, label: int) -> None:
        if self.window is None and self.n == len(self.X):
            self.X = np.vstack([self.X, np.empty_like(self.X)])
            self.y = np.concatenate([self.y, np.empty_like(self.y)])
        full = self.window is not None and self.n == self.window
        slot = self.head if full else self.n
        self.X[slot], self.y[slot] = x, label
        if full and self.window is not None:
            self.head = (self.head + 1) % self.window
        else:
            self.n += 1


def knn_prequential(X: np.ndarray, y: np.ndarray, rate: float = 1.0,
                    window: int | None = None, seed: int = 1) -> tuple[float, int]:
    """DOC15 Alg. 5 for NN3, with the protocol generator ``Rng(seed)`` of the kit."""
    from reference.rng import Rng

    model, coins, correct = WindowKNN(X.shape[1], 3, window), Rng(seed), 0
    for x, label in zip(X, y, strict=True):
        correct += int(model.predict_one(x) == label)
        if rate >= 1.0 or coins.uniform() < rate:
            model.learn_one(x, int(label))
    return correct / len(y), model.n


def section_experiment() -> None:
    """Accuracy against model size at full length (DOC15 Fig. 3-4, Tables II-III style)."""
    from reference.evaluation.datasets import load_csv

    print("\n== accuracy vs model size, full streams, min-max scaled features ==")
    print(f"{'stream':<12} {'n':>6} {'rate/B':>6} | {'AUTO-ADJ':>8} {'balls':>5} | "
          f"{'FIX':>6} {'balls':>5} | {'NN3':>6} {'pts':>5} | {'NN3 win':>7} {'pts':>5}")
    for name in ("elec_moa", "covtype_50k", "sea_stream"):
        X, y = load_csv(name)
        span = X.max(axis=0) - X.min(axis=0)
        X = (X - X.min(axis=0)) / np.where(span > 0, span, 1.0)
        n = len(y)
        for frac in (0.01, 0.03, 0.05, 0.10):
            budget = int(frac * n)
            sub = fast.ABACOCClassifier(variant="auto_adj").prequential(X, y, rate=frac)
            fix = fast.ABACOCClassifier(variant="auto_adj", budget=budget).prequential(X, y)
            k1 = knn_prequential(X, y, rate=frac)
            k2 = knn_prequential(X, y, window=budget)
            print(f"{name:<12} {n:>6} {frac:>6.0%} | {sub['accuracy']:8.4f} {sub['n_balls']:5d} | "
                  f"{fix['accuracy']:6.4f} {fix['n_balls']:5d} | {k1[0]:6.4f} {k1[1]:5d} | "
                  f"{k2[0]:7.4f} {k2[1]:5d}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller streams")
    parser.add_argument("--experiment", action="store_true",
                        help="also run the full-length accuracy vs model size experiment")
    args = parser.parse_args(argv)
    print(f"python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.2f} "
          f"on {os.cpu_count()} cores (timings on a shared machine are noisy)\n")
    section_fast_vs_reference(2000 if args.quick else 5300)
    section_search(20000 if args.quick else 100000, 5000 if args.quick else 20000)
    section_throughput(20000 if args.quick else 100000)
    if args.experiment:
        section_experiment()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

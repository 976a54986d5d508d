"""Benchmark: batch throughput of every fast model, optionally against another build.

Speed work on the one-row calls and on prediction must not slow down learning in batches.
This script prints, per model, the CPU time per row of ``partial_fit`` on a fresh model
(Friedman-1 rows with 10 features; the dynamic trees on the first 5 features with 200
particles), and of the dynamic trees' batch predictions (``predict``, ``predict_dist``,
``predict_proba``, ``predict_entropy``) with 20 particles on 20,000 rows, where the
Python around the C calls weighs most; best of ``--repeats``. With ``--against DIR`` it
measures, in the same run, the ``fast`` package of another checkout ``DIR`` (built in
place, e.g. a ``git worktree`` of an older commit with ``pip install -e``), the two
alternating, and prints the ratio other/this (above 1: this build is faster).

Usage::

    python tests/benchmarks/bench_partial_fit.py
    git worktree add /tmp/old <commit> && (cd /tmp/old && pip install -e .)   # its own venv
    python tests/benchmarks/bench_partial_fit.py --against /tmp/old
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _checkout import run_in_checkout  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

_MEASURE = r"""
import json, sys, time
import fast
from reference.evaluation.datasets import friedman1

X, y = friedman1(20000, n_features=10, seed=7)
labels = (y > 14.0).astype(int)
small = X[:400, :5]
models = {
    "SGTRegressor": (lambda: fast.SGTRegressor(), X, y),
    "SGTClassifier": (lambda: fast.SGTClassifier(classes=[0, 1]), X, labels),
    "ABACOCClassifier": (lambda: fast.ABACOCClassifier(), X[:5000], labels[:5000]),
    "DynamicTreeRegressor (constant)":
        (lambda: fast.DynamicTreeRegressor(n_particles=200), small, y[:400]),
    "DynamicTreeRegressor (linear)":
        (lambda: fast.DynamicTreeRegressor(leaf="linear", n_particles=200), small, y[:400]),
    "DynamicTreeClassifier":
        (lambda: fast.DynamicTreeClassifier(classes=[0, 1], n_particles=200), small,
         labels[:400]),
}
out = {}
for name, (make, X_, y_) in models.items():
    model = make()
    start = time.process_time()
    model.partial_fit(X_, y_)
    out["partial_fit " + name] = 1e6 * (time.process_time() - start) / len(X_)
# batch predictions of the dynamic trees with few particles, where the Python around the
# C calls weighs most: 20 particles trained on 300 rows, 20,000 rows predicted
grid = X[:, :5]
regressor = fast.DynamicTreeRegressor(n_particles=20)
regressor.partial_fit(grid[:300], y[:300])
classifier = fast.DynamicTreeClassifier(classes=[0, 1], n_particles=20)
classifier.partial_fit(grid[:300], labels[:300])
for name, call in [("DynamicTreeRegressor.predict", regressor.predict),
                   ("DynamicTreeRegressor.predict_dist", regressor.predict_dist),
                   ("DynamicTreeClassifier.predict_proba", classifier.predict_proba),
                   ("DynamicTreeClassifier.predict_entropy", classifier.predict_entropy)]:
    start = time.process_time()
    call(grid)
    out[name] = 1e6 * (time.process_time() - start) / len(grid)
print(json.dumps({"file": fast.__file__, "us": out}))
"""


def _measure(checkout: Path) -> dict[str, float]:
    """One measurement of every model, in a fresh interpreter importing ``checkout``."""
    us: dict[str, float] = run_in_checkout(_MEASURE, checkout)["us"]
    return us


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, help="another checkout, built in place")
    parser.add_argument("--repeats", type=int, default=5, help="best of this many runs")
    args = parser.parse_args()
    builds = {"this": ROOT} | ({"other": args.against} if args.against else {})
    best: dict[str, dict[str, float]] = {name: {} for name in builds}
    start = time.perf_counter()
    for _ in range(args.repeats):
        for name, checkout in builds.items():
            for model, us in _measure(checkout).items():
                best[name][model] = min(best[name].get(model, float("inf")), us)
    print(f"CPU µs per row, best of {args.repeats} "
          f"({time.perf_counter() - start:.0f} s)")
    header = f"{'call':<48} {'this':>9}"
    if args.against:
        header += f" {'other':>9} {'other/this':>11}"
    print(header)
    for model, us in best["this"].items():
        line = f"{model:<48} {us:9.2f}"
        if args.against:
            other = best["other"][model]
            line += f" {other:9.2f} {other / us:10.2f}x"
        print(line)


if __name__ == "__main__":
    main()

"""Benchmark: dynamic-tree predictions and ALC, fast against dynaTree 1.2-17, and n_jobs.

The workload of the Performance page: ``N = 1,000`` particles fitted on 1,000 Friedman-1
rows (5 inputs, seed 1), then one call on 10,000 fresh rows (seed 2):

- ``predict`` of the constant and linear (augmented) leaves and ``predict_proba`` of the
  class leaf (labels: response above its median) against dynaTree's
  ``predict(obj, XX, quants = FALSE)``;
- ``alc`` over 1,000 candidates (constant and linear) against ``alc(obj, XX)``, the
  default box (the range of the data and the candidates) on both sides.

CPU time, best of ``--repeats`` each side, one thread; dynaTree is timed inside R
(``proc.time()``), in the same run, on the same data (``tests/benchmarks/_rdynatree.py``),
when ``Rscript`` and the package are installed (only ours is printed otherwise). Each of
our timed calls first drops the model's cached per-set records and ALC preps
([DT-SPEC §8.4]), so the times include building them, as the first call after learning
does; each ALC repetition uses a different candidate set on both sides.

Then the wall time of ``predict`` (and ``predict_dist``) with ``n_jobs=1`` and
``n_jobs=2``, best of ``--repeats``, and their ratio: on a machine where other processes
compete for the cores the ratio is lower than on an idle one, so the script prints the
machine's load average beside it. Every ``n_jobs`` must give identical arrays (checked).

Usage::

    python tests/benchmarks/bench_dynatree_predict.py              # about 2 minutes with R
    python tests/benchmarks/bench_dynatree_predict.py --no-r       # ours only
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _rdynatree  # noqa: E402

import fast  # noqa: E402
from reference.evaluation.datasets import friedman1  # noqa: E402

R_SCRIPT = r"""
suppressMessages(library(dynaTree))
a <- commandArgs(TRUE)
d <- as.matrix(read.csv(a[1], header = FALSE))
model <- a[2]; N <- as.integer(a[3]); reps <- as.integer(a[4]); set.seed(1)
p <- ncol(d) - 2
train <- d[d[, ncol(d)] < 0, , drop = FALSE]
X <- train[, 1:p, drop = FALSE]; y <- train[, p + 1]
if (model == "linear") {
  obj <- dynaTree(X, y, N = N, model = "linear", icept = "augmented", verb = 0)
} else if (model == "class") {
  obj <- dynaTree(X, y + 1, N = N, model = "class", verb = 0)
} else {
  obj <- dynaTree(X, y, N = N, model = "constant", verb = 0)
}
cpu <- function(expr) { t <- proc.time(); force(expr); u <- proc.time() - t
                        u[["user.self"]] + u[["sys.self"]] }
XX <- d[d[, ncol(d)] == 0, 1:p, drop = FALSE]
best <- Inf
for (r in 1:reps) best <- min(best, cpu(predict(obj, XX, quants = FALSE, verb = 0)))
cat("predict", best, "\n")
if (model != "class") {
  best <- Inf
  for (r in 1:reps) {
    C <- d[d[, ncol(d)] == r, 1:p, drop = FALSE]
    best <- min(best, cpu(alc(obj, C, verb = 0)))
  }
  cat("alc", best, "\n")
}
"""

LEAVES: dict[str, dict[str, Any]] = {
    "constant": {"leaf": "constant"},
    "linear": {"leaf": "linear", "intercept": "augmented"},
    "class": {},
}


def make(name: str, n_particles: int, seed: int = 7) -> Any:
    if name == "class":
        return fast.DynamicTreeClassifier(classes=[0, 1], n_particles=n_particles, seed=seed)
    return fast.DynamicTreeRegressor(n_particles=n_particles, seed=seed, **LEAVES[name])


def targets(name: str, y: np.ndarray) -> np.ndarray:
    return np.asarray(y > np.median(y), dtype=np.int64) if name == "class" else y


def drop_caches(model: Any) -> None:
    """Forget the per-set records and ALC preps (rebuilt by the next call)."""
    handle = model._engine._m
    handle.pred.ok = 0
    handle.alcc.ok = 0


def best_of(call: Callable[[], Any], repeats: int, clock: Callable[[], float],
            before: Callable[[], None] | None = None) -> float:
    best = math.inf
    for _ in range(repeats):
        if before is not None:
            before()
        start = clock()
        call()
        best = min(best, clock() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--particles", type=int, default=1000)
    parser.add_argument("--train", type=int, default=1000)
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--candidates", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-r", action="store_true", help="skip dynaTree")
    args = parser.parse_args()
    with_r = not args.no_r and _rdynatree.available()
    X, y = friedman1(args.train, seed=1)
    Q, _ = friedman1(args.rows, seed=2)
    cands = [friedman1(args.candidates, seed=10 + r)[0] for r in range(args.repeats)]
    print(f"N = {args.particles} particles, {args.train} Friedman-1 rows; predict on "
          f"{args.rows} rows, alc on {args.candidates} candidates; CPU s, best of "
          f"{args.repeats}, one thread")
    if not with_r:
        print(_rdynatree.INSTALL if not args.no_r else "   (dynaTree not run: --no-r)")
    print(f"{'leaf':<9} {'call':<14} {'dynaTree':>9} {'fast':>8} {'ratio':>7}")
    models = {}
    for name in LEAVES:
        yy = targets(name, y)
        model = make(name, args.particles).fit(X, yy)
        models[name] = model
        theirs: dict[str, float] = {}
        if with_r:
            data = [np.column_stack([X, yy, -np.ones(len(yy))]),
                    np.column_stack([Q, np.zeros(len(Q)), np.zeros(len(Q))])]
            data += [np.column_stack([c, np.zeros(len(c)), np.full(len(c), r + 1.0)])
                     for r, c in enumerate(cands)]
            for line in _rdynatree.run(R_SCRIPT, np.vstack(data), name,
                                       str(args.particles), str(args.repeats)):
                key, value = line.split()
                theirs[key] = float(value)
        call = "predict_proba" if name == "class" else "predict"
        ours = {"predict": best_of(lambda m=model, c=call: getattr(m, c)(Q), args.repeats,
                                   time.process_time, lambda m=model: drop_caches(m))}
        if name != "class":
            it = iter(cands * 2)
            ours["alc"] = best_of(lambda m=model, it=it: m.alc(next(it)), args.repeats,
                                  time.process_time, lambda m=model: drop_caches(m))
        for key, sec in ours.items():
            label = call if key == "predict" else f"alc ({args.candidates})"
            r_sec = theirs.get(key, math.nan)
            print(f"{name:<9} {label:<14} {r_sec:9.3f} {sec:8.3f} {r_sec / sec:6.1f}x")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else math.nan
    print(f"\nwall s of one call on {args.rows} rows, best of {args.repeats}, "
          f"{os.cpu_count()} cores, load average {load:.1f} when measured")
    print(f"{'leaf':<9} {'call':<14} {'n_jobs=1':>9} {'n_jobs=2':>9} {'speed-up':>9}  check")
    for name, model in models.items():
        calls = ("predict_proba",) if name == "class" else ("predict", "predict_dist")
        for call in calls:
            walls, outs = [], []
            for jobs in (1, 2):
                model.set_params(n_jobs=jobs)
                walls.append(best_of(lambda m=model, c=call: getattr(m, c)(Q),
                                     args.repeats, time.perf_counter))
                outs.append(getattr(model, call)(Q))
            same = all(np.array_equal(outs[0][k], outs[1][k]) for k in outs[0]) \
                if isinstance(outs[0], dict) else np.array_equal(outs[0], outs[1])
            print(f"{name:<9} {call:<14} {walls[0]:9.3f} {walls[1]:9.3f} "
                  f"{walls[0] / walls[1]:8.2f}x  {'identical' if same else 'DIFFER'}")
            model.set_params(n_jobs=None)


if __name__ == "__main__":
    main()

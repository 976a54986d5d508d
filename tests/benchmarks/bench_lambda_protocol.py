"""Why AG13's Fig. 4 is U-shaped: two retirement protocols on the drifting Friedman stream.

AG13 §5.1 reports a U-shaped one-step RMSE against the forgetting factor λ (best near
0.98 for slow drift, 0.95 for fast drift). With *historical* retirement (the oldest
active point is retired before each new one) both this project and R's dynaTree 1.2-17
give a curve that keeps falling down to λ = 0.4. The U appears with another protocol:
calling dynaTree's ``retire(obj, 1)`` at every step. dynaTree's ``retire`` closes the
hole by moving the *last* row of the pool into it (``src/pall.c``), so from the second
round on, index 1 holds the newest point: the loop retires the point that just arrived
and keeps the initial pool for ever. The retired prior then carries all recent
information, and λ trades stale prior information against too short a memory: a U.

This script runs, on the same stream (linear leaves with the augmented intercept,
N = 50, pool 500, 500 initial points, one-step RMSE over the rest):

- ``historical``: this project's ``retirement="historical"`` (the oldest point);
- ``retire-1``: the same model with the ``retire(obj, 1)`` sequence emulated through the
  public ``retire`` (position 0 at the first step, the newest position afterwards);
- the same two loops in R with dynaTree when ``Rscript`` and the dynaTree package are
  installed (Debian: ``apt-get install r-base-core r-base-dev``, then
  ``R CMD INSTALL`` of dynaTree's source, public on GitHub as ``cran/dynaTree``).

Usage::

    python tests/benchmarks/bench_lambda_protocol.py                 # k = 0.1, 10,000 steps
    python tests/benchmarks/bench_lambda_protocol.py --k 0.5 --n 4000 --seed 2
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import fast  # noqa: E402
from reference.evaluation.datasets import drifting_friedman  # noqa: E402

LAMS = (1.0, 0.99, 0.98, 0.95, 0.9, 0.8, 0.6, 0.4)
POOL = 500

R_SCRIPT = r"""
suppressMessages(library(dynaTree))
args <- commandArgs(TRUE)
d <- as.matrix(read.csv(args[1], header = FALSE))
lams <- as.numeric(strsplit(args[2], ",")[[1]])
protocol <- args[3]
n <- nrow(d); X <- d[, 1:5]; y <- d[, 6]; w <- 500
for (lam in lams) {
  set.seed(1)
  obj <- dynaTree(X[1:w, ], y[1:w], N = 50, model = "linear", icept = "augmented", verb = 0)
  age <- 1:w       # arrival time of each pool row, following dynaTree's compaction
  pred <- numeric(n - w)
  for (t in (w + 1):n) {
    pred[t - w] <- predict(obj, X[t, , drop = FALSE], quants = FALSE, verb = 0)$mean
    i <- if (protocol == "retire-1") 1 else which.min(age)
    obj <- retire(obj, i, lambda = lam, verb = 0)
    m <- length(age); age[i] <- age[m]; age <- c(age[-m], t)
    obj <- update(obj, X[t, , drop = FALSE], y[t], verb = 0)
  }
  cat(lam, sqrt(mean((pred - y[(w + 1):n])^2)), "\n")
  deletecloud(obj)
}
"""


def ours(X: np.ndarray, y: np.ndarray, lam: float, protocol: str) -> float:
    n = len(y)
    if protocol == "historical":
        model = fast.DynamicTreeRegressor(leaf="linear", intercept="augmented", n_particles=50,
                                          seed=1, active_size=POOL, retirement="historical",
                                          lam=lam)
    else:
        model = fast.DynamicTreeRegressor(leaf="linear", intercept="augmented", n_particles=50,
                                          seed=1)
    model.partial_fit(X[:POOL], y[:POOL])
    pred = np.empty(n - POOL)
    for t in range(POOL, n):
        pred[t - POOL] = model.predict_one(X[t])
        if protocol == "retire-1":
            model.retire([0 if t == POOL else POOL - 1], lam=lam)
        model.learn_one(X[t], y[t])
    return float(np.sqrt(np.mean((pred - y[POOL:]) ** 2)))


def dynatree(X: np.ndarray, y: np.ndarray, protocol: str) -> list[float] | None:
    if shutil.which("Rscript") is None:
        return None
    probe = subprocess.run(["Rscript", "-e", "library(dynaTree)"], capture_output=True)
    if probe.returncode != 0:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        data, script = Path(tmp) / "d.csv", Path(tmp) / "run.R"
        np.savetxt(data, np.column_stack([X, y]), delimiter=",", fmt="%.17g")
        script.write_text(R_SCRIPT)
        out = subprocess.run(["Rscript", str(script), str(data), ",".join(map(str, LAMS)),
                              protocol], capture_output=True, text=True, check=True)
    return [float(line.split()[1]) for line in out.stdout.splitlines() if line.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--k", type=float, default=0.1, help="drift speed (0.1 slow, 0.5 fast)")
    parser.add_argument("--n", type=int, default=10_000, help="stream length")
    parser.add_argument("--seed", type=int, default=3, help="stream seed")
    args = parser.parse_args()
    X, y = drifting_friedman(args.n, k=args.k, seed=args.seed)
    print(f"drifting Friedman k = {args.k}, n = {args.n}, seed {args.seed}: one-step RMSE")
    print(f"{'lambda':<20}" + "".join(f"{lam:>7}" for lam in LAMS))
    for protocol in ("historical", "retire-1"):
        row = [ours(X, y, lam, protocol) for lam in LAMS]
        print(f"{'driftwood ' + protocol:<20}" + "".join(f"{v:7.2f}" for v in row))
        theirs = dynatree(X, y, protocol)
        if theirs is None:
            print(f"{'dynaTree':<20} (Rscript with the dynaTree package not found; see the "
                  f"docstring)")
        else:
            print(f"{'dynaTree ' + protocol:<20}" + "".join(f"{v:7.2f}" for v in theirs))


if __name__ == "__main__":
    main()

"""Benchmark: the linear leaf with and without the slope prior on River's TrumpApproval.

The figures of the section "The slope prior" of ``docs/spec/dynamic_trees.md`` (§3.7) and
of the tutorial's "The linear leaf". A River user's run: River's ``TrumpApproval`` (1,001
rows, 6 inputs, shipped inside ``river``, no download) through
``compose.Pipeline(preprocessing.StandardScaler(), to_river(model))``, evaluated
prequentially (predict, then learn, one row at a time; what
``evaluate.progressive_val_score`` does, and its MAE is checked against the loop's). Per
setting and seed: MAE, the worst absolute error and the row where it happens, and the worst
error after the first row (which every model predicts as 0).

Settings: the constant leaf, the paper's linear leaf (``slope_prior=None``, the default) and
the linear leaf with the Gaussian slope prior ``slope_prior=kappa`` for a few ``kappa``, all
with ``n_particles=100`` (``--particles``), ``fast`` backend.

Usage::

    python tests/benchmarks/bench_linear_leaf.py                 # 4 seeds, ~1 minute
    python tests/benchmarks/bench_linear_leaf.py --seeds 0 1 --particles 50
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import fast  # noqa: E402
from reference import to_river  # noqa: E402

SETTINGS: dict[str, dict[str, Any]] = {
    "constant leaf": {},
    "linear, paper (slope_prior=None)": {"leaf": "linear"},
    "linear, slope_prior=0.1": {"leaf": "linear", "slope_prior": 0.1},
    "linear, slope_prior=1": {"leaf": "linear", "slope_prior": 1.0},
    "linear, slope_prior=10": {"leaf": "linear", "slope_prior": 10.0},
}


def run(setting: dict[str, Any], seed: int,
        particles: int) -> tuple[float, float, int, float, float]:
    """MAE, worst absolute error, its row, the worst after row 0, and the MAE of
    ``progressive_val_score``."""
    from river import compose, datasets, evaluate, metrics, preprocessing

    def pipeline() -> Any:
        model = fast.DynamicTreeRegressor(n_particles=particles, seed=seed, **setting)
        return compose.Pipeline(preprocessing.StandardScaler(), to_river(model))

    pipe = pipeline()
    total, worst, worst_at, later, n = 0.0, 0.0, -1, 0.0, 0
    for i, (x, y) in enumerate(datasets.TrumpApproval()):
        err = abs(pipe.predict_one(x) - y)
        total += err
        if err > worst:
            worst, worst_at = err, i
        if i > 0:
            later = max(later, err)
        pipe.learn_one(x, y)
        n += 1
    river_mae = evaluate.progressive_val_score(datasets.TrumpApproval(), pipeline(),
                                               metrics.MAE()).get()
    return total / n, worst, worst_at, later, river_mae


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3])
    parser.add_argument("--particles", type=int, default=100)
    args = parser.parse_args()
    print(f"TrumpApproval, StandardScaler + DynamicTreeRegressor(n_particles={args.particles}),"
          " prequential")
    print(f"  {'setting':34} {'seed':>4} {'MAE':>10} {'worst':>11} {'at row':>7} "
          f"{'worst > 0':>10} {'s':>6}")
    for name, setting in SETTINGS.items():
        for seed in args.seeds:
            start = time.perf_counter()
            mae, worst, at, later, river_mae = run(setting, seed, args.particles)
            if abs(mae - river_mae) > 1e-9 * max(1.0, mae):
                raise AssertionError(f"{name}: loop MAE {mae} != progressive_val_score "
                                     f"{river_mae}")
            print(f"  {name:34} {seed:>4} {mae:>10.3f} {worst:>11.2f} {at:>7} "
                  f"{later:>10.2f} {time.perf_counter() - start:>6.1f}", flush=True)


if __name__ == "__main__":
    main()

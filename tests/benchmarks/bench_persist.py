"""Save, load, pickle and copy of fitted fast models: CPU time, MB/s and the ratio to the fit.

For every family, one model at the size of issue 39 (and, with ``--scale 10``, ten times
as many rows):

- ``DynamicTreeRegressor(n_particles=1000)`` on 2,000 Friedman #1 rows;
- ``SGTRegressor()`` on 200,000 Friedman #1 rows;
- ``ABACOCClassifier()`` on 50,000 rows of 10 features (three classes, :func:`classes3`);

the script fits the model once (CPU time of ``fit``), then times, each the best of
``--repeat`` runs of CPU time: ``save`` (compressed, the default, and ``compress=False``),
``load`` (``fast.load``, every check made, the size cap raised to 4 GiB for the
largest models), a pickle round trip (``pickle.dumps`` then
``pickle.loads``, the default protocol) and ``copy.deepcopy``. Each line prints the
time, the throughput (MB of the file or the pickle per second) and the time as a
fraction of the fit's; the target of issue 39 is at most ``max(10% of fit, 50 ms)``
for every operation (column ``ok``). It also checks that each copy predicts as the
original, bit for bit.

Usage::

    python tests/benchmarks/bench_persist.py              # the issue's sizes
    python tests/benchmarks/bench_persist.py --scale 10   # ten times the rows
"""

from __future__ import annotations

import argparse
import copy
import os
import pickle
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import fast  # noqa: E402
from reference.evaluation.datasets import friedman1  # noqa: E402


def classes3(n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` Gaussian rows of ``d`` features in three classes: the largest of three random
    linear scores, 10% of the labels redrawn at random (a boundary that takes many
    balls)."""
    rng = np.random.default_rng(seed)
    weights = rng.normal(size=(d, 3))            # drawn first: the same for every n
    X = rng.normal(size=(n, d))
    y = np.argmax(X @ weights, axis=1)
    flip = rng.random(n) < 0.1
    y[flip] = rng.integers(0, 3, int(flip.sum()))
    return X, y


def models(scale: int) -> list[tuple[str, Callable[[], Any], np.ndarray, np.ndarray]]:
    X1, y1 = friedman1(2000 * scale, seed=1)
    X2, y2 = friedman1(200_000 * scale, seed=2)
    X3, y3 = classes3(50_000 * scale, 10, seed=3)
    return [("DynamicTreeRegressor(n_particles=1000)",
             lambda: fast.DynamicTreeRegressor(n_particles=1000, seed=1), X1, y1),
            ("SGTRegressor()", lambda: fast.SGTRegressor(), X2, y2),
            ("ABACOCClassifier()", lambda: fast.ABACOCClassifier(), X3, y3)]


def cpu(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Best CPU time of ``repeat`` calls of ``fn`` and the last result."""
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.process_time()
        out = fn()
        best = min(best, time.process_time() - start)
    return best, out


def bench(name: str, make: Callable[[], Any], X: np.ndarray, y: np.ndarray, path: str,
          repeat: int) -> None:
    """Fit one model, then time and print each operation."""
    model = make()
    start = time.process_time()
    model.fit(X, y)
    fit = time.process_time() - start
    probe = X[:200]
    expected = model.predict(probe)
    target = max(0.1 * fit, 0.05)
    print(f"{name:40s} {'fit':18s} {fit:8.3f}")

    def row(op: str, seconds: float, nbytes: int, twin: Any) -> None:
        mb = nbytes / 1e6
        ok = "yes" if seconds <= target else "NO"
        same = np.array_equal(twin.predict(probe), expected)
        print(f"{'':40s} {op:18s} {seconds:8.3f} {mb:7.2f} {mb / seconds:8.1f} "
              f"{seconds / fit:7.3f} {ok:>3s}" + ("" if same else "  DIFFERS"))

    for compress in (True, False):
        t_save, _ = cpu(lambda c=compress: model.save(path, compress=c), repeat)
        size = os.path.getsize(path)
        # the cap of 128 MiB would refuse the dynamic tree at ten times the rows: raised,
        # as a user does for a large model they trust
        t_load, twin = cpu(lambda: fast.load(path, max_bytes=1 << 32), repeat)
        label = "" if compress else " (raw)"
        row("save" + label, t_save, size, twin)
        row("load" + label, t_load, size, twin)
    blob = pickle.dumps(model)
    t_pickle, twin = cpu(lambda: pickle.loads(pickle.dumps(model)), repeat)
    row("pickle round trip", t_pickle, len(blob), twin)
    t_copy, twin = cpu(lambda: copy.deepcopy(model), repeat)
    row("copy.deepcopy", t_copy, len(blob), twin)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--scale", type=int, default=1, help="rows times this (default 1)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per operation (best)")
    parser.add_argument("--only", default="", help="run the models whose name starts so")
    args = parser.parse_args()
    print(f"{'model':40s} {'operation':18s} {'CPU s':>8s} {'MB':>7s} {'MB/s':>8s} "
          f"{'/ fit':>7s} {'ok':>3s}")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.dwm")
        for name, make, X, y in models(args.scale):
            if name.startswith(args.only):
                bench(name, make, X, y, path, args.repeat)


if __name__ == "__main__":
    main()

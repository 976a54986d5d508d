"""Benchmark: SGT at the paper's settings, before and after ``warmup_prediction='newton'``.

Every model here has ``quantization="global"`` (the paper's bins, frozen after a 1,000-row
warm-up), the default when these tables were measured.

The numbers of the Reproduction page's sections "SGT regression at its defaults" and "SGT
with more than two classes" (``docs/reproduction.md``). Every run is prequential
(test-then-train, one row at a time, ``progressive_predict`` of the fast backend) and is
split at the end of the 1,000-row warm-up:

* ``regression``: the project's ``friedman10`` stream (``driftwood run --stream
  friedman10``), first ``--n`` rows, seed 1; MAE of ``SGTRegressor`` with
  ``warmup_prediction='newton'`` (the default), ``'zero'`` (the previous default, the
  authors' rule) and ``warmup_trains=False``, and of River's ``SGTRegressor``;
* ``binary``: the threshold-Friedman stream of ``tests/benchmarks/bench_sgt.py`` (numpy
  Friedman-10, label ``1[y > median(y)]``, 100,000 rows, seed 1), the stream of the
  figures ours .830 and MOA .832 quoted when the Newton default was chosen; accuracy of
  ``SGTClassifier`` newton / zero;
* ``multiclass``: the first 20,000 rows of ``letter`` and ``shuttle_statlog`` and all
  2,310 of ``image_segments`` in file order; accuracy of ``SGTClassifier`` newton / zero
  / ``warmup_trains=False``.

Usage::

    python tests/benchmarks/bench_sgt_defaults.py                    # everything, ~1 minute
    python tests/benchmarks/bench_sgt_defaults.py --only multiclass
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.bench_sgt import friedman10 as numpy_friedman10  # noqa: E402

import fast  # noqa: E402
from reference.evaluation import datasets  # noqa: E402

WARMUP = 1000
PAPER_BINS: dict[str, Any] = {"quantization": "global"}
"""The paper's global bins after a 1,000-row warm-up, which these tables measure (the
models' default is now per-leaf bins, ``tests/benchmarks/bench_sgt_quantization.py``)."""
SETTINGS: dict[str, dict[str, Any]] = {
    "defaults (newton)": dict(PAPER_BINS),
    "warmup_prediction='zero'": {"warmup_prediction": "zero", **PAPER_BINS},
    "warmup_trains=False": {"warmup_trains": False, **PAPER_BINS},
}


def _split(loss: np.ndarray) -> tuple[float, float, float]:
    """Mean over all rows, over the warm-up rows and over the rows after it."""
    return float(loss.mean()), float(loss[:WARMUP].mean()), float(loss[WARMUP:].mean())


def _row(name: str, parts: tuple[float, float, float], digits: int) -> str:
    return f"  {name:32} " + " ".join(f"{v:>12.{digits}f}" for v in parts)


def regression(n: int) -> None:
    """Friedman-10 (the project's generator): MAE, split at the warm-up."""
    X, y = datasets.friedman1(n, n_features=10, seed=1)
    print(f"regression: friedman10, n = {n}, seed 1; MAE {'all':>8} {'warm-up':>12} "
          f"{'after':>12}")
    for name, kw in SETTINGS.items():
        pred = fast.SGTRegressor(**kw).progressive_predict(X, y)
        print(_row(name, _split(np.abs(pred - y)), 3))
    from river import tree

    model = tree.SGTRegressor()
    pred = np.empty(n)
    for i, (x, t) in enumerate(zip(X.tolist(), y.tolist(), strict=True)):
        p = model.predict_one(dict(enumerate(x)))
        pred[i] = float(p) if p is not None else 0.0
        model.learn_one(dict(enumerate(x)), t)
    print(_row("River 0.26.1 SGTRegressor", _split(np.abs(pred - y)), 3))


def _accuracy(X: np.ndarray, y: np.ndarray, **kw: Any) -> tuple[float, float, float]:
    model = fast.SGTClassifier(classes=[int(c) for c in np.unique(y)], **kw)
    pred = model.progressive_predict(X, y)
    return _split((pred == y).astype(float))


def binary(n: int) -> None:
    """bench_sgt.py's threshold-Friedman stream: accuracy, split at the warm-up."""
    X, y = numpy_friedman10(n, 1)
    labels = (y > np.median(y)).astype(np.int64)
    print(f"binary: threshold-Friedman (bench_sgt.py), n = {n}, seed 1; accuracy "
          f"{'all':>4} {'warm-up':>12} {'after':>12}")
    for name, kw in list(SETTINGS.items())[:2]:
        print(_row(name, _accuracy(X, labels, **kw), 4))


def multiclass(n: int) -> None:
    """letter, image segments, shuttle in file order: accuracy, split at the warm-up."""
    for data in ("image_segments", "letter", "shuttle_statlog"):
        X, y = datasets.load_csv(data)
        X, y = X[:n], y[:n]
        print(f"multiclass: {data}, {len(y)} rows, {len(np.unique(y))} classes; accuracy "
              f"{'all':>4} {'warm-up':>12} {'after':>12}")
        for name, kw in SETTINGS.items():
            print(_row(name, _accuracy(X, y, **kw), 4))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=["regression", "binary", "multiclass"])
    args = parser.parse_args()
    if args.only in (None, "regression"):
        regression(20_000)
    if args.only in (None, "binary"):
        binary(100_000)
    if args.only in (None, "multiclass"):
        multiclass(20_000)


if __name__ == "__main__":
    main()

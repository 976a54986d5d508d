"""Benchmark: SGT with global bins (the paper's) against per-leaf bins, and the warm-up.

The measurements behind the defaults ``quantization`` and ``warmup`` of the SGT models
(``docs/spec/sgt.md`` §5.8 and §12). Every run is prequential (test-then-train, one row at
a time) and prints one table: accuracy (classification, higher is better) or MAE
(regression, lower is better) of the fast ``SGTClassifier`` / ``SGTRegressor`` at
each setting, beside River's Hoeffding tree in the same run.

* River's own data sets, which ship inside River (``river.datasets.Phishing``, 1,250 rows,
  and ``TrumpApproval``, 1,001 rows), inside ``compose.Pipeline(
  preprocessing.StandardScaler(), to_river(model))`` with
  ``evaluate.progressive_val_score``, as a River user would run them; the Hoeffding tree in
  the same pipeline.
* The project's streams (``driftwood run --stream ...``): ``friedman`` (stationary),
  ``drift-fast`` (drifting Friedman), ``sea`` and ``hyperplane`` (drifting concepts), seed
  1, and the shipped ``elec2_dynatree`` (real, drifting) in file order; each short (the
  first 1,000 rows) and long (20,000 rows), raw features (no scaling), the Hoeffding tree
  fed the same rows;
* ``shifting inputs``: x0 uniform on [0, 1] in the first half and on [5, 8] in the second,
  x1 uniform on [-1, 1], y = ±4 by a step in x0 (at 0.5, then 6.5) + x1 + N(0, 0.3²), seed
  3: the inputs leave the warm-up's range (the stream of the drift tests of
  ``tests/sgt/test_leaf_quantization.py``).

Usage::

    python tests/benchmarks/bench_sgt_quantization.py            # everything, ~30 seconds
    python tests/benchmarks/bench_sgt_quantization.py --long 5000
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import fast  # noqa: E402
from reference.evaluation import datasets  # noqa: E402
from reference.evaluation.catalog import make_stream  # noqa: E402

SETTINGS: dict[str, dict[str, Any]] = {
    "global/1000": {"quantization": "global", "warmup": 1000},   # the paper [GPF19]
    "global/200": {"quantization": "global", "warmup": 200},
    "global/100": {"quantization": "global", "warmup": 100},
    "leaf/1000": {"quantization": "leaf", "warmup": 1000},
    "leaf/200 (dflt)": {"quantization": "leaf", "warmup": 200},   # = the defaults
    "leaf/100": {"quantization": "leaf", "warmup": 100},
    "leaf/50": {"quantization": "leaf", "warmup": 50},
}


def river_score(dataset: Any, task: str, make: Callable[[], Any]) -> float:
    """Accuracy or MAE of ``StandardScaler | model`` on a River data set."""
    from river import compose, evaluate, metrics, preprocessing

    metric = metrics.Accuracy() if task == "cls" else metrics.MAE()
    pipe = compose.Pipeline(preprocessing.StandardScaler(), make())
    return float(evaluate.progressive_val_score(dataset, pipe, metric).get())


def river_rows() -> list[tuple[str, str, dict[str, float]]]:
    from river import datasets as rd
    from river import tree

    out = []
    for name, data, task in (("Phishing (River)", rd.Phishing(), "cls"),
                             ("TrumpApproval (River)", rd.TrumpApproval(), "reg")):
        scores: dict[str, float] = {}
        for label, kw in SETTINGS.items():
            if task == "cls":   # Phishing's labels: True / False
                kw = dict(kw, classes=[False, True])
            cls = fast.SGTClassifier if task == "cls" else fast.SGTRegressor
            scores[label] = river_score(data, task, lambda c=cls, k=kw: fast.to_river(c(**k)))
        ht = tree.HoeffdingTreeClassifier if task == "cls" else tree.HoeffdingTreeRegressor
        scores["Hoeffding tree"] = river_score(data, task, ht)
        out.append((name, task, scores))
    return out


def hoeffding(X: np.ndarray, y: np.ndarray, task: str) -> float:
    """The Hoeffding tree (River defaults), test-then-train on the same rows."""
    from river import tree

    model = tree.HoeffdingTreeClassifier() if task == "cls" else tree.HoeffdingTreeRegressor()
    hits, err = 0, 0.0
    for row, target in zip(X.tolist(), y.tolist(), strict=True):
        x = dict(enumerate(row))
        pred = model.predict_one(x)
        if task == "cls":
            hits += int(pred == target)
        else:
            err += abs((pred or 0.0) - target)
        model.learn_one(x, target)
    return hits / len(y) if task == "cls" else err / len(y)


def sgt(X: np.ndarray, y: np.ndarray, task: str, kw: dict[str, Any]) -> float:
    if task == "cls":
        model = fast.SGTClassifier(classes=sorted(set(y.tolist())), **kw)
        return float(np.mean(model.progressive_predict(X, y) == y))
    pred = fast.SGTRegressor(**kw).progressive_predict(X, y)
    return float(np.mean(np.abs(pred - y)))


def shifting_inputs(n: int, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """x0 leaves the warm-up's range halfway; the target's step in x0 moves with it."""
    rng = np.random.default_rng(seed)
    X = np.empty((n, 2))
    y = np.empty(n)
    for i in range(n):
        late = i >= n // 2
        x0 = float(rng.uniform(5.0, 8.0) if late else rng.uniform(0.0, 1.0))
        x1 = float(rng.uniform(-1.0, 1.0))
        step = x0 > (6.5 if late else 0.5)
        X[i] = (x0, x1)
        y[i] = (4.0 if step else -4.0) + x1 + 0.3 * float(rng.normal())
    return X, y


def project_rows(long: int) -> list[tuple[str, str, dict[str, float]]]:
    out = []
    sources: list[tuple[str, Callable[[int], tuple[np.ndarray, np.ndarray]]]] = [
        (name, lambda n, s=name: make_stream(s, n, 1, None)[1])
        for name in ("friedman", "drift-fast", "sea", "hyperplane")]
    sources.append(("elec2_dynatree", lambda n: tuple(a[:n] for a in  # type: ignore[misc]
                                                     datasets.load_csv("elec2_dynatree"))))
    sources.append(("shifting inputs", shifting_inputs))
    for name, load in sources:
        task = "reg"
        for n in (1000, long):
            X_all, y_all = load(n) if name == "shifting inputs" else load(long)
            task = "cls" if y_all.dtype.kind in "iub" else "reg"
            X, y = np.ascontiguousarray(X_all[:n], dtype=np.float64), y_all[:n]
            scores = {label: sgt(X, y, task, kw) for label, kw in SETTINGS.items()}
            scores["Hoeffding tree"] = hoeffding(X, y, task)
            out.append((f"{name} ({n} rows)", task, scores))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--long", type=int, default=20000, help="rows of the long streams")
    args = parser.parse_args()
    start = time.perf_counter()
    rows = river_rows() + project_rows(args.long)
    cols = [*SETTINGS, "Hoeffding tree"]
    print("SGT quantization/warmup, prequential; acc = accuracy (higher is better), "
          "MAE (lower is better); dflt: the defaults")
    print(f"{'stream':30} {'metric':>6} " + " ".join(f"{c:>15}" for c in cols))
    for name, task, scores in rows:
        metric = "acc" if task == "cls" else "MAE"
        print(f"{name:30} {metric:>6} " + " ".join(f"{scores[c]:>15.4f}" for c in cols))
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()

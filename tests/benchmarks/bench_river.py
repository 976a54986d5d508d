"""Benchmark: River's one-row and mini-batch methods through ``fast.to_river``.

River users stream dict rows one at a time (``learn_one``, ``predict_one``) or in pandas
mini-batches (``learn_many``, ``predict_many``); the adapter maps the dicts' keys to the
model's feature order and fills absent features (``reference.river_rows``), then calls the
model's one-row methods or its batch path (``partial_fit`` / ``predict`` /
``predict_proba``, in C). This script prints, in one run, best of ``--repeats`` on fresh
models with the variants of each repeat interleaved, µs per row of:

* ``model one`` — the fast model's own ``learn_one`` / ``predict_one`` on the same rows as
  lists in the adapter's feature order (the cost without the adapter);
* ``adapter one`` — the adapter's ``learn_one`` / ``predict_one`` on the dict rows;
* ``adapter many`` — ``learn_many`` / ``predict_many`` on data frames of ``--batch`` rows;

and the ratios ``adapter one / model one`` (the adapter's cost per row) and
``adapter one / adapter many`` (what a mini-batch saves). The mini-batch model is checked
to equal the one-row model (``snapshot``).

Usage::

    python tests/benchmarks/bench_river.py              # 5000 rows per model
    python tests/benchmarks/bench_river.py --n 1000     # quicker
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import pandas as pd  # noqa: E402
from river import datasets  # noqa: E402

import fast  # noqa: E402

MODELS: list[tuple[str, dict[str, Any]]] = [
    ("SGTRegressor", {}),
    ("DynamicTreeRegressor", {"n_particles": 100}),
    ("SGTClassifier", {}),
    ("DynamicTreeClassifier", {"n_particles": 100}),
    ("ABACOCClassifier", {}),
]


def _rows(classifier: bool, n: int) -> list[tuple[dict[str, Any], Any]]:
    data = datasets.Phishing() if classifier else datasets.TrumpApproval()
    rows = list(data)
    return list(itertools.islice(itertools.cycle(rows), n))


def _time(run: Callable[[], Any]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def _repeat(make: Any, kwargs: dict[str, Any], direct_kwargs: dict[str, Any],
            rows: list[tuple[dict[str, Any], Any]], lists: list[list[float]],
            frames: list[tuple[Any, Any]]) -> dict[str, tuple[float, float]]:
    """(learn, predict) seconds of the model's own one-row methods, the adapter's one-row
    methods and its mini-batch methods, on fresh models."""
    model = make(**direct_kwargs)
    one = fast.to_river(make(**kwargs))
    many = fast.to_river(make(**kwargs))
    targets = [y for _, y in rows]

    def model_learn() -> None:
        for row, y in zip(lists, targets, strict=True):
            model.learn_one(row, y)

    def one_learn() -> None:
        for x, y in rows:
            one.learn_one(x, y)

    def many_learn() -> None:
        for X, y in frames:
            many.learn_many(X, y)

    out = {"model": _time(model_learn), "one": _time(one_learn), "many": _time(many_learn)}
    assert one.model.snapshot() == many.model.snapshot()
    return {
        "model": (out["model"], _time(lambda: [model.predict_one(r) for r in lists])),
        "one": (out["one"], _time(lambda: [one.predict_one(x) for x, _ in rows])),
        "many": (out["many"], _time(lambda: [many.predict_many(X) for X, _ in frames])),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=5000, help="rows per model")
    parser.add_argument("--batch", type=int, default=500, help="rows per data frame")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"{'model':22} {'':6} {'model one':>10} {'adapter one':>12} {'adapter many':>13} "
          f"{'one/model':>10} {'one/many':>9}   (us per row, best of {args.repeats})")
    for name, kwargs in MODELS:
        classifier = "Classifier" in name
        rows = _rows(classifier, args.n)
        names = sorted(rows[0][0])
        lists = [[float(x[k]) for k in names] for x, _ in rows]
        targets = [y for _, y in rows]
        frames = [(pd.DataFrame([x for x, _ in rows[i:i + args.batch]]),
                   pd.Series(targets[i:i + args.batch]))
                  for i in range(0, len(rows), args.batch)]
        make = getattr(fast, name)
        direct_kwargs = dict(kwargs)
        if name in ("SGTClassifier", "DynamicTreeClassifier"):
            direct_kwargs["classes"] = list(dict.fromkeys(targets))
        learn: dict[str, list[float]] = {"model": [], "one": [], "many": []}
        predict: dict[str, list[float]] = {"model": [], "one": [], "many": []}
        for _ in range(args.repeats):
            times = _repeat(make, kwargs, direct_kwargs, rows, lists, frames)
            for key, (t_learn, t_predict) in times.items():
                learn[key].append(t_learn)
                predict[key].append(t_predict)
        for what, table in (("learn", learn), ("predict", predict)):
            m, o, b = (min(table[k]) * 1e6 / args.n for k in ("model", "one", "many"))
            print(f"{name:22} {what:6} {m:10.2f} {o:12.2f} {b:13.2f} {o / m:10.2f} "
                  f"{o / b:9.2f}", flush=True)


if __name__ == "__main__":
    main()

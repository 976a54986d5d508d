"""Benchmark: the cost of the one-row API (``predict_one`` + ``learn_one``) per row.

Users who stream one example at a time (River users, anyone serving predictions) pay the
Python facade on every call, on top of the model's C work. This script prints, in one run,
on Friedman-1 rows with 10 features ("Friedman-10"), best of ``--repeats`` runs on fresh
models, the variants of each repeat interleaved:

1. For each model, µs per row (one ``predict_one`` then one ``learn_one``, test-then-train)
   of the reference, of fast, of fast's ``partial_fit`` (per row, learning only), and of
   the same C calls made directly on rows already in C arrays (``C only``: no facade and
   no conversion at all); the ratios reference/fast and fast/partial_fit, and the
   overhead per call above the C work, ``(fast one-row - C only) / 2`` (the lock, the
   row's check and copy into C, the label lookup). Both backends' predictions are checked to be
   identical, and the one-row model to equal the ``partial_fit`` model (``snapshot``).
2. Fast SGT against River's SGT (``river.tree.SGTRegressor`` / ``SGTClassifier`` with their
   defaults) in the same one-row loop on the same rows given as dicts, when River is
   importable.
3. Fast one-row cost for each input kind: list, tuple, numpy row, dict (and
   ``predict_proba_one`` for the classifiers).

Usage::

    python tests/benchmarks/bench_per_call.py              # 5000 rows per model
    python tests/benchmarks/bench_per_call.py --n 1000     # quicker
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
import reference  # noqa: E402
from fast._ffi import ffi, lib  # noqa: E402
from reference.evaluation.datasets import friedman1  # noqa: E402

Loop = Callable[[], Any]


def _best(loops: dict[str, Loop], repeats: int, n: int) -> dict[str, float]:
    """Best-of-``repeats`` µs per row of each loop, the loops interleaved in each repeat."""
    best = dict.fromkeys(loops, float("inf"))
    for _ in range(repeats):
        for name, loop in loops.items():
            start = time.perf_counter()
            loop()
            best[name] = min(best[name], time.perf_counter() - start)
    return {name: 1e6 * seconds / n for name, seconds in best.items()}


def _one_row(make: Callable[[], Any], xs: list[Any], ys: list[Any], out: list[Any],
             proba: bool = False) -> Loop:
    """The test-then-train loop on a fresh model; predictions appended to ``out``."""

    def loop() -> Any:
        model = make()
        predict = model.predict_proba_one if proba else model.predict_one
        learn = model.learn_one
        out.clear()
        append = out.append
        for x, y in zip(xs, ys, strict=True):
            append(predict(x))
            learn(x, y)
        return model

    return loop


def _partial_fit(make: Callable[[], Any], X: np.ndarray, y: np.ndarray) -> Loop:
    def loop() -> Any:
        model = make()
        model.partial_fit(X, y)
        return model

    return loop


def _c_only(make: Callable[[], Any], family: str, xs: list[list[float]],
            ys: list[Any]) -> Loop:
    """The C calls of the one-row loop made directly on rows already in C arrays (labels
    as class indices), after a first ``learn_one`` that builds the C model: the C work
    with no facade and no conversion at all."""
    rows = [ffi.new("double[]", x) for x in xs]

    def loop() -> None:
        model = make()
        model.learn_one(xs[0], ys[0])
        d = len(xs[0])
        if family == "sgt":
            m, out = model._engine._m, model._engine._raw_out
            index = {label: i for i, label in enumerate(getattr(model, "classes_", None) or [])}
            for x, y in zip(rows[1:], ys[1:], strict=True):
                lib.sgt_model_raws_row(m, x, d, out)
                lib.sgt_model_learn_row(m, x, d, float(index.get(y, y)))
        elif family == "abacoc":
            h, k = model._engine._h, ffi.new("int64_t[1]")
            for x, x_list, y in zip(rows[1:], xs[1:], ys[1:], strict=True):
                lib.ab_model_predict_row(h, x, d, k)
                if y in model._class_index:
                    lib.ab_model_learn_row(h, x, d, model._class_index[y])
                else:
                    model.learn_one(x_list, y)      # registers the label (once)
        else:
            h, out = model._engine._m, ffi.new("double[]", 8)
            classify = family == "dt_class"
            for x, y in zip(rows[1:], ys[1:], strict=True):
                if classify:
                    lib.dt_model_class_row(h, x, d, out, out + 7)
                else:
                    lib.dt_model_mean_row(h, x, d, out)
                lib.dt_model_learn_row(h, x, d, float(model._index[y]) if classify else y, out)

    return loop


def _models(n_particles: int) -> list[tuple[str, str, Callable[[Any], Any], bool]]:
    """(name, family, constructor on a backend, classifier?)."""
    return [
        ("SGTRegressor", "sgt", lambda pkg: pkg.SGTRegressor(), False),
        ("SGTClassifier", "sgt", lambda pkg: pkg.SGTClassifier(classes=[0, 1]), True),
        ("ABACOCClassifier", "abacoc", lambda pkg: pkg.ABACOCClassifier(), True),
        ("DynamicTreeRegressor", "dt",
         lambda pkg: pkg.DynamicTreeRegressor(n_particles=n_particles), False),
        ("DynamicTreeClassifier", "dt_class",
         lambda pkg: pkg.DynamicTreeClassifier(classes=[0, 1], n_particles=n_particles), True),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=5000, help="rows per model")
    parser.add_argument("--n-dt", type=int, default=300,
                        help="rows for the dynamic trees (their reference is slow)")
    parser.add_argument("--particles", type=int, default=20, help="dynamic-tree particles")
    parser.add_argument("--repeats", type=int, default=5, help="best of this many runs")
    args = parser.parse_args()

    X_all, y_all = friedman1(args.n, n_features=10, seed=7)
    labels_all = (y_all > 14.0).astype(int)

    print(f"1. one-row loop (predict_one + learn_one), µs per row, Friedman-10, "
          f"best of {args.repeats}")
    print(f"{'model':<22} {'rows':>5} {'reference':>10} {'fast':>7} {'partial_fit':>11} "
          f"{'C only':>7} {'ref/fast':>9} {'fast-pf':>8} {'overhead/call':>14}  check")
    for name, family, make, classifier in _models(args.particles):
        n = args.n_dt if family.startswith("dt") else args.n
        X = X_all[:n]
        y = labels_all[:n] if classifier else y_all[:n]
        xs = X.tolist()
        ys = y.tolist()
        ref_out: list[Any] = []
        fast_out: list[Any] = []
        one_row = _one_row(lambda m=make: m(fast), xs, ys, fast_out)
        loops = {
            "reference": _one_row(lambda m=make: m(reference), xs, ys, ref_out),
            "fast": one_row,
            "partial_fit": _partial_fit(lambda m=make: m(fast), X, y),
            "c_only": _c_only(lambda m=make: m(fast), family, xs, ys),
        }
        us = _best(loops, args.repeats, n)
        same = ref_out == fast_out
        same_state = one_row().snapshot() == _partial_fit(lambda m=make: m(fast), X, y)() \
            .snapshot()
        check = ("identical" if same else "PREDICTIONS DIFFER") + (
            ", = partial_fit" if same_state else ", STATE DIFFERS FROM partial_fit")
        print(f"{name:<22} {n:5d} {us['reference']:10.2f} {us['fast']:7.2f} "
              f"{us['partial_fit']:11.2f} {us['c_only']:7.2f} "
              f"{us['reference'] / us['fast']:8.1f}x {us['fast'] - us['partial_fit']:8.2f} "
              f"{(us['fast'] - us['c_only']) / 2:14.2f}  {check}")

    print()
    print("2. fast SGT against River's SGT, one-row loop on dict rows, µs per row")
    try:
        from river import tree
    except ImportError:
        print("   (river is not importable: skipped)")
        tree = None
    if tree is not None:
        dicts = [dict(enumerate(row)) for row in X_all.tolist()]
        for name, river_make, make, y in [
            ("SGTRegressor", tree.SGTRegressor, fast.SGTRegressor, y_all.tolist()),
            ("SGTClassifier", tree.SGTClassifier, lambda: fast.SGTClassifier(classes=[0, 1]),
             labels_all.tolist()),
        ]:
            river_n = min(args.n, 2000)           # River's loop is slow; same rows, fewer
            loops = {"river": _one_row(river_make, dicts[:river_n], y[:river_n], []),
                     "fast": _one_row(make, dicts[:river_n], y[:river_n], [])}
            us = _best(loops, max(1, args.repeats // 2), river_n)
            print(f"   {name:<14} {river_n} rows: river {us['river']:8.1f}   fast "
                  f"{us['fast']:6.2f}   fast is {us['river'] / us['fast']:5.0f}x River")

    print()
    print("3. fast one-row loop by input kind, µs per row")
    n = args.n
    kinds: dict[str, list[Any]] = {
        "list": X_all.tolist(), "tuple": [tuple(r) for r in X_all.tolist()],
        "numpy row": list(X_all), "dict": [dict(enumerate(r)) for r in X_all.tolist()],
    }
    print(f"   {'model':<30} " + " ".join(f"{k:>10}" for k in kinds))
    for name, make, y, proba in [
        ("SGTRegressor", fast.SGTRegressor, y_all.tolist(), False),
        ("SGTClassifier", lambda: fast.SGTClassifier(classes=[0, 1]), labels_all.tolist(),
         False),
        ("SGTClassifier, predict_proba", lambda: fast.SGTClassifier(classes=[0, 1]),
         labels_all.tolist(), True),
        ("ABACOCClassifier", fast.ABACOCClassifier, labels_all.tolist(), False),
        ("ABACOCClassifier, predict_proba", fast.ABACOCClassifier, labels_all.tolist(), True),
    ]:
        outs: dict[str, list[Any]] = {k: [] for k in kinds}
        loops = {k: _one_row(make, rows, y, outs[k], proba) for k, rows in kinds.items()}
        us = _best(loops, args.repeats, n)
        same = all(outs[k] == outs["list"] for k in kinds)
        print(f"   {name:<30} " + " ".join(f"{us[k]:10.2f}" for k in kinds)
              + ("   identical" if same else "   OUTPUTS DIFFER"))


if __name__ == "__main__":
    main()

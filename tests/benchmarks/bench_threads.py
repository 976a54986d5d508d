"""Separate models in separate threads run in parallel; one model's calls are serialised.

Prints, for each family of the ``fast`` backend, the wall-clock time of k independent models
learning k streams one after another and in k threads, and the speed-up (close to the number
of cores when the C code, which releases the GIL, dominates). Then the per-call cost of the
model lock: ``predict_one`` + ``learn_one`` of one ``SGTRegressor`` row by row, with the
lock as shipped and with the lock bypassed (calling the undecorated functions).

    python tests/benchmarks/bench_threads.py [--k 2] [--rows 20000]
"""

from __future__ import annotations

import argparse
import os
import threading
import time
from typing import Any

import fast
from reference.evaluation.datasets import friedman1


class _NoLock:
    """A stand-in for the model's ``threading.RLock`` that does nothing."""

    def acquire(self) -> bool:
        return True

    def release(self) -> None:
        pass

    def __enter__(self) -> bool:
        return True

    def __exit__(self, *exc: object) -> None:
        pass


def _models() -> dict[str, Any]:
    return {
        "SGTRegressor": lambda: fast.SGTRegressor(),
        "ABACOCClassifier": lambda: fast.ABACOCClassifier(),
        "DynamicTreeRegressor": lambda: fast.DynamicTreeRegressor(n_particles=200),
    }


def _learn(model: Any, X: Any, y: Any, kind: str) -> None:
    for start in range(0, len(X), 500):
        target = (y[start:start + 500] > 14) if kind == "class" else y[start:start + 500]
        model.partial_fit(X[start:start + 500], target)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--rows", type=int, default=200000)
    args = parser.parse_args()
    X, y = friedman1(args.rows, seed=1)
    print(f"{args.k} models, {args.rows} rows each, {os.cpu_count()} cores")
    for name, make in _models().items():
        rows = args.rows if name != "DynamicTreeRegressor" else args.rows // 10
        kind = "class" if "Classifier" in name else "reg"
        start = time.perf_counter()
        for _ in range(args.k):
            _learn(make(), X[:rows], y[:rows], kind)
        serial = time.perf_counter() - start
        threads = [threading.Thread(target=_learn, args=(make(), X[:rows], y[:rows], kind))
                   for _ in range(args.k)]
        start = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        parallel = time.perf_counter() - start
        print(f"  {name:22} serial {serial:6.2f} s   {args.k} threads {parallel:6.2f} s   "
              f"speed-up {serial / parallel:4.2f}x")
    rows = [list(map(float, r)) for r in X[:20000]]
    for label, lock in [("with the lock", None), ("lock bypassed", _NoLock())]:
        model = fast.SGTRegressor()
        if lock is not None:
            model._lock = lock                   # the model's lock slot, replaced by a no-op
        predict, learn = model.predict_one, model.learn_one
        start = time.process_time()
        for i, row in enumerate(rows):
            predict(row)
            learn(row, float(y[i]))
        spent = (time.process_time() - start) / len(rows) * 1e6
        print(f"  SGTRegressor predict_one + learn_one, {label}: {spent:.2f} us per row")


if __name__ == "__main__":
    main()

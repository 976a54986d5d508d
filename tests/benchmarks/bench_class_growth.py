"""Benchmark: the cost of a new class through the River adapter, per label.

A ``SGTClassifier`` or ``DynamicTreeClassifier`` built with ``classes=None`` and wrapped
by ``to_river`` learns its labels as they arrive: each new label grows the model
([SGT-SPEC §16.2], [DT-SPEC §12.2]). This script feeds ``--labels`` distinct labels one by
one (each new label on one row, after ``--rows-per-label`` rows of known labels), times
each ``learn_one`` that adds a label, and prints for each family and backend:

* the total time of the stream, and the same stream through a model given every class up
  front (``classes=[...]``, no growth);
* the mean cost of adding a label over the labels around 100 and around 300 (the 10 labels
  ending there): a cost per label that grows with the number of classes is quadratic
  total time; a flat one is amortised constant.

Usage::

    python tests/benchmarks/bench_class_growth.py                 # 300 SGT / 100 DT labels
    python tests/benchmarks/bench_class_growth.py --labels 100    # quicker
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402

import reference  # noqa: E402

try:
    import fast  # noqa: E402
    BACKENDS: list[Any] = [reference, fast]
except ImportError:  # pragma: no cover - no C build
    BACKENDS = [reference]


def _model(pkg: Any, family: str, classes: list[int] | None) -> Any:
    if family == "sgt":
        return pkg.SGTClassifier(warmup=20, grace_period=50, classes=classes)
    return pkg.DynamicTreeClassifier(n_particles=20, seed=1, classes=classes)


def _stream(labels: int, per_label: int) -> list[tuple[dict[str, float], int]]:
    rng = np.random.default_rng(0)
    out = []
    for label in range(labels):
        for _ in range(per_label):
            known = int(rng.integers(0, label + 1))
            out.append(({"a": float(rng.uniform()), "b": float(rng.uniform())}, known))
        out.append(({"a": float(rng.uniform()), "b": float(rng.uniform())}, label))
    return out


def run(pkg: Any, family: str, labels: int, per_label: int) -> dict[str, Any]:
    stream = _stream(labels, per_label)
    grown = pkg.to_river(_model(pkg, family, None))
    costs: dict[int, float] = {}
    seen: set[int] = set()
    start = time.perf_counter()
    for x, y in stream:
        t = time.perf_counter()
        grown.learn_one(x, y)
        if y not in seen:
            seen.add(y)
            costs[len(seen)] = time.perf_counter() - t
    total = time.perf_counter() - start
    given = pkg.to_river(_model(pkg, family, list(range(labels))))
    start = time.perf_counter()
    for x, y in stream:
        given.learn_one(x, y)
    fixed = time.perf_counter() - start

    def around(k: int) -> float:
        window = [costs[i] for i in range(max(3, k - 9), k + 1) if i in costs]
        return 1e3 * sum(window) / len(window) if window else float("nan")

    return {"total": total, "given": fixed, "at100": around(100),
            "at_end": around(labels), "end": labels}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labels", type=int, default=0,
                        help="labels per stream (default: 300 for SGT, 100 for DT)")
    parser.add_argument("--rows-per-label", type=int, default=2)
    args = parser.parse_args()
    print(f"{'family':<10}{'backend':<11}{'labels':>7}{'total s':>9}{'given s':>9}"
          f"{'ms/label@100':>14}{'ms/label@end':>14}")
    for family, default in (("sgt", 300), ("dynatree", 100)):
        labels = args.labels or default
        for pkg in BACKENDS:
            r = run(pkg, family, labels, args.rows_per_label)
            print(f"{family:<10}{pkg.__name__:<11}{labels:>7}{r['total']:>9.2f}"
                  f"{r['given']:>9.2f}{r['at100']:>14.2f}{r['at_end']:>14.2f}", flush=True)


if __name__ == "__main__":
    main()

"""Benchmark: memory of the fast SGT's split reservations, against the reference.

Before any state changes, a fast SGT call reserves the leaves of every split it could make,
so that running out of memory leaves the model as it was. This script measures, for each
scenario and backend in a fresh Python process, the peak resident memory of the call over
the memory before it (``VmHWM`` after a reset through ``/proc/self/clear_refs``; a 5 ms
sampling thread where the reset is refused) and the memory the call leaves behind (``VmRSS``
after it, after ``gc.collect()``), and prints the fast/reference ratios.

Scenarios (d = 20 uniform features, label ``x_0 > 0.5``):

- ``mil-bag``: ``SGTMultiInstanceClassifier(warmup=200)`` learns 200 small bags (warm-up)
  then a bag of 8,000 rows (1.3 MB): the reservation is sized by the splits the bag can
  make (``rows / grace_period + 1``, the leaves' counts included), not one per row;
- ``warmup``: ``SGTRegressor(warmup=5000, grace_period=1)`` learns 5,001 rows in one call
  (the warm-up buffer is replayed; with ``grace_period = 1`` every row may split). The
  replay reserves each buffered item's splits just before training it (one split's leaves
  per row here), and puts the model back as it was if a reservation fails half-way, so the
  fast peak is the trees themselves plus one split's leaves (before: every split the buffer
  could make, ``5,001 x 2`` leaves reserved up front, about 445 MB);
- ``custom-warmup``: the same stream with ``SGT(CustomLoss(...), warmup=5000,
  grace_period=1)`` (a squared error written as a custom loss, so the replay is the
  facade's Python loop calling ``train_gh``): each replayed row reserves one split's
  leaves, as above (before: the same 5,001 splits reserved before the replay);
- ``nominal``: ``SGTRegressor(nominal={0: 100000})`` learns 300 rows one by one (feature 0
  a category of 100,000, feature 1 uniform): a row reserves the leaves of the split it
  makes (``sgt_tree_plan``), not the largest split a row could make (before: 100,000 leaves
  of 100,000 cells at every row, a 4.9 GB peak and ``MemoryError`` under 3 GB).

Usage::

    python tests/benchmarks/bench_sgt_reservations.py
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_CHILD = r"""
import gc, json, sys, threading, time
import numpy as np
sys.path.insert(0, sys.argv[3])
backend = __import__(sys.argv[1])
scenario = sys.argv[2]

def status():
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = float(value.split()[0]) * 1024.0
    return out

rng = np.random.default_rng(0)
if scenario == "mil-bag":
    model = backend.SGTMultiInstanceClassifier(warmup=200)
    small = [rng.random((2, 20)) for _ in range(200)]
    model.partial_fit(small, [int(b[:, 0].max() > 0.5) for b in small])
    bag = rng.random((8000, 20))
    call = lambda: model.partial_fit([bag], [1])
elif scenario == "nominal":
    X = np.column_stack([rng.integers(0, 100000, 300), rng.random(300)])
    y = X[:, 1] + 0.01 * (X[:, 0] % 7)
    model = backend.SGTRegressor(nominal={0: 100000})
    call = lambda: [model.learn_one(list(map(float, r)), float(t)) for r, t in zip(X, y)]
else:
    if scenario == "custom-warmup":
        from reference.sgt.losses import CustomLoss
        loss = CustomLoss(lambda y, f: f - y, lambda y, f: 1.0)
        model = backend.SGT(loss, warmup=5000, grace_period=1)
    else:
        model = backend.SGTRegressor(warmup=5000, grace_period=1)
    X = rng.random((5001, 20))
    y = np.sin(6.0 * X[:, 0])
    call = lambda: model.partial_fit(X, y)
gc.collect()
try:
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    sampled = None
except OSError:
    sampled = []
before = status()
done = threading.Event()
def sample():
    while not done.is_set():
        sampled.append(status()["VmRSS"])
        time.sleep(0.005)
if sampled is not None:
    threading.Thread(target=sample, daemon=True).start()
call()
done.set()
peak = status()["VmHWM"] if sampled is None else max(sampled + [status()["VmRSS"]])
gc.collect()
after = status()["VmRSS"]
print(json.dumps({"peak": peak - before["VmRSS"], "kept": after - before["VmRSS"]}))
"""


def _measure(backend: str, scenario: str) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", _CHILD, backend, scenario, str(ROOT)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    mb = 1024.0 * 1024.0
    print(f"{'scenario':13s} {'backend':10s} {'peak MB':>9s} {'kept MB':>9s}")
    for scenario in ("mil-bag", "warmup", "custom-warmup", "nominal"):
        figures = {b: _measure(b, scenario) for b in ("reference", "fast")}
        for b, f in figures.items():
            print(f"{scenario:13s} {b:10s} {f['peak'] / mb:9.1f} {f['kept'] / mb:9.1f}")
        ratio = figures["fast"]["peak"] / max(figures["reference"]["peak"], 1.0)
        print(f"{scenario:13s} {'fast/ref':10s} {ratio:9.2f}")


if __name__ == "__main__":
    main()

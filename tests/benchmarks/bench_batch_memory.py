"""Benchmark: the memory of one ``partial_fit`` call on a large batch, for every fast model.

For each model, each measurement runs in a fresh Python process (so that nothing allocated
by an earlier one is counted), and prints one line of figures:

- **array** (10^6 rows of 2 and of 20 float64 features, targets float64, labels int64):
  the peak resident memory during ``partial_fit`` over the resident memory just before it
  (the input and the model already built), in MB and in bytes per row; the process's
  peak is reset before the call (``/proc/self/clear_refs``) and read after it
  (``VmHWM``); if the reset is refused, the peak of a 10 ms sampling thread is used;
- **validation share**: the CPU time a fresh model takes to *refuse* the same batch with
  a NaN as its very last value (every value is checked before any is learned, so this is
  the whole validation pass over ``X``), divided by the CPU time of learning the batch.
  A model that learns the rows before a bad one validates in the learning pass instead:
  the line says so, with no share;
- **memmap** (a ``numpy.memmap`` of 10^7 rows x 20 features, 1.6 GB, written once to
  ``--memmap-dir``; its targets in a second file): resident memory sampled every 10 ms
  during the call: its largest increase over the start (``VmRSS`` and its anonymous
  part ``RssAnon``, i.e. without the file's pages), and the growth from the first to
  the last quarter of the call (flat: about 0).

The models, chosen so that 10^6 rows take about a minute at most:
``DynamicTreeRegressor`` and ``DynamicTreeClassifier`` with 10 particles and an active pool
of 500 points with historical retirement (``n_particles=10, active_size=500,
retirement="historical"``), on 2 x 10^6 rows of the file; ``SGTRegressor`` and
``SGTClassifier`` at their defaults; ``ABACOCClassifier`` with ``budget=500``, on 10^6 rows
of the file. Rows are uniform on [0, 1]^d, the target ``sin(6 x_0)``, the label
``x_0 > 0.5``. ``--quick`` divides every row count by 10.

With ``--against DIR`` every measurement is also made with the ``fast`` package of another
checkout ``DIR`` (built in place, e.g. ``git archive <commit> | tar -x -C DIR`` then
``python setup.py build_ext --inplace`` there), in alternation, and both lines are printed.

Usage::

    python tests/benchmarks/bench_batch_memory.py [--quick] [--only DynamicTree]
    python tests/benchmarks/bench_batch_memory.py --against /tmp/before
    python tests/benchmarks/bench_batch_memory.py --only DynamicTreeRegressor --only-memmap \
        --memmap-rows 10000000      # the whole file through one dynamic tree (about 3 min)

The memory-mapped file stays in ``--memmap-dir`` for the next run (delete it after).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _checkout import run_in_checkout  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

MODELS = {
    "DynamicTreeRegressor": ("fast.DynamicTreeRegressor(n_particles=10, active_size=500, "
                             "retirement='historical')", "reg", 2_000_000),
    "DynamicTreeClassifier": ("fast.DynamicTreeClassifier(n_particles=10, active_size=500, "
                              "retirement='historical', classes=[0, 1])", "cls", 2_000_000),
    "SGTRegressor": ("fast.SGTRegressor()", "reg", 10_000_000),
    "SGTClassifier": ("fast.SGTClassifier(classes=[0, 1])", "cls", 10_000_000),
    "ABACOCClassifier": ("fast.ABACOCClassifier(budget=500)", "cls", 1_000_000),
}
"""name: (constructor, task, rows of the memory-mapped file it reads)."""

FILE_ROWS = 10_000_000
FILE_WIDTH = 20

_CHILD = r"""
import gc, json, os, sys, threading, time
import numpy as np
import fast

spec = json.loads(sys.argv[1])
KB = 1024.0

def status():
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
                out[key] = float(value.split()[0]) * KB
    return out

def reset_peak():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False

def data(n, d, task):
    if spec["scenario"] == "memmap":
        X = np.memmap(spec["x_file"], dtype=np.float64, mode="r",
                      shape=(spec["file_rows"], spec["file_width"]))[:n]
        y = np.memmap(spec["y_file_" + task], dtype=np.float64 if task == "reg" else np.int64,
                      mode="r", shape=(spec["file_rows"],))[:n]
        return X, y
    rng = np.random.default_rng(1)
    X = rng.random((n, d))
    y = np.sin(6.0 * X[:, 0]) if task == "reg" else (X[:, 0] > 0.5).astype(np.int64)
    return X, y

samples = []
done = threading.Event()

def sample():
    while not done.is_set():
        s = status()
        samples.append((s["VmRSS"], s["RssAnon"]))
        time.sleep(0.01)

X, y = data(spec["n"], spec["d"], spec["task"])
model = eval(spec["make"])
gc.collect()
before = status()
exact_peak = reset_peak()
thread = threading.Thread(target=sample, daemon=True)
thread.start()
cpu = time.process_time()
model.partial_fit(X, y)
cpu = time.process_time() - cpu
done.set()
thread.join()
after = status()
rss = [s[0] for s in samples] or [after["VmRSS"]]
anon = [s[1] for s in samples] or [after["RssAnon"]]
quarter = max(1, len(rss) // 4)
out = {"cpu": cpu, "input": 0 if spec["scenario"] == "memmap" else X.nbytes + y.nbytes,
       "peak": (after["VmHWM"] if exact_peak else max(rss)) - before["VmRSS"],
       "exact_peak": exact_peak, "rss_growth": max(rss) - before["VmRSS"],
       "anon_growth": max(anon) - before["RssAnon"],
       "late_growth": max(rss[-quarter:]) - max(rss[:quarter]),
       "n_seen": model.n_seen_ if hasattr(model, "n_seen_") else None}
if spec["scenario"] == "array":
    X[-1, -1] = np.nan
    fresh = eval(spec["make"])
    reject = time.process_time()
    try:
        fresh.partial_fit(X, y)
        out["reject"] = None
    except ValueError:
        out["reject"] = time.process_time() - reject
    out["learned_before_bad"] = getattr(fresh, "n_seen_", 0)
out["file"] = fast.__file__
print(json.dumps(out))
"""


def _write_memmap(folder: Path, rows: int) -> dict[str, str]:
    """The input file (``rows`` x 20 uniform float64) and its targets, made once."""
    import numpy as np

    folder.mkdir(parents=True, exist_ok=True)
    paths = {"x_file": folder / f"x_{rows}x{FILE_WIDTH}.f64",
             "y_file_reg": folder / f"y_reg_{rows}.f64",
             "y_file_cls": folder / f"y_cls_{rows}.i64"}
    if all(p.exists() and p.stat().st_size > 0 for p in paths.values()):
        return {k: str(v) for k, v in paths.items()}
    rng = np.random.default_rng(2)
    with open(paths["x_file"], "wb") as fx, open(paths["y_file_reg"], "wb") as fr, \
            open(paths["y_file_cls"], "wb") as fc:
        for start in range(0, rows, 500_000):
            block = rng.random((min(500_000, rows - start), FILE_WIDTH))
            block.tofile(fx)
            np.sin(6.0 * block[:, 0]).tofile(fr)
            (block[:, 0] > 0.5).astype(np.int64).tofile(fc)
    return {k: str(v) for k, v in paths.items()}


def _measure(spec: dict[str, object], path: str | None) -> dict[str, object]:
    return run_in_checkout(_CHILD, Path(path or ROOT), json.dumps(spec))


def _line(name: str, build: str, spec: dict[str, object], r: dict[str, object]) -> str:
    mb = 1024.0 * 1024.0
    n = int(spec["n"])  # type: ignore[call-overload]
    where = f"{spec['scenario']} {n:,} x {spec['d']}"
    cpu = float(r["cpu"])  # type: ignore[arg-type]
    if spec["scenario"] == "memmap":
        return (f"{name:22s} {build:7s} {where:26s} rss +{float(r['rss_growth']) / mb:8.1f} MB"  # type: ignore[arg-type]
                f"  anon +{float(r['anon_growth']) / mb:7.1f} MB"  # type: ignore[arg-type]
                f"  last-first quarter {float(r['late_growth']) / mb:+7.1f} MB"  # type: ignore[arg-type]
                f"  {cpu:6.1f} s")
    peak = float(r["peak"])  # type: ignore[arg-type]
    if r["reject"] is None or r["learned_before_bad"]:
        share = "same pass"
    else:
        share = f"{100.0 * float(r['reject']) / cpu:5.2f} %"  # type: ignore[arg-type]
    mark = "" if r["exact_peak"] else " (sampled)"
    return (f"{name:22s} {build:7s} {where:26s} input {float(r['input']) / mb:7.1f} MB"  # type: ignore[arg-type]
            f"  peak over input +{peak / mb:8.1f} MB{mark} ({peak / n:7.1f} B/row)"
            f"  validation {share:>9s}  {cpu:6.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="every row count / 10")
    parser.add_argument("--only", default="", help="models whose name contains this")
    parser.add_argument("--against", default=None, help="another checkout, built in place")
    parser.add_argument("--memmap-dir", default="/tmp/driftwood-bench-memory")
    parser.add_argument("--no-memmap", action="store_true", help="only the in-memory arrays")
    parser.add_argument("--only-memmap", action="store_true", help="only the memory map")
    parser.add_argument("--memmap-rows", type=int, default=None,
                        help="rows of the file every model reads (default: per model)")
    args = parser.parse_args()
    scale = 10 if args.quick else 1
    n = 1_000_000 // scale
    file_rows = FILE_ROWS // scale
    files = {} if args.no_memmap else _write_memmap(Path(args.memmap_dir), file_rows)
    builds = [("this", None)] + ([("against", args.against)] if args.against else [])
    print(f"partial_fit memory, one fresh process per line (python {sys.version.split()[0]})")
    for name, (make, task, mm_rows) in MODELS.items():
        if args.only not in name:
            continue
        scenarios = [] if args.only_memmap else [("array", n, 2), ("array", n, 20)]
        if not args.no_memmap:
            rows_read = args.memmap_rows or mm_rows // scale
            scenarios.append(("memmap", min(rows_read, file_rows), FILE_WIDTH))
        for scenario, rows, d in scenarios:
            spec = {"make": make, "task": task, "scenario": scenario, "n": rows, "d": d,
                    "file_rows": file_rows, "file_width": FILE_WIDTH, **files}
            for build, path in builds:
                print(_line(name, build, spec, _measure(spec, path)), flush=True)


if __name__ == "__main__":
    main()

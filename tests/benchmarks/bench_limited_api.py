"""Benchmark: what Python's limited C API (the abi3 wheels) costs the one-row calls.

``csrc/common/rows.c`` (``fast._rows_ext``) packs every one-row input. On the full API it
reads list, tuple and float fields directly (``PySequence_Fast_GET_ITEM``,
``PyFloat_AS_DOUBLE``); under ``Py_LIMITED_API`` (what the build uses on Python >= 3.11,
``fast/_ffibuild.py``'s ``LIMITED_API``) the same lines call functions
(``PyList_GetItem``, ``PyFloat_AsDouble``). This script compiles ``rows.c`` both ways with
the build's compiler and flags, then, in one run, alternates fresh processes of the two
builds (``--rounds`` each, best kept) and prints for each:

1. ``RowBuffer.pack`` of a 10-value row given as a list, a tuple, a numpy row and a dict
   (ns per call);
2. the whole one-row API of a fast ``SGTRegressor`` (one ``predict_one`` then one
   ``learn_one`` per row, Friedman-10 rows as lists, the model's lean path, which packs
   every row through ``rows.c``; µs per row), with the variant substituted for
   ``fast._rows_ext``;

and the ratio limited/full of each. ``fast._lib`` (cffi) is the installed one in both.

Usage::

    python tests/benchmarks/bench_limited_api.py               # 7 rounds
    python tests/benchmarks/bench_limited_api.py --rounds 3    # quicker
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from fast._ffibuild import (  # noqa: E402
    CFLAGS,
    CSRC,
    LIMITED_API_VERSION,
    ROWS_SOURCE,
    compiler_command,
)

CHILD = r"""
import importlib.util, json, sys, time
path, n, m = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
spec = importlib.util.spec_from_file_location("fast._rows_ext", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
sys.modules["fast._rows_ext"] = module      # fast._rows imports this build
import numpy as np
import fast
from reference.evaluation.datasets import friedman1
assert fast._rows.RowBuffer is module.RowBuffer
out = {}
buf = module.RowBuffer(10, np.ndarray)
keys = [f"x{i}" for i in range(10)]
rows = {"list": [0.5 + i for i in range(10)], "tuple": tuple(0.5 + i for i in range(10)),
        "numpy row": np.arange(10.0), "dict": {k: 0.5 + i for i, k in enumerate(keys)}}
for name, row in rows.items():
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(n):
            buf.pack(row, keys)
        best = min(best, time.perf_counter() - start)
    out["pack " + name + " [ns]"] = 1e9 * best / n
X, y = friedman1(m, n_features=10, seed=1)
xs, ys = [list(map(float, r)) for r in X], [float(v) for v in y]
best = float("inf")
for _ in range(3):
    model = fast.SGTRegressor()
    start = time.perf_counter()
    for x, t in zip(xs, ys):
        model.predict_one(x)
        model.learn_one(x, t)
    best = min(best, time.perf_counter() - start)
out["SGT predict_one + learn_one [us/row]"] = 1e6 * best / m
print(json.dumps(out))
"""


def build(out: Path, limited: bool) -> Path:
    """``rows.c`` compiled as an extension module into ``out`` (limited API or not)."""
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"_rows_ext{sysconfig.get_config_var('EXT_SUFFIX')}"
    defines = [f"-DPy_LIMITED_API={LIMITED_API_VERSION}"] if limited else []
    include = sysconfig.get_paths()["include"]
    subprocess.run([*compiler_command(), *CFLAGS, "-fPIC", "-shared", *defines,
                    "-I", include, "-I", str(CSRC), str(ROWS_SOURCE), "-o", str(target)],
                   check=True)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="processes per build")
    parser.add_argument("--n", type=int, default=200_000, help="pack calls per timing")
    parser.add_argument("--rows", type=int, default=5_000, help="SGT one-row loop rows")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        builds = {"full API": build(Path(tmp) / "full", False),
                  "limited API": build(Path(tmp) / "limited", True)}
        best: dict[str, dict[str, float]] = {name: {} for name in builds}
        for _ in range(args.rounds):
            for name, path in builds.items():
                done = subprocess.run([sys.executable, "-c", CHILD, str(path), str(args.n),
                                       str(args.rows)], capture_output=True, text=True,
                                      check=False, cwd=ROOT)
                if done.returncode != 0:
                    raise SystemExit(f"the {name} process failed:\n{done.stderr}")
                for key, value in json.loads(done.stdout).items():
                    best[name][key] = min(best[name].get(key, float("inf")), value)
    print(f"best of {args.rounds} alternating processes per build "
          f"(Python {sys.version.split()[0]}, {' '.join(compiler_command())})")
    print(f"{'':38s} {'full API':>10s} {'limited':>10s} {'limited/full':>13s}")
    for key in best["full API"]:
        full, limited = best["full API"][key], best["limited API"][key]
        print(f"{key:38s} {full:10.2f} {limited:10.2f} {limited / full:12.2f}x")


if __name__ == "__main__":
    main()

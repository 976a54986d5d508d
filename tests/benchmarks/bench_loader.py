"""What hostile model files cost the loader: time and peak memory, one subprocess each.

Builds, in a scratch directory:

- ``valid``: a fitted fast ``DynamicTreeRegressor`` (100 particles, 40 Friedman rows);
- ``bomb``: 1 MB of gzip that inflates to about 1 GiB (a JSON list of zeros);
- ``repeat``: about 2 MB of gzip holding a valid model's document whose particle list
  repeats one particle a million times;
- ``deep``: a valid document with one field nested 400 deep;
- ``digits``: a valid document with a 5,000-digit integer as a counter;
- ``w0``, ``axis``, ``zeros2``, ``zeros1``, ``v1zeros``: the hostile files of issue 47
  (``hostile_files`` of ``tests/common/test_loader_costs.py``: a ``[2e7, 0]`` array, a
  ``[0, 2**61]`` array, 128 MiB of deflated zeros as rows and as a vector, 31 million
  ``0.0`` in format 1), and ``v1half``: 15.7 million ``0.0``, under the parse budget;

then loads each in a fresh interpreter (``fast.load``), optionally under an address-space
limit, and prints the outcome, the wall time and the peak resident memory of the child.

Usage::

    python tests/benchmarks/bench_loader.py                 # default cap, no limit
    python tests/benchmarks/bench_loader.py --limit-gb 1    # RLIMIT_AS of 1 GB per child
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

CHILD = """
import sys, resource
limit = int(sys.argv[2])
if limit:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
import fast
from reference.state import StateFormatError
try:
    fast.load(sys.argv[1])
    outcome = "loaded"
except StateFormatError as exc:
    outcome = "StateFormatError: " + str(exc).split(": ", 1)[-1]
except MemoryError:
    outcome = "MemoryError"
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, outcome)
"""


def write_bomb(path: Path, inflated: int) -> None:
    """A gzip file whose content is ``[0,0,...,0]``, about ``inflated`` bytes."""
    block = b"0," * (1 << 19)
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    with path.open("wb") as out:
        out.write(comp.compress(b"["))
        for _ in range(inflated // len(block)):
            out.write(comp.compress(block))
        out.write(comp.compress(b"0]"))
        out.write(comp.flush())


def documents(folder: Path) -> dict[str, Path]:
    import fast
    from reference.evaluation.datasets import friedman1

    X, y = friedman1(40, seed=1)
    model = fast.DynamicTreeRegressor(n_particles=100, seed=1)
    model.partial_fit(X, y)
    paths = {"valid": folder / "valid.dwm"}
    from reference.persist import save

    save(model, paths["valid"], version=1)      # the gzip JSON the other files edit
    doc = json.loads(gzip.open(paths["valid"]).read())

    paths["bomb"] = folder / "bomb.dwm"
    write_bomb(paths["bomb"], 1 << 30)

    paths["repeat"] = folder / "repeat.dwm"
    particles = doc["snapshot"]["particles"]
    one = json.dumps(particles[0], separators=(",", ":")).encode()
    head, _, tail = json.dumps(doc, separators=(",", ":")).encode().partition(
        json.dumps(particles, separators=(",", ":")).encode())
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    with paths["repeat"].open("wb") as out:
        out.write(comp.compress(head + b"["))
        for i in range(1_000_000):
            out.write(comp.compress(one if i == 0 else b"," + one))
        out.write(comp.compress(b"]" + tail))
        out.write(comp.flush())

    nested: object = 1
    for _ in range(400):
        nested = [nested]
    paths["deep"] = folder / "deep.dwm"
    with gzip.open(paths["deep"], "wt") as out:
        json.dump({**doc, "fitted": {**doc["fitted"], "extra": nested}}, out)

    paths["digits"] = folder / "digits.dwm"
    text = json.dumps(doc)
    key = '"n_seen": '
    at = text.index(key) + len(key)
    end = at + len(text[at:].split(",")[0].split("}")[0])
    with gzip.open(paths["digits"], "wt") as out:
        out.write(text[:at] + "9" * 5000 + text[end:])

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))
    from test_loader_costs import hostile_files

    short = {"rows of zero width [2e7, 0]": "w0", "an axis of 2**61": "axis",
             "128 MiB of zeros as rows": "zeros2", "128 MiB of zeros as a vector": "zeros1",
             "format 1: 31 million 0.0": "v1zeros"}
    for name, path in hostile_files(folder, fast).items():
        if name in short:
            paths[short[name]] = path
    half = doc_with_zeros(folder / "v1half.dwm", 15 << 20)
    paths["v1half"] = half
    return paths


def doc_with_zeros(path: Path, count: int) -> Path:
    """A format-1 ABACOC document whose generator state is a list of ``count`` 0.0."""
    import numpy as np

    import fast
    from reference.persist import save

    model = fast.ABACOCClassifier()
    model.partial_fit(np.random.default_rng(0).random((4, 3)), [0, 1, 0, 1])
    save(model, path, version=1)
    doc = json.loads(gzip.open(path).read())
    doc["snapshot"]["rng_state"] = "@@"
    pre, post = json.dumps(doc).split('"@@"')
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"0.0," * (1 << 16)
    with path.open("wb") as out:
        out.write(comp.compress(pre.encode() + b"["))
        for _ in range(count // (1 << 16)):
            out.write(comp.compress(block))
        out.write(comp.compress(b"0.0]" + post.encode()) + comp.flush())
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit-gb", type=float, default=0.0,
                        help="address-space limit of each child in GB (default: none)")
    args = parser.parse_args()
    limit = int(args.limit_gb * 1e9)
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    with tempfile.TemporaryDirectory() as scratch:
        paths = documents(Path(scratch))
        print(f"{'file':8} {'on disk':>10} {'seconds':>8} {'peak MB':>8}  outcome")
        for name, path in paths.items():
            start = time.perf_counter()
            child = subprocess.run([sys.executable, "-c", CHILD, str(path), str(limit)],
                                   capture_output=True, text=True, env=env)
            seconds = time.perf_counter() - start
            lines = child.stdout.strip().splitlines()
            if child.returncode == 0 and lines:
                peak_kb, outcome = lines[-1].split(" ", 1)
                peak = f"{int(peak_kb) / 1024:.0f}"
            else:
                peak, outcome = "-", f"exit {child.returncode}: {child.stderr.strip()[-60:]}"
            print(f"{name:8} {path.stat().st_size:>10,} {seconds:>8.2f} {peak:>8}  "
                  f"{outcome[:60]}")


if __name__ == "__main__":
    main()

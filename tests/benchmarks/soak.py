"""Soak benchmark: resident memory of the fast models over long streams.

Not a test and not timed: each model learns a drifting stream in chunks through
``partial_fit`` (the C loop) and the resident set size (``/proc/self/statm``) is read
after every tenth of the stream, together with the model's own size measure. Memory
must be flat where the paper bounds it (ABACOC with a budget, dynamic trees with an
active pool) and grow only with the model where it does not (SGT leaves, ABACOC balls
without a budget, dynamic trees keeping every point). The dynamic tree runs at default
settings: its per-step ``lpred_`` history is bounded by default (``lpred_window=10000``;
``None``, the opt-in full history, keeps one float per point, about 40 bytes each). For the
models whose memory the method bounds, the script prints PASS when RSS at the end of the
stream is within 5% of RSS after its first tenth, FAIL otherwise.

Usage::

    python tests/benchmarks/soak.py                 # 10^6 points per model (several minutes)
    python tests/benchmarks/soak.py --n 200000      # quicker look
    python tests/benchmarks/soak.py --only abacoc   # one family

Each model runs in its own child process, so one model's allocations do not hide
another's growth.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

CHUNK = 5000
D = 4


def rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        resident = int(fh.read().split()[1])
    return resident * os.sysconf("SC_PAGE_SIZE") / 2**20


def drifting_chunk(rng: np.random.Generator, start: int, n: int, total: int
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows in [0,1]^4; a hyperplane label and a Friedman-like target, both rotating slowly
    over the stream (so covers keep meeting new mistakes and trees keep splitting)."""
    X = rng.uniform(0.0, 1.0, (n, D))
    t = (start + np.arange(n)) / total
    angle = 2.0 * np.pi * t
    w0, w1 = np.cos(angle), np.sin(angle)
    label = ((X[:, 0] - 0.5) * w0 + (X[:, 1] - 0.5) * w1 > 0.0).astype(np.int64)
    target = (10 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 20 * (X[:, 2] - 0.5 - 0.3 * w1) ** 2
              + 5 * X[:, 3] * w0 + rng.normal(0.0, 1.0, n))
    return X, label, target


def _abacoc(budget: int | None) -> Callable[[], Any]:
    def make() -> Any:
        import fast
        return fast.ABACOCClassifier(variant="auto_adj", budget=budget, seed=1)
    return make


def _sgt() -> Any:
    import fast
    return fast.SGTRegressor()


def _dt(active: int | None) -> Callable[[], Any]:
    def make() -> Any:
        import fast
        kw: dict[str, Any] = dict(n_particles=20, seed=1)
        if active is not None:
            kw["active_size"] = active  # lpred_ history: bounded by default
        return fast.DynamicTreeRegressor(**kw)
    return make


def _size(model: Any) -> str:
    if hasattr(model, "n_balls_"):
        return f"{model.n_balls_} balls"
    if hasattr(model, "n_nodes_"):
        return f"{model.n_nodes_} nodes"
    h = getattr(model, "_h", None)
    if h is not None and hasattr(h, "n"):
        return f"{int(h.store.n)} stored pts"
    return ""


CONFIGS: dict[str, tuple[str, Callable[[], Any], str, float]] = {
    # name: (family, factory, target kind, share of --n)
    "ABACOC auto_adj budget=500": ("abacoc", _abacoc(500), "label", 1.0),
    "ABACOC auto_adj no budget": ("abacoc", _abacoc(None), "label", 1.0),
    "SGTRegressor (defaults)": ("sgt", _sgt, "target", 1.0),
    "DynamicTree active_size=200 (defaults otherwise)": ("dt", _dt(200), "target", 1.0),
    "DynamicTree no pool (1/20 of n)": ("dt", _dt(None), "target", 0.05),
}
BOUNDED = {"ABACOC auto_adj budget=500", "DynamicTree active_size=200 (defaults otherwise)"}
"""Models whose memory the method bounds: their RSS must stay within 5%."""


def run_one(name: str, n_total: int, queue: Any) -> None:
    family, factory, kind, share = CONFIGS[name]
    n = max(CHUNK, int(n_total * share) // CHUNK * CHUNK)
    rng = np.random.default_rng(7)
    model = factory()
    rows = []
    base = rss_mb()
    marks = {int(n * k / 10) for k in range(1, 11)}
    start = time.perf_counter()
    done = 0
    while done < n:
        X, label, target = drifting_chunk(rng, done, CHUNK, n)
        model.partial_fit(X, label if kind == "label" else target)
        done += CHUNK
        if any(done >= m > done - CHUNK for m in marks):
            rows.append((done, rss_mb(), _size(model)))
    queue.put((name, base, rows, time.perf_counter() - start))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="points per model")
    parser.add_argument("--only", choices=["abacoc", "sgt", "dt"], default=None)
    args = parser.parse_args()
    ctx = mp.get_context("fork")
    print(f"soak: {args.n} points per model (dynamic trees without a pool: 1/20), "
          f"chunks of {CHUNK}, RSS from /proc/self/statm")
    for name, (family, _, _, _) in CONFIGS.items():
        if args.only and family != args.only:
            continue
        queue = ctx.Queue()
        proc = ctx.Process(target=run_one, args=(name, args.n, queue))
        proc.start()
        name, base, rows, seconds = queue.get()
        proc.join()
        print(f"\n{name}  (RSS before learning {base:.1f} MB, {seconds:.1f} s)")
        print(f"  {'points':>9}  {'RSS MB':>8}  {'growth MB':>9}  model size")
        for done, rss, size in rows:
            print(f"  {done:>9}  {rss:>8.1f}  {rss - base:>9.1f}  {size}")
        if len(rows) >= 5:
            mid, last = rows[len(rows) // 5][1], rows[-1][1]
            print(f"  RSS change over the last 80% of the stream: {last - mid:+.1f} MB")
        if name in BOUNDED and rows:
            first, last = rows[0][1], rows[-1][1]
            verdict = "PASS" if abs(last - first) <= 0.05 * first else "FAIL"
            print(f"  {verdict}: RSS {first:.1f} MB after the first tenth, {last:.1f} MB at the "
                  f"end ({100 * (last - first) / first:+.1f}%; bound 5%)")


if __name__ == "__main__":
    main()

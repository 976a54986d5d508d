"""Dynamic-tree learning on threads (a script, not a test): dynaTree, ours on one thread,
ours on two, in one run.

For each setting, N = 1,000 particles on Friedman-1 (5 inputs):

- ``constant``, ``linear`` (augmented intercept), ``class`` (the response above its
  median): ``partial_fit`` of 1,000 rows (``--n``) from an empty model;
- ``alc``: linear leaves, ``active_size = 200`` with ALC retirement (``approx=True``,
  ``rect = [0, 1]^5``, as demo/online.R): 200 rows learned first (not timed), then
  800 retire-one-learn-one rounds (``--rounds``), dynaTree's ``alcX`` / ``retire`` /
  ``update`` loop in R (``bench_retirement.R_SETTING``) against ``partial_fit`` of the
  800 rows.

Printed per setting: dynaTree's CPU time (timed inside R, best of ``--repeats``), ours
with ``n_jobs=1`` (CPU time of this thread and wall time), ours with ``n_jobs=2`` (wall
time; the CPU time of two threads is not the cost a user waits for), the speed-up
``n_jobs=1`` wall / ``n_jobs=2`` wall, dynaTree / ours on one thread, and whether the
two runs ended in the same state (they must: [DT-SPEC §0] item 6). Runs alternate
(dynaTree, ours 1, ours 2) so that all see the same machine load; each reports its best.
Then a ``learn_one`` loop at N = 50 (200 rows) with ``n_jobs`` 1 and 2, which must take
the same time.

The wall times need an idle machine. The CPU model printed under each setting does not:
with ``n_jobs=2`` the CPU time of the threads other than the caller's is half the part P
of the step that runs in parallel, the calling thread's the serial part S plus the other
half, so the speed-up on k free cores is ``T1 / (S + P / k)`` with T1 the one-thread CPU
time. Learning runs each step on ``min(n_jobs, N // 32)`` threads ([DT-SPEC §8.5]),
which claim blocks of slots as they go: the model holds when the second thread was running
whenever a block was left (an idle machine); on a busy one the caller takes more blocks
and the model overstates S.

Usage::

    python tests/benchmarks/bench_dynatree_threads.py               # all, about 3 min
    python tests/benchmarks/bench_dynatree_threads.py --no-r --repeats 1 --models constant
    R_LIBS=/path/to/lib python tests/benchmarks/bench_dynatree_threads.py  # dynaTree there

Run on an otherwise idle machine: a second thread only helps when a second core is free.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import _rdynatree  # noqa: E402
import bench_dynatree  # noqa: E402
import bench_retirement  # noqa: E402

import fast  # noqa: E402
from reference.evaluation.datasets import friedman1  # noqa: E402

SETTINGS = ("constant", "linear", "class", "alc")


def _model(name: str, n_particles: int, n_jobs: int, seed: int) -> Any:
    if name == "alc":
        return fast.DynamicTreeRegressor(leaf="linear", intercept="augmented",
                                         n_particles=n_particles, seed=seed, active_size=200,
                                         retirement="alc", approx=True,
                                         rect=[(0.0, 1.0)] * 5, n_jobs=n_jobs)
    m = bench_dynatree.make(fast, name, n_particles, seed)
    m.n_jobs = n_jobs
    return m


def ours(name: str, n: int, rounds: int, n_particles: int, n_jobs: int
         ) -> tuple[float, float, float, Any]:
    """(CPU seconds of this thread, wall seconds, CPU seconds of the process, snapshot)
    of one timed fit."""
    if name == "alc":
        X, y = friedman1(200 + rounds, seed=1)
        m = _model(name, n_particles, n_jobs, 1)
        m.partial_fit(X[:200], y[:200])
        X, y = X[200:], y[200:]
    else:
        X, y = friedman1(n, seed=2)
        y = bench_dynatree.targets(name, y)
        m = _model(name, n_particles, n_jobs, 3)
    c0, w0, p0 = time.thread_time(), time.perf_counter(), time.process_time()
    m.partial_fit(X, y)
    return (time.thread_time() - c0, time.perf_counter() - w0, time.process_time() - p0,
            m.snapshot())


def theirs(name: str, n: int, rounds: int, n_particles: int, rep: int) -> float:
    if name == "alc":
        return bench_retirement.r_setting("alc", n_particles, rounds, 200, 1)
    X, y = friedman1(n, seed=2)
    yy = bench_dynatree.targets(name, y)
    return _rdynatree.cpu_seconds(bench_dynatree.R_SCRIPT, np.column_stack([X, yy]), name,
                                  str(n_particles), str(rep + 1))


def learn_one_loop(n_jobs: int, repeats: int) -> float:
    X, y = friedman1(200, seed=4)
    best = math.inf
    for _ in range(repeats):
        m = fast.DynamicTreeRegressor(n_particles=50, seed=1, n_jobs=n_jobs)
        t0 = time.perf_counter()
        for i in range(len(y)):
            m.learn_one(X[i].tolist(), float(y[i]))
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=1000, help="rows of the three leaves")
    parser.add_argument("--rounds", type=int, default=800, help="ALC rounds after 200 rows")
    parser.add_argument("--particles", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--models", default=",".join(SETTINGS), help="comma-separated")
    parser.add_argument("--no-r", action="store_true", help="time ours alone")
    args = parser.parse_args()
    with_r = not args.no_r and _rdynatree.available()
    if not with_r and not args.no_r:
        print(_rdynatree.INSTALL)
    print(f"learning, Friedman-1 (5 inputs), N={args.particles}, best of {args.repeats}; "
          f"dynaTree and ours on 1 thread: CPU s; ours n_jobs=1 and 2: wall s")
    for name in [s for s in args.models.split(",") if s]:
        r_best = c1 = w1 = w2 = main2 = total2 = math.inf
        same = True
        for rep in range(args.repeats):
            if with_r:
                r_best = min(r_best, theirs(name, args.n, args.rounds, args.particles, rep))
            c, w, _, s1 = ours(name, args.n, args.rounds, args.particles, 1)
            c1, w1 = min(c1, c), min(w1, w)
            c, w, p, s2 = ours(name, args.n, args.rounds, args.particles, 2)
            if p < total2:
                main2, total2 = c, p
            w2 = min(w2, w)
            same = same and s1 == s2
        r_txt = f"dynaTree {r_best:7.2f}  dynaTree/ours {r_best / c1:5.1f}x  " if with_r \
            else ""
        print(f"   {name:8s} {r_txt}ours 1 thread {c1:6.2f} (wall {w1:6.2f})  "
              f"2 threads wall {w2:6.2f}  speed-up {w1 / w2:4.2f}x  "
              f"states {'identical' if same else 'DIFFER'}")
        # the model of k cores from CPU times (independent of the machine's load): with
        # two threads the worker's CPU time is its half of the parallel part P, the
        # calling thread's is the serial part S plus the other half
        par = 2.0 * (total2 - main2)
        ser = max(0.0, main2 - (total2 - main2))
        model = "  ".join(f"{k} cores {c1 / (ser + par / k):4.2f}x" for k in (2, 4, 8))
        print(f"            CPU model: serial {ser:6.2f} s + parallel {par:6.2f} s "
              f"(one thread {c1:6.2f} s) -> speed-up on {model}")
        if not same:
            raise SystemExit(f"{name}: n_jobs=1 and n_jobs=2 ended in different states")
    one, two = learn_one_loop(1, args.repeats), learn_one_loop(2, args.repeats)
    print(f"   learn_one loop, N=50, 200 rows: n_jobs=1 {one:6.3f} s  n_jobs=2 {two:6.3f} s"
          f"  ratio {two / one:4.2f}")


if __name__ == "__main__":
    main()

"""ABACOC's cost on long streams: balls against rows, cost per row against balls and D.

Run from the repository root (a script, not a pytest test)::

    python tests/benchmarks/bench_abacoc_growth.py              # every section (15-25 min)
    python tests/benchmarks/bench_abacoc_growth.py --quick      # shorter streams (3-5 min)
    python tests/benchmarks/bench_abacoc_growth.py --only rows dims
    python tests/benchmarks/bench_abacoc_growth.py --only rows --budget none
    python tests/benchmarks/bench_abacoc_growth.py --only rows --searches auto \
        --max-seconds 600                                    # the default to 10^6 rows

Every figure comes from this one run of the ``fast`` backend, CPU time per row. Sections:

``rows``
    the synthetic stream of ``uniform_stream`` (``D = 20`` features uniform in [0, 1],
    label ``x_0 > 0.5``) learned by the prequential loop (predict, then learn), with
    checkpoints from 10^3 to ``--max-rows`` rows: at each one the number of balls, the CPU
    µs per row of the loop since the last checkpoint, of ``predict`` on 2,000 fresh rows,
    and the online accuracy so far, for each search (``scan``, ``kdtree``, ``auto``).
    A curve stops at the first checkpoint after ``--max-seconds`` of CPU time (the
    paper's unbounded cover makes the stream cost quadratic in its length).
``dims``
    the same stream with D = 2, 5, 10, 20, 50.
``variants``
    the four variants at D = 20.
``budget``
    the accuracy and the cost of each budget B (the FIX rule) against the unbounded cover,
    on the synthetic stream (D = 5, 20) and the real streams found in ``$DRIFTWOOD_DATA``
    (``elec_moa``, ``covtype_50k``, ``letter``, ``shuttle_statlog``, ``bananas``).
``real``
    the growth curve of the real streams at the defaults.

``--budget`` sets the budget of the ``rows``, ``dims`` and ``variants`` sections
(``none`` for the paper's unbounded cover; default: the model's default).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

import numpy as np

import fast

CHECKPOINTS = (1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000,
               1_000_000)
PROBE_ROWS = 2_000
REAL_STREAMS = ("elec_moa", "covtype_50k", "letter", "shuttle_statlog", "bananas")


def uniform_stream(n: int, dim: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``n`` rows uniform in [0, 1]^dim, label ``x_0 > 0.5`` (one relevant feature)."""
    g = np.random.default_rng(seed)
    X = g.uniform(0.0, 1.0, size=(n, dim))
    return X, (X[:, 0] > 0.5).astype(np.int64)


def real_stream(name: str) -> tuple[np.ndarray, np.ndarray] | None:
    """A real data set from ``$DRIFTWOOD_DATA`` in file order, or None if absent."""
    from reference.evaluation.datasets import load_csv

    try:
        X, y = load_csv(name, task="classification")
    except (FileNotFoundError, OSError, ValueError):
        return None
    return np.ascontiguousarray(X, dtype=np.float64), np.asarray(y, dtype=np.int64)


def model_kwargs(budget: str, **extra: Any) -> dict[str, Any]:
    """Constructor arguments: the model's default budget unless ``--budget`` says one."""
    kwargs = dict(extra)
    if budget == "none":
        kwargs["budget"] = None
    elif budget != "default":
        kwargs["budget"] = int(budget)
    return kwargs


def growth(X: np.ndarray, y: np.ndarray, kwargs: dict[str, Any], checkpoints: list[int],
           max_seconds: float, probe: np.ndarray) -> list[dict[str, float]]:
    """Prequential run with one row of figures per checkpoint (see the module docstring)."""
    model = fast.ABACOCClassifier(**kwargs)
    rows: list[dict[str, float]] = []
    prev, correct, spent = 0, 0, 0.0
    for stop in checkpoints:
        if stop > len(X):
            break
        start = time.process_time()
        result = model.prequential(X[prev:stop], y[prev:stop])
        loop = time.process_time() - start
        correct += int(result["n_correct"])
        start = time.process_time()
        model.predict(probe)
        predict = time.process_time() - start
        spent += loop
        rows.append({"rows": stop, "balls": model.n_balls_,
                     "loop_us": loop / (stop - prev) * 1e6,
                     "predict_us": predict / len(probe) * 1e6,
                     "accuracy": correct / stop})
        prev = stop
        if spent > max_seconds:
            break
    return rows


def print_curve(label: str, rows: list[dict[str, float]]) -> None:
    for r in rows:
        print(f"{label:<28} {r['rows']:>9,.0f} {r['balls']:>8,.0f} {r['balls'] / r['rows']:>7.3f}"
              f" {r['loop_us']:>9.1f} {r['predict_us']:>9.1f}"
              f" {r['predict_us'] / max(r['balls'], 1) * 1e3:>10.2f} {r['accuracy']:>7.4f}",
              flush=True)


def header(title: str) -> None:
    print(f"\n== {title} ==")
    print(f"{'curve':<28} {'rows':>9} {'balls':>8} {'balls/n':>7} {'loop us':>9}"
          f" {'pred us':>9} {'ns/ball':>10} {'acc':>7}")


def section_rows(args: argparse.Namespace, checkpoints: list[int]) -> None:
    header("balls and cost per row against rows: uniform stream, D = 20, x0 > 0.5 "
           f"(budget: {args.budget})")
    X, y = uniform_stream(checkpoints[-1], 20)
    probe, _ = uniform_stream(PROBE_ROWS, 20, seed=1)
    for search in args.searches:
        rows = growth(X, y, model_kwargs(args.budget, search=search), checkpoints,
                      args.max_seconds, probe)
        print_curve(f"search={search}", rows)


def section_dims(args: argparse.Namespace, checkpoints: list[int]) -> None:
    header(f"against the dimension: uniform stream, x0 > 0.5, search='auto' and 'scan' "
           f"(budget: {args.budget})")
    for dim in args.dims:
        X, y = uniform_stream(checkpoints[-1], dim)
        probe, _ = uniform_stream(PROBE_ROWS, dim, seed=1)
        for search in [s for s in ("auto", "scan") if s in args.searches]:
            rows = growth(X, y, model_kwargs(args.budget, search=search), checkpoints,
                          args.max_seconds, probe)
            print_curve(f"D={dim} search={search}", rows)


def section_variants(args: argparse.Namespace, checkpoints: list[int]) -> None:
    header(f"the variants: uniform stream, D = 20 (budget: {args.budget} for the AUTO family)")
    X, y = uniform_stream(checkpoints[-1], 20)
    probe, _ = uniform_stream(PROBE_ROWS, 20, seed=1)
    for variant in ("base", "base_adj", "auto", "auto_adj"):
        extra: dict[str, Any] = {"variant": variant}
        if variant.startswith("base"):
            extra["mode"] = "majority"
            kwargs = dict(extra)
            if args.budget != "default":
                kwargs["budget"] = None
        else:
            kwargs = model_kwargs(args.budget, **extra)
        rows = growth(X, y, kwargs, checkpoints, args.max_seconds, probe)
        print_curve(f"variant={variant}", rows)


def run_once(X: np.ndarray, y: np.ndarray, kwargs: dict[str, Any],
             probe: np.ndarray) -> tuple[float, int, float, float]:
    """(accuracy, final balls, loop µs per row, predict µs per row) of one prequential run."""
    model = fast.ABACOCClassifier(**kwargs)
    start = time.process_time()
    result = model.prequential(X, y)
    loop = time.process_time() - start
    start = time.process_time()
    model.predict(probe)
    predict = time.process_time() - start
    return (float(result["accuracy"]), model.n_balls_, loop / len(X) * 1e6,
            predict / len(probe) * 1e6)


def section_budget(args: argparse.Namespace) -> None:
    print("\n== accuracy and cost of a ball budget (AUTO-ADJ, search='auto'), one run each ==")
    print(f"{'stream':<24} {'budget':>8} {'acc':>7} {'d acc':>7} {'balls':>7}"
          f" {'loop us':>8} {'pred us':>8}")
    n_syn = 50_000 if args.quick else 200_000
    streams: list[tuple[str, np.ndarray, np.ndarray]] = []
    for dim in (5, 20):
        X, y = uniform_stream(n_syn, dim)
        streams.append((f"uniform D={dim} n={n_syn:,}", X, y))
    for name in REAL_STREAMS:
        data = real_stream(name)
        if data is None:
            print(f"({name}: not found in $DRIFTWOOD_DATA, skipped)")
            continue
        streams.append((f"{name} n={len(data[0]):,} D={data[0].shape[1]}", *data))
    for label, X, y in streams:
        probe = X[np.random.default_rng(1).integers(0, len(X), size=PROBE_ROWS)]
        base = None
        for budget in (None, 20_000, 10_000, 5_000, 2_000, 1_000):
            acc, balls, loop, pred = run_once(X, y, {"budget": budget}, probe)
            if base is None:
                base = acc
            shown = "none" if budget is None else f"{budget:,}"
            print(f"{label:<24} {shown:>8} {acc:>7.4f} {acc - base:>+7.4f} {balls:>7,}"
                  f" {loop:>8.1f} {pred:>8.1f}", flush=True)


def section_real(args: argparse.Namespace) -> None:
    header(f"real streams in file order, search='auto' (budget: {args.budget})")
    for name in REAL_STREAMS:
        data = real_stream(name)
        if data is None:
            print(f"({name}: not found in $DRIFTWOOD_DATA, skipped)")
            continue
        X, y = data
        checkpoints = [c for c in CHECKPOINTS if c < len(X)] + [len(X)]
        probe = X[np.random.default_rng(1).integers(0, len(X), size=PROBE_ROWS)]
        print_curve(f"{name} D={X.shape[1]}",
                    growth(X, y, model_kwargs(args.budget), checkpoints, args.max_seconds,
                           probe))


SECTIONS = {"rows": section_rows, "dims": section_dims, "variants": section_variants,
            "budget": section_budget, "real": section_real}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="streams of 10^5 rows at most")
    parser.add_argument("--only", nargs="+", choices=list(SECTIONS), help="sections to run")
    parser.add_argument("--max-rows", type=int, default=1_000_000)
    parser.add_argument("--max-seconds", type=float, default=60.0,
                        help="CPU seconds after which a curve stops at its next checkpoint")
    parser.add_argument("--searches", nargs="+", default=["scan", "kdtree", "auto"],
                        choices=["scan", "kdtree", "auto"], help="searches of 'rows' and 'dims'")
    parser.add_argument("--dims", nargs="+", type=int, default=[2, 5, 10, 20, 50],
                        help="dimensions of 'dims'")
    parser.add_argument("--budget", default="default",
                        help="'default', 'none' (unbounded) or an integer")
    args = parser.parse_args(argv)
    if args.quick:
        args.max_rows = min(args.max_rows, 100_000)
        args.max_seconds = min(args.max_seconds, 15.0)
    checkpoints = [c for c in CHECKPOINTS if c <= args.max_rows]
    print(f"fast backend, CPU time; Python {sys.version.split()[0]};"
          f" DRIFTWOOD_DATA={os.environ.get('DRIFTWOOD_DATA', '(unset)')}")
    print("loop us: prequential loop (predict + learn) per row since the previous checkpoint;"
          " pred us: predict per row on 2,000 fresh rows; ns/ball: pred us per ball")
    for name in args.only or list(SECTIONS):
        if name in ("rows", "dims", "variants"):
            SECTIONS[name](args, checkpoints)
        else:
            SECTIONS[name](args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""``driftwood grid SPEC``: run an experiment grid, summarise it, plot it."""

from __future__ import annotations

import argparse

from reference.evaluation.catalog import UsageError

__all__ = ["cmd_grid"]


def cmd_grid(args: argparse.Namespace) -> int:
    """Run (or, with ``--summary-only``, read) a grid; print its summary table."""
    import pandas as pd

    from reference.evaluation import grid

    try:
        if args.summary_only:
            if args.out is None:
                raise UsageError("--summary-only needs --out")
            results = grid.read_results(args.out)
        else:
            if args.spec is None:
                raise UsageError("grid needs a spec file (or --summary-only --out DIR)")
            exp = grid.load_experiment(args.spec)
            out = args.out or f"grid-{exp.name}"
            results = grid.run_grid(exp, out, engine=args.engine, n_jobs=args.jobs,
                                    scheduler=args.scheduler, progress=args.progress)
            print(f"{len(exp.cells())} cells; results in {out}/results.csv")
    except grid.GridError as err:
        raise UsageError(str(err)) from err
    table = grid.summarize(results)
    with pd.option_context("display.width", 200, "display.max_columns", 20,
                           "display.max_colwidth", 60):
        print(table.to_string(index=False))
    if args.plot:
        if not (args.metric and args.param):
            raise UsageError("--plot needs --metric and --param")
        fig = grid.plot_grid(results, args.metric, args.param)
        fig.savefig(args.plot, dpi=100)
        print(f"plot written to {args.plot}")
    return 0

"""``driftwood grid SPEC``: run an experiment grid, summarise it, plot it."""

from __future__ import annotations

import argparse
import json
import math
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from reference.evaluation import catalog
from reference.evaluation.catalog import UsageError
from reference.evaluation.cli._errors import Interrupted, require_extra
from reference.evaluation.cli._output import columns, progress_enabled, wrap
from reference.evaluation.prequential.result import ALPD_MEANING

__all__ = ["cmd_grid", "summary_text"]


def cmd_grid(args: argparse.Namespace) -> int:
    """Run (or, with ``--summary-only``, read) a grid; print its summary table."""
    needed = ["pandas"]
    if not args.summary_only:
        needed += {"joblib": ["joblib"], "dask": ["distributed"]}.get(args.engine, [])
    require_extra("grid", "driftwood grid", needed)
    from reference.evaluation import grid

    try:
        if args.summary_only:
            if args.out is None:
                raise UsageError("--summary-only needs --out DIR (the output of an earlier run)")
            if not (Path(args.out) / "results.csv").is_file():
                raise UsageError(
                    f"no results in {args.out} (no results.csv): run the grid first, "
                    f"`driftwood grid SPEC --out {args.out}`"
                )
            results = grid.read_results(args.out)
        else:
            exp = grid.load_experiment(_spec_source(args.spec))
            out = args.out or f"grid-{exp.name}"
            try:
                results = grid.run_grid(exp, out, engine=args.engine, n_jobs=args.jobs,
                                        scheduler=args.scheduler,
                                        progress=progress_enabled(args.progress))
            except KeyboardInterrupt:
                raise Interrupted(_interrupted(args, exp, out)) from None
            print(f"{len(exp.cells())} cells; results in {out}/results.csv")
    except grid.GridError as err:
        raise UsageError(str(err)) from err
    print(summary_text(grid.summarize(results)))
    if args.plot:
        if not (args.metric and args.param):
            raise UsageError("--plot needs --metric and --param, e.g. --metric mae --param lam")
        fig = grid.plot_grid(results, args.metric, args.param)
        fig.savefig(args.plot, dpi=100)
        print(f"plot written to {args.plot}")
    return 0


def _shipped_list() -> str:
    from reference.evaluation.grid import shipped_experiments

    names = shipped_experiments()
    return (
        f"the shipped grids are {', '.join(names)} (e.g. `driftwood grid {names[0]}`)"
        if names
        else "no grid is shipped with this installation"
    )


def _spec_source(spec: str | None) -> str:
    """The spec argument, checked: an existing file or a shipped grid's name."""
    from reference.evaluation.grid import shipped_experiments

    if spec is None:
        raise UsageError(
            "grid needs a spec: a TOML file or the name of a shipped grid (or --summary-only "
            f"--out DIR); {_shipped_list()}"
        )
    if not Path(spec).exists() and spec not in shipped_experiments():
        raise UsageError(f"no grid spec {spec!r}: no such file, nor a shipped grid; "
                         f"{_shipped_list()}")
    return spec


def _interrupted(args: argparse.Namespace, exp: Any, out: str) -> str:
    """The line after Ctrl-C: how many cells are saved, and the command that resumes."""
    cells = exp.cells()
    saved = sum((Path(out) / "cells" / f"{cell.digest}.csv").exists() for cell in cells)
    command = ["driftwood", "grid", args.spec, "--out", out]
    if args.engine != "joblib":
        command += ["--engine", args.engine]
    if args.jobs != -1:
        command += ["--jobs", str(args.jobs)]
    if args.scheduler:
        command += ["--scheduler", args.scheduler]
    return (f"{saved} of {len(cells)} cells are saved in {out}/cells; resume with: "
            f"{shlex.join(command)}")


def _params_text(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items()) or "-"


def _metric_text(model: str, metric: str) -> str:
    """``size`` says what it counts (``size (nodes)`` for a tree, ``size (balls)`` for
    ABACOC); other metrics as they are."""
    if metric not in ("size", "max_size"):
        return metric
    spec = catalog.MODELS.get(model)
    attribute = SIZE_OF_CLASS.get(spec.class_name if spec is not None else "")
    if attribute is None:
        return metric
    return f"{metric} ({catalog.SIZE_MEANING[attribute].split()[-1]})"


SIZE_OF_CLASS = {"SGTRegressor": "n_nodes_", "SGTClassifier": "n_nodes_",
                 "ABACOCClassifier": "n_balls_", "NearestNeighbours": "n_stored_"}
"""The size attribute of each model class that has one (see ``catalog.SIZE_ATTRIBUTES``)."""


def summary_text(table: Any) -> str:
    """The summary of :func:`reference.evaluation.grid.summarize` as text of at most 100
    columns.

    The parameters every row of a model shares are printed once, above the table; the
    table shows only the parameters that vary. An ``alpd`` of ``-inf`` is explained in a
    note under it.
    """
    params = [json.loads(text) for text in table["params"]]
    models: Sequence[str] = list(table["model"])
    shared: dict[str, dict[str, Any]] = {}
    for model in dict.fromkeys(models):
        mine = [p for p, m in zip(params, models, strict=True) if m == model]
        shared[model] = {k: v for k, v in mine[0].items()
                         if all(k in p and p[k] == v for p in mine)}
    rows = []
    for record, p in zip(table.to_dict("records"), params, strict=True):
        varying = {k: v for k, v in p.items() if k not in shared[record["model"]]}
        se = record["se"]
        rows.append([record["model"], _params_text(varying), str(record["stream"]),
                     str(record["n"]), _metric_text(record["model"], str(record["metric"])),
                     f"{record['mean']:.6g}",
                     "-" if math.isnan(se) else f"{se:.2g}", str(record["reps"])])
    lines = [wrap(f"{model} (every row): {_params_text(common)}")
             for model, common in shared.items() if common]
    lines.append(columns(rows, ["model", "params", "stream", "n", "metric", "mean", "se",
                                "reps"], right=[3, 5, 6, 7], flex=1))
    if any(r[4] == "alpd" and r[5] == "-inf" for r in rows):
        lines.append(wrap(f"note: {ALPD_MEANING} It is -inf where some step of some "
                          "repetition gave the true label probability 0 (a hard vote, or a "
                          "label the model had not learned yet)."))
    return "\n".join(lines)

"""Running a grid: one cell by its protocol, every cell on an engine, resumably."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from reference.evaluation.grid.results import _consolidate, _rows_text
from reference.evaluation.grid.spec import Cell, Experiment, GridError, cell_seeds, load_experiment
from reference.files import write_atomic

__all__ = ["ENGINES", "run_cell", "run_grid"]


ENGINES = ("serial", "joblib", "dask")

def run_cell(exp: Experiment, cell: Cell) -> list[dict[str, Any]]:
    """Run one cell with the experiment's protocol and return its rows (see ``COLUMNS``).

    A pure function of ``exp`` and ``cell``: what an engine's worker executes.
    """
    from reference.evaluation.protocols import PROTOCOLS, Context, ProtocolError

    data_seed, model_seed = cell_seeds(exp.seed, cell)
    ctx = Context(cell.model, dict(cell.params), cell.stream, cell.n, cell.shuffle, cell.rep,
                  data_seed, model_seed, exp.backend, exp.rate)
    try:
        final = PROTOCOLS[exp.protocol](ctx)
    except ProtocolError as err:
        raise GridError(str(err)) from err
    metrics = exp.metrics or sorted(final)
    rows = []
    for metric in metrics:
        if metric not in final:
            raise GridError(f"metric {metric!r} is not computed for {cell.model} on "
                            f"{cell.stream}; available: {sorted(final)}")
        rows.append({"cell": cell.digest, "model": cell.model,
                     "params": json.dumps(dict(cell.params), sort_keys=True),
                     "stream": cell.stream, "n": cell.n, "rep": cell.rep,
                     "data_seed": data_seed, "model_seed": model_seed, "metric": metric,
                     "value": float(final[metric])})
    return rows


def _execute(exp: Experiment, todo: Sequence[Cell], engine: str, n_jobs: int,
             scheduler: str | None) -> Iterator[tuple[Cell, list[dict[str, Any]]]]:
    """Yield ``(cell, rows)`` as cells finish (any order)."""
    if engine == "serial" or not todo:
        for cell in todo:
            yield cell, run_cell(exp, cell)
        return
    if engine == "joblib":
        from joblib import Parallel, delayed

        parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
        yield from parallel(delayed(_run_pair)(exp, cell) for cell in todo)
        return
    from distributed import Client, as_completed

    if scheduler:
        client = Client(scheduler)
    else:
        with _workers_ignore_ctrl_c():
            client = Client(n_workers=max(1, n_jobs), threads_per_worker=1,
                            dashboard_address=None)
    try:
        futures = [client.submit(_run_pair, exp, cell, pure=False) for cell in todo]
        for future in as_completed(futures):
            yield future.result()
    finally:
        client.close()


@contextlib.contextmanager
def _workers_ignore_ctrl_c() -> Iterator[None]:
    """Ignore SIGINT while local worker processes start, so that they inherit it.

    Ctrl-C in a terminal signals the whole foreground process group: without this, every
    local Dask worker would print its own ``KeyboardInterrupt`` traceback, while the parent
    stops the run anyway (and closes the cluster). Only in the main thread, where Python
    allows changing signal handlers.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _run_pair(exp: Experiment, cell: Cell) -> tuple[Cell, list[dict[str, Any]]]:
    return cell, run_cell(exp, cell)


def run_grid(experiment: Experiment | str | os.PathLike[str] | Mapping[str, Any],
             out: str | os.PathLike[str], *, engine: str = "joblib", n_jobs: int = -1,
             scheduler: str | None = None, progress: bool | None = None,
             order: Callable[[list[Cell]], list[Cell]] | None = None) -> Any:
    """Run the missing cells of an experiment and return the full results table.

    Parameters
    ----------
    experiment : Experiment, path to a TOML spec, or dict
    out : path
        Output directory (created): ``experiment.json``, ``cells/``, ``results.csv``.
    engine : {"joblib", "serial", "dask"}
        Where the cells run. ``"dask"`` connects to ``scheduler`` (``"tcp://host:port"``)
        or, without one, starts a local cluster of ``n_jobs`` single-threaded workers.
    n_jobs : int
        joblib workers (-1: all cores) or local Dask workers.
    progress : bool, optional
        Progress over cells on stderr: a bar on a terminal, else a line every few seconds
        with the time left estimated from the cells finished in this run (default: when
        stderr is a terminal).
    order : callable, optional
        Reorders the cells to run (tests use it to show that order does not matter).

    Returns
    -------
    pandas.DataFrame
        Every cell's rows (``COLUMNS``), sorted by cell key and metric.
    """
    if engine not in ENGINES:
        raise GridError(f"engine must be one of {ENGINES}, got {engine!r}")
    exp = experiment if isinstance(experiment, Experiment) else load_experiment(experiment)
    root = Path(out)
    cells_dir = root / "cells"
    cells_dir.mkdir(parents=True, exist_ok=True)
    spec_file = root / "experiment.json"
    if spec_file.exists():
        if spec_file.read_text(encoding="utf-8") != exp.as_json():
            raise GridError(f"{root} holds results of a different experiment; use another "
                            f"output directory or remove it")
    else:
        write_atomic(spec_file, exp.as_json().encode())
    cells = exp.cells()
    keys = [c.key for c in cells]
    if len(set(keys)) != len(keys):
        raise GridError("two cells have the same key (a parameter listed twice?)")
    todo = [c for c in cells if not (cells_dir / f"{c.digest}.csv").exists()]
    if order is not None:
        todo = order(todo)
    from reference.evaluation.prequential import ProgressBar

    show = progress if progress is not None else os.isatty(2)
    bar = ProgressBar(len(cells), f"grid {exp.name}", enabled=show, unit="cells",
                      start=len(cells) - len(todo))
    try:
        for cell, rows in _execute(exp, todo, engine, n_jobs, scheduler):
            write_atomic(cells_dir / f"{cell.digest}.csv", _rows_text(rows).encode())
            bar.update(1)
    except BaseException:
        bar.close(final=False)
        raise
    bar.close()
    return _consolidate(root, cells)

"""Experiment grids: models x parameter grids x streams x repetitions, run anywhere.

A paper's result is a Monte Carlo grid. An :class:`Experiment` declares one (in TOML, see
:func:`load_experiment`, or as a plain dict) and :func:`run_grid` expands it into
:class:`Cell` s, runs them on an engine and stores every finished cell on disk:

- **Seeds.** Each cell's seeds are derived from the experiment's seed and the cell's key
  with SHA-256 (never Python's salted ``hash``): the *data* seed from the stream and the
  repetition (so every model of a repetition sees the same stream: common random
  numbers), the *model* seed from the whole key. A cell's result therefore depends on
  nothing but its key, and is identical whatever the engine, the number of workers and
  the order of execution.
- **Engines.** ``"serial"``; ``"joblib"`` (local processes, the default); ``"dask"``
  (a ``distributed`` cluster given by its scheduler address, or a local one). joblib and
  Dask are used as they are: this module only hands them the cells.
- **Resumable.** A finished cell is written at once, atomically, to ``cells/<hash>.csv``
  under the output directory; a re-run computes only the cells without a file, so a
  killed run loses at most the cells in flight. ``results.csv`` (one row per cell and
  metric, sorted by cell key) is rewritten from the cell files at the end. The
  experiment is stored as ``experiment.json``; resuming with a different experiment is
  refused.
- **Summary.** :func:`summarize` gives, per model, parameters, stream and metric, the
  mean over repetitions and its Monte Carlo standard error ``sd / sqrt(reps)``;
  :func:`plot_grid` draws a metric against a parameter with ±1 standard error bars.

A cell is evaluated by the experiment's protocol (:mod:`reference.evaluation.protocols`): by
default the prequential (test-then-train) loop of :func:`reference.evaluation.prequential.prequential`
with the metrics of its final summary, or the hold-out designs of [AG13, §4.5]. Models
and streams are the command line's (``driftwood list``); real data sets are named
``csv:<name>`` and, with ``shuffle = true``, permuted with the data seed (the protocol of
GPF19's ten random shuffles).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from itertools import product
from pathlib import Path
from typing import Any

import numpy as np

from reference.files import write_atomic

__all__ = [
    "Cell",
    "Experiment",
    "GridError",
    "cell_seeds",
    "load_experiment",
    "plot_grid",
    "read_results",
    "run_cell",
    "run_grid",
    "shipped_experiments",
    "summarize",
]

ENGINES = ("serial", "joblib", "dask")
COLUMNS = ("cell", "model", "params", "stream", "n", "rep", "data_seed", "model_seed",
           "metric", "value")
"""Columns of ``results.csv``: one row per cell and metric (a tidy table). ``cell`` is the
cell's :attr:`Cell.digest` (the name of its file under ``cells/``); ``params`` is JSON."""


class GridError(ValueError):
    """An experiment that cannot be run as declared (bad spec, changed spec on resume)."""


@dataclass(frozen=True)
class Cell:
    """One run: a model with fixed parameters on one stream, one repetition."""

    model: str
    params: tuple[tuple[str, Any], ...]
    stream: str
    n: int
    shuffle: bool
    rep: int

    @property
    def key(self) -> str:
        """Canonical text of the cell (sorted JSON): its identity and its seed source."""
        return json.dumps({"model": self.model, "params": dict(self.params),
                           "stream": self.stream, "n": self.n, "shuffle": self.shuffle,
                           "rep": self.rep}, sort_keys=True, separators=(",", ":"))

    @property
    def digest(self) -> str:
        """Short SHA-256 of :attr:`key`, the name of the cell's file."""
        return hashlib.sha256(self.key.encode()).hexdigest()[:20]


@dataclass(frozen=True)
class Experiment:
    """A declared grid (see :func:`load_experiment` for the TOML form).

    Parameters
    ----------
    name : str
        Label of the experiment.
    seed : int
        Root of every cell's seeds.
    repetitions : int
        Monte Carlo repetitions of every (model, parameters, stream).
    models : list of dict
        ``{"name": <CLI model>, "grid": {param: [values, ...]}, "params": {fixed}}``; the
        grid is expanded as a Cartesian product in sorted parameter order.
    streams : list of dict
        ``{"name": <CLI stream or csv:<name>>, "n": rows, "shuffle": bool}``.
    backend : {"fast", "reference"}
        Package the models come from.
    rate : float
        Label rate of the prequential protocol ([DOC15, Alg. 5]).
    metrics : list of str
        Metrics kept (default: every metric the protocol computes).
    protocol : str
        Name of the evaluation protocol (:data:`reference.evaluation.protocols.PROTOCOLS`):
        ``"prequential"`` (default), ``"ag13-retirement"`` or ``"trajectory"``.
    """

    name: str
    seed: int
    repetitions: int
    models: list[dict[str, Any]]
    streams: list[dict[str, Any]]
    backend: str = "fast"
    rate: float = 1.0
    metrics: list[str] = field(default_factory=list)
    protocol: str = "prequential"

    def cells(self) -> list[Cell]:
        """Every cell, in declaration order (models, their grids, streams, repetitions)."""
        out = []
        for model in self.models:
            fixed = dict(model.get("params", {}))
            grid = dict(model.get("grid", {}))
            names = sorted(grid)
            for values in product(*(grid[k] for k in names)):
                params = {**fixed, **dict(zip(names, values, strict=True))}
                for stream in self.streams:
                    for rep in range(self.repetitions):
                        out.append(Cell(model["name"], tuple(sorted(params.items())),
                                        stream["name"], int(stream["n"]),
                                        bool(stream.get("shuffle", False)), rep))
        return out

    def as_json(self) -> str:
        """Canonical JSON of the experiment (what a resumed run must match)."""
        return json.dumps(asdict(self), sort_keys=True, indent=1)


def _derive(*parts: object) -> int:
    """A 62-bit seed from SHA-256 of the parts' text."""
    text = "\x1f".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 2


def cell_seeds(experiment_seed: int, cell: Cell) -> tuple[int, int]:
    """``(data_seed, model_seed)`` of a cell.

    The data seed depends on the stream, its length, shuffling and the repetition only,
    so all models of a repetition see the same stream; the model seed on the whole key.

    Examples
    --------
    >>> c = Cell("sgt", (), "friedman", 100, False, 0)
    >>> cell_seeds(1, c) == cell_seeds(1, c) and cell_seeds(1, c) != cell_seeds(2, c)
    True
    """
    data = _derive(experiment_seed, "data", cell.stream, cell.n, cell.shuffle, cell.rep)
    model = _derive(experiment_seed, "model", cell.key)
    return data, model


def _check_list(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list) or not value:
        raise GridError(f"{what} must be a non-empty list")
    return value


def experiment_from_dict(spec: Mapping[str, Any]) -> Experiment:
    """Validate a spec (the parsed TOML) and build the :class:`Experiment`."""
    from reference.evaluation.cli import MODELS, STREAMS

    head = spec.get("experiment", {})
    if not isinstance(head, Mapping):
        raise GridError("[experiment] must be a table")
    unknown = set(head) - {"name", "seed", "repetitions", "backend", "rate", "metrics",
                           "protocol"}
    if unknown:
        raise GridError(f"unknown [experiment] keys: {sorted(unknown)}")
    models = _check_list(spec.get("models"), "[[models]]")
    streams = _check_list(spec.get("streams"), "[[streams]]")
    for m in models:
        if not isinstance(m, Mapping) or m.get("name") not in MODELS:
            raise GridError(f"each [[models]] needs a name among {sorted(MODELS)}, got {m!r}")
        if set(m) - {"name", "grid", "params"}:
            extra = sorted(set(m) - {"name", "grid", "params"})
            raise GridError(f"unknown [[models]] keys: {extra}")
        for k, values in dict(m.get("grid", {})).items():
            _check_list(values, f"grid values of {k!r}")
    for s in streams:
        name = s.get("name") if isinstance(s, Mapping) else None
        if not isinstance(name, str) or not (name in STREAMS or name.startswith("csv:")):
            raise GridError(f"each [[streams]] needs a name among {sorted(STREAMS)} or "
                            f"csv:<name>, got {s!r}")
        if not isinstance(s.get("n"), int) or s["n"] < 1:
            raise GridError(f"stream {name!r} needs a positive integer n")
    seed, reps = head.get("seed", 0), head.get("repetitions", 1)
    if not isinstance(seed, int) or not isinstance(reps, int) or reps < 1:
        raise GridError("seed must be an int and repetitions a positive int")
    backend = head.get("backend", "fast")
    if backend not in ("fast", "reference"):
        raise GridError(f"backend must be 'fast' or 'reference', got {backend!r}")
    rate = float(head.get("rate", 1.0))
    if not 0.0 < rate <= 1.0:
        raise GridError(f"rate must be in (0, 1], got {rate}")
    from reference.evaluation.protocols import PROTOCOLS

    protocol = head.get("protocol", "prequential")
    if protocol not in PROTOCOLS:
        raise GridError(f"protocol must be one of {sorted(PROTOCOLS)}, got {protocol!r}")
    return Experiment(name=str(head.get("name", "experiment")), seed=seed, repetitions=reps,
                      models=[dict(m) for m in models], streams=[dict(s) for s in streams],
                      backend=backend, rate=rate, metrics=list(head.get("metrics", [])),
                      protocol=protocol)


SHIPPED = Path(str(resources.files("reference") / "_data" / "grids"))
"""Specs of the papers' experiments that ship with the package (``driftwood grid NAME``)."""


def shipped_experiments() -> list[str]:
    """Names of the experiment specs shipped with the package."""
    return sorted(p.stem for p in SHIPPED.glob("*.toml"))


def load_experiment(source: str | os.PathLike[str] | Mapping[str, Any]) -> Experiment:
    """Read an experiment from a TOML file (or take an already parsed dict).

    ``source`` may also be the name of a shipped spec (:func:`shipped_experiments`), e.g.
    ``"ag13-lambda"``, when no file of that name exists.

    Example of a spec::

        [experiment]
        name = "sgt-lambda"
        seed = 7
        repetitions = 5
        backend = "fast"          # or "reference"
        rate = 1.0                # prequential label rate
        metrics = ["mae", "rmse"] # default: all

        [[models]]
        name = "sgt"
        grid = { lam = [0.01, 0.1, 1.0] }
        params = { warmup = 200 }

        [[streams]]
        name = "friedman"
        n = 2000
    """
    if isinstance(source, Mapping):
        return experiment_from_dict(source)
    if not Path(source).exists() and str(source) in shipped_experiments():
        source = SHIPPED / f"{source}.toml"
    try:
        import tomllib
    except ModuleNotFoundError:  # pragma: no cover - Python 3.10
        import tomli as tomllib  # type: ignore[no-redef,import-not-found,unused-ignore]
    with open(source, "rb") as handle:
        try:
            return experiment_from_dict(tomllib.load(handle))
        except tomllib.TOMLDecodeError as err:
            raise GridError(f"{source}: {err}") from err


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


def _rows_text(rows: Sequence[Mapping[str, Any]]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: repr(v) if isinstance(v, float) else v for k, v in row.items()})
    return buf.getvalue()


def _read_rows(path: Path) -> list[dict[str, Any]]:
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        for k in ("n", "rep", "data_seed", "model_seed"):
            row[k] = int(row[k])
        row["value"] = float(row["value"])
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

    client = Client(scheduler) if scheduler else Client(n_workers=max(1, n_jobs),
                                                        threads_per_worker=1,
                                                        dashboard_address=None)
    try:
        futures = [client.submit(_run_pair, exp, cell, pure=False) for cell in todo]
        for future in as_completed(futures):
            yield future.result()
    finally:
        client.close()


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
        Progress bar over cells (default: when stderr is a terminal).
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
    bar = ProgressBar(len(cells), f"grid {exp.name}", enabled=show)
    bar.update(len(cells) - len(todo))
    try:
        for cell, rows in _execute(exp, todo, engine, n_jobs, scheduler):
            write_atomic(cells_dir / f"{cell.digest}.csv", _rows_text(rows).encode())
            bar.update(1)
    finally:
        bar.close()
    return _consolidate(root, cells)


def _consolidate(root: Path, cells: Iterable[Cell]) -> Any:
    import pandas as pd

    rows: list[dict[str, Any]] = []
    for cell in cells:
        path = root / "cells" / f"{cell.digest}.csv"
        if path.exists():
            rows.extend(_read_rows(path))
    rows.sort(key=lambda r: (r["cell"], r["metric"]))
    write_atomic(root / "results.csv", _rows_text(rows).encode())
    return pd.DataFrame(rows, columns=list(COLUMNS))


def read_results(out: str | os.PathLike[str]) -> Any:
    """The ``results.csv`` of an output directory as a DataFrame (exact floats)."""
    import pandas as pd

    return pd.DataFrame(_read_rows(Path(out) / "results.csv"), columns=list(COLUMNS))


def summarize(results: Any) -> Any:
    """Mean, Monte Carlo standard error and repetitions per model, parameters, stream, metric.

    ``se = sd / sqrt(reps)`` with the ``ddof = 1`` standard deviation (NaN for one rep).
    """
    grouped = results.groupby(["model", "params", "stream", "n", "metric"], sort=True)["value"]
    table = grouped.agg(mean="mean", sd="std", reps="count").reset_index()
    table["se"] = table["sd"] / np.sqrt(table["reps"])
    return table.drop(columns="sd")


def plot_grid(results: Any, metric: str, param: str, *, ax: Any = None) -> Any:
    """Plot ``metric`` (mean ± 1 standard error) against ``param``, a line per model and
    stream; returns the matplotlib Figure."""
    import matplotlib.pyplot as plt

    table = summarize(results[results["metric"] == metric])
    if ax is None:
        fig, ax = plt.subplots(figsize=(5.5, 3.5))
    else:
        fig = ax.figure
    table["x"] = [json.loads(p).get(param, math.nan) for p in table["params"]]
    for (model, stream), part in table.groupby(["model", "stream"], sort=True):
        part = part.sort_values("x")
        ax.errorbar(part["x"], part["mean"], yerr=part["se"].fillna(0.0), marker="o",
                    capsize=3, label=f"{model} on {stream}")
    ax.set_xlabel(param)
    ax.set_ylabel(metric)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig

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

A cell is evaluated by the experiment's protocol (:mod:`reference.evaluation.protocols`):
by default the prequential (test-then-train) loop of
:func:`reference.evaluation.prequential.prequential` with the metrics of its final summary,
or the hold-out designs of [AG13, §4.5]. Models and streams are the command line's
(``driftwood list``); real data sets are named
``csv:<name>`` and, with ``shuffle = true``, permuted with the data seed (the protocol of
GPF19's ten random shuffles).

Modules: :mod:`~reference.evaluation.grid.spec` (experiments, cells, seeds),
:mod:`~reference.evaluation.grid.runner` (cells on an engine),
:mod:`~reference.evaluation.grid.results` (the results table, summary and plot).
"""

from reference.evaluation.grid.results import COLUMNS, plot_grid, read_results, summarize
from reference.evaluation.grid.runner import ENGINES, run_cell, run_grid
from reference.evaluation.grid.spec import (
    Cell,
    Experiment,
    GridError,
    cell_seeds,
    experiment_from_dict,
    load_experiment,
    shipped_experiments,
)

__all__ = [
    "COLUMNS",
    "Cell",
    "ENGINES",
    "Experiment",
    "GridError",
    "cell_seeds",
    "experiment_from_dict",
    "load_experiment",
    "plot_grid",
    "read_results",
    "run_cell",
    "run_grid",
    "shipped_experiments",
    "summarize",
]

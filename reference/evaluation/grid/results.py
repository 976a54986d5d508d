"""Grid results: the tidy ``results.csv`` table, its reading, summary and plot."""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from reference.evaluation.grid.spec import Cell
from reference.files import write_atomic

__all__ = ["COLUMNS", "plot_grid", "read_results", "summarize"]


COLUMNS = ("cell", "model", "params", "stream", "n", "rep", "data_seed", "model_seed",
           "metric", "value")
"""Columns of ``results.csv``: one row per cell and metric (a tidy table). ``cell`` is the
cell's :attr:`Cell.digest` (the name of its file under ``cells/``); ``params`` is JSON."""

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


def _value_key(value: Any) -> tuple[int, float, str]:
    """Numbers by value (``1e-05 < 0.001 < 0.1``), before any other value (by its JSON)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (0, float(value), "")
    return (1, 0.0, json.dumps(value, sort_keys=True))


def params_key(text: str) -> tuple[tuple[str, int, float, str], ...]:
    """The sort key of a ``params`` JSON text: by parameter name, then numerically."""
    return tuple((name, *_value_key(value)) for name, value in sorted(json.loads(text).items()))


def summarize(results: Any) -> Any:
    """Mean, Monte Carlo standard error and repetitions per model, parameters, stream, metric.

    ``se = sd / sqrt(reps)`` with the ``ddof = 1`` standard deviation (NaN for one rep).
    Rows are ordered by model, then by parameter values *as numbers* (a grid over
    ``delta`` reads ``1e-05, 0.001, 0.1``, not in the text order of its JSON), then stream,
    length and metric.
    """
    grouped = results.groupby(["model", "params", "stream", "n", "metric"], sort=True)["value"]
    table = grouped.agg(mean="mean", sd="std", reps="count").reset_index()
    table["se"] = table["sd"] / np.sqrt(table["reps"])
    keys = [(model, params_key(params), stream, n, metric) for model, params, stream, n, metric
            in zip(table["model"], table["params"], table["stream"], table["n"],
                   table["metric"], strict=True)]
    order = sorted(range(len(keys)), key=keys.__getitem__)
    return table.iloc[order].reset_index(drop=True).drop(columns="sd")


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

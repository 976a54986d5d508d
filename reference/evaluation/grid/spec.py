"""Experiment specs: the :class:`Experiment`, its :class:`Cell` s and their seeds.

A spec is read from TOML (:func:`load_experiment`, also by the name of a shipped spec) or
taken as a plain dict, validated against the models and streams of
:mod:`reference.evaluation.catalog`, and expanded into cells whose seeds depend on nothing
but the cell key.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from importlib import resources
from itertools import product
from pathlib import Path
from typing import Any

from reference.evaluation.catalog import MODELS, STREAMS

__all__ = [
    "Cell",
    "Experiment",
    "GridError",
    "cell_seeds",
    "experiment_from_dict",
    "load_experiment",
    "shipped_experiments",
]


MAX_CELLS = 1_000_000
"""Most cells an experiment may have: checked from the spec before any cell is built (each
cell is a run, a record and a result row; a million already takes days)."""


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


def _stream_task(name: str) -> str | None:
    """``"regression"`` or ``"classification"``; None for a CSV file not in the registry."""
    if name in STREAMS:
        return STREAMS[name].task
    from reference.evaluation.registry import REGISTRY

    data = REGISTRY.get(name.removeprefix("csv:"))
    if data is None:
        return None
    return "regression" if data.task == "regression" else "classification"


def experiment_from_dict(spec: Mapping[str, Any]) -> Experiment:
    """Validate a spec (the parsed TOML) and build the :class:`Experiment`."""
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
        for table in ("grid", "params"):
            if not isinstance(m.get(table, {}), Mapping):
                raise GridError(f"{table} of model {m['name']!r} must be a table "
                                f"(e.g. {table} = {{ lam = 0.1 }}), got {m[table]!r}")
        for k, values in dict(m.get("grid", {})).items():
            _check_list(values, f"grid values of {k!r}")
    for s in streams:
        name = s.get("name") if isinstance(s, Mapping) else None
        if not isinstance(name, str) or not (name in STREAMS or name.startswith("csv:")):
            raise GridError(f"each [[streams]] needs a name among {sorted(STREAMS)} or "
                            f"csv:<name>, got {s!r}")
        if not isinstance(s.get("n"), int) or s["n"] < 1:
            raise GridError(f"stream {name!r} needs a positive integer n")
    for m in models:
        for s in streams:
            task = _stream_task(s["name"])
            if task is not None and task != MODELS[m["name"]].task:
                raise GridError(
                    f"model {m['name']!r} is for {MODELS[m['name']].task} but stream "
                    f"{s['name']!r} is {task}: put models and streams of different tasks in "
                    f"separate experiments"
                )
    seed, reps = head.get("seed", 0), head.get("repetitions", 1)
    if not isinstance(seed, int) or not isinstance(reps, int) or reps < 1:
        raise GridError("seed must be an int and repetitions a positive int")
    backend = head.get("backend", "fast")
    if backend not in ("fast", "reference"):
        raise GridError(f"backend must be 'fast' or 'reference', got {backend!r}")
    rate = head.get("rate", 1.0)
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0.0 < rate <= 1.0:
        raise GridError(f"rate must be in (0, 1], got {rate}")
    metrics = head.get("metrics", [])
    if isinstance(metrics, str):
        metrics = [metrics]     # one metric may be written without the list
    if not isinstance(metrics, list) or not all(isinstance(v, str) for v in metrics):
        raise GridError(f"metrics must be a metric name or a list of names, got {metrics!r}")
    combinations = 0
    for m in models:
        count = 1
        for values in dict(m.get("grid", {})).values():
            count *= len(values)
        combinations += count
    n_cells = reps * len(streams) * combinations
    if n_cells > MAX_CELLS:
        raise GridError(f"the grid has {n_cells:,} cells, more than {MAX_CELLS:,}: reduce "
                        "repetitions, grid values or streams (or split the experiment)")
    from reference.evaluation.protocols import PROTOCOLS

    protocol = head.get("protocol", "prequential")
    if protocol not in PROTOCOLS:
        raise GridError(f"protocol must be one of {sorted(PROTOCOLS)}, got {protocol!r}")
    return Experiment(name=str(head.get("name", "experiment")), seed=seed, repetitions=reps,
                      models=[dict(m) for m in models], streams=[dict(s) for s in streams],
                      backend=backend, rate=float(rate), metrics=list(metrics),
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
        except UnicodeDecodeError as err:
            raise GridError(f"{source}: not UTF-8 text ({err.reason} at byte {err.start}): "
                            "save the spec as UTF-8") from None
        except RecursionError:
            raise GridError(f"{source}: nested too deeply to read as TOML: "
                            "write the spec without deep nesting") from None

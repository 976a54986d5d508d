"""The argument parser of ``driftwood``: one subcommand per module of this package."""

from __future__ import annotations

import argparse

from reference.evaluation import catalog
from reference.evaluation.cli.compare import cmd_compare
from reference.evaluation.cli.data import cmd_data
from reference.evaluation.cli.exercise import add_exercise_parser
from reference.evaluation.cli.grid import cmd_grid
from reference.evaluation.cli.listing import cmd_list
from reference.evaluation.cli.run import cmd_run

__all__ = ["COMMANDS", "build_parser"]

COMMANDS = ("run", "compare", "list", "data", "grid", "exercise")
"""The subcommands; anything else on the command line is an argument of ``run``."""


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _rate(text: str) -> float:
    value = float(text)
    if not 0.0 < value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], got {value}")
    return value


def _common(parser: argparse.ArgumentParser, default_model: str | None, default_n: int) -> None:
    parser.add_argument(
        "--model",
        choices=catalog.known_models(),
        default=default_model,
        required=default_model is None,
        help="model name (see `driftwood list`)",
    )
    parser.add_argument(
        "--stream",
        default=None,
        help=f"built-in stream ({', '.join(catalog.STREAMS)}) or csv:<file>; default: "
        "friedman (regression) / sea (classification)",
    )
    parser.add_argument(
        "--n", type=_positive_int, default=default_n, help=f"stream length (default {default_n})"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the stream and the model")
    parser.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="extra constructor argument (Python literal), repeatable",
    )
    parser.add_argument(
        "--data-dir", default=None, help="directory of csv: streams ($DRIFTWOOD_DATA)"
    )
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar on stderr (default: when stderr is a terminal)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``driftwood``."""
    parser = argparse.ArgumentParser(
        prog="driftwood",
        description="Streaming nonparametric learners in two bit-identical backends.",
    )
    sub = parser.add_subparsers(dest="command")
    run = sub.add_parser("run", help="prequential run of a model on a built-in stream")
    # the demo: a stochastic gradient tree on Friedman-1 once the model exists, else the baseline
    demo = "sgt" if "sgt" in catalog.known_models() else "mean"
    _common(run, demo, 50000)
    run.add_argument(
        "--backend",
        choices=["reference", "fast"],
        default=None,
        help="implementation (default: fast if built, else reference)",
    )
    run.add_argument("--rate", type=_rate, default=1.0, help="label rate (DOC15 Alg. 5)")
    run.add_argument("--label-seed", type=int, default=1, help="seed of the label coin flips")
    run.add_argument("--window", type=_positive_int, default=1000, help="window of the curves")
    run.add_argument("--curve", default=None, metavar="PNG", help="write the learning curve here")
    run.add_argument("--metric", default=None, help="metric of the curve (default: the first)")
    run.set_defaults(handler=cmd_run)
    compare = sub.add_parser("compare", help="both backends in lockstep: agreement and speed")
    _common(compare, None, 2000)
    compare.add_argument(
        "--snapshot-every",
        type=_positive_int,
        default=1,
        help="compare snapshot() every this many steps (default 1: every step)",
    )
    compare.add_argument(
        "--keep-going",
        action="store_true",
        help="continue after a mismatch (for timing only)",
    )
    compare.set_defaults(handler=cmd_compare)
    listing = sub.add_parser("list", help="models per backend and built-in streams")
    listing.set_defaults(handler=cmd_list)
    data = sub.add_parser("data", help="real data sets: list, fetch into the cache, locate")
    data.add_argument("action", choices=["list", "fetch", "path"])
    data.add_argument("name", nargs="?", default=None, help="registered data-set name")
    data.add_argument(
        "--from", dest="source", default=None, metavar="PATH",
        help="fetch: install this local copy (checked against the registry's SHA-256)",
    )
    data.add_argument("--url", default=None, help="fetch: download from this mirror instead")
    data.add_argument("--data-dir", default=None, help="path: directory searched first")
    data.add_argument(
        "--progress", action=argparse.BooleanOptionalAction, default=None,
        help="fetch: progress bar on stderr (default: when stderr is a terminal)",
    )
    data.set_defaults(handler=cmd_data)
    grid = sub.add_parser(
        "grid", help="run an experiment grid (TOML spec) locally or on a Dask cluster"
    )
    grid.add_argument("spec", nargs="?", default=None, help="experiment spec (TOML)")
    grid.add_argument("--out", default=None, metavar="DIR",
                      help="output directory (default: grid-<experiment name>)")
    grid.add_argument("--engine", choices=["joblib", "serial", "dask"], default="joblib",
                      help="where the cells run (default: joblib processes)")
    grid.add_argument("--jobs", type=int, default=-1,
                      help="joblib workers or local Dask workers (default: all cores)")
    grid.add_argument("--scheduler", default=None, metavar="ADDRESS",
                      help="dask: scheduler address, e.g. tcp://10.0.0.5:8786")
    grid.add_argument("--summary-only", action="store_true",
                      help="only summarise the results already in --out")
    grid.add_argument("--plot", default=None, metavar="PNG",
                      help="also plot --metric against --param (mean ± 1 s.e.) here")
    grid.add_argument("--metric", default=None, help="metric of the plot")
    grid.add_argument("--param", default=None, help="parameter on the plot's x axis")
    grid.add_argument(
        "--progress", action=argparse.BooleanOptionalAction, default=None,
        help="progress bar over cells on stderr (default: when stderr is a terminal)",
    )
    grid.set_defaults(handler=cmd_grid)
    add_exercise_parser(sub)  # driftwood exercise list|start|check|hint
    return parser

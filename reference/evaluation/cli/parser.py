"""The argument parser of ``driftwood``: one subcommand per module of this package."""

from __future__ import annotations

import argparse

from reference.evaluation import catalog
from reference.evaluation.cli._output import with_examples
from reference.evaluation.cli.compare import DEFAULT_MODEL, DEFAULT_ROWS, ROWS, cmd_compare
from reference.evaluation.cli.data import cmd_data
from reference.evaluation.cli.exercise import add_exercise_parser
from reference.evaluation.cli.grid import cmd_grid
from reference.evaluation.cli.listing import cmd_list
from reference.evaluation.cli.run import DEFAULT_ROWS as RUN_DEFAULT_ROWS
from reference.evaluation.cli.run import REFERENCE_ROWS as RUN_REFERENCE_ROWS
from reference.evaluation.cli.run import ROWS as RUN_ROWS
from reference.evaluation.cli.run import cmd_run

__all__ = ["COMMANDS", "build_parser", "version_text"]

COMMANDS = ("run", "compare", "list", "data", "grid", "exercise", "figures", "tutorial")
"""The subcommands; anything else on the command line is an argument of ``run``."""


def version_text() -> str:
    """What ``driftwood --version`` prints: the distribution, its version, the import names
    and whether the C backend is built here."""
    from reference._version import DISTRIBUTION, __version__
    from reference.evaluation.cli.run import fast_available

    c_backend = "built" if fast_available() else "not built (reference only; see `import fast`)"
    return (f"driftwood {__version__} (distribution {DISTRIBUTION}; packages reference and "
            f"fast; C backend {c_backend})")


class _Version(argparse.Action):
    """``--version``: print :func:`version_text` and exit (the C check runs only then)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0,
                         help="show the version and whether the C backend is built, and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        print(version_text())
        parser.exit()


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _fewer(rows: dict[str, int]) -> str:
    """``{"a": 10, "b": 10}`` as ``"10 for a and b"`` (the models with a shorter default)."""
    parts = []
    for n in dict.fromkeys(rows.values()):
        names = [name for name in rows if rows[name] == n]
        listed = ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]
        parts.append(f"{n} for {listed}")
    return "; ".join(parts)


def _shipped_grids() -> list[str]:
    from reference.evaluation.grid.spec import shipped_experiments

    return shipped_experiments()


def _rate(text: str) -> float:
    value = float(text)
    if not 0.0 < value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], got {value}")
    return value


PROGRESS_HELP = (
    "progress on stderr: a bar on a terminal, else a line every 5 s with the time left "
    "(default: on)"
)


def _common(
    parser: argparse.ArgumentParser,
    default_model: str | None,
    default_n: int | None,
    n_help: str | None = None,
    model_help: str | None = None,
) -> None:
    parser.add_argument(
        "--model",
        choices=catalog.known_models(),
        default=default_model,
        help=model_help or f"model name (see `driftwood list`; default {default_model})",
    )
    parser.add_argument(
        "--stream",
        default=None,
        help=f"built-in stream ({', '.join(catalog.STREAMS)}) or csv:<file>; default: "
        "friedman (regression) / sea (classification)",
    )
    parser.add_argument(
        "--n",
        type=_positive_int,
        default=default_n,
        help=n_help or f"stream length (default {default_n})",
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
        "--progress", action=argparse.BooleanOptionalAction, default=None, help=PROGRESS_HELP
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``driftwood``."""
    parser = argparse.ArgumentParser(
        prog="driftwood",
        **with_examples(
            ("driftwood list", "the models (per backend) and the built-in streams"),
            ("driftwood run", "a stochastic gradient tree on 50,000 Friedman-1 rows"),
            ("driftwood compare", "both backends in lockstep: agreement and speed"),
            ("driftwood run --help", "the options of a command"),
            note="Ctrl-C stops a command with one line saying what was kept (exit status 130).",
            description="Streaming nonparametric learners in two bit-identical backends. "
            "Without a command: `driftwood run`; `driftwood list` lists the models and the "
            "streams.",
        ),
    )
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command")
    run = sub.add_parser(
        "run",
        help="prequential run of a model on a built-in stream",
        **with_examples(
            ("driftwood run", "SGT on 50,000 Friedman-1 rows (a few seconds)"),
            ("driftwood run --model abacoc --stream sea --n 20000", "a classifier"),
            ("driftwood run --model sgt -p max_depth=4 --curve sgt.png", "learning curve"),
            ("driftwood run --model nn3 --rate 0.1", "10% of the labels revealed"),
            description="Prequential (test-then-train) run of one model on one stream; "
            "prints a summary table.",
        ),
    )
    # the demo: a stochastic gradient tree on Friedman-1 once the model exists, else the baseline
    demo = "sgt" if "sgt" in catalog.known_models() else "mean"
    _common(
        run, demo, None,
        n_help=f"stream length (default {RUN_DEFAULT_ROWS}; {_fewer(RUN_ROWS)}; on the "
               "reference backend, whether chosen or the fallback without a C build, "
               f"{_fewer({m: n for m, (n, _) in RUN_REFERENCE_ROWS.items()})})",
    )
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
    run.add_argument("--task", choices=("regression", "classification"), default=None,
                     help="task of a csv: stream (default: classification if its target "
                          "holds whole numbers only, else regression)")
    run.set_defaults(handler=cmd_run)
    compare = sub.add_parser(
        "compare",
        help="both backends in lockstep: agreement and speed",
        **with_examples(
            ("driftwood compare", f"{DEFAULT_MODEL} on {DEFAULT_ROWS} Friedman-1 rows"),
            ("driftwood compare --model abacoc --stream sea", "a classifier"),
            ("driftwood compare --model dynatree --n 500 --snapshot-every 50",
             "a longer run, fewer snapshots"),
            description="Run a model of both backends in lockstep on one stream, compare "
            "every prediction and snapshot() exactly; report the agreement and the speed "
            "ratio (exit status 1 if they differ).",
        ),
    )
    _common(
        compare,
        None,
        None,
        n_help=f"stream length (default {DEFAULT_ROWS}; {_fewer(ROWS)}, whose reference "
        "backend takes 10-50 ms a row)",
        model_help=f"a model of both backends (see `driftwood list`; default {DEFAULT_MODEL})",
    )
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
    listing = sub.add_parser(
        "list",
        help="models per backend and built-in streams",
        **with_examples(("driftwood list", "models, backends, tasks; streams")),
    )
    listing.set_defaults(handler=cmd_list)
    data = sub.add_parser(
        "data",
        help="real data sets: list, fetch into the cache, locate",
        **with_examples(
            ("driftwood data list", "registered sets and whether they are here"),
            ("driftwood data fetch covtype_50k", "download into the user cache"),
            ("driftwood data fetch covtype_50k --from covtype.csv", "install a local copy"),
            ("driftwood data path letter", "where the file is"),
            note="Without network: copy the file by other means and install it with --from, "
            "or put the canonical CSV in a directory named by $DRIFTWOOD_DATA.",
        ),
    )
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
        help="fetch: download progress on stderr: tqdm's bar on a terminal, else a line "
        "every 5 s with the time left (default: on)",
    )
    data.set_defaults(handler=cmd_data)
    grid = sub.add_parser(
        "grid",
        help="run an experiment grid (TOML spec) locally or on a Dask cluster",
        **with_examples(
            ("driftwood grid ag13-aba --jobs 2", "a shipped grid (about 2 minutes)"),
            ("driftwood grid my.toml --out results/my", "your spec"),
            ("driftwood grid --summary-only --out results/my --plot lam.png --metric mae "
             "--param lam", "summary and plot of an earlier run"),
            note="Every finished cell is saved at once: after Ctrl-C, the same command "
            "resumes. Shipped grids: " + ", ".join(_shipped_grids()) + ".",
            description="Run the missing cells of an experiment grid, resumably, and print "
            "its summary (needs the 'grid' extra: pip install -e \".[grid]\").",
        ),
    )
    grid.add_argument(
        "spec", nargs="?", default=None, help="experiment spec: a TOML file or a shipped grid"
    )
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
        help=PROGRESS_HELP.replace("time left", "cells done and the time left"),
    )
    grid.set_defaults(handler=cmd_grid)
    add_exercise_parser(sub)  # driftwood exercise list|start|check|hint
    from reference.evaluation.cli import figures

    figures.add_parser(sub)
    from reference.evaluation.cli import tutorial

    tutorial.add_parser(sub)
    return parser

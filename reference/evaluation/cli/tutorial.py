"""``driftwood tutorial``: the tutorials as Jupyter notebooks, offline.

``list`` names them; ``get NAME --dir D`` writes ``D/NAME.ipynb`` (converted from the
MyST source that the documentation executes, :mod:`reference.evaluation.notebooks`) with
the files the notebook reads. Exit status 0, or 2 for an unknown name, an existing
notebook or a data file the user changed (nothing is then written; ``--force``
overwrites them), or a ``--dir`` that is a file.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from reference.evaluation.cli._output import with_examples

__all__ = ["add_parser", "cmd_tutorial"]

HELP = with_examples(
    ("driftwood tutorial list", "the tutorials"),
    ("driftwood tutorial get abacoc --dir work", "writes work/04_abacoc.ipynb"),
    description="The tutorials as Jupyter notebooks, written from the copy that ships with "
    "the package (no network).",
)


def add_parser(sub: Any) -> None:
    """Add ``tutorial list|get`` to the subparsers ``sub`` of ``driftwood``."""
    parser = sub.add_parser("tutorial", help="the tutorials as Jupyter notebooks", **HELP)
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    listing = actions.add_parser("list", help="the tutorials' names",
                                 **with_examples(("driftwood tutorial list", "")))
    listing.set_defaults(handler=cmd_tutorial)
    get = actions.add_parser("get", help="write a tutorial as a notebook, with its data",
                             **with_examples(("driftwood tutorial get 01_determinism --dir "
                                              "work", "writes work/01_determinism.ipynb")))
    get.add_argument("name", help="tutorial name, with or without its number")
    get.add_argument("--dir", default=".", help="directory to write to (default: here)")
    get.add_argument("--force", action="store_true",
                     help="overwrite an existing notebook and data files you changed")
    get.set_defaults(handler=cmd_tutorial)


def cmd_tutorial(args: argparse.Namespace) -> int:
    """Run ``driftwood tutorial ACTION``; returns the exit status."""
    from reference.evaluation import notebooks

    try:
        names = notebooks.tutorial_names()
    except FileNotFoundError as err:
        print(f"driftwood: error: {err}", file=sys.stderr)
        return 2
    if args.action == "list":
        for name in names:
            print(name)
        return 0
    try:
        written = notebooks.get_tutorial(args.name, args.dir, overwrite=args.force)
    except KeyError as err:
        print(f"driftwood: error: {err.args[0]}", file=sys.stderr)
        return 2
    except FileExistsError as err:       # never raised with --force
        print(f"driftwood: error: {err} (use --force)", file=sys.stderr)
        return 2
    except OSError as err:               # --dir a file, a folder in the way, no permission
        print(f"driftwood: error: {err}", file=sys.stderr)
        return 2
    print(f"wrote {', '.join(str(p) for p in written)}: open {written[0]} in Jupyter")
    return 0

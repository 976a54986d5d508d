"""``driftwood data list | fetch NAME [--from PATH] [--url URL] | path NAME``."""

from __future__ import annotations

import argparse
import sys

from reference.evaluation import registry
from reference.evaluation.catalog import UsageError
from reference.evaluation.cli._output import progress_enabled

__all__ = ["cmd_data"]


def cmd_data(args: argparse.Namespace) -> int:
    """``driftwood data list | fetch NAME [--from PATH] [--url URL] | path NAME``."""
    if args.action == "list":
        print(f"{'name':<16} {'task':<10} {'rows':>7} {'feat':>4}  {'status':<8} licence")
        for name, data in registry.REGISTRY.items():
            print(
                f"{name:<16} {data.task:<10} {data.n_rows:>7} {data.n_features:>4}  "
                f"{registry.status(name):<8} {data.licence}"
            )
        print(f"cache: {registry.cache_dir()}")
        return 0
    if not args.name:
        names = ", ".join(registry.REGISTRY)
        raise UsageError(
            f"`driftwood data {args.action}` needs a data-set name: one of {names} "
            "(`driftwood data list` shows which are here)"
        )
    if args.name not in registry.REGISTRY:
        raise UsageError(f"unknown data set {args.name!r}; see `driftwood data list`")
    if args.action == "path":
        print(registry.locate(args.name, args.data_dir))
        return 0
    try:
        path = registry.fetch(
            args.name, args.source, url=args.url, progress=progress_enabled(args.progress)
        )
    except ValueError as err:
        print(f"driftwood: error: {err}", file=sys.stderr)
        return 1
    print(path)
    return 0

"""``driftwood list``: the models of each backend and the built-in streams."""

from __future__ import annotations

import argparse
import importlib
from types import ModuleType

from reference.evaluation import catalog
from reference.evaluation.cli._output import columns

__all__ = ["cmd_list"]


def cmd_list(args: argparse.Namespace) -> int:
    """Print every CLI model (in which backend it exists) and every stream."""
    del args
    ref = importlib.import_module("reference")
    try:
        fast: ModuleType | None = importlib.import_module("fast")
    except ImportError:
        fast = None
    models = []
    for name, spec in catalog.MODELS.items():
        in_ref = "yes" if spec.baseline or hasattr(ref, spec.class_name) else "-"
        if spec.baseline:
            in_fast = "kit baseline"
        else:
            in_fast = "yes" if fast is not None and hasattr(fast, spec.class_name) else "-"
        models.append([name, spec.class_name, spec.task, f"{in_ref:>3} / {in_fast}"])
    streams = [[name, stream.task, stream.description] for name, stream in catalog.STREAMS.items()]
    streams.append(
        ["csv:<name>", "", "real data set (`driftwood data list`), or a file in --data-dir"]
    )
    # one name column for both lists
    pad = max(len(row[0]) for row in models + streams)
    print("models (reference / fast):")
    print(columns([[row[0].ljust(pad), *row[1:]] for row in models], indent="  "))
    print("streams:")
    print(columns([[row[0].ljust(pad), *row[1:]] for row in streams], indent="  "))
    return 0

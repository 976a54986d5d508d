"""``driftwood list``: the models of each backend and the built-in streams."""

from __future__ import annotations

import argparse
import importlib
from types import ModuleType

from reference.evaluation import catalog

__all__ = ["cmd_list"]


def cmd_list(args: argparse.Namespace) -> int:
    """Print every CLI model (in which backend it exists) and every stream."""
    del args
    ref = importlib.import_module("reference")
    try:
        fast: ModuleType | None = importlib.import_module("fast")
    except ImportError:
        fast = None
    print("models (reference / fast):")
    for name, spec in catalog.MODELS.items():
        in_ref = "yes" if spec.baseline or hasattr(ref, spec.class_name) else "-"
        if spec.baseline:
            in_fast = "kit baseline"
        else:
            in_fast = "yes" if fast is not None and hasattr(fast, spec.class_name) else "-"
        print(f"  {name:<13} {spec.class_name:<24} {spec.task:<15} {in_ref:>3} / {in_fast}")
    print("streams:")
    for name, stream in catalog.STREAMS.items():
        print(f"  {name:<13} {stream.task:<15} {stream.description}")
    print("  csv:<name>    real data set (`driftwood data list`), or a file in --data-dir")
    return 0

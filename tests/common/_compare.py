"""The tests' names for the backend comparison of :mod:`reference.evaluation.compare`.

One comparison module serves the command line (``driftwood compare``), the docs and the
tests; this file only keeps the names the tests import. ``first_difference`` here reports
float differences in ulps (``in_ulps=True``), as the tests' messages always did.
"""

from __future__ import annotations

from typing import Any

from reference.evaluation import compare
from reference.evaluation.compare import Mismatch, assert_snapshot_equal, run_lockstep, ulps

__all__ = ["Mismatch", "assert_snapshot_equal", "first_difference", "run_lockstep", "ulps"]


def first_difference(a: Any, b: Any, path: str = "") -> str | None:
    """The first difference of two plain-data trees, floats with their distance in ulps."""
    return compare.first_difference(a, b, path, in_ulps=True)

"""The tests' names for the backend comparison of :mod:`reference.evaluation.compare`.

One comparison module serves the command line (``driftwood compare``), the docs and the
tests; this file only keeps the names the tests import. ``first_difference`` here reports
float differences in ulps (``in_ulps=True``), as the tests' messages always did.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference.evaluation import compare
from reference.evaluation.compare import Mismatch, assert_snapshot_equal, run_lockstep, ulps

__all__ = ["Mismatch", "assert_snapshot_equal", "first_difference", "rejects_alike",
           "run_lockstep", "ulps"]


def first_difference(a: Any, b: Any, path: str = "") -> str | None:
    """The first difference of two plain-data trees, floats with their distance in ulps."""
    return compare.first_difference(a, b, path, in_ulps=True)


def rejects_alike(ref: Any, fast_model: Any, call: str, *args: Any) -> str:
    """Both models' ``call(*args)`` raise ``ValueError`` with the same message and leave the
    models as they were (snapshots, and ``classes_`` where there is one); the message."""

    def state(model: Any) -> tuple[Any, Any]:
        classes = getattr(model, "classes_", None)
        return model.snapshot(), None if classes is None else list(classes)

    before = (state(ref), state(fast_model))
    messages = []
    for model in (ref, fast_model):
        with pytest.raises(ValueError) as info:
            getattr(model, call)(*args)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert (state(ref), state(fast_model)) == before
    return messages[0]

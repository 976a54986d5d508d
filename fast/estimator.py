"""The ``fast`` entry point of the River adapter. The adapter itself is backend-agnostic (it
only forwards calls to the model, see :mod:`reference.river_adapter`); this module gives
``fast`` its own function object, as every name of ``fast.__all__`` is."""

from __future__ import annotations

from typing import Any

from reference.estimator import to_river as _to_river


def to_river(model: Any, missing: str | float = "mean") -> Any:
    return _to_river(model, missing)


to_river.__doc__ = _to_river.__doc__

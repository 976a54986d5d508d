"""Failure bookkeeping of the SGT facades: a failed first call leaves no trace.

The first accepted row fixes a model's width, feature kinds and (for a classifier) its
classes, and builds its engine. If that call then fails with ``MemoryError`` (the C
engine's allocation, or the first learn), :func:`atomic_first_call` puts every facade
attribute back, so the model is the fresh one it was. Later calls need no undo log: the
engines secure memory before they change any state. Tested by
``tests/common/test_allocation_failure.py`` (a failed first call equals no call).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["atomic_first_call"]

_Method = TypeVar("_Method", bound=Callable[..., Any])


def atomic_first_call(method: _Method) -> _Method:
    """``method`` of a facade, undone on ``MemoryError`` while the model has no engine."""

    @functools.wraps(method)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        if self._engine is not None:
            return method(self, *args, **kwargs)
        saved = dict(self.__dict__)
        try:
            return method(self, *args, **kwargs)
        except MemoryError:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise

    return wrapper  # type: ignore[return-value]

"""One lock per model: every public method of a model runs while holding it.

:class:`reference.estimator.EstimatorMixin` calls :func:`serialise_class` on every model
class, which wraps each public method and property (and the special methods that read the
state, ``_LOCKED_DUNDERS``) in :func:`serialised`. The lock is re-entrant, so public
methods may call each other. A method that takes the lock itself, to spare the wrapper on a
call made once per row, is marked with :func:`locks_itself`. This is failure and
concurrency bookkeeping, not mathematics: the reference's equations never see it.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["locks_itself", "serialise_class", "serialised"]

_Method = TypeVar("_Method", bound=Callable[..., Any])

_LOCKED_DUNDERS = ("__getstate__", "__deepcopy__", "__repr__")
"""Special methods that read a model's state and so take its lock too."""


def serialised(function: _Method) -> _Method:
    """``function`` run while holding the model's lock (re-entrant: public methods may call
    each other)."""

    @functools.wraps(function)
    def locked(self: Any, *args: Any, **kwargs: Any) -> Any:
        lock = self._lock
        lock.acquire()
        try:
            return function(self, *args, **kwargs)
        finally:
            lock.release()

    locked._serialised = True  # type: ignore[attr-defined]
    return locked  # type: ignore[return-value]


def locks_itself(method: _Method) -> _Method:
    """Mark a public method that takes the model's lock itself (the one-row calls, to spare
    a wrapper per call), so that :class:`EstimatorMixin` does not wrap it in a second one."""
    method._serialised = True  # type: ignore[attr-defined]
    return method


def serialise_class(cls: type) -> None:
    """Wrap every public method and property of ``cls`` (its own ``__dict__``) in the lock."""
    for name, value in list(vars(cls).items()):
        if name.startswith("_") and name not in _LOCKED_DUNDERS:
            continue
        if isinstance(value, property) and value.fget is not None:
            if not getattr(value.fget, "_serialised", False):
                setattr(cls, name, property(serialised(value.fget), value.fset, value.fdel,
                                            value.__doc__))
        elif inspect.isfunction(value) and not getattr(value, "_serialised", False):
            setattr(cls, name, serialised(value))

"""Plugging a student's function into the reference model, and undoing it.

See :mod:`reference.exercises.checker` ("Isolation of the two models") for what the plug
reaches and what it must not.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from reference.exercises.catalog import Plug

__all__ = ["plugged"]


# ---------------------------------------------------------------------------
# plugging a function into the reference model
# ---------------------------------------------------------------------------


def _resolve(target: str) -> tuple[Any, str, Any]:
    """``(owner, attribute, raw object)`` for a dotted path ``module[.Class].name``."""
    parts = target.split(".")
    module: ModuleType | None = None
    i = len(parts)
    while i > 0:
        try:
            module = importlib.import_module(".".join(parts[:i]))
            break
        except ModuleNotFoundError:
            i -= 1
    if module is None or i == len(parts):
        raise ValueError(f"plug target {target!r} is not an attribute of a module")
    owner: Any = module
    for name in parts[i:-1]:
        owner = getattr(owner, name)
    attr = parts[-1]
    raw = vars(owner)[attr] if isinstance(owner, type) else getattr(owner, attr)
    return owner, attr, raw


def _unwrap(raw: Any) -> Any:
    return raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw


def _rewrap(like: Any, function: Any) -> Any:
    if isinstance(like, staticmethod):
        return staticmethod(function)
    if isinstance(like, classmethod):
        return classmethod(function)
    return function


def _patchable_modules() -> list[ModuleType]:
    return [
        module for name, module in list(sys.modules.items())
        if module is not None and (name == "reference" or name.startswith("reference."))
        and not (name == "reference.exercises" or name.startswith("reference.exercises."))
    ]


def _holders(obj: Any) -> Iterator[tuple[Any, str, Any]]:
    """Every ``(namespace, attribute, raw value)`` of a ``reference`` module or of a class
    defined there whose value is ``obj`` (possibly as a static or class method)."""
    seen: set[int] = set()
    for module in _patchable_modules():
        for attr, value in list(vars(module).items()):
            if value is obj:
                yield module, attr, value
            if isinstance(value, type) and id(value) not in seen and str(
                    getattr(value, "__module__", "")).startswith("reference"):
                seen.add(id(value))
                for cattr, cvalue in list(vars(value).items()):
                    if _unwrap(cvalue) is obj:
                        yield value, cattr, cvalue


@contextmanager
def plugged(plugs: Sequence[Plug], student: Callable[..., Any]) -> Iterator[None]:
    """Within the block, each plug's target is replaced by ``plug.adapt(student)``.

    The target is replaced in every ``reference`` module (and class defined in one) that
    holds it, except the exercise modules themselves; everything is restored on leaving
    the block, even on an exception, and a module imported inside the block that copied
    a replacement gets the original back.
    """
    done: list[tuple[Any, str, Any, Any]] = []
    originals: dict[int, Any] = {}

    def unplugged(*args: Any, **kwargs: Any) -> Any:
        # the student's own code (and a reference adapter given as the answer) sees the
        # real functions: no recursion through the plug
        for holder, attr, value, _ in done:
            setattr(holder, attr, value)
        try:
            return student(*args, **kwargs)
        finally:
            for holder, attr, _, plug_value in done:
                setattr(holder, attr, plug_value)

    try:
        for plug in plugs:
            _, _, raw = _resolve(plug.target)
            target = _unwrap(raw)
            replacement = plug.adapt(unplugged)
            originals[id(replacement)] = target
            for holder, attr, value in list(_holders(target)):
                plug_value = _rewrap(value, replacement)
                setattr(holder, attr, plug_value)
                done.append((holder, attr, value, plug_value))
        yield
    finally:
        for holder, attr, value, _ in reversed(done):
            setattr(holder, attr, value)
        if originals:
            for module in _patchable_modules():
                for attr, value in list(vars(module).items()):
                    if id(value) in originals:
                        setattr(module, attr, originals[id(value)])

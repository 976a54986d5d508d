"""The library's own answer, made unavailable before a student's file is imported.

In the child that runs a check (:mod:`reference.exercises.isolation`), before the
student's file is imported, :func:`install` replaces

* the exercise's reference answer (``catalog.get(name).reference``), and
* the library's implementation of the function under exercise: each plug target (e.g.
  ``reference.dynatree.tree.log_split_prob``), wherever a ``reference`` module, a class
  defined there or a module-level dictionary of the exercises (such as the
  ``_REAL`` table of the dynamic-tree family) holds it,

by a *tripwire*: a function of the same name that raises :class:`LibraryCalled` (a
``BaseException``, so that ``except Exception`` in the student's code does not hide it).
The checker reports a check whose student code called a tripwire as its own status,
``"library"`` (the gradebook cell ``failed:library``), never as passed. The stream of
route (b) still plugs the student's function in the tripwire's place.

This does not stop a student who copies the library's source, or loads its files under
another name, as with any open-source library: the teaching page says so.
"""

from __future__ import annotations

import sys
from typing import Any

from reference.exercises.catalog import Exercise
from reference.exercises.plug import _holders, _resolve, _rewrap, _unwrap

__all__ = ["LibraryCalled", "install"]


class LibraryCalled(BaseException):
    """Raised by a tripwire: the student's code called the library's own answer."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


def _tripwire(name: str, what: str) -> Any:
    def tripwire(*args: Any, **kwargs: Any) -> Any:
        raise LibraryCalled(what)
    tripwire.__name__ = tripwire.__qualname__ = name
    tripwire.__doc__ = f"Unavailable while a check runs: {what}."
    return tripwire


def _table_holders(obj: Any) -> list[tuple[dict[Any, Any], Any]]:
    """The ``reference.exercises`` modules' namespaces, and their module-level
    dictionaries, that hold ``obj``: ``(dictionary, key)`` pairs."""
    found: list[tuple[dict[Any, Any], Any]] = []
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith("reference.exercises"):
            continue
        space = vars(module)
        found += [(space, key) for key, item in list(space.items()) if item is obj]
        for value in list(space.values()):
            if type(value) is dict and value is not space:
                found += [(value, key) for key, item in list(value.items()) if item is obj]
    return found


def _replace_everywhere(original: Any, wire: Any) -> None:
    for holder, attr, value in list(_holders(original)):
        setattr(holder, attr, _rewrap(value, wire))
    for table, key in _table_holders(original):
        table[key] = wire


def install(exercise: Exercise) -> list[str]:
    """Replace the exercise's reference answer and the library's implementation of its
    function by tripwires (see the module docstring); returns what was replaced."""
    done: list[str] = []
    reference = exercise.reference
    wire = _tripwire(getattr(reference, "__name__", exercise.function_name),
                     "the exercise's reference answer")
    _replace_everywhere(reference, wire)
    object.__setattr__(exercise, "reference", wire)   # a frozen dataclass
    done.append(f"{exercise.name}.reference")
    for plug in exercise.plugs:
        _, attr, raw = _resolve(plug.target)
        target = _unwrap(raw)
        if getattr(target, "__module__", "") == __name__:
            continue                                      # installed already
        library = _tripwire(attr, f"the library's own `{attr}`")
        _replace_everywhere(target, library)
        done.append(plug.target)
    return done

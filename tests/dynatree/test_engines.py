"""Dynamic trees: one facade, two engines behind one interface.

The public classes are written once (``reference.dynatree``); a facade's mathematics is
its engine, ``_engine_class``: :class:`~reference.dynatree.engine.PythonDynamicTreeEngine`
or ``fast.dynatree.engine.CDynamicTreeEngine``. Checked here: both engines implement every
method of the :class:`~reference.dynatree.engine.DynamicTreeEngine` protocol with its
signature; the lean one-row hooks exist exactly when ``raw_rows`` says so, the array methods
exactly when ``array_batches`` does; and the ``fast``
public classes add nothing to the reference facades but their engine (results are checked
in lockstep elsewhere).
"""

from __future__ import annotations

import inspect

import pytest

from conftest import require_fast
from reference.dynatree.classifier import DynamicTreeClassifier
from reference.dynatree.engine import (
    ArrayRowEngine,
    DynamicTreeEngine,
    PythonDynamicTreeEngine,
    RawRowEngine,
)
from reference.dynatree.model import DynamicTreeRegressor


def _members(protocol: type) -> dict[str, object]:
    return {name: value for name, value in vars(protocol).items()
            if not name.startswith("_") or name == "__init__"}


def _engines() -> list[type]:
    from fast.dynatree.engine import CDynamicTreeEngine

    return [PythonDynamicTreeEngine, CDynamicTreeEngine]


@pytest.mark.parametrize("index", [0, 1])
def test_engine_implements_the_protocol(index: int) -> None:
    require_fast()
    engine = _engines()[index]
    protocols = [DynamicTreeEngine] + ([RawRowEngine] if engine.raw_rows else []) + (
        [ArrayRowEngine] if engine.array_batches else [])
    for protocol in protocols:
        for name in protocol.__annotations__:       # the class-level flags
            assert name in vars(engine), f"{engine.__name__} lacks {name}"
        for name, value in _members(protocol).items():
            assert name in vars(engine), f"{engine.__name__} lacks {name}"
            ours = vars(engine)[name]
            if callable(value) and not isinstance(value, (classmethod, property)):
                assert inspect.signature(ours) == inspect.signature(value), name
    if not engine.raw_rows:
        for name in set(_members(RawRowEngine)) - {"__init__"}:
            assert not hasattr(engine, name), f"{engine.__name__} has {name}"
    if not engine.array_batches:
        for name in set(_members(ArrayRowEngine)) - {"__init__"}:
            assert not hasattr(engine, name), f"{engine.__name__} has {name}"


def test_fast_classes_only_choose_their_engine() -> None:
    fast = require_fast()
    from fast.dynatree.engine import CDynamicTreeEngine

    for ours, parent in ((fast.DynamicTreeRegressor, DynamicTreeRegressor),
                         (fast.DynamicTreeClassifier, DynamicTreeClassifier)):
        assert ours.__bases__ == (parent,)
        own = set(vars(ours)) - {"__module__", "__doc__", "__qualname__", "__firstlineno__",
                                 "__static_attributes__"}
        assert own == {"_engine_class"}, own
        assert ours._engine_class is CDynamicTreeEngine
        assert ours.__doc__ == parent.__doc__
        assert parent._engine_class is PythonDynamicTreeEngine
        model = ours(n_particles=3) if ours is fast.DynamicTreeRegressor else ours(
            n_particles=3, classes=[0, 1])
        assert type(model._engine) is CDynamicTreeEngine

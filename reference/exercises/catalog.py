"""The exercise catalogue: what an exercise is, and the registry of all of them.

An :class:`Exercise` asks a student to write one function of the papers (one key
equation) and knows everything needed to grade it without a human:

* the **skeleton** the student starts from (signature, a numpydoc docstring with the
  equation in LaTeX, its paper tag and the tutorial section, ``raise NotImplementedError``);
* the **reference answer** (a function of :mod:`reference`, or a thin adapter around one,
  with exactly the skeleton's signature);
* **cases**: seeded randomized inputs plus the edge cases the code handles (empty leaves,
  the first point, ties, huge and tiny values), each labelled;
* a **tolerance**, stated with its reason (exact where the order of operations is
  prescribed; relative 1e-12 where a student may reasonably sum in another order);
* **plugs**: how to put the student's function inside the reference model in place of the
  reference function, so that a short seeded **stream** can run the patched reference model
  beside the ``fast`` model and report the first step where they diverge;
* **mistakes**: known wrong formulas (the mutation harness's mutants and the slips students
  really make), each with a one-sentence diagnosis and the tutorial paragraph to reread;
* graded **hints** that never give the answer away.

The families register their exercises in one module each (``determinism``,
``dynamic_trees``, ``sgt``, ``abacoc``: a module-level ``EXERCISES`` tuple); :func:`all_exercises`
collects them in course order.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Case", "Exercise", "Mistake", "Plug", "Stream", "Tolerance",
    "EXACT", "FAMILY_MODULES", "all_exercises", "get",
]


@dataclass(frozen=True)
class Tolerance:
    """How close the student's value must be to the reference's.

    ``kind`` is ``"exact"`` (bit for bit: ``==`` on every number, NaN equal to NaN) or
    ``"rel"`` (``|a - b| <= rtol * max(|a|, |b|)``, and exact for integers, booleans and
    infinities). ``why`` is the one sentence shown to the student.
    """

    kind: str
    rtol: float = 0.0
    why: str = ""


EXACT = Tolerance("exact", 0.0, "the order of operations is prescribed by the specification")


@dataclass(frozen=True)
class Case:
    """One input of an exercise: positional arguments and a label for reports."""

    args: tuple[Any, ...]
    label: str = "random"


@dataclass(frozen=True)
class Mistake:
    """A known wrong formula with the same signature as the exercise's function.

    ``sentence`` names the mistake in one sentence; ``anchor`` is the tutorial paragraph to
    reread (``"tutorials/02_dynamic_trees.md#the-constant-leaf-derived-step-by-step"``);
    ``mutant`` is the id of the paired mutant in the mutation harness when the mistake is one
    of them (``""`` for a student's slip that the harness does not carry).
    """

    id: str
    sentence: str
    anchor: str
    function: Callable[..., Any]
    mutant: str = ""


@dataclass(frozen=True)
class Plug:
    """Where the student's function goes inside the reference model.

    ``target`` is a dotted path to a function (or method) of :mod:`reference`, e.g.
    ``"reference.dynatree.leaf_models.regression_log_evidence"``; the checker replaces that
    object wherever a ``reference.*`` module holds it. ``adapt(student)`` returns the
    replacement, with the target's signature, that computes through the student's function.
    """

    target: str
    adapt: Callable[[Callable[..., Any]], Callable[..., Any]]


@dataclass(frozen=True)
class Stream:
    """A short seeded stream on which the patched reference model runs beside ``fast``.

    ``model`` is a class name exported by both backends, ``params`` its constructor
    arguments, ``data()`` returns ``(X, y)`` (lists or arrays); the checker calls
    ``learn_one`` row by row on both models and compares ``snapshot()`` (and the
    prediction of the next row) after every step.
    """

    model: str
    params: Mapping[str, Any]
    data: Callable[[], tuple[Any, Any]]


@dataclass(frozen=True)
class Exercise:
    """One exercise: a key equation for the student to write (see the module docstring)."""

    name: str                       # "dt-constant-evidence": family prefix + concept
    title: str                      # one line, shown by ``driftwood exercise list``
    family: str                     # "determinism" | "dynamic_trees" | "sgt" | "abacoc"
    tag: str                        # the paper tag, e.g. "[TGP11, Eq. 2]; [DT-SPEC §3.1]"
    anchor: str                     # tutorial section: "tutorials/<page>.md#<heading-anchor>"
    function_name: str              # the name the student's function must have
    skeleton: str                   # source of the skeleton function (incl. its imports)
    reference: Callable[..., Any]   # the right answer, same signature as the skeleton
    cases: Callable[[], Sequence[Case]]  # seeded: the same cases on every call
    tolerance: Tolerance = EXACT
    plugs: tuple[Plug, ...] = ()
    stream: Stream | None = None
    mistakes: tuple[Mistake, ...] = ()
    hints: tuple[str, ...] = ()
    minutes: int = 15               # time estimate for the course outline
    extra: Mapping[str, Any] = field(default_factory=dict)


FAMILY_MODULES = (
    "reference.exercises.determinism",
    "reference.exercises.dynamic_trees",
    "reference.exercises.sgt",
    "reference.exercises.abacoc",
)
"""The modules that register exercises, in course order."""


def all_exercises() -> list[Exercise]:
    """Every registered exercise, in course order (family, then registration order)."""
    found: list[Exercise] = []
    for name in FAMILY_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as err:
            if err.name != name:
                raise
            continue
        found.extend(module.EXERCISES)
    return found


def get(name: str) -> Exercise:
    """The exercise called ``name``; ``KeyError`` listing the known names otherwise."""
    by_name = {ex.name: ex for ex in all_exercises()}
    if name not in by_name:
        raise KeyError(f"no exercise {name!r}; known: {', '.join(sorted(by_name))}")
    return by_name[name]

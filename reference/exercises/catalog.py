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
* graded **hints**, from a nudge to the formula (the last one gives it).

The families register their exercises in one module each (``determinism``,
``dynamic_trees``, ``sgt``, ``abacoc``: a module-level ``EXERCISES`` tuple); :func:`all_exercises`
collects them in course order.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "Case", "Exercise", "Mistake", "Plug", "Stream", "Tolerance",
    "EXACT", "FAMILY_MODULES", "add_catalog", "all_exercises", "catalogs", "get",
    "folder_file", "folder_hints", "load_family", "load_folder",
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
    statement: str = ""             # the statement shown to the student (Markdown)
    extra: Mapping[str, Any] = field(default_factory=dict)


FAMILY_MODULES = (
    "reference.exercises.determinism",
    "reference.exercises.dynamic_trees",
    "reference.exercises.sgt",
    "reference.exercises.abacoc",
)
"""The modules that register exercises, in course order."""


def folder_file(module_file: str, name: str) -> str:
    """The text of the file ``name`` beside the module ``module_file`` (an exercise
    folder's ``skeleton.py`` or ``statement.md``; pass ``__file__``)."""
    return (Path(module_file).parent / name).read_text(encoding="utf-8")


def folder_hints(module_file: str, name: str = "hints.txt") -> tuple[str, ...]:
    """The hints of an exercise folder: one paragraph of ``hints.txt`` per hint (blank
    lines between hints; a hint's lines are joined with single spaces), from a nudge to
    the formula."""
    text = folder_file(module_file, name)
    paragraphs = [" ".join(p.split()) for p in text.split("\n\n")]
    return tuple(p for p in paragraphs if p)


def load_family(package: str, order: Sequence[str]) -> tuple[Exercise, ...]:
    """The exercises of a family package: the sub-folders holding an ``exercise.py``
    (each defines ``EXERCISE``), in the order ``order`` lists them.

    A folder that ``order`` does not list, or a name in ``order`` with no folder, raises
    ``ValueError``: an exercise is never silently left out of the course.
    """
    module = importlib.import_module(package)
    assert module.__file__ is not None
    here = Path(module.__file__).parent
    folders = {p.name for p in here.iterdir() if (p / "exercise.py").is_file()}
    if folders != set(order):
        raise ValueError(f"{package}: folders {sorted(folders - set(order))} are not in its "
                         f"ORDER, names {sorted(set(order) - folders)} have no folder")
    found: list[Exercise] = []
    for name in order:
        exercise = importlib.import_module(f"{package}.{name}.exercise").EXERCISE
        if not isinstance(exercise, Exercise):
            raise TypeError(f"{package}.{name}.exercise.EXERCISE is not an Exercise")
        found.append(exercise)
    return tuple(found)


_CATALOGS: list[Path] = []
"""Instructors' folders added with :func:`add_catalog`, in the order added."""

_FOLDERS: dict[Path, list[Exercise]] = {}


def load_folder(folder: str | Path) -> list[Exercise]:
    """The exercises of a catalogue folder: one sub-folder per exercise, each with an
    ``exercise.py`` that defines ``EXERCISE`` (an :class:`Exercise`), in name order.

    The modules are imported once per folder and process (by file path, under a private
    module name, so two folders may use the same sub-folder names).
    """
    root = Path(folder).resolve()
    if root in _FOLDERS:
        return _FOLDERS[root]
    if not root.is_dir():
        raise FileNotFoundError(f"no exercise folder {folder}")
    found: list[Exercise] = []
    for sub in sorted(p for p in root.iterdir() if (p / "exercise.py").is_file()):
        module_name = f"_driftwood_catalog_{abs(hash(str(sub))):x}_{sub.name.replace('-', '_')}"
        spec = importlib.util.spec_from_file_location(module_name, sub / "exercise.py")
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {sub / 'exercise.py'}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        exercise = getattr(module, "EXERCISE", None)
        if not isinstance(exercise, Exercise):
            raise TypeError(f"{sub / 'exercise.py'} defines no EXERCISE (an Exercise)")
        found.append(exercise)
    _FOLDERS[root] = found
    return found


def add_catalog(folder: str | Path) -> list[Exercise]:
    """Add an instructor's catalogue folder (see :func:`load_folder`) to every listing,
    after the package's own exercises; returns its exercises.

    A name that is already taken (by the package or an earlier folder) is refused with
    ``ValueError``, so that a check never grades against another exercise than the one
    the instructor wrote.
    """
    root = Path(folder).resolve()
    if root in _CATALOGS:
        return _FOLDERS[root]
    mine = load_folder(root)
    taken = {ex.name for ex in all_exercises()}
    clash = sorted(taken.intersection(ex.name for ex in mine))
    if clash:
        raise ValueError(f"{folder}: exercise names already taken: {', '.join(clash)}")
    _CATALOGS.append(root)
    return mine


def catalogs() -> list[Path]:
    """The folders added with :func:`add_catalog`."""
    return list(_CATALOGS)


def all_exercises() -> list[Exercise]:
    """Every registered exercise, in course order (family, then registration order), then
    the exercises of the folders added with :func:`add_catalog`."""
    found: list[Exercise] = []
    for name in FAMILY_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as err:
            if err.name != name:
                raise
            continue
        found.extend(module.EXERCISES)
    for root in _CATALOGS:
        found.extend(load_folder(root))
    return found


def get(name: str) -> Exercise:
    """The exercise called ``name``; ``KeyError`` naming the closest known names otherwise
    ("did you mean"), or all of them when none is close."""
    by_name = {ex.name: ex for ex in all_exercises()}
    if name not in by_name:
        close = difflib.get_close_matches(name, list(by_name), n=3, cutoff=0.6)
        if close:
            raise KeyError(f"no exercise {name!r}; did you mean {' or '.join(close)}? "
                           "(`driftwood exercise list` shows them all)")
        raise KeyError(f"no exercise {name!r}; known: {', '.join(sorted(by_name))}")
    return by_name[name]

"""Grading a student's function: two routes to the right answer, diagnosis, a report.

:func:`check` grades one function against one :class:`~reference.exercises.catalog.Exercise`:

1. **Signature.** The function must accept the skeleton's positional arguments (it is
   called positionally); otherwise the status is ``"wrong-signature"``. Renamed
   parameters are accepted and mentioned in the report's notes.
2. **Route (a), the cases.** The student's function and the reference run on every case
   of ``exercise.cases()`` (each on its own deep copy of the arguments); the first case
   where they differ beyond the exercise's tolerance is reported with the arguments, the
   expected and the obtained value and where inside the value they differ.
   ``NotImplementedError`` gives ``"not-implemented"``; any other exception gives
   ``"raises"``, with the case and the traceback of the student's own frames.
3. **Diagnosis.** When the answer is wrong, each registered
   :class:`~reference.exercises.catalog.Mistake` is compared with it: a mistake that the
   answer reproduces on *every* case where the mistake differs from the reference is named
   (one sentence and the tutorial paragraph to reread). When several fit, the one whose
   wrong cases coincide best with the answer's is named.
4. **Route (b), the stream.** The student's function is plugged into the ``reference``
   model in place of the reference function (see :func:`plugged`) and the model runs on
   the exercise's short seeded stream; at every step it predicts the row (before
   learning it), learns it, and its prediction and ``snapshot()`` are compared with those
   of the ``fast`` model on the same stream. The first step where they diverge and the
   first differing path of the snapshot are reported
   (``step 3: snapshot.rng_state[0]: 11520 != 4242``, the plugged model's value first),
   or the exception the plugged model raised (``predict_one`` or ``learn_one``). The
   stream runs whenever the cases ran without an exception, also after a mismatch, so a
   wrong answer is shown both as a wrong value and as the first step it changes.

How values are compared (:func:`difference`)
--------------------------------------------
Values are walked recursively: tuples, lists and one-dimensional or nested numpy arrays
are sequences (a tuple equals a list with the same items), mappings compare key by key
(same keys, any order), numpy scalars are numbers.

* ``"exact"`` tolerance: numbers are equal when their values are equal *and* a zero has
  the same sign (``-0.0`` differs from ``0.0``: the backends agree bit for bit, and the
  sign of a zero can change a later ``1/x`` or ``atan2``); NaN equals NaN; an int equals
  the float of the same value (``3 == 3.0``: route (a) grades the formula, route (b)
  would show a type that changes the model).
* ``"rel"`` tolerance: integers (and booleans) exactly, infinities and NaN exactly, other
  floats when ``|a - b| <= rtol * max(|a|, |b|)`` (so the sign of a zero does not matter).

On the stream, an exact exercise is compared exactly by the project's own rule
(:func:`reference.evaluation.compare.first_difference`: also types must agree, since the
two models must agree bit for bit). A ``"rel"`` exercise is compared with the relative
tolerance :data:`STREAM_RTOL` (a rounding difference of one function, propagated through
a few dozen updates, stays far below it); a model that takes another discrete decision
(a different split, another resampled particle) shows as a structural difference and is
reported with that explanation.

Isolation of the two models
---------------------------
The ``fast`` model runs *before* anything is plugged (its predictions and snapshots are
recorded once per exercise and process), so a plug can never reach it, even where a
``fast`` module reads a function through a ``reference`` module. The plug itself only
touches modules named ``reference`` or ``reference.*`` (not ``reference.exercises``, whose
adapters must keep calling the real functions) and the classes defined there, and is
undone in a ``finally`` clause. While the student's function itself runs, the plug is
lifted, so a function that calls the reference (or the reference given as the answer)
meets the real functions rather than itself. Without the compiled ``fast`` backend the stream is
compared with the unplugged ``reference`` model (the two are bit-identical by design);
the report says so.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import textwrap
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from reference.evaluation.compare import first_difference
from reference.exercises.catalog import Exercise, Mistake, all_exercises, get
from reference.exercises.plug import _patchable_modules, plugged
from reference.exercises.report import DISCRETE as DISCRETE
from reference.exercises.report import (
    CaseMismatch,
    Divergence,
    Report,
    _short,
    _tolerant_first_difference,
    difference,
)

__all__ = [
    "STATUSES",
    "DISCRETE",
    "STREAM_RTOL",
    "CaseMismatch",
    "Catalogue",
    "Divergence",
    "Report",
    "Text",
    "check",
    "difference",
    "hint",
    "list_exercises",
    "plugged",
    "skeleton_file_name",
    "start",
]

STATUSES = ("passed", "not-implemented", "wrong-signature", "raises", "mismatch", "import-error",
            "timeout", "error", "library")
"""Every report status. The last four only come from a file checked in a child process
(:func:`reference.exercises.isolation.check_file`): ``"import-error"`` the file does not
import or does not define the function, ``"timeout"`` the time limit ran out (the import
included), ``"error"`` the child ended without sending its result (``os._exit``, a crash)
or the check was ended by a ``BaseException`` such as ``SystemExit``, ``"library"`` the
student's code called the library's own implementation of the function or the exercise's
reference answer (:mod:`reference.exercises.tripwire`)."""

STREAM_RTOL = 1e-9
"""Relative tolerance of the stream comparison for ``"rel"`` exercises."""


# ---------------------------------------------------------------------------
# route (a): the cases
# ---------------------------------------------------------------------------


class _Raised:
    """An output that is an exception (of a mistake, or of the student's code): its
    ``"Type: message"`` text and the traceback of the student's frames, both plain text
    (so that an isolated run can send it; see :mod:`reference.exercises.isolation`)."""

    def __init__(self, text: str, tb: str = "", kind: str = "raised") -> None:
        self.text = text
        self.tb = tb
        self.kind = kind        # "raised", or "not-implemented" (ends route (a))

    @classmethod
    def of(cls, exc: BaseException, kind: str = "raised") -> _Raised:
        """The record of ``exc`` as it was raised."""
        return cls(f"{type(exc).__name__}: {exc}", _student_traceback(exc), kind)

    def __repr__(self) -> str:
        return f"<raised {self.text}>"


def _identity_value(value: Any) -> Any:
    return value


_CACHE: dict[tuple[str, int], dict[str, Any]] = {}


def _cache(exercise: Exercise) -> dict[str, Any]:
    """Per exercise and process: its cases, and once computed the reference's outputs
    (:func:`_expected`), the mistakes' outputs, the skeleton's signature and the recorded
    stream trajectory. The child of an isolated check computes the cases only: the
    expected values never exist where the student's code runs."""
    key = (exercise.name, id(exercise))
    entry = _CACHE.get(key)
    if entry is None:
        entry = {
            "exercise": exercise,  # keeps id(exercise) valid
            "cases": list(exercise.cases()),
        }
        _CACHE[key] = entry
    return entry


def _expected(exercise: Exercise) -> list[Any]:
    """The reference's output on every case (computed once per exercise and process)."""
    entry = _cache(exercise)
    if "expected" not in entry:
        entry["expected"] = [exercise.reference(*copy.deepcopy(c.args))
                             for c in entry["cases"]]
    expected: list[Any] = entry["expected"]
    return expected


def _mistake_outputs(exercise: Exercise) -> dict[str, list[Any]]:
    entry = _cache(exercise)
    if "mistakes" not in entry:
        out: dict[str, list[Any]] = {}
        for mistake in exercise.mistakes:
            values: list[Any] = []
            for case in entry["cases"]:
                try:
                    values.append(mistake.function(*copy.deepcopy(case.args)))
                except Exception as exc:  # noqa: BLE001 - a wrong formula may fail anywhere
                    values.append(_Raised.of(exc))
            out[mistake.id] = values
        entry["mistakes"] = out
    result: dict[str, list[Any]] = entry["mistakes"]
    return result


def mistake_cases(exercise: Exercise, mistake: Mistake) -> list[int]:
    """The indices of the cases where ``mistake`` differs from the reference (and does not
    raise): the cases on which an answer must reproduce it to be diagnosed as it."""
    values = _mistake_outputs(exercise)[mistake.id]
    return [
        i for i, (exp, got) in enumerate(zip(_expected(exercise), values, strict=True))
        if not isinstance(got, _Raised) and difference(exp, got, exercise.tolerance) is not None
    ]


def _diagnose(exercise: Exercise, obtained: list[Any], wrong: set[int],
              normalize: Callable[[Any], Any] = _identity_value) -> Mistake | None:
    best: tuple[int, int, int] | None = None
    chosen: Mistake | None = None
    outputs = normalize(_mistake_outputs(exercise))
    for order, mistake in enumerate(exercise.mistakes):
        where = mistake_cases(exercise, mistake)
        if not where:
            continue
        values = outputs[mistake.id]
        if all(
            not isinstance(obtained[i], _Raised)
            and difference(values[i], obtained[i], exercise.tolerance) is None
            for i in where
        ):
            overlap = len(wrong.intersection(where))
            score = (overlap, -len(wrong.symmetric_difference(where)), -order)
            if best is None or score > best:
                best, chosen = score, mistake
    return chosen


def _student_traceback(exc: BaseException) -> str:
    """The frames below the checker's own (the student's code and what it called)."""
    frames = traceback.extract_tb(exc.__traceback__)
    here = Path(__file__).resolve().parent
    while frames and Path(frames[0].filename).resolve().parent == here:
        frames = traceback.StackSummary.from_list(frames[1:])
    shown = traceback.format_list(frames[-6:])
    shown += traceback.format_exception_only(type(exc), exc)
    return "".join(shown)


def _skeleton_signature(exercise: Exercise) -> inspect.Signature:
    entry = _cache(exercise)
    if "signature" not in entry:
        namespace: dict[str, Any] = {"__name__": f"skeleton_{exercise.name.replace('-', '_')}"}
        exec(compile(exercise.skeleton, f"<skeleton {exercise.name}>", "exec"), namespace)
        entry["signature"] = inspect.signature(namespace[exercise.function_name])
    signature: inspect.Signature = entry["signature"]
    return signature


def _positional_names(signature: inspect.Signature) -> list[str]:
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p.name for p in signature.parameters.values() if p.kind in kinds]


def _plain_signature(name: str, signature: inspect.Signature) -> str:
    """``name(a, b=1, *args)``: the parameters without annotations."""
    shown: list[str] = []
    for p in signature.parameters.values():
        text = p.name
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            text = "*" + text
        elif p.kind is inspect.Parameter.VAR_KEYWORD:
            text = "**" + text
        if p.default is not inspect.Parameter.empty:
            text += f"={p.default!r}"
        shown.append(text)
    return f"{name}({', '.join(shown)})"


def _signature_problem(exercise: Exercise, function: Any, notes: list[str]) -> str | None:
    if not callable(function):
        return f"expected a function {exercise.function_name}(...), got {_short(function)}"
    wanted = _skeleton_signature(exercise)
    names = _positional_names(wanted)
    try:
        got = inspect.signature(function)
    except (TypeError, ValueError):  # builtins without a signature: let the call decide
        return None
    try:
        got.bind(*names)
    except TypeError as err:
        count = f"{len(names)} positional argument" + ("" if len(names) == 1 else "s")
        return (f"the function must take {count}, as in "
                f"{_plain_signature(exercise.function_name, wanted)}; yours is "
                f"{_plain_signature(getattr(function, '__name__', 'function'), got)} ({err})")
    mine = _positional_names(got)[: len(names)]
    if mine != names:
        notes.append(f"your parameters are named ({', '.join(mine)}), the skeleton's "
                     f"({', '.join(names)}); the checker passes them by position")
    return None


# ---------------------------------------------------------------------------
# route (b): the stream
# ---------------------------------------------------------------------------


def _rows(exercise: Exercise) -> tuple[list[list[float]], list[Any]]:
    """The stream's rows and labels as Python lists (computed once per exercise)."""
    assert exercise.stream is not None
    entry = _cache(exercise)
    if "rows" not in entry:
        X, y = exercise.stream.data()
        rows = [list(map(float, r)) for r in np.asarray(X, dtype=np.float64).tolist()]
        entry["rows"] = (rows, list(np.asarray(y).tolist()))
    found: tuple[list[list[float]], list[Any]] = entry["rows"]
    return copy.deepcopy(found)


def _run_model(model: Any, rows: list[list[float]], labels: list[Any]) -> Iterator[
        tuple[Any, Any]]:
    """Yield ``(prediction or _Raised, snapshot or _Raised)`` per step."""
    for x, y in zip(rows, labels, strict=True):
        try:
            prediction: Any = model.predict_one(x)
        except Exception as exc:  # noqa: BLE001 - compared with the other model's
            prediction = _Raised.of(exc)
        try:
            model.learn_one(x, y)
            snapshot: Any = model.snapshot()
        except Exception as exc:  # noqa: BLE001
            yield prediction, _Raised.of(exc)
            return
        yield prediction, snapshot


def _trajectory(exercise: Exercise) -> dict[str, Any]:
    """The comparison model's predictions and snapshots on the stream (recorded once)."""
    entry = _cache(exercise)
    if "trajectory" not in entry:
        stream = exercise.stream
        assert stream is not None
        rows, labels = _rows(exercise)
        try:
            backend = importlib.import_module("fast")
            against = f"the fast {stream.model}"
        except ImportError:
            backend = importlib.import_module("reference")
            against = f"the unplugged reference {stream.model} (fast backend not built)"
        model = getattr(backend, stream.model)(**dict(stream.params))
        steps = [(p, copy.deepcopy(s)) for p, s in _run_model(model, rows, labels)]
        entry["trajectory"] = {"rows": rows, "labels": labels, "steps": steps,
                               "against": against}
    trajectory: dict[str, Any] = entry["trajectory"]
    return trajectory


def _compare_step(a: Any, b: Any, path: str, exercise: Exercise) -> str | None:
    if isinstance(a, _Raised) or isinstance(b, _Raised):
        if isinstance(a, _Raised) and isinstance(b, _Raised) and a.text == b.text:
            return None
        mine = f"raised {_short(a.text)}" if isinstance(a, _Raised) else "did not raise"
        theirs = f"raised {_short(b.text)}" if isinstance(b, _Raised) else "did not"
        return f"{path}: the plugged model {mine}, the other {theirs}"
    if exercise.tolerance.kind == "exact":
        return first_difference(a, b, path)
    return _tolerant_first_difference(a, b, max(STREAM_RTOL, exercise.tolerance.rtol), path)


def _plugged_steps(exercise: Exercise, function: Callable[..., Any]) -> tuple[
        list[tuple[Any, Any]], _Raised | None]:
    """Route (b), the student's half: the plugged reference model's ``(prediction,
    snapshot)`` per step (a :class:`_Raised` where it raised; the run ends at an exception
    of ``learn_one``), or the exception of its constructor."""
    stream = exercise.stream
    assert stream is not None
    rows, labels = _rows(exercise)
    cls = getattr(importlib.import_module("reference"), stream.model)
    with plugged(exercise.plugs, function):
        try:
            model = cls(**dict(stream.params))
        except Exception as exc:  # noqa: BLE001 - the student's code runs in the constructor
            return [], _Raised.of(exc)
        return [(p, copy.deepcopy(snap)) for p, snap in _run_model(model, rows, labels)], None


def _compare_stream(exercise: Exercise, outputs: Outputs, normalize: Callable[[Any], Any]
                    ) -> tuple[Divergence | None, int, str, _Raised | None]:
    """Route (b), the comparison: ``(divergence, steps agreeing, against, the student's
    exception)``."""
    recorded = _trajectory(exercise)
    against = recorded["against"]
    if outputs.constructor_error is not None:
        error = outputs.constructor_error
        return Divergence(0, f"the model's constructor raised {error.text}", against), 0, \
            against, error
    steps = 0
    assert outputs.stream is not None
    for t, ((p_ref, s_ref), (p_mine, s_mine)) in enumerate(
            zip(normalize(recorded["steps"]), outputs.stream, strict=False)):
        after = "learn_one" if isinstance(s_mine, _Raised) or isinstance(
            s_ref, _Raised) else "snapshot"
        what = _compare_step(p_mine, p_ref, "predict_one", exercise) or _compare_step(
            s_mine, s_ref, after, exercise)
        if what is not None:
            raised = next((v for v in (p_mine, s_mine) if isinstance(v, _Raised)), None)
            return Divergence(t, what, against), steps, against, raised
        steps += 1
    return None, steps, against, None


@dataclass
class Outputs:
    """What the student's function produced, before any comparison.

    The checker's two halves meet here: :func:`collect` runs the student's code and fills
    this record (in the student's process, or in an isolated child that sends it as plain
    data, :mod:`reference.exercises.isolation`); :func:`grade` compares it with the
    reference and writes the report, and never calls the student's code.

    Attributes
    ----------
    notes : list of str
        Notes on the signature (renamed parameters).
    problem : str or None
        Why the signature does not fit (then nothing ran).
    values : list
        The output on each case, in order; a :class:`_Raised` where the function raised.
        A ``NotImplementedError`` ends the list (its record has kind ``"not-implemented"``).
    stream : list of (prediction, snapshot) or None
        The plugged reference model's steps (``None``: route (b) did not run).
    constructor_error : _Raised or None
        The exception of the plugged model's constructor.
    """

    notes: list[str] = field(default_factory=list)
    problem: str | None = None
    values: list[Any] = field(default_factory=list)
    stream: list[tuple[Any, Any]] | None = None
    constructor_error: _Raised | None = None


def collect(exercise: Exercise, function: Callable[..., Any], *, stream: bool = True
            ) -> Outputs:
    """Run ``function`` on the exercise's cases and, plugged, in the reference model."""
    outputs = Outputs()
    outputs.problem = _signature_problem(exercise, function, outputs.notes)
    if outputs.problem is not None:
        return outputs
    for case in _cache(exercise)["cases"]:
        try:
            value = function(*copy.deepcopy(case.args))
        except NotImplementedError as exc:
            outputs.values.append(_Raised.of(exc, "not-implemented"))
            return outputs
        except Exception as exc:  # noqa: BLE001 - any error of the student's code is reported
            value = _Raised.of(exc)
        outputs.values.append(value)
    if stream and exercise.stream is not None and exercise.plugs:
        outputs.stream, outputs.constructor_error = _plugged_steps(exercise, function)
    return outputs


# ---------------------------------------------------------------------------
# check
# ---------------------------------------------------------------------------


def _base_report(exercise: Exercise, status: str, message: str) -> Report:
    return Report(exercise=exercise.name, status=status, message=message, title=exercise.title,
                  tag=exercise.tag, anchor=exercise.anchor, tolerance=exercise.tolerance)


def check(
    name_or_exercise: str | Exercise, function: Callable[..., Any], *, stream: bool = True
) -> Report:
    """Grade ``function`` as an answer to an exercise (see the module docstring).

    Parameters
    ----------
    name_or_exercise : str or Exercise
        The exercise, or its name (``driftwood exercise list``).
    function : callable
        The student's function, with the skeleton's signature.
    stream : bool, default True
        Also run route (b): the function inside the reference model on a short stream,
        beside the ``fast`` model (skipped for exercises without a stream).

    Returns
    -------
    Report
        ``report.passed``, ``report.status``; ``print(report)`` explains.

    Raises
    ------
    KeyError
        For an unknown exercise name.

    Examples
    --------
    >>> from reference.exercises import check
    >>> def next_word(s0, s1, s2, s3):
    ...     raise NotImplementedError
    >>> check("rng-xoshiro-step", next_word).status
    'not-implemented'
    """
    exercise = get(name_or_exercise) if isinstance(name_or_exercise, str) else name_or_exercise
    if stream and exercise.stream is not None and exercise.plugs:
        _trajectory(exercise)      # the comparison model runs before anything is plugged
    with _reference_restored() as restored:
        outputs = collect(exercise, function, stream=stream)
    report = grade(exercise, outputs)
    if restored:
        report.notes.append(
            "your code changed " + ", ".join(restored) + " while it was checked; the "
            "original was put back (an answer must not change the library)")
    return report


def _reference_namespaces() -> list[tuple[str, Any]]:
    """Every ``reference`` module but the exercises', and every class defined in one."""
    found: list[tuple[str, Any]] = []
    for module in _patchable_modules():
        found.append((module.__name__, module))
        for attr, value in list(vars(module).items()):
            if isinstance(value, type) and value.__module__ == module.__name__:
                found.append((f"{module.__name__}.{attr}", value))
    return found


@contextmanager
def _reference_restored() -> Iterator[list[str]]:
    """Undo, on leaving the block, any change the student's code made to a ``reference``
    module or class (the in-process :func:`check`; a file checked by
    :mod:`reference.exercises.isolation` runs in a process of its own). The block
    receives the list of what was put back, filled on leaving."""
    before = [(name, holder, dict(vars(holder))) for name, holder in _reference_namespaces()]
    restored: list[str] = []
    try:
        yield restored
    finally:
        for name, holder, saved in before:
            now = vars(holder)
            for attr in [a for a in list(now) if a not in saved]:
                delattr(holder, attr)
                restored.append(f"{name}.{attr}")
            for attr, value in saved.items():
                if attr not in now or now[attr] is not value:
                    setattr(holder, attr, value)
                    restored.append(f"{name}.{attr}")


def grade(exercise: Exercise, outputs: Outputs,
          normalize: Callable[[Any], Any] = _identity_value) -> Report:
    """The report on ``outputs`` (see :func:`collect`): compare, diagnose, explain.

    ``normalize`` is applied to every value computed here (the reference's outputs, the
    mistakes' and the comparison model's) before it meets the student's, so that values
    that travelled as plain data compare like with like (an isolated run passes
    :func:`reference.exercises.isolation.round_trip`).
    """
    notes = outputs.notes
    if outputs.problem is not None:
        report = _base_report(exercise, "wrong-signature", outputs.problem)
        report.notes = notes
        return report
    entry = _cache(exercise)
    cases = entry["cases"]
    expected = normalize(_expected(exercise))
    obtained: list[Any] = []
    first: CaseMismatch | None = None
    wrong: set[int] = set()
    for i, value in enumerate(outputs.values):
        case = cases[i]
        if isinstance(value, _Raised) and value.kind == "not-implemented":
            report = _base_report(exercise, "not-implemented", (
                f"{exercise.function_name} raises NotImplementedError: write its body "
                f"(the skeleton's `raise NotImplementedError`) and check again"))
            report.cases_checked = i
            report.cases_total = len(cases)
            report.notes = notes
            return report
        if isinstance(value, _Raised) and first is None:
            report = _base_report(exercise, "raises", (
                f"{exercise.function_name} raised {value.text.split(':')[0]} on case #{i} "
                f"({case.label})"))
            report.failing_case = f"#{i} ({case.label}): arguments {_short(case.args)}"
            report.traceback = value.tb
            report.cases_checked = i
            report.cases_total = len(cases)
            report.notes = notes
            return report
        obtained.append(value)
        where = difference(expected[i], value, exercise.tolerance) if not isinstance(
            value, _Raised) else f"raised {value.text}"
        if where is not None:
            wrong.add(i)
            if first is None:
                first = CaseMismatch(i, case.label, case.args, expected[i], value, where)
    diagnosis = _diagnose(exercise, obtained, wrong, normalize) if first is not None else None
    divergence: Divergence | None = None
    steps, against, stream_error = 0, "", None
    run_stream = outputs.stream is not None or outputs.constructor_error is not None
    if run_stream:
        divergence, steps, against, stream_error = _compare_stream(exercise, outputs, normalize)
    if first is not None:
        report = _base_report(exercise, "mismatch", (
            f"{exercise.function_name} differs from the reference on {len(wrong)} of "
            f"{len(cases)} cases"))
    elif divergence is not None:
        report = _base_report(exercise, "mismatch", (
            f"{exercise.function_name} agrees with the reference on all {len(cases)} cases, "
            f"but inside the model it diverges at step {divergence.step}"))
    else:
        report = _base_report(exercise, "passed", (
            f"{exercise.function_name} agrees with the reference on all {len(cases)} cases"
            + (" and inside the model on the whole stream" if run_stream else "")))
    if stream_error is not None and first is None:
        report.status = "raises"
        report.traceback = stream_error.tb
    report.cases_checked = len(cases)
    report.cases_total = len(cases)
    report.first_mismatch = first
    report.diagnosis = diagnosis
    report.stream_divergence = divergence
    if run_stream:
        assert exercise.stream is not None
        report.stream_model = exercise.stream.model
        report.stream_steps = steps
        report.stream_against = against
    report.notes = notes
    return report


def import_error_report(exercise: Exercise, message: str, details: str = "") -> Report:
    """The report for a file that does not import or lacks the function (status
    ``"import-error"``), as ``driftwood exercise check NAME FILE`` prints it."""
    report = _base_report(exercise, "import-error", message)
    report.traceback = details
    return report


# ---------------------------------------------------------------------------
# hints, skeleton files, the list
# ---------------------------------------------------------------------------


class Text(str):
    """A string that shows as itself in a notebook or at the prompt (no quotes)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str(self)

    def _repr_markdown_(self) -> str:
        return "```text\n" + str(self) + "\n```"


_HINTS_SHOWN: dict[str, int] = {}


def hint(name: str, level: int | None = None) -> Text:
    """A graded hint for an exercise: the next one at each call, or hint ``level`` (1-based).

    Hints go from a nudge to the formula: the last one gives it, in symbols or as a recipe.

    Examples
    --------
    >>> print(hint("rng-uniform", level=1))  # doctest: +ELLIPSIS
    rng-uniform, hint 1/...
    """
    exercise = get(name)
    total = len(exercise.hints)
    if total == 0:
        return Text(f"{name}: no hints; reread {exercise.anchor}")
    if level is None:
        level = min(_HINTS_SHOWN.get(name, 0) + 1, total)
    if not 1 <= level <= total:
        raise ValueError(f"{name} has hints 1 to {total}, not {level}")
    _HINTS_SHOWN[name] = max(_HINTS_SHOWN.get(name, 0), level)
    more = f" (next: hint {level + 1})" if level < total else " (the last hint: the recipe)"
    return Text(f"{name}, hint {level}/{total}{more}:\n  {exercise.hints[level - 1]}\n"
                f"  reread: {exercise.anchor}")


def skeleton_file_name(name: str) -> str:
    """The file :func:`start` writes for exercise ``name``: ``rng-uniform`` ->
    ``rng_uniform.py``."""
    return name.replace("-", "_") + ".py"


def start(name: str, directory: str | Path = ".", *, overwrite: bool = False) -> Path:
    """Write the skeleton of exercise ``name`` to ``directory/<name with - as _>.py``.

    Refuses (``FileExistsError``) to overwrite an existing file unless ``overwrite``.
    Returns the path written.
    """
    exercise = get(name)
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / skeleton_file_name(name)
    if path.exists() and not overwrite:
        raise FileExistsError(f"{path} exists; keep your work, or overwrite it explicitly")
    path.write_text(exercise.skeleton, encoding="utf-8")
    return path


class Catalogue(list[Exercise]):
    """The exercises, shown as a table grouped by family (name, tag, minutes, title)."""

    def table(self, width: int = 100) -> str:
        """One heading per family (its exercises and minutes), then one row per exercise
        in at most ``width`` columns: name, paper tag (the part of ``tag`` before any
        ``;``), minutes, title; a title too long for its column continues on indented
        lines."""
        rows = [(e.name, e.tag.split(";")[0].strip(), str(e.minutes), e.title) for e in self]
        w_name = max([len(r[0]) for r in rows] + [4])
        w_tag = min(max([len(r[1]) for r in rows] + [3]), 18)
        indent = 2 + w_name + 2 + w_tag + 2 + 3 + 2
        lines = [f"  {'name':<{w_name}}  {'tag':<{w_tag}}  min  title"]
        family = None
        for ex, (name, tag, minutes, title) in zip(self, rows, strict=True):
            if ex.family != family:
                family = ex.family
                members = [e for e in self if e.family == family]
                total = sum(e.minutes for e in members)
                plural = "s" if len(members) != 1 else ""
                lines.append(f"{family}: {len(members)} exercise{plural}, {total} minutes")
            head = f"  {name:<{w_name}}  {tag[:w_tag]:<{w_tag}}  {minutes:>3}  "
            parts = textwrap.wrap(title, max(width - indent, 20), break_on_hyphens=False) or [""]
            lines.append((head + parts[0]).rstrip())
            lines += [" " * indent + part for part in parts[1:]]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    def __repr__(self) -> str:
        return self.table()

    def _repr_markdown_(self) -> str:
        rows = ["| name | family | tag | min | title |", "|---|---|---|---:|---|"]
        rows += [f"| `{e.name}` | {e.family} | {e.tag} | {e.minutes} | {e.title} |" for e in self]
        return "\n".join(rows)


def list_exercises() -> Catalogue:
    """Every exercise in course order (a list that prints as a table)."""
    return Catalogue(all_exercises())

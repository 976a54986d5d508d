"""``driftwood exercise``: list the exercises, write a skeleton, check a solution, hints.

Exit status: 0 success (``check``: the solution passes), 1 the solution fails (including
a file that does not import or lacks the function), 2 usage error (unknown exercise,
missing file, refusing to overwrite).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import signal
import sys
import threading
import traceback
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from reference.evaluation.cli._output import with_examples
from reference.exercises import catalog, checker

__all__ = ["add_exercise_parser", "cmd_exercise"]

HELP_EXERCISE = with_examples(
    ("driftwood exercise list", "every exercise, by family"),
    ("driftwood exercise start rng-uniform", "writes ./rng_uniform.py"),
    ("driftwood exercise check rng-uniform", "grades ./rng_uniform.py"),
    ("driftwood exercise hint rng-uniform", "the first hint"),
    description="Exercises on the papers' key equations, checked against the reference and "
    "the fast model.",
)
HELP_LIST = with_examples(("driftwood exercise list", ""))
HELP_START = with_examples(
    ("driftwood exercise start rng-uniform --dir homework", "writes homework/rng_uniform.py"),
    note="Edit the function, then run `driftwood exercise check`.",
)
HELP_CHECK = with_examples(
    ("driftwood exercise check rng-uniform", "reads ./rng_uniform.py"),
    ("driftwood exercise check rng-uniform homework/rng_uniform.py --json", "for a grader"),
    note="Exit status: 0 passed, 1 not passed (or the file does not import), 2 usage error.",
)
HELP_HINT = with_examples(
    ("driftwood exercise hint rng-below", "the first hint"),
    ("driftwood exercise hint rng-below --level 2", "the second"),
)


def add_exercise_parser(sub: Any) -> None:
    """Add ``exercise`` and its four actions to the subparsers ``sub`` of ``driftwood``."""
    parser = sub.add_parser(
        "exercise", help="course exercises: list, start, check a solution, hints",
        **HELP_EXERCISE,
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    listing = actions.add_parser("list", help="every exercise: name, family, tag, minutes, "
                                 "title", **HELP_LIST)
    listing.set_defaults(handler=cmd_exercise)
    start = actions.add_parser("start", help="write the skeleton file of an exercise",
                               **HELP_START)
    start.add_argument("name", help="exercise name (see `driftwood exercise list`)")
    start.add_argument("--dir", default=".", help="directory of the file (default: here)")
    start.add_argument("--force", action="store_true", help="overwrite an existing file")
    start.set_defaults(handler=cmd_exercise)
    check = actions.add_parser("check", help="check a solution file", **HELP_CHECK)
    check.add_argument("name", help="exercise name")
    check.add_argument("file", nargs="?", default=None,
                       help="the solution (default: ./<name with - as _>.py)")
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    check.add_argument("--no-stream", action="store_true",
                       help="skip the model run (only the function's cases)")
    check.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS",
                       help="stop a check that runs longer (an endless loop in the solution "
                            "is then reported where it was; default 60, 0: no limit)")
    check.set_defaults(handler=cmd_exercise)
    hint = actions.add_parser("hint", help="a graded hint (never the answer)", **HELP_HINT)
    hint.add_argument("name", help="exercise name")
    hint.add_argument("--level", type=int, default=None,
                      help="which hint, from 1 (general) up (default: 1)")
    hint.set_defaults(handler=cmd_exercise)


def _error(message: str) -> int:
    print(f"driftwood: error: {message}", file=sys.stderr)
    return 2


def _exercise(name: str) -> catalog.Exercise | None:
    try:
        return catalog.get(name)
    except KeyError as err:
        _error(str(err.args[0]))
        return None


def _load(exercise: catalog.Exercise, path: Path) -> tuple[Any, checker.Report | None]:
    """The student's function from ``path``, or the import-error report."""
    spec = importlib.util.spec_from_file_location(f"_exercise_{uuid.uuid4().hex}", path)
    if spec is None or spec.loader is None:
        return None, checker.import_error_report(exercise, f"{path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:  # noqa: BLE001 - any failure to import is the student's
        if isinstance(exc, KeyboardInterrupt):
            raise
        lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
        shown = [line for line in lines if "importlib" not in line and "<frozen" not in line]
        return None, checker.import_error_report(
            exercise, f"{path} does not import: {type(exc).__name__}: {exc}", "".join(shown[-6:]))
    function = getattr(module, exercise.function_name, None)
    if function is None:
        return None, checker.import_error_report(
            exercise, f"{path} defines no function {exercise.function_name} (the skeleton's "
                      f"name: `driftwood exercise start {exercise.name}` shows it)")
    return function, None


class CheckTimeout(TimeoutError):
    """Raised inside the solution when ``--timeout`` runs out (reported like any error)."""


@contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`CheckTimeout` in the running code after ``seconds`` (POSIX main
    thread only; elsewhere, or with 0, no limit)."""
    usable = (seconds > 0 and hasattr(signal, "SIGALRM")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise CheckTimeout(f"the check took longer than {seconds:g} s (an endless loop?)")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _check(args: argparse.Namespace) -> int:
    exercise = _exercise(args.name)
    if exercise is None:
        return 2
    path = Path(args.file) if args.file else Path(checker.skeleton_file_name(exercise.name))
    if not path.is_file():
        hint = "" if args.file else f" (write it with `driftwood exercise start {exercise.name}`)"
        return _error(f"no file {path}{hint}")
    function, report = _load(exercise, path)
    if report is None:
        with _time_limit(args.timeout):
            report = checker.check(exercise, function, stream=not args.no_stream)
    if args.json:
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        print(report)
    return 0 if report.passed else 1


def cmd_exercise(args: argparse.Namespace) -> int:
    """Run ``driftwood exercise ACTION``; returns the exit status."""
    if args.action == "list":
        print(checker.list_exercises().table())
        return 0
    if args.action == "start":
        if _exercise(args.name) is None:
            return 2
        try:
            path = checker.start(args.name, args.dir, overwrite=args.force)
        except FileExistsError as err:
            return _error(f"{err} (use --force)")
        print(f"wrote {path}: write the body of the function, then run\n"
              f"  driftwood exercise check {args.name} {path}")
        return 0
    if args.action == "check":
        return _check(args)
    exercise = _exercise(args.name)
    if exercise is None:
        return 2
    try:
        text = checker.hint(args.name, 1 if args.level is None else args.level)
    except ValueError as err:
        return _error(str(err))
    print(text)
    return 0

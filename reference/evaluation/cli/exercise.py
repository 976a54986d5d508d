"""``driftwood exercise``: list the exercises, write a skeleton, check a solution, hints,
grade a class.

``check`` and ``grade`` run each student's file in a child process with a hard time
limit (:mod:`reference.exercises.isolation`); ``--catalog DIR`` (any action, repeatable)
adds an instructor's exercise folder (:func:`reference.exercises.catalog.add_catalog`).

Exit status: 0 success (``check``: the solution passes), 1 the solution fails (including
a file that does not import, lacks the function, runs out of time or ends the check),
2 usage error (unknown exercise, missing file, refusing to overwrite, an output path that
cannot be written: checked before the first check). ``grade`` stopped by Ctrl-C,
``SIGTERM`` or ``SIGHUP`` kills the running checks, writes the gradebook of what was
graded (marked partial) and exits with 128 + the signal's number (130, 143, 129).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shlex
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from reference.evaluation.cli._output import with_examples
from reference.evaluation.notebooks import section_pointer
from reference.exercises import catalog, checker, gradebook, isolation, sandbox
from reference.exercises.report import escape_control, reread_link

__all__ = ["add_exercise_parser", "cmd_exercise"]

HELP_EXERCISE = with_examples(
    ("driftwood exercise list", "every exercise, by family"),
    ("driftwood exercise show rng-uniform", "the statement: what to write, where to read"),
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
HELP_GRADE = with_examples(
    ("driftwood exercise grade submissions --csv grades.csv",
     "one row per student folder of submissions/"),
    ("driftwood exercise grade submissions --csv grades.csv --json grades.json "
     "--exercise rng-uniform --exercise rng-below", "two exercises, full reports"),
    note="Cells: passed, failed[:diagnosis], failed:library, error, timeout, missing. Each "
    "file runs on a private copy in its own sandbox (bubblewrap where it works), so no "
    "student's file can reach another's grade or the class folder.",
)
HELP_SHOW = with_examples(
    ("driftwood exercise show rng-uniform", "the statement of rng-uniform"),
    note="The statement is also in the skeleton's docstring (`driftwood exercise start`).",
)
HELP_HINT = with_examples(
    ("driftwood exercise hint rng-below", "the first hint"),
    ("driftwood exercise hint rng-below --level 2", "the second"),
)


def _seconds(text: str) -> float:
    """``--timeout``: a finite number of seconds >= 0 (0: no limit)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(
            f"must be a finite number of seconds >= 0 (0: no limit), not {text!r}")
    return value


def _sandbox_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sandbox", choices=sandbox.MODES, default=None,
        help="how each check is contained: bwrap (bubblewrap: read-only file system, no "
             "network, own PID namespace), process-group (without it), auto (bwrap where "
             f"it works; the default, or ${sandbox.SANDBOX_VARIABLE})")


def add_exercise_parser(sub: Any) -> None:
    """Add ``exercise`` and its four actions to the subparsers ``sub`` of ``driftwood``."""
    parser = sub.add_parser(
        "exercise", help="course exercises: list, start, check a solution, hints",
        **HELP_EXERCISE,
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    catalog_option = argparse.ArgumentParser(add_help=False)
    catalog_option.add_argument(
        "--catalog", action="append", default=[], metavar="DIR",
        help="also an instructor's exercise folder (one sub-folder per exercise; repeatable)")
    listing = actions.add_parser("list", help="every exercise: name, family, tag, minutes, "
                                 "title", parents=[catalog_option], **HELP_LIST)
    listing.set_defaults(handler=cmd_exercise)
    show = actions.add_parser("show", help="print the statement of an exercise: what to "
                              "write, the equation, where to read", parents=[catalog_option],
                              **HELP_SHOW)
    show.add_argument("name", help="exercise name (see `driftwood exercise list`)")
    show.set_defaults(handler=cmd_exercise)
    start = actions.add_parser("start", help="write the skeleton file of an exercise",
                               parents=[catalog_option], **HELP_START)
    start.add_argument("name", help="exercise name (see `driftwood exercise list`)")
    start.add_argument("--dir", default=".", help="directory of the file (default: here)")
    start.add_argument("--force", action="store_true", help="overwrite an existing file")
    start.set_defaults(handler=cmd_exercise)
    check = actions.add_parser("check", help="check a solution file (in its own process)",
                               parents=[catalog_option], **HELP_CHECK)
    check.add_argument("name", help="exercise name")
    check.add_argument("file", nargs="?", default=None,
                       help="the solution (default: ./<name with - as _>.py)")
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    check.add_argument("--no-stream", action="store_true",
                       help="skip the model run (only the function's cases)")
    check.add_argument("--timeout", type=_seconds, default=60.0, metavar="SECONDS",
                       help="kill a check whose file runs longer, its import included (an "
                            "endless loop is reported where it was; default 60, 0: no limit)")
    _sandbox_option(check)
    check.set_defaults(handler=cmd_exercise)
    grade = actions.add_parser("grade", help="grade a folder of submissions (one sub-folder "
                               "per student)", parents=[catalog_option], **HELP_GRADE)
    grade.add_argument("submissions", help="the class folder: one sub-folder per student, "
                       "holding the files `start` writes")
    grade.add_argument("--csv", required=True, metavar="OUT",
                       help="the gradebook: one row per student, one column per exercise")
    grade.add_argument("--json", default=None, metavar="OUT",
                       help="also every check's full report, as JSON")
    grade.add_argument("--exercise", action="append", default=None, metavar="NAME",
                       help="grade this exercise (repeatable; default: every exercise some "
                            "student has a file for)")
    grade.add_argument("--timeout", type=_seconds, default=60.0, metavar="SECONDS",
                       help="per check, the import included (default 60, 0: no limit)")
    _sandbox_option(grade)
    grade.add_argument("--no-stream", action="store_true",
                       help="skip the model runs (only the functions' cases)")
    grade.add_argument("--jobs", type=int, default=1, metavar="N",
                       help="checks at the same time, each in its own process (default 1)")
    grade.set_defaults(handler=cmd_exercise)
    hint = actions.add_parser("hint", help="a graded hint: from a nudge up to the formula "
                              "(the last one)", parents=[catalog_option], **HELP_HINT)
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


def _check(args: argparse.Namespace) -> int:
    exercise = _exercise(args.name)
    if exercise is None:
        return 2
    path = Path(args.file) if args.file else Path(checker.skeleton_file_name(exercise.name))
    if not path.is_file():
        hint = "" if args.file else f" (write it with `driftwood exercise start {exercise.name}`)"
        return _error(f"no file {path}{hint}")
    try:
        report = isolation.check_file(exercise, path, stream=not args.no_stream,
                                      timeout=args.timeout, catalogs=args.catalog,
                                      sandbox_mode=args.sandbox)
    except RuntimeError as err:
        return _error(str(err))
    if args.json:
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=True))
    else:
        print(report)
    return 0 if report.passed else 1


def _output_problem(option: str, path: str, submissions: Path) -> str | None:
    """Why the grader could not write ``path`` (``None``: it can), found before any
    check runs: a folder, a missing or read-only parent, a path in the class folder."""
    target = Path(path)
    parent = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        return f"{option} {path} is a folder"
    if not parent.is_dir():
        return f"{option} {path}: no folder {parent}"
    root = submissions.resolve()
    if root == parent.resolve() or root in parent.resolve().parents:
        return (f"{option} {path} is inside the submissions folder (the grader restores "
                "that folder to what it read)")
    try:
        handle, probe = tempfile.mkstemp(prefix=f".{target.name}.", dir=parent)
        os.close(handle)
        os.unlink(probe)
    except OSError as err:
        return f"{option} {path} cannot be written ({err.strerror or err})"
    return None


_STOP_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")


@contextmanager
def _stop_on_signals(stop: threading.Event, received: list[str]) -> Iterator[None]:
    """While grading, Ctrl-C, SIGTERM and SIGHUP only note the signal and set ``stop``:
    the grader sees it within 0.1 s, kills the running checks and returns what it
    graded; nothing is raised in the middle of restoring the class folder or writing
    the gradebook."""
    def note(signum: int, frame: Any) -> None:
        if not received:
            received.append(signal.Signals(signum).name)
        stop.set()
    saved: dict[int, Any] = {}
    for name in _STOP_SIGNALS:
        number = getattr(signal, name, None)
        if number is not None:
            saved[number] = signal.signal(number, note)
    try:
        yield
    finally:
        for number, handler in saved.items():
            signal.signal(number, handler)


def _grade(args: argparse.Namespace) -> int:
    submissions = Path(args.submissions)
    if not submissions.is_dir():
        return _error(f"no submissions folder {args.submissions}")
    if args.jobs < 1:
        return _error("--jobs must be >= 1")
    for name in args.exercise or ():
        if _exercise(name) is None:
            return 2
    outputs = [("--csv", args.csv)] + ([("--json", args.json)] if args.json else [])
    if args.json and Path(args.json).resolve() == Path(args.csv).resolve():
        return _error("--csv and --json name the same file")
    for option, path in outputs:
        problem = _output_problem(option, path, submissions)
        if problem is not None:
            return _error(problem)
    try:
        sandbox.mode(args.sandbox)
    except RuntimeError as err:
        return _error(str(err))
    stop = threading.Event()
    received: list[str] = []
    with _stop_on_signals(stop, received):
        book = gradebook.grade_class(args.submissions, args.exercise, timeout=args.timeout,
                                     stream=not args.no_stream, jobs=args.jobs,
                                     catalogs=args.catalog, progress=sys.stderr,
                                     sandbox_mode=args.sandbox, stop=stop,
                                     reap_strays=True)
        if book.partial and received:
            book.partial = received[0]
        book.write_csv(args.csv)
        if args.json:
            gradebook.write_json(book, args.json)
    print(book.summary())
    for change in book.changes:
        print(f"class folder changed during grading: {escape_control(change, False)}")
    print(f"wrote {args.csv}" + (f" and {args.json}" if args.json else ""))
    if book.partial:
        print(f"driftwood: interrupted: PARTIAL gradebook ({book.partial}): the checks that "
              "had not finished are marked not-graded; run the command again to grade "
              "them all", file=sys.stderr)
        number = getattr(signal, book.partial, signal.SIGINT)
        return 128 + int(number)
    return 0


def read_first(anchor: str) -> str:
    """Where to read before an exercise, as its user can follow it: the page's address
    where the documentation is served (``DRIFTWOOD_DOCS_URL``) or built in this checkout
    (:func:`~reference.exercises.report.reread_link`), else the section and its tutorial
    with the command that writes it as a notebook
    (:func:`~reference.evaluation.notebooks.section_pointer`), never a path that exists
    only in a clone."""
    link = reread_link(anchor)
    return section_pointer(anchor) if link.startswith(anchor) else link


def _command(*words: str, catalogs: list[str]) -> str:
    """A ``driftwood`` command line that the user can paste, with every ``--catalog``."""
    extra = [w for folder in catalogs for w in ("--catalog", folder)]
    return shlex.join(["driftwood", *words, *extra])


_CLONE_PAGE = re.compile(r"\btutorials/(\d\d_[a-z0-9_]+)\.md\b")


def _show(exercise: catalog.Exercise, catalogs: list[str]) -> str:
    """The statement of ``exercise`` as ``exercise show`` prints it."""
    statement = exercise.statement.strip() or (
        f"Write `{exercise.function_name}` in the file that `driftwood exercise start "
        f"{exercise.name}` writes; its docstring states the task.")
    statement = _CLONE_PAGE.sub(r"\1 (`driftwood tutorial get \1`)", statement)
    if not statement.startswith("# "):          # the statements of the catalogue have one
        statement = f"# {exercise.name}: {exercise.title}\n\n{statement}"
    lines = [statement, "", f"paper: {exercise.tag}; about {exercise.minutes} minutes"]
    if exercise.anchor:
        lines.append(f"read first: {read_first(exercise.anchor)}")
    file = checker.skeleton_file_name(exercise.name)
    for label, words in (("start", ("start", exercise.name)),
                         ("check", ("check", exercise.name, file)),
                         ("hints", ("hint", exercise.name))):
        lines.append(f"{label + ':':<11} {_command('exercise', *words, catalogs=catalogs)}")
    return "\n".join(lines)


def cmd_exercise(args: argparse.Namespace) -> int:
    """Run ``driftwood exercise ACTION``; returns the exit status."""
    for folder in args.catalog:
        try:
            catalog.add_catalog(folder)
        except (OSError, ImportError, TypeError, ValueError) as err:
            return _error(f"--catalog {folder}: {err}")
    if args.action == "grade":
        return _grade(args)
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
        started = catalog.get(args.name)
        check = _command("exercise", "check", args.name, str(path), catalogs=args.catalog)
        print(f"wrote {path}: write the body of the function, then run\n  {check}")
        if started.anchor:
            print(f"the derivation to read first: {read_first(started.anchor)}")
        return 0
    if args.action == "show":
        shown = _exercise(args.name)
        if shown is None:
            return 2
        print(_show(shown, args.catalog))
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

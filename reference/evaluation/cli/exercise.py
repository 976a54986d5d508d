"""``driftwood exercise``: list the exercises, write a skeleton, check a solution, hints,
grade a class.

``check`` and ``grade`` run each student's file in a child process with a hard time
limit (:mod:`reference.exercises.isolation`); ``--catalog DIR`` (any action, repeatable)
adds an instructor's exercise folder (:func:`reference.exercises.catalog.add_catalog`).

Exit status: 0 success (``check``: the solution passes), 1 the solution fails (including
a file that does not import, lacks the function, runs out of time or ends the check),
2 usage error (unknown exercise, missing file, refusing to overwrite).
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from pathlib import Path
from typing import Any

from reference.evaluation.cli._output import with_examples
from reference.evaluation.notebooks import section_pointer
from reference.exercises import catalog, checker, gradebook, isolation
from reference.exercises.report import reread_link

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
    note="Cells: passed, failed[:diagnosis], error, timeout, missing. Each file runs in its "
    "own process, so no student's file can reach another's grade.",
)
HELP_SHOW = with_examples(
    ("driftwood exercise show rng-uniform", "the statement of rng-uniform"),
    note="The statement is also in the skeleton's docstring (`driftwood exercise start`).",
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
    check.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS",
                       help="kill a check whose file runs longer, its import included (an "
                            "endless loop is reported where it was; default 60, 0: no limit)")
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
    grade.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS",
                       help="per check, the import included (default 60, 0: no limit)")
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
    report = isolation.check_file(exercise, path, stream=not args.no_stream,
                                  timeout=args.timeout, catalogs=args.catalog)
    if args.json:
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        print(report)
    return 0 if report.passed else 1


def _grade(args: argparse.Namespace) -> int:
    if not Path(args.submissions).is_dir():
        return _error(f"no submissions folder {args.submissions}")
    if args.timeout < 0 or args.jobs < 1:
        return _error("--timeout must be >= 0 and --jobs >= 1")
    for name in args.exercise or ():
        if _exercise(name) is None:
            return 2
    book = gradebook.grade_class(args.submissions, args.exercise, timeout=args.timeout,
                                 stream=not args.no_stream, jobs=args.jobs,
                                 catalogs=args.catalog, progress=sys.stderr)
    book.write_csv(args.csv)
    if args.json:
        gradebook.write_json(book, args.json)
    print(book.summary())
    print(f"wrote {args.csv}" + (f" and {args.json}" if args.json else ""))
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

"""Grading a class: a folder of submissions, one row per student, one column per exercise.

The layout is the one ``driftwood exercise start`` produces, once per student::

    submissions/
        alice/rng_uniform.py  alice/dt_split_prob.py
        bob/rng_uniform.py
        ...

Each file is checked by :func:`reference.exercises.isolation.check_file`, in its own
child process with a hard time limit, so nothing one student's file does (loop, exit,
patch the library or the checker) reaches another student's grade. The cells:

``passed``
    both routes agree with the reference;
``failed:<id>``
    a wrong answer that reproduces the registered mistake ``<id>``; ``failed`` a wrong
    answer no registered mistake explains; ``failed:not-implemented`` the skeleton's
    ``raise NotImplementedError`` is still there; ``failed:wrong-signature``;
``error``
    the file does not import or lacks the function, the function raised, or the check
    ended without a result (``os._exit``, a crash);
``timeout``
    the time limit ran out (the import included);
``missing``
    no file for that exercise.

The exercises graded are those named, or else every exercise that at least one student
has a file for (in course order). The CSV has a ``student`` column, one column per
exercise and ``passed`` (the count of passed cells); the JSON report holds every check's
full report (:meth:`reference.exercises.checker.Report.to_json`).
"""

from __future__ import annotations

import csv
import json
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from reference.exercises import catalog, checker, isolation
from reference.exercises.catalog import Exercise

__all__ = ["CELLS", "Gradebook", "cell", "grade_class", "write_json"]

CELLS = ("passed", "failed", "error", "timeout", "missing")
"""The kinds of cell (``failed`` may carry ``:<diagnosis id>``)."""

_FAILED = ("mismatch", "not-implemented", "wrong-signature")
_ERROR = ("raises", "import-error", "error")


def cell(report: checker.Report | None) -> str:
    """The gradebook cell of one check (``None``: no file)."""
    if report is None:
        return "missing"
    if report.status == "passed":
        return "passed"
    if report.status == "mismatch":
        return "failed" if report.diagnosis is None else f"failed:{report.diagnosis.id}"
    if report.status in _FAILED:
        return f"failed:{report.status}"
    if report.status == "timeout":
        return "timeout"
    return "error"


@dataclass
class Gradebook:
    """The grades of a class: ``reports[student][exercise]`` (``None``: missing)."""

    students: list[str]
    exercises: list[str]
    reports: dict[str, dict[str, checker.Report | None]] = field(default_factory=dict)
    seconds: float = 0.0

    def row(self, student: str) -> list[str]:
        """The student's cells, in the order of :attr:`exercises`."""
        return [cell(self.reports[student][name]) for name in self.exercises]

    def write_csv(self, path: str | Path) -> None:
        """One row per student: ``student``, one cell per exercise, ``passed`` (count)."""
        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["student", *self.exercises, "passed"])
            for student in self.students:
                row = self.row(student)
                writer.writerow([student, *row, sum(c == "passed" for c in row)])

    def to_json(self) -> dict[str, Any]:
        """Every check's report as plain data, by student and exercise."""
        return {
            "exercises": list(self.exercises),
            "seconds": round(self.seconds, 3),
            "students": {
                student: {
                    name: {"cell": cell(report), "report": None if report is None
                           else report.to_json()}
                    for name, report in self.reports[student].items()
                }
                for student in self.students
            },
        }

    def summary(self) -> str:
        """One line: students, exercises, and how many cells of each kind."""
        counts = {kind: 0 for kind in CELLS}
        for student in self.students:
            for value in self.row(student):
                counts[value.split(":")[0]] += 1
        kinds = ", ".join(f"{n} {kind}" for kind, n in counts.items())
        return (f"{len(self.students)} students x {len(self.exercises)} exercises in "
                f"{self.seconds:.1f} s: {kinds}")


def _students(root: Path) -> list[Path]:
    return sorted((p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")),
                  key=lambda p: p.name)


def _prepare(exercise: Exercise, stream: bool) -> None:
    """Compute once, before the threads start, what every check of ``exercise`` reads."""
    checker._cache(exercise)
    checker._mistake_outputs(exercise)
    if stream and exercise.stream is not None and exercise.plugs:
        checker._trajectory(exercise)


def _progress_printer(stream: TextIO) -> Callable[[str, bool], None]:
    live = hasattr(stream, "isatty") and stream.isatty()

    def show(text: str, last: bool) -> None:
        if live:
            stream.write("\r" + text[:119].ljust(119) + ("\n" if last else ""))
        else:
            stream.write(text + "\n")
        stream.flush()
    return show


def grade_class(
    root: str | Path,
    exercises: Sequence[str] | None = None,
    *,
    timeout: float = 60.0,
    stream: bool = True,
    jobs: int = 1,
    catalogs: Sequence[str | Path] = (),
    progress: TextIO | None = None,
) -> Gradebook:
    """Grade every student folder under ``root`` (see the module docstring).

    Parameters
    ----------
    root : path
        The class folder: one sub-folder per student (hidden folders are skipped).
    exercises : sequence of str, optional
        The exercises to grade; default: every exercise some student has a file for.
    timeout : float, default 60
        Seconds per check, the import of the file included (0: no limit).
    stream : bool, default True
        Also run each function inside the reference model (route (b)).
    jobs : int, default 1
        Checks run at the same time (each in its own process).
    catalogs : sequence of paths
        Instructors' exercise folders, as :func:`reference.exercises.catalog.add_catalog`.
    progress : text stream, optional
        Where to show one progress line per graded student (``sys.stderr`` from the
        command line); on a terminal the line is rewritten in place.

    Returns
    -------
    Gradebook
    """
    folder = Path(root)
    if not folder.is_dir():
        raise FileNotFoundError(f"no submissions folder {root}")
    for extra in catalogs:
        catalog.add_catalog(extra)
    everything = catalog.all_exercises()
    students = _students(folder)
    if exercises is None:
        chosen = [ex for ex in everything if any(
            (s / checker.skeleton_file_name(ex.name)).is_file() for s in students)]
    else:
        chosen = [catalog.get(name) for name in exercises]
    for ex in chosen:
        _prepare(ex, stream)
    book = Gradebook([s.name for s in students], [ex.name for ex in chosen])
    show = _progress_printer(progress) if progress is not None else None
    began = time.monotonic()

    def grade_one(student: Path, ex: Exercise) -> checker.Report | None:
        path = student / checker.skeleton_file_name(ex.name)
        if not path.is_file():
            return None
        return isolation.check_file(ex, path, stream=stream, timeout=timeout,
                                    catalogs=catalogs)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [{ex.name: pool.submit(grade_one, student, ex) for ex in chosen}
                   for student in students]
        for done, (student, mine) in enumerate(zip(students, futures, strict=True), 1):
            book.reports[student.name] = {name: f.result() for name, f in mine.items()}
            if show is not None:
                row = book.row(student.name)
                elapsed = time.monotonic() - began
                left = elapsed / done * (len(students) - done)
                show(f"[{done:>{len(str(len(students)))}}/{len(students)}] {student.name}: "
                     f"{sum(c == 'passed' for c in row)}/{len(row)} passed; "
                     f"{elapsed:.0f} s, about {left:.0f} s left", done == len(students))
    book.seconds = time.monotonic() - began
    return book


def write_json(book: Gradebook, path: str | Path) -> None:
    """The JSON report of :meth:`Gradebook.to_json` (UTF-8, indented)."""
    Path(path).write_text(json.dumps(book.to_json(), indent=1, ensure_ascii=False),
                          encoding="utf-8")

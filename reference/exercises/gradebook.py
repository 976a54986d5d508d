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

The class folder is read whole before any student's code runs, each check runs on a
private copy of the student's files in a temporary directory (never with a path to the
class folder), in the sandbox :mod:`reference.exercises.sandbox` chooses; at the end
the class folder is compared with what was read, and any change is reported and undone
(a changed or deleted file is written back, a new file or folder is moved to a
quarantine folder in the system's temporary directory).

Stopping: with ``stop`` set (the command line sets it on Ctrl-C, ``SIGTERM`` and
``SIGHUP``) or on ``KeyboardInterrupt``, the running checks are killed at once and the
gradebook of what was graded is returned, marked partial (:attr:`Gradebook.partial`; the
other cells are ``not-graded``).
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from reference.exercises import catalog, checker, isolation, sandbox
from reference.exercises.catalog import Exercise
from reference.exercises.report import escape_control

__all__ = ["CELLS", "NOT_GRADED", "Gradebook", "Stopped", "cell", "grade_class",
           "read_folder", "restore_folder", "write_json"]

CELLS = ("passed", "failed", "error", "timeout", "missing", "not-graded")
"""The kinds of cell (``failed`` may carry ``:<diagnosis id>``; ``not-graded``: the
grading was stopped before this check)."""

NOT_GRADED = "not-graded"


class Stopped(Exception):
    """Raised in the grader's main thread by a signal handler (``SIGTERM``, ``SIGHUP``):
    stop grading and keep what was graded. ``str()`` is the signal's name."""

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
    if report.status == "library":
        return "failed:library"
    if report.status == "timeout":
        return "timeout"
    return "error"


@dataclass
class Gradebook:
    """The grades of a class: ``reports[student][exercise]`` (``None``: missing; a
    check that was not run is absent).

    ``partial`` names what stopped the grading (``"SIGINT"``...), ``None`` when every
    check ran; ``sandbox`` the mode the checks ran in; ``changes`` what the grader found
    changed in the class folder, and undid."""

    students: list[str]
    exercises: list[str]
    reports: dict[str, dict[str, checker.Report | None]] = field(default_factory=dict)
    seconds: float = 0.0
    partial: str | None = None
    sandbox: str = ""
    changes: list[str] = field(default_factory=list)

    def row(self, student: str) -> list[str]:
        """The student's cells, in the order of :attr:`exercises`."""
        mine = self.reports.get(student, {})
        return [cell(mine[name]) if name in mine else NOT_GRADED for name in self.exercises]

    def write_csv(self, path: str | Path) -> None:
        """One row per student: ``student``, one cell per exercise, ``passed`` (count).
        Written to a temporary file beside ``path``, then renamed (no half-written
        gradebook)."""
        target = Path(path)
        handle, partial = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
        try:
            with open(handle, "w", newline="", encoding="utf-8") as out:
                writer = csv.writer(out)
                writer.writerow(["student", *self.exercises, "passed"])
                for student in self.students:
                    row = self.row(student)
                    writer.writerow([escape_control(student, keep_newlines=False), *row,
                                     sum(c == "passed" for c in row)])
            os.replace(partial, target)
        except BaseException:
            Path(partial).unlink(missing_ok=True)
            raise

    def to_json(self) -> dict[str, Any]:
        """Every check's report as plain data, by student and exercise."""
        return {
            "exercises": list(self.exercises),
            "seconds": round(self.seconds, 3),
            "partial": self.partial,
            "sandbox": self.sandbox,
            "class_folder_changes": list(self.changes),
            "students": {
                escape_control(student, keep_newlines=False): {
                    name: {"cell": cell(report), "report": None if report is None
                           else report.to_json()}
                    for name, report in self.reports.get(student, {}).items()
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
        kinds = ", ".join(f"{n} {kind}" for kind, n in counts.items()
                          if n or kind != NOT_GRADED)
        head = "PARTIAL (stopped by " + self.partial + "): " if self.partial else ""
        return (f"{head}{len(self.students)} students x {len(self.exercises)} exercises in "
                f"{self.seconds:.1f} s: {kinds}")


# ---------------------------------------------------------------------------
# the class folder: read once, compared and restored at the end
# ---------------------------------------------------------------------------


Snapshot = dict[str, tuple[str, bytes]]
"""Relative path -> ``("file", content)``, ``("link", target)`` or ``("dir", b"")``."""


def read_folder(root: str | Path) -> Snapshot:
    """Everything under ``root``: files (their bytes), symbolic links (their target, not
    followed) and folders."""
    base = Path(root)
    found: Snapshot = {}
    for here, dirs, files in os.walk(base, followlinks=False):
        for name in dirs + files:
            full = Path(here) / name
            rel = full.relative_to(base).as_posix()
            if full.is_symlink():
                found[rel] = ("link", os.readlink(full).encode("utf-8", "surrogateescape"))
            elif full.is_dir():
                found[rel] = ("dir", b"")
            elif full.is_file():
                found[rel] = ("file", full.read_bytes())
    return found


def restore_folder(root: str | Path, before: Snapshot) -> list[str]:
    """Compare ``root`` with ``before`` (:func:`read_folder`) and undo every change:
    returns one line per change (empty: the folder is as it was read)."""
    base = Path(root)
    now = read_folder(base)
    changes: list[str] = []
    quarantine: Path | None = None
    for rel in sorted(set(now) - set(before), key=lambda r: (r.count("/"), r)):
        full = base / rel
        if not (full.exists() or full.is_symlink()):
            continue                         # inside a folder moved away already
        if quarantine is None:
            quarantine = Path(tempfile.mkdtemp(prefix="driftwood-quarantine-"))
        place = quarantine / rel
        place.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(full), str(place))
        changes.append(f"new {now[rel][0]} {rel}: moved to {place}")
    for rel, (kind, data) in sorted(before.items(), key=lambda item: item[0].count("/")):
        if now.get(rel) == (kind, data):
            continue
        full = base / rel
        what = "deleted" if rel not in now else "changed"
        if full.is_symlink() or (full.exists() and not full.is_dir()):
            full.unlink()
        elif full.is_dir() and kind != "dir":
            shutil.rmtree(full)
        full.parent.mkdir(parents=True, exist_ok=True)
        if kind == "dir":
            full.mkdir(exist_ok=True)
        elif kind == "link":
            os.symlink(data.decode("utf-8", "surrogateescape"), full)
        else:
            full.write_bytes(data)
        changes.append(f"{what} {kind} {rel}: restored")
    return [escape_control(c, keep_newlines=False) for c in changes]


def _students(snapshot: Snapshot) -> list[str]:
    return sorted(rel for rel, (kind, _) in snapshot.items()
                  if kind == "dir" and "/" not in rel and not rel.startswith("."))


def _student_files(snapshot: Snapshot, student: str) -> dict[str, bytes]:
    """The regular files directly in a student's folder (name -> content)."""
    prefix = student + "/"
    return {rel[len(prefix):]: data for rel, (kind, data) in snapshot.items()
            if kind == "file" and rel.startswith(prefix) and "/" not in rel[len(prefix):]}


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
    sandbox_mode: str | None = None,
    stop: threading.Event | None = None,
    reap_strays: bool = False,
) -> Gradebook:
    """Grade every student folder under ``root`` (see the module docstring).

    Parameters
    ----------
    root : path
        The class folder: one sub-folder per student (hidden folders are skipped).
    exercises : sequence of str, optional
        The exercises to grade; default: every exercise some student has a file for.
    timeout : float, default 60
        Seconds per check, the import of the file included; ``0``: no limit. A negative,
        infinite or NaN value raises ``ValueError``.
    stream : bool, default True
        Also run each function inside the reference model (route (b)).
    jobs : int, default 1
        Checks run at the same time (each in its own sandbox).
    catalogs : sequence of paths
        Instructors' exercise folders, as :func:`reference.exercises.catalog.add_catalog`.
    progress : text stream, optional
        Where to say, once, which sandbox the checks run in, then show one progress line
        per graded student (``sys.stderr`` from the command line); on a terminal the
        line is rewritten in place.
    sandbox_mode : {"auto", "bwrap", "process-group"}, optional
        :func:`reference.exercises.sandbox.mode`.
    stop : threading.Event, optional
        Set it (from a signal handler, another thread) to stop: the running checks are
        killed and the partial gradebook returned.
    reap_strays : bool, default False
        In the ``process-group`` mode on Linux, make this process a child subreaper and,
        after each check and at the end, kill every child that is not a running check
        (:func:`reference.exercises.isolation.reap_strays`): a helper whose harness the
        student's code killed ends here. Only for a process with no other children (the
        command line sets it).

    Returns
    -------
    Gradebook
        With :attr:`Gradebook.partial` set when the grading was stopped (also by a
        ``KeyboardInterrupt`` or :class:`Stopped` in the calling thread).
    """
    isolation._check_timeout(timeout)
    if jobs < 1:
        raise ValueError(f"jobs must be >= 1, not {jobs}")
    folder = Path(root)
    if not folder.is_dir():
        raise FileNotFoundError(f"no submissions folder {root}")
    how = sandbox.mode(sandbox_mode)
    for extra in catalogs:
        catalog.add_catalog(extra)
    everything = catalog.all_exercises()
    snapshot = read_folder(folder)              # before any student's code runs
    students = _students(snapshot)
    files = {student: _student_files(snapshot, student) for student in students}
    if exercises is None:
        chosen = [ex for ex in everything if any(
            checker.skeleton_file_name(ex.name) in files[s] for s in students)]
    else:
        chosen = [catalog.get(name) for name in exercises]
    for ex in chosen:
        _prepare(ex, stream)
    book = Gradebook(list(students), [ex.name for ex in chosen], sandbox=how)
    show = _progress_printer(progress) if progress is not None else None
    if progress is not None:
        progress.write(f"sandbox: {isolation.describe(how)}\n")
        progress.flush()
    stop = stop if stop is not None else threading.Event()
    hidden = [folder.resolve()]
    reaping = reap_strays and how == sandbox.PROCESS_GROUP and sandbox.subreaper()
    began = time.monotonic()

    def grade_one(student: str, ex: Exercise) -> checker.Report | None:
        if stop.is_set():
            raise isolation.CheckStopped("stopped before it started")
        name = checker.skeleton_file_name(ex.name)
        if name not in files[student]:
            return None
        companions = {n: d for n, d in files[student].items() if n.endswith(".py")}
        return isolation.check_file(
            ex, folder / student / name, stream=stream, timeout=timeout,
            catalogs=catalogs, sandbox_mode=how, source=files[student][name],
            companions=companions, hidden=hidden, stop=stop)

    pool = ThreadPoolExecutor(max_workers=jobs)
    futures: dict[Future[checker.Report | None], tuple[str, str]] = {}
    try:
        for student in students:
            for ex in chosen:
                futures[pool.submit(grade_one, student, ex)] = (student, ex.name)
        pending = set(futures)
        done_students = 0
        while pending and not stop.is_set():
            finished, pending = wait(pending, timeout=0.1, return_when=FIRST_COMPLETED)
            if finished and reaping:
                isolation.reap_strays()
            for future in finished:
                if isinstance(future.exception(), isolation.CheckStopped):
                    continue
                student, name = futures[future]
                book.reports.setdefault(student, {})[name] = future.result()
                if len(book.reports[student]) == len(chosen) and show is not None:
                    done_students += 1
                    _show_student(show, book, student, done_students, began)
        if stop.is_set():
            book.partial = "stop"
    except (KeyboardInterrupt, Stopped) as err:
        book.partial = str(err) if isinstance(err, Stopped) else "SIGINT"
    finally:
        if book.partial:
            stop.set()                     # the running checks kill their children
        pool.shutdown(wait=True, cancel_futures=True)
        if reaping:
            isolation.reap_strays()
    if book.partial:
        for future, (student, name) in futures.items():
            if future.done() and not future.cancelled() and future.exception() is None:
                book.reports.setdefault(student, {})[name] = future.result()
    while True:                  # a Ctrl-C here must not leave the folder half restored
        try:
            book.changes = restore_folder(folder, snapshot)
            break
        except (KeyboardInterrupt, Stopped) as err:
            book.partial = book.partial or (str(err) if isinstance(err, Stopped)
                                            else "SIGINT")
    book.seconds = time.monotonic() - began
    return book


def _show_student(show: Callable[[str, bool], None], book: Gradebook, student: str,
                  done: int, began: float) -> None:
    total = len(book.students)
    row = book.row(student)
    elapsed = time.monotonic() - began
    left = elapsed / done * (total - done)
    show(f"[{done:>{len(str(total))}}/{total}] {escape_control(student, False)}: "
         f"{sum(c == 'passed' for c in row)}/{len(row)} passed; "
         f"{elapsed:.0f} s, about {left:.0f} s left", done == total)


def write_json(book: Gradebook, path: str | Path) -> None:
    """The JSON report of :meth:`Gradebook.to_json` (UTF-8, indented)."""
    text = json.dumps(book.to_json(), indent=1, ensure_ascii=False)
    # C1 controls and DEL are valid raw in JSON strings: write them as escapes too
    text = re.sub("[\x7f-\x9f\u2028\u2029]", lambda m: f"\\u{ord(m.group()):04x}", text)
    target = Path(path)
    handle, partial = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
    try:
        with open(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(partial, target)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise

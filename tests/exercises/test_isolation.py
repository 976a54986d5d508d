"""A student's file cannot hang, fool or outlive the checker; the gradebook of a class.

Each hostile solution of the course's trial runs through ``check_file`` (a child
process, a hard time limit covering the import) and must get a clear ``failed``,
``timeout`` or ``error`` status within its limit; a class folder holding the same
files is graded without any student's file reaching another's grade. Time limits are
short (the child's own start-up is not counted against them) and most checks skip the
model run to keep the file fast.
"""

from __future__ import annotations

import csv
import json
import math
import time
from pathlib import Path
from typing import Any

import pytest

import reference
from reference.evaluation.cli import main
from reference.exercises import checker, gradebook
from reference.exercises.catalog import EXACT
from reference.exercises.isolation import Opaque, check_file, decode, encode, round_trip

LIMIT = 1.5
"""Seconds given to the hostile solutions that loop (kept short: they are meant to run
out)."""

PATIENT = 600.0
"""Seconds given to every other check: a limit the test does not measure, far beyond what
a check needs on a loaded machine (seconds), so that only a hang runs out."""

GRADE_LIMIT = 20.0
"""The limit of the class graded at once: one student's file loops (and costs the whole
limit), the others must finish inside it even on a loaded machine."""

START_UP = 120.0
"""What the child's start-up (its imports, before the limit's clock starts) may add to a
check that was stopped at its limit: seconds on an idle machine, far more on a loaded one."""

GOOD = "def uniform_from_word(word):\n    return (word >> 11) * 2.0**-53\n"

HOSTILE = {
    "module-loop": ("while True:\n    pass\n", "timeout"),
    "swallows-everything": (
        "def uniform_from_word(word):\n"
        "    while True:\n"
        "        try:\n"
        "            pass\n"
        "        except BaseException:\n"
        "            continue\n", "timeout"),
    "ignores-sigalrm": (
        "import signal\n"
        "signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "def uniform_from_word(word):\n"
        "    while True:\n"
        "        pass\n", "timeout"),
    "os-exit-0": ("import os\nos._exit(0)\n", "error"),
    "os-exit-in-function": (
        "import os\ndef uniform_from_word(word):\n    os._exit(0)\n", "error"),
    "sys-exit-in-function": (
        "import sys\ndef uniform_from_word(word):\n    sys.exit(0)\n", "error"),
    "wraps-the-checker": (
        "import reference.exercises.checker as c\n"
        "import reference.evaluation.compare as cmp\n"
        "def lenient(*args, **kwargs):\n"
        "    report = c.Report('rng-uniform', 'passed', 'ok')\n"
        "    return report\n"
        "c.check = lenient\n"
        "c.grade = lenient\n"
        "c.difference = lambda *args, **kwargs: None\n"
        "cmp.first_difference = lambda *args, **kwargs: None\n"
        "def uniform_from_word(word):\n"
        "    return 0.5\n", "failed"),
    "patches-a-reference-object": (
        "import reference\n"
        "reference.Rng.uniform = lambda self: 0.5\n"
        "reference.DynamicTreeRegressor.predict_one = lambda self, x: 0.0\n"
        "def uniform_from_word(word):\n"
        "    return (word >> 11) * 2.0**-53\n", "passed"),
    "eq-and-repr-raise": (
        "class Weird(float):\n"
        "    def __eq__(self, other):\n"
        "        raise RuntimeError('no comparing me')\n"
        "    def __repr__(self):\n"
        "        raise RuntimeError('no printing me')\n"
        "    def __float__(self):\n"
        "        raise RuntimeError('no converting me')\n"
        "class Odd:\n"
        "    def __eq__(self, other):\n"
        "        raise RuntimeError('no comparing me')\n"
        "def uniform_from_word(word):\n"
        "    return Odd() if word % 2 else Weird(0.5)\n", "failed"),
    "does-not-parse": ("def uniform_from_word(word)\n    return 0.0\n", "error"),
    "kills-itself": (
        "import os, signal\ndef uniform_from_word(word):\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n", "error"),
    "forks-a-sleeper": (
        "import os, sys\n"
        "if os.fork() == 0:\n"
        "    os.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(600)',\n"
        "                              'driftwood-test-sleeper-' + os.environ['HOME'][-12:]])\n"
        "def uniform_from_word(word):\n"
        "    return (word >> 11) * 2.0**-53\n", "passed"),
}


def _processes_tagged(tag: str) -> list[int]:
    """Live (not zombie) processes whose command line holds ``tag``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if tag.encode() in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


def _write(folder: Path, text: str, name: str = "rng_uniform.py") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_solution_gets_a_clear_status_within_its_limit(name: str,
                                                              tmp_path: Path) -> None:
    text, kind = HOSTILE[name]
    path = _write(tmp_path, text)
    rng_uniform_before = vars(reference.Rng)["uniform"]
    limit = LIMIT if kind == "timeout" else PATIENT
    began = time.monotonic()
    report = check_file("rng-uniform", path, stream=False, timeout=limit)
    took = time.monotonic() - began
    assert gradebook.cell(report).split(":")[0] == kind, str(report)
    assert not report.passed or kind == "passed"
    # the limit counts from the child's readiness, so the start-up comes on top of it
    assert took < limit + START_UP
    assert vars(reference.Rng)["uniform"] is rng_uniform_before   # nothing outlives it
    text_report = str(report)
    assert "Traceback" not in text_report.split("traceback (your code)")[0]
    if kind == "timeout":
        assert f"longer than {LIMIT:g} s" in report.message
        where = report.traceback                      # where it was stopped: in the loop
        loop = ("while True:", "try:", "pass", "except BaseException:", "continue")
        assert "rng_uniform.py" in where
        assert any(f"\n    {line}\n" in where for line in loop), where
    if name.startswith("os-exit"):
        assert "exited with status 0 before it sent its result" in report.message
    if name == "sys-exit-in-function":
        assert "SystemExit" in report.message
    if name == "forks-a-sleeper":           # every process the check started is gone
        gone_by = time.monotonic() + 60.0     # a bound, not a measure: a loaded machine
        while time.monotonic() < gone_by and _processes_tagged("driftwood-test-sleeper-"):
            time.sleep(0.05)                  # may take a while to end a killed process
        assert not _processes_tagged("driftwood-test-sleeper-")
    if name == "kills-itself":
        assert "killed by signal SIGKILL" in report.message
    if name == "does-not-parse":
        assert report.status == "import-error" and "SyntaxError" in report.message


def test_wrapping_the_checker_in_the_file_does_not_reach_the_verdict(tmp_path: Path) -> None:
    path = _write(tmp_path, HOSTILE["wraps-the-checker"][0])
    report = check_file("rng-uniform", path, stream=True, timeout=PATIENT)
    assert report.status == "mismatch" and report.first_mismatch is not None
    assert report.first_mismatch.obtained == 0.5
    assert report.stream_divergence is not None          # compared here, not in the child


def test_a_patch_of_the_library_stays_in_the_child(tmp_path: Path) -> None:
    """The file patches ``reference.DynamicTreeRegressor``: its check still runs the
    honest comparison here, and the reference here is untouched afterwards."""
    before = vars(reference.DynamicTreeRegressor)["predict_one"]
    path = _write(tmp_path, HOSTILE["patches-a-reference-object"][0])
    report = check_file("rng-uniform", path, stream=True, timeout=PATIENT)
    assert vars(reference.DynamicTreeRegressor)["predict_one"] is before
    # the child's reference model predicts 0.0 everywhere: the stream shows it
    assert report.status == "mismatch" and report.stream_divergence is not None
    assert report.stream_divergence.what.startswith("predict_one")


def test_a_correct_file_passes_and_its_prints_are_shown(tmp_path: Path) -> None:
    path = _write(tmp_path, "print('hello from the file')\n" + GOOD)
    report = check_file("rng-uniform", path, stream=True, timeout=PATIENT)
    assert report.passed and report.stream_steps > 0, str(report)
    assert "hello from the file" in report.printed and "hello from the file" in str(report)


@pytest.mark.parametrize("value", [
    0.0, -0.0, math.inf, -math.inf, 3, True, None, "x", [1, (2.0, [3])], (1, 2),
    {"a": [1.5], 2: (3,)}, 2**80,
])
def test_values_travel_as_plain_data_unchanged(value: Any) -> None:
    back = round_trip(value)
    assert type(back) is type(value) and repr(back) == repr(value)


def test_nan_numpy_and_odd_objects_travel_as_the_checker_sees_them() -> None:
    import numpy as np

    assert math.isnan(round_trip(math.nan))
    assert round_trip(np.array([[1.0, 2.0]])) == [[1.0, 2.0]]
    assert type(round_trip(np.float64(0.5))) is float and round_trip(np.int64(3)) == 3

    class Loud:
        def __repr__(self) -> str:
            raise RuntimeError("no")

    opaque = round_trip(Loud())
    assert isinstance(opaque, Opaque) and opaque.type_name == "Loud"
    assert checker.difference(0.5, opaque, EXACT) is not None
    looped: list[Any] = []
    looped.append(looped)
    assert isinstance(round_trip(looped), list)     # cut off, not a RecursionError
    with pytest.raises(ValueError, match="malformed"):
        decode({"x": 1})
    assert decode(encode({"k": (1,)})) == {"k": (1,)}


# ---------------------------------------------------------------------------
# the gradebook
# ---------------------------------------------------------------------------


def test_grade_a_class_where_hostile_files_do_not_reach_other_grades(tmp_path: Path,
                                                                     capsys: Any) -> None:
    """Six students on two exercises: the honest grades are what each alone gets."""
    root = tmp_path / "class"
    wrong_below = "def below(n, words):\n    return words[0] % n, 1\n"
    _write(root / "ada", GOOD)
    _write(root / "ada", wrong_below, "rng_below.py")
    _write(root / "bob", "def uniform_from_word(word):\n    return word / 2**64\n")
    _write(root / "cyd", HOSTILE["patches-a-reference-object"][0])
    _write(root / "dee", HOSTILE["os-exit-0"][0])
    _write(root / "eve", HOSTILE["module-loop"][0])
    _write(root / "fay", HOSTILE["does-not-parse"][0])
    _write(root / "fay", wrong_below, "rng_below.py")
    out, details = tmp_path / "grades.csv", tmp_path / "grades.json"
    status = main(["exercise", "grade", str(root), "--csv", str(out), "--json", str(details),
                   "--timeout", str(GRADE_LIMIT), "--jobs", "2"])
    captured = capsys.readouterr()
    assert status == 0
    rows = list(csv.reader(out.open()))
    assert rows[0] == ["student", "rng-uniform", "rng-below", "passed"]
    grades = {row[0]: row[1:] for row in rows[1:]}
    below = grades["ada"][1]
    assert below == "failed:below-modulo" and grades["fay"][1] == below
    assert grades["ada"] == ["passed", below, "1"]
    assert grades["bob"] == ["failed:uniform-divides-by-2-64", "missing", "0"]
    assert grades["cyd"][0] == "failed"         # its patched model diverges; no diagnosis
    assert grades["dee"] == ["error", "missing", "0"]
    assert grades["eve"] == ["timeout", "missing", "0"]
    assert grades["fay"][0] == "error"
    record = json.loads(details.read_text())
    assert record["students"]["dee"]["rng-uniform"]["report"]["status"] == "error"
    assert record["students"]["eve"]["rng-below"] == {"cell": "missing", "report": None}
    # the progress lines: one per student, numbered in the order the checks end (with
    # --jobs 2 a slow student, eve's loop, may end last)
    progress = [line for line in captured.err.splitlines() if line.startswith("[")]
    assert sorted(line.split("]")[0] for line in progress) == [f"[{i}/6" for i in range(1, 7)]
    assert sorted(line.split("] ")[1].split(":")[0] for line in progress) == sorted(grades)
    assert "6 students x 2 exercises" in captured.out
    # the same honest file graded alone gets the same cell
    alone = check_file("rng-uniform", root / "ada" / "rng_uniform.py", timeout=PATIENT)
    assert gradebook.cell(alone) == "passed"


def test_grade_only_the_exercises_named(tmp_path: Path) -> None:
    root = tmp_path / "class"
    _write(root / "ada", GOOD)
    _write(root / "bob", "def below(n, words):\n    raise NotImplementedError\n",
           "rng_below.py")
    book = gradebook.grade_class(root, ["rng-below"], stream=False, timeout=PATIENT)
    assert book.exercises == ["rng-below"]
    assert book.row("ada") == ["missing"] and book.row("bob") == ["failed:not-implemented"]

"""The grader is a good citizen: it stops at once on Ctrl-C, SIGTERM and SIGHUP and keeps
what it graded, leaves no process behind even when killed, refuses a time limit that is
not a finite number >= 0, and finds an unwritable output path before the first check.

The signal tests run ``driftwood exercise grade`` in a process of its own (in the
``process-group`` mode; in the full run also under bwrap) on a class where one student
is graded quickly and the others loop with no time limit (``--timeout 0``), and send the
signal once the loops are running.
"""

from __future__ import annotations

import csv
import json
import math
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reference.evaluation.cli import main
from reference.exercises import gradebook, isolation
from tests.exercises.test_hostile_class import (
    MODES,
    TAG,
    _skip_without_bwrap,
    grader_env,
    leftovers,
)

CORRECT = "def uniform_from_word(word):\n    return (word >> 11) * 2.0**-53\n"

LOOPER = f'''import subprocess, sys, time
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", "{TAG}"],
                 start_new_session=True)
while True:
    time.sleep(0.01)
''' + CORRECT


def _class(root: Path, loopers: int = 3) -> None:
    (root / "a-first").mkdir(parents=True)
    (root / "a-first" / "rng_uniform.py").write_text(CORRECT)
    for i in range(loopers):
        (root / f"looper-{i}").mkdir()
        (root / f"looper-{i}" / "rng_uniform.py").write_text(LOOPER)


def _wait_for(condition: object, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM", "SIGHUP", "SIGKILL"])
def test_a_signal_stops_the_grader_at_once_and_keeps_what_was_graded(
        sig: str, mode: str, tmp_path: Path) -> None:
    _skip_without_bwrap(mode)
    root = tmp_path / "class"
    _class(root)
    grades, report = tmp_path / "grades.csv", tmp_path / "grades.json"
    checks = tmp_path / "tmp"
    process = subprocess.Popen(
        [sys.executable, "-m", "reference.evaluation.cli", "exercise", "grade", str(root),
         "--csv", str(grades), "--json", str(report), "--no-stream", "--jobs", "2",
         "--timeout", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=grader_env(checks, mode))
    try:
        # the first student is graded, then two loopers run (each started its helper)
        assert _wait_for(lambda: len([p for p in leftovers([TAG])]) >= 2, 120), \
            "the looping checks did not start"
        time.sleep(0.5)
        sent = time.monotonic()
        process.send_signal(getattr(signal, sig))
        status = process.wait(30)
        took = time.monotonic() - sent
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    stderr = process.stderr.read().decode() if process.stderr else ""
    # no check, helper or harness of the grader's is left, also when it was killed
    assert _wait_for(lambda: not leftovers([TAG, str(checks)]), 5), leftovers(
        [TAG, str(checks)])
    if sig == "SIGKILL":
        assert status == -signal.SIGKILL and not grades.exists()
        return
    assert status == 128 + getattr(signal, sig), stderr
    assert took < 3.0, f"{sig}: the grader took {took:.2f} s to stop"
    assert "PARTIAL" in stderr and sig in stderr
    rows = list(csv.DictReader(grades.read_text(encoding="utf-8").splitlines()))
    cells = {row["student"]: row["rng-uniform"] for row in rows}
    assert cells["a-first"] == "passed"
    assert set(cells) == {"a-first", "looper-0", "looper-1", "looper-2"}
    assert all(cells[f"looper-{i}"] == "not-graded" for i in range(3)), cells
    book = json.loads(report.read_text(encoding="utf-8"))
    assert book["partial"] == sig
    print(f"{mode}, {sig}: stopped {took:.2f} s after the signal")


@pytest.mark.parametrize("value", ["nan", "-1", "inf", "-inf", "-0.5", "abc"])
def test_a_time_limit_must_be_a_finite_number_of_seconds(
        value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "class"
    _class(root, loopers=0)
    for action in (["grade", str(root), "--csv", str(tmp_path / "g.csv")],
                   ["check", "rng-uniform", str(root / "a-first" / "rng_uniform.py")]):
        with pytest.raises(SystemExit) as stop:         # argparse's usage error
            main(["exercise", *action, f"--timeout={value}"])
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert "--timeout" in err and value in err, err
    assert not (tmp_path / "g.csv").exists()
    with pytest.raises(ValueError, match="finite number of seconds"):
        isolation.check_file("rng-uniform", root / "a-first" / "rng_uniform.py",
                             timeout=float(value) if value != "abc" else math.nan)
    with pytest.raises(ValueError, match="finite number of seconds"):
        gradebook.grade_class(root, timeout=float(value) if value != "abc" else math.inf)


def test_a_time_limit_of_zero_means_none_and_a_small_one_holds(tmp_path: Path) -> None:
    path = tmp_path / "rng_uniform.py"
    path.write_text("import time\ntime.sleep(1.0)\n" + CORRECT)
    assert isolation.check_file("rng-uniform", path, stream=False, timeout=0).passed
    assert isolation.check_file("rng-uniform", path, stream=False,
                                timeout=0.3).status == "timeout"


@pytest.mark.parametrize("where", ["missing-folder", "a-folder", "in-the-class",
                                   "unwritable", "same-as-json"])
def test_an_output_path_is_checked_before_the_first_check(
        where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "class"
    _class(root, loopers=0)
    csv_path = {"missing-folder": tmp_path / "nowhere" / "g.csv", "a-folder": tmp_path,
                "in-the-class": root / "g.csv", "unwritable": Path("/proc/g.csv"),
                "same-as-json": tmp_path / "g.csv"}[where]
    extra = ["--json", str(csv_path)] if where == "same-as-json" else []

    def no_check(*args: object, **kwargs: object) -> None:
        raise AssertionError("a check ran before the output path was checked")

    monkeypatch.setattr(isolation, "check_file", no_check)
    status = main(["exercise", "grade", str(root), "--csv", str(csv_path), *extra])
    err = capsys.readouterr().err
    assert status == 2 and "driftwood: error:" in err, err
    assert "Traceback" not in err
    assert sorted(p.name for p in root.rglob("*")) == ["a-first", "rng_uniform.py"]


def test_the_class_folder_is_restored_to_what_was_read(tmp_path: Path) -> None:
    root = tmp_path / "class"
    (root / "bob" / "deep").mkdir(parents=True)
    (root / "bob" / "rng_uniform.py").write_text(CORRECT)
    (root / "bob" / "deep" / "data.bin").write_bytes(bytes(range(256)))
    (root / "bob" / "link").symlink_to("rng_uniform.py")
    before = gradebook.read_folder(root)
    (root / "bob" / "rng_uniform.py").write_text("changed")
    (root / "bob" / "deep" / "data.bin").unlink()
    (root / "bob" / "link").unlink()
    (root / "bob" / "link").symlink_to("/etc/passwd")
    (root / "intruder" / "more").mkdir(parents=True)
    (root / "intruder" / "more" / "x.py").write_text("x")
    changes = gradebook.restore_folder(root, before)
    assert gradebook.read_folder(root) == before
    assert len(changes) == 4, changes
    moved = [c for c in changes if c.startswith("new dir intruder")]
    assert moved and Path(moved[0].split("moved to ")[1], "more", "x.py").read_text() == "x"
    assert gradebook.restore_folder(root, before) == []       # nothing left to undo


def test_the_library_function_of_the_issue_is_its_own_outcome(tmp_path: Path) -> None:
    path = tmp_path / "dt_split_prob.py"
    path.write_text("from reference.dynatree.tree import log_split_prob\n")
    report = isolation.check_file("dt-split-prob", path, stream=True, timeout=30)
    assert report.status == "library" and gradebook.cell(report) == "failed:library"
    assert "hands in the library's own `log_split_prob`" in report.message
    assert not report.passed


def test_check_does_not_take_a_forged_result(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's first case through ``driftwood exercise check``: exit status 1."""
    from tests.exercises.test_hostile_class import FORGED

    path = tmp_path / "rng_uniform.py"
    path.write_text(FORGED)
    assert main(["exercise", "check", "rng-uniform", str(path), "--no-stream"]) == 1
    out = capsys.readouterr().out
    assert "rng-uniform: ERROR" in out and "PASSED" not in out


def test_a_class_folder_holding_the_library_is_not_hidden(tmp_path: Path) -> None:
    """Hiding a folder that holds Python or the library would stop every check."""
    from reference.exercises import sandbox

    if sandbox.bwrap_problem() is not None:
        pytest.skip(f"bwrap mode: {sandbox.bwrap_problem()}")
    library = Path(isolation.__file__).resolve().parents[2]
    argv = sandbox.bwrap_command(tmp_path, [library, tmp_path / "x"], ["true"])
    assert str(library) not in argv
    (tmp_path / "class").mkdir()
    argv = sandbox.bwrap_command(tmp_path / "w", [tmp_path / "class"], ["true"])
    assert argv[argv.index(str(tmp_path / "class")) - 1] == "--tmpfs"


PROBES_HARNESS = '''import os
ppid = os.getppid()
opened = 0
for fd in range(64):                    # the result channel, the secret's pipe
    for flags in (os.O_WRONLY, os.O_RDONLY):
        try:
            os.close(os.open(f"/proc/{ppid}/fd/{fd}", flags))
            opened += 1
        except OSError:
            pass
print("REACHED fds" if opened else "DENIED fds")
for what in ("mem", "environ"):
    try:
        open(f"/proc/{ppid}/{what}", "rb").read(1)
        print("REACHED", what)
    except OSError:
        print("DENIED", what)
''' + CORRECT


@pytest.mark.parametrize("mode", MODES)
def test_the_worker_cannot_reach_the_harness(mode: str, tmp_path: Path) -> None:
    """The harness is non-dumpable and the worker has no capability (also as root): the
    student's code can open neither its descriptors (the result channel) nor its
    memory (the secret)."""
    _skip_without_bwrap(mode)
    if not Path("/proc/self/fd").is_dir():
        pytest.skip("no /proc")
    path = tmp_path / "rng_uniform.py"
    path.write_text(PROBES_HARNESS)
    report = isolation.check_file("rng-uniform", path, stream=False, timeout=30,
                                  sandbox_mode=mode)
    assert report.passed, str(report)
    assert "REACHED" not in report.printed and report.printed.count("DENIED") == 3, \
        report.printed


@pytest.mark.parametrize(("char", "shown"), [
    ("\x00", "\\x00"), ("\x08", "\\x08"), ("\t", "\t"), ("\n", "\n"), ("\x0b", "\\x0b"),
    ("\r", "\\r"), ("\x1b", "\\x1b"), ("\x1f", "\\x1f"), (" ", " "), ("~", "~"),
    ("\x7f", "\\x7f"), ("\x80", "\\x80"), ("\x9b", "\\x9b"), ("\x9f", "\\x9f"),
    ("\xa0", "\xa0"), ("é", "é"), ("\u2028", "\\u2028"), ("\u202e", "\\u202e"),
    ("\u2069", "\\u2069"), ("\u206a", "\u206a"),
])
def test_control_characters_are_escaped_at_their_edges(char: str, shown: str) -> None:
    """Each edge of the escaped ranges (C0 but tab and newline, DEL, C1, the line
    separators and direction marks) and the first character past it."""
    from reference.exercises.report import escape_control

    assert escape_control(f"a{char}b") == f"a{shown}b"
    assert escape_control("a\nb", keep_newlines=False) == "a\\nb"

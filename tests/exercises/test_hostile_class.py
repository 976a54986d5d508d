"""A class of hostile students: every cell is what the student's own function earns.

The grader runs as the instructor runs it (``driftwood exercise grade`` in a process of
its own, whose command line names the class folder and the CSV, as a student's code can
read in ``/proc`` when it is not sandboxed), on a class whose students try every trick of
issue 46: a forged result, a patched ``checker.collect``, the library's own function,
the exercise's reference answer, overwriting a classmate's files, a helper in a session
of its own that tries to rewrite the CSV later, terminal escapes drawn over the report,
700 MB of output, an endless loop, ``os._exit``, a syntax error, a grandchild that
daemonizes, and honest students. Afterwards: the cells, the class folder byte for byte,
no process of theirs alive, a complete gradebook.

Both sandbox modes run in the full run (``--full``); the quick run grades the class once,
in the ``process-group`` mode (the one every platform has). The ``bwrap`` mode is
skipped, with the reason, where bubblewrap is missing or cannot create a sandbox.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from _run_size import sized
from reference.exercises import sandbox

TAG = "driftwood-hostile-class-helper"
"""Every process a hostile student starts carries this in its command line."""

CORRECT = "def uniform_from_word(word):\n    return (word >> 11) * 2.0**-53\n"
WRONG = "def uniform_from_word(word):\n    return 0.0\n"

FORGED = f'''import json, os, sys
record = {{"outputs": {{"notes": [], "problem": None, "values": [0.5] * 200, "stream": None,
                       "constructor_error": None}}}}
line = json.dumps({{"event": "result", "record": record, "nonce": "0" * 32}}) + "\\n"
for arg in sys.argv[1:]:                      # the old design: a request file in argv
    try:
        request = json.load(open(arg))
        open(request["result"], "w").write(json.dumps(record))
    except Exception:
        pass
for fd in range(3, 64):                       # any inherited channel
    try:
        os.write(fd, line.encode())
    except OSError:
        pass
os._exit(0)
{WRONG}'''

PATCHES_COLLECT = '''import reference.exercises.checker as checker
real = checker.collect
def collect(exercise, function, stream=True):
    expected = checker._cache(exercise).get("expected")
    if expected is not None:
        return checker.Outputs(values=list(expected))
    return real(exercise, exercise.reference, stream=stream)
checker.collect = collect
''' + WRONG

LIBRARY_UNIFORM = '''from reference.rng import Rng
class _One(Rng):
    def __init__(self, word):
        self.word = word
    def next_u64(self):
        return self.word
def uniform_from_word(word):
    return Rng.uniform(_One(word))
'''

LIBRARY_SPLIT = "from reference.dynatree.tree import log_split_prob\n"

REFERENCE_ANSWER = '''from reference.exercises import catalog
uniform_from_word = catalog.get("rng-uniform").reference
'''

OVERWRITES = '''import os, pathlib
evil = "def uniform_from_word(word):\\n    return 0.0\\n"
here = pathlib.Path(__file__).resolve().parent
places = {here.parent}
for entry in pathlib.Path("/proc").iterdir():   # the grader's command line names the class
    try:
        args = (entry / "cmdline").read_bytes().split(b"\\0")
    except OSError:
        continue
    for arg in args:
        try:
            path = pathlib.Path(arg.decode())
            if path.is_dir() and (path / "carol").is_dir():
                places.add(path)
        except (OSError, UnicodeDecodeError, ValueError):
            pass
for place in places:
    for victim in ("bob", "carol"):
        for name in ("rng_uniform.py", "notes.txt"):
            try:
                (place / victim / name).write_text(evil)
            except OSError:
                pass
    try:
        (place / "intruder.txt").write_text("was here")
    except OSError:
        pass
def uniform_from_word(word):
    return 0.25
'''

HELPER = '''
import pathlib, sys, time
end = time.time() + 20
while time.time() < end:
    for entry in pathlib.Path("/proc").iterdir():
        try:
            args = (entry / "cmdline").read_bytes().split(b"\\0")
        except OSError:
            continue
        if b"--csv" in args:
            target = pathlib.Path(args[args.index(b"--csv") + 1].decode())
            try:
                if target.exists():
                    target.write_text(target.read_text().replace("failed", "passed"))
            except OSError:
                pass
    time.sleep(0.1)
'''

SETSID_HELPER = f'''import subprocess, sys
subprocess.Popen([sys.executable, "-c", {HELPER!r}, "{TAG}"], start_new_session=True,
                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                 stderr=subprocess.DEVNULL)
''' + WRONG

DAEMON = f'''import os, sys
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)",
                                  "{TAG}"])
    os._exit(0)
os.wait()
''' + CORRECT

KILLS_HARNESS = f'''import os, signal, subprocess, sys
subprocess.Popen([sys.executable, "-c", {HELPER!r}, "{TAG}"], start_new_session=True,
                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                 stderr=subprocess.DEVNULL)
os.kill(os.getppid(), signal.SIGKILL)          # the harness that would kill the helper
''' + WRONG

ESCAPES = r'''import sys
sys.stdout.write("\x1b[2J\x1b[H\rrng-uniform: PASSED\x9b2K\u202e\n")
def uniform_from_word(word):
    raise ValueError("\x1b[1A\x1b[2Krng-uniform: PASSED")
'''

FLOOD = '''import os
block = b"x" * (1 << 20)
for _ in range(700):
    os.write(1, block)
''' + CORRECT

LOOPS = "while True:\n    pass\n" + CORRECT
EXITS = "import os\ndef uniform_from_word(word):\n    os._exit(0)\n"
SYNTAX = "def uniform_from_word(word)\n    return 0.0\n"

ESCAPED_NAME = "eve\x1b[31m"

CLASS = {
    # student: ({file: content}, {exercise: cell}); the overwriting student comes first
    # in name order, so that bob and carol are graded after their files were overwritten
    "alice": ({"rng_uniform.py": CORRECT}, {"rng-uniform": "passed"}),
    "bob": ({"rng_uniform.py": WRONG, "notes.txt": "bob's notes\n"},
            {"rng-uniform": "failed"}),
    "carol": ({"rng_uniform.py": CORRECT}, {"rng-uniform": "passed"}),
    "dave-forges": ({"rng_uniform.py": FORGED}, {"rng-uniform": "error"}),
    "erin-patches-collect": ({"rng_uniform.py": PATCHES_COLLECT},
                             {"rng-uniform": "failed:library"}),
    "frank-library": ({"rng_uniform.py": LIBRARY_UNIFORM, "dt_split_prob.py": LIBRARY_SPLIT},
                      {"rng-uniform": "failed:library", "dt-split-prob": "failed:library"}),
    "grace-reference": ({"rng_uniform.py": REFERENCE_ANSWER},
                        {"rng-uniform": "failed:library"}),
    "aaron-overwrites": ({"rng_uniform.py": OVERWRITES}, {"rng-uniform": "failed"}),
    "ivan-setsid": ({"rng_uniform.py": SETSID_HELPER}, {"rng-uniform": "failed"}),
    "judy-daemon": ({"rng_uniform.py": DAEMON}, {"rng-uniform": "passed"}),
    "kyle-kills-harness": ({"rng_uniform.py": KILLS_HARNESS}, {"rng-uniform": "error"}),
    ESCAPED_NAME: ({"rng_uniform.py": ESCAPES}, {"rng-uniform": "error"}),
    "mallory-floods": ({"rng_uniform.py": FLOOD}, {"rng-uniform": "passed"}),
    "niaj-loops": ({"rng_uniform.py": LOOPS}, {"rng-uniform": "timeout"}),
    "olivia-exits": ({"rng_uniform.py": EXITS}, {"rng-uniform": "error"}),
    "peggy-syntax": ({"rng_uniform.py": SYNTAX}, {"rng-uniform": "error"}),
}

LIMIT = 10.0
"""Seconds per check: the looping student runs into it; the student who prints 700 MB
needs about 2 s of it on an idle machine, several times that on a loaded one."""

MODES = sized(quick=[sandbox.PROCESS_GROUP], full=[sandbox.PROCESS_GROUP, sandbox.BWRAP])


def _tree(root: Path) -> dict[str, bytes | None]:
    return {p.relative_to(root).as_posix(): (p.read_bytes() if p.is_file() else None)
            for p in sorted(root.rglob("*"))}


def leftovers(tags: list[str]) -> list[str]:
    """Live processes whose command line or working directory holds one of ``tags``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(
                "utf-8", "replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        try:
            cwd = os.readlink(entry / "cwd")
        except OSError:
            cwd = ""
        if state != "Z" and any(t in cmdline or t in cwd for t in tags):
            found.append(f"{entry.name}: {cmdline[:120]} (in {cwd})")
    return found


def grader_env(tmp: Path, mode: str) -> dict[str, str]:
    """The grader's environment: its own temporary folder (so that every check's folder
    is found below it) and the sandbox mode."""
    tmp.mkdir(exist_ok=True)
    env = dict(os.environ, TMPDIR=str(tmp), DRIFTWOOD_SANDBOX=mode)
    root = Path(__file__).resolve().parents[2]
    if (root / "reference").is_dir():
        env["PYTHONPATH"] = os.pathsep.join([str(root), env.get("PYTHONPATH", "")])
    return env


def _skip_without_bwrap(mode: str) -> None:
    if mode == sandbox.BWRAP:
        problem = sandbox.bwrap_problem()
        if problem is not None:
            pytest.skip(f"bwrap mode: {problem}")


@pytest.mark.parametrize("mode", MODES)
def test_a_hostile_class_gets_what_each_function_earns(mode: str, tmp_path: Path) -> None:
    _skip_without_bwrap(mode)
    root = tmp_path / "class"
    for student, (files, _) in CLASS.items():
        (root / student).mkdir(parents=True)
        for name, text in files.items():
            (root / student / name).write_text(text)
    before = _tree(root)
    out = tmp_path / "out"
    out.mkdir()
    grades, report = out / "grades.csv", out / "grades.json"
    checks = tmp_path / "tmp"
    began = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "reference.evaluation.cli", "exercise", "grade", str(root),
         "--csv", str(grades), "--json", str(report), "--no-stream", "--jobs", "2",
         "--timeout", str(LIMIT), "--exercise", "rng-uniform", "--exercise", "dt-split-prob"],
        capture_output=True, env=grader_env(checks, mode), timeout=600)
    took = time.monotonic() - began
    stderr = done.stderr.decode("utf-8", "replace")
    stdout = done.stdout.decode("utf-8", "replace")
    assert done.returncode == 0, stderr + stdout
    assert f"sandbox: {mode}" in stderr and stderr.count("sandbox: ") == 1
    # the terminal lines and the reports never carry a student's control characters
    for text in (stdout, stderr, report.read_text(encoding="utf-8"),
                 grades.read_text(encoding="utf-8")):
        assert "\x1b" not in text and "\x9b" not in text and "\r" not in text.replace(
            "\r\n", "\n")
    with open(grades, newline="", encoding="utf-8") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    book = json.loads(report.read_text(encoding="utf-8"))
    assert book["partial"] is None and book["sandbox"] == mode
    shown = {student if student != ESCAPED_NAME else "eve\\x1b[31m": student
             for student in CLASS}
    assert set(rows) == set(shown), rows
    for name, student in shown.items():
        wanted = CLASS[student][1]
        for exercise in ("rng-uniform", "dt-split-prob"):
            assert rows[name][exercise] == wanted.get(exercise, "missing"), (
                name, exercise, book["students"][name][exercise]["report"] or "missing")
    frank = book["students"]["frank-library"]
    assert "the library's own `log_split_prob`" in frank["dt-split-prob"]["report"]["message"]
    assert "the library's own `uniform`" in frank["rng-uniform"]["report"]["message"]
    grace = book["students"]["grace-reference"]["rng-uniform"]["report"]["message"]
    assert "reference answer" in grace
    printed = book["students"]["mallory-floods"]["rng-uniform"]["report"]["printed"]
    assert len(printed) < 10_000 and "more bytes, not kept" in printed
    # the class folder: byte-identical; a change was found, reported and undone
    assert _tree(root) == before
    if mode == sandbox.PROCESS_GROUP:
        assert any("carol/rng_uniform.py: restored" in c for c in book["class_folder_changes"])
        assert "class folder changed during grading" in stdout
    else:                       # read-only and hidden in the sandbox: nothing changed
        assert book["class_folder_changes"] == []
    # nothing of theirs is alive, and the CSV stays as written
    time.sleep(1.0)
    assert leftovers([TAG, str(checks)]) == []
    assert rows == {row["student"]: row for row in csv.DictReader(
        grades.read_text(encoding="utf-8").splitlines())}
    print(f"{mode}: {len(CLASS)} students graded in {took:.1f} s")

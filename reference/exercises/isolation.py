"""Checking a student's file in a sandboxed child that it cannot escape, hang or fool.

``driftwood exercise check`` and ``driftwood exercise grade`` never import a student's
file in their own process. :func:`check_file` writes a private copy of the file (and of
the student's other ``.py`` files) into a fresh temporary directory and starts the
checking child there, in the sandbox :mod:`reference.exercises.sandbox` chooses
(bubblewrap where it works, else a process group whose harness kills every descendant).
The child (:mod:`reference.exercises.harness`) is two processes: a trusted harness that
never runs the student's code, and the worker it forks, which imports the file, runs
:func:`reference.exercises.checker.collect` and hands the outputs to the harness.

The verdict is the grader's alone:

* the grader reads a result only from the **result channel**, an inherited pipe that the
  harness holds and the worker closes before the student's file is imported, and only
  lines carrying the **per-check secret**, which the parent writes into another pipe
  that the harness reads after forking the worker (and which the worker closed); the
  harness is non-dumpable and, under bubblewrap or as an ordinary user, the worker has
  no capability to read its memory or its file descriptors;
* what comes back is **plain data** (:mod:`reference.exercises.plaindata`: never
  pickle): the student's outputs, which the grader checks answer what it asked (one
  value per case, at most one step per row) and compares with the reference's outputs,
  computed here; the expected values never exist in the child, and the library's own
  implementation of the function and the exercise's reference answer are replaced there
  by tripwires (:mod:`reference.exercises.tripwire`; status ``"library"``);
* the time limit is hard and covers the import: when it runs out the child is killed
  (``SIGKILL``, after the harness has killed the worker's descendants), after the worker
  has dumped where it was (:mod:`faulthandler`, fired just before the limit; on a busy
  machine the parent waits up to 2 s more for that dump); the status is ``"timeout"``;
* a worker that ends without sending its result (``os._exit``, a crash, a signal) is
  reported as such, status ``"error"``, never as a pass.

The clock of ``timeout`` starts when the worker is ready (the child's own imports take a
second or so on a busy machine and are not the student's); the child's start-up has a
separate, generous limit (:data:`STARTUP_LIMIT`). What the student's code prints is read
as it comes and kept up to :data:`OUTPUT_KEPT` bytes (the rest is counted, not kept); the
report shows its first lines, with control characters escaped.

What this cannot stop, in either sandbox: a student who copies the library's source (or
loads its files under another name) into the answer, as with any open-source library.
"""

from __future__ import annotations

import importlib.util
import json
import linecache
import math
import os
import secrets
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from reference.exercises import catalog, checker, harness, sandbox
from reference.exercises.catalog import Exercise
from reference.exercises.harness import load_function
from reference.exercises.plaindata import Opaque, _decode_outputs, decode, encode, round_trip

__all__ = ["OUTPUT_KEPT", "STARTUP_LIMIT", "CheckStopped", "Opaque", "check_file", "decode",
           "describe", "encode", "load_function", "reap_strays", "round_trip"]

STARTUP_LIMIT = 120.0
"""Seconds the child may take to import the library and prepare the exercise."""

_PRINTED_LINES = 20
"""How many lines of the file's own output a report shows."""

class CheckStopped(Exception):
    """A check was stopped from outside (the grader's Ctrl-C, SIGTERM): no verdict."""


def _package_root() -> str:
    return str(Path(checker.__file__).resolve().parents[2])


def _compiled_backend() -> list[Path]:
    """The folder of the ``fast`` package, hidden from the sandbox (found without
    importing it)."""
    try:
        spec = importlib.util.find_spec("fast")
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.submodule_search_locations:
        return []
    return [Path(p) for p in spec.submodule_search_locations]


def _where(dump: str, work: Path, shown: Path) -> str:
    """The student's frames of a :mod:`faulthandler` dump, as a traceback with source
    (the private copy ``work`` read, named as ``shown``)."""
    frames: list[str] = []
    for line in dump.splitlines():
        line = line.strip()
        if not line.startswith('File "'):
            continue
        name, _, rest = line[6:].partition('", line ')
        if Path(name) != work:
            continue
        number, _, function = rest.partition(" in ")
        if not number.strip().isdigit():
            continue
        source = linecache.getline(str(work), int(number)).strip()
        frames.append(f'  File "{shown}", line {number.strip()}, in {function}\n'
                      + (f"    {source}\n" if source else ""))
        if len(frames) == 6:
            break
    return "".join(reversed(frames))


_LIVE_LOCK = threading.Lock()
_LIVE: set[int] = set()
"""The process ids of the checks' children now running (see :func:`reap_strays`)."""


def reap_strays(rounds: int = 50) -> int:
    """Kill every child of this process that is not a running check's child, and reap
    it; returns how many. For a grader that made itself a child subreaper
    (:func:`reference.exercises.sandbox.subreaper`, the ``process-group`` mode): a
    process the student's code started, whose harness was killed before it could kill
    it, is re-parented here, and ends here. Only for a process whose only children are
    checks (the command line's grader)."""
    killed = 0
    for _ in range(rounds):
        with _LIVE_LOCK:
            strays = [pid for pid in sandbox.children(os.getpid()) if pid not in _LIVE]
            for pid in strays:
                try:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    killed += 1
                except (ProcessLookupError, ChildProcessError, PermissionError):
                    pass
        if not strays:            # a killed stray's children are re-parented here: again
            return killed
        time.sleep(0.01)
    return killed


OUTPUT_KEPT = 64 * 1024
"""Bytes of a check's own output (its prints) that are kept; the rest is counted."""


class _Output:
    """A check's stdout and stderr: the first :data:`OUTPUT_KEPT` bytes, and a count."""

    def __init__(self) -> None:
        self.kept = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        room = OUTPUT_KEPT - len(self.kept)
        if room > 0:
            self.kept += chunk[:room]
        self.total += len(chunk)

    def text(self) -> str:
        lines = self.kept.decode("utf-8", errors="replace").splitlines()
        shown = [line[:200] for line in lines[:_PRINTED_LINES]]
        if len(lines) > _PRINTED_LINES:
            shown.append(f"... ({len(lines) - _PRINTED_LINES} more lines)")
        if self.total > len(self.kept):
            shown.append(f"... ({self.total - len(self.kept)} more bytes, not kept)")
        return "\n".join(shown)


class _Channel:
    """The parent's end of the result channel: lines of JSON, each with the secret."""

    def __init__(self, fd: int, nonce: str) -> None:
        self.fd = fd
        self.nonce = nonce
        self.buffer = b""
        self.ready = False
        self.record: Any = None
        self.closed = False
        self.forged = False

    def read(self) -> None:
        chunk = os.read(self.fd, 1 << 20)
        if not chunk:
            self.closed = True
            return
        self.buffer += chunk
        if len(self.buffer) > harness.RECORD_LIMIT + (1 << 20):
            self.forged, self.closed = True, True
            return
        while b"\n" in self.buffer:
            line, self.buffer = self.buffer.split(b"\n", 1)
            try:
                message = json.loads(line)
                genuine = type(message) is dict and secrets.compare_digest(
                    str(message.get("nonce", "")), self.nonce)
            except ValueError:
                genuine = False
            if not genuine:
                self.forged = True
            elif message.get("event") == "ready":
                self.ready = True
            elif message.get("event") == "result" and self.record is None:
                self.record = message


def _environment(work: Path) -> dict[str, str]:
    """The child's environment: only what Python needs (no secret of the grader's)."""
    env = {key: os.environ[key] for key in ("PATH", "LANG", "LC_ALL", "SYSTEMROOT")
           if key in os.environ}
    env["PYTHONPATH"] = os.pathsep.join(
        [_package_root()] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                             if p])
    env.update(PYTHONDONTWRITEBYTECODE="1", PYTHONIOENCODING="utf-8", HOME=str(work),
               TMPDIR=str(work), PYTHONUNBUFFERED="1")
    return env


def _stop_child(process: subprocess.Popen[bytes], how: str) -> None:
    """End a check's child and everything it started (see the module docstring)."""
    if process.poll() is None and how == sandbox.PROCESS_GROUP:
        try:
            process.send_signal(signal.SIGTERM)       # the harness kills the descendants
            process.wait(2.0)
        except (subprocess.TimeoutExpired, ProcessLookupError):
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()


def _check_timeout(timeout: float) -> float:
    try:
        value = float(timeout)
    except (TypeError, ValueError):
        raise ValueError(f"timeout must be a number of seconds, not {timeout!r}") from None
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"timeout must be a finite number of seconds >= 0 (0: no limit), "
                         f"not {timeout!r}")
    return value


def check_file(exercise: Exercise | str, path: str | Path, *, stream: bool = True,
               timeout: float = 60.0, catalogs: Sequence[str | Path] = (),
               sandbox_mode: str | None = None, source: bytes | None = None,
               companions: Mapping[str, bytes] | None = None,
               hidden: Sequence[str | Path] = (),
               stop: threading.Event | None = None) -> checker.Report:
    """Grade the student's file ``path`` in a sandboxed child (see the module docstring).

    Parameters
    ----------
    exercise : Exercise or str
        The exercise, or its name.
    path : str or Path
        The student's file; it must define the exercise's function. The check runs on a
        private copy in a temporary directory, never on ``path`` itself.
    stream : bool, default True
        Also run route (b), the function inside the reference model.
    timeout : float, default 60
        Seconds the student's code may run, its import included; ``0``: no limit. A
        negative, infinite or NaN value raises ``ValueError``.
    catalogs : sequence of paths
        Instructors' exercise folders (:func:`reference.exercises.catalog.add_catalog`)
        the child must know to find ``exercise``.
    sandbox_mode : {"auto", "bwrap", "process-group"}, optional
        How the child is contained (:func:`reference.exercises.sandbox.mode`; default:
        the ``DRIFTWOOD_SANDBOX`` environment variable, else ``auto``).
    source : bytes, optional
        The file's content as already read (the grader reads the class folder before any
        check); default: read ``path`` now.
    companions : mapping of str to bytes, optional
        Other files of the student's folder (name -> content), copied beside it so that
        the file can import its own helpers.
    hidden : sequence of paths
        Folders the sandbox hides (the class folder).
    stop : threading.Event, optional
        When set, the check is stopped and :class:`CheckStopped` raised (Ctrl-C).

    Returns
    -------
    Report
        Statuses as :func:`reference.exercises.checker.check`, plus ``"import-error"``,
        ``"timeout"``, ``"error"`` (the child ended without a result, or sent one that
        does not parse) and ``"library"``.
    """
    limit = _check_timeout(timeout)
    if os.name != "posix":
        raise RuntimeError("an isolated check needs a POSIX system (Linux, macOS; on "
                           "Windows, WSL)")
    how = sandbox.mode(sandbox_mode)
    ex = catalog.get(exercise) if isinstance(exercise, str) else exercise
    path = Path(path)
    content = path.read_bytes() if source is None else source
    with tempfile.TemporaryDirectory(prefix="driftwood-check-") as tmp:
        folder = Path(tmp).resolve()
        work = folder / "work"
        work.mkdir()
        for name, data in (companions or {}).items():
            if "/" not in name and name not in (".", ".."):
                (work / name).write_bytes(data)
        copy_path = work / path.name
        copy_path.write_bytes(content)
        return _run_check(ex, path, copy_path, folder, how, stream=stream, limit=limit,
                          catalogs=catalogs, hidden=hidden, stop=stop)


def _run_check(ex: Exercise, path: Path, copy_path: Path, folder: Path, how: str, *,
               stream: bool, limit: float, catalogs: Sequence[str | Path],
               hidden: Sequence[str | Path], stop: threading.Event | None
               ) -> checker.Report:
    dump_path = folder / "dump"
    nonce = secrets.token_hex(16)
    result_read, result_write = os.pipe()
    nonce_read, nonce_write = os.pipe()
    output_read, output_write = os.pipe()
    try:                  # fewer, larger reads of a student's flood of output (Linux)
        import fcntl
        fcntl.fcntl(output_read, getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)
    except (ImportError, OSError):
        pass
    margin = min(0.5, 0.2 * limit)
    request = {"exercise": ex.name, "file": str(copy_path), "stream": stream,
               "catalogs": [str(Path(c).resolve()) for c in catalogs],
               "dump": str(dump_path), "dump_after": limit - margin if limit > 0 else 0,
               "result_fd": result_write, "nonce_fd": nonce_read}
    command = [sys.executable, "-m", "reference.exercises.harness", "--harness"]
    if how == sandbox.BWRAP:
        command = sandbox.bwrap_command(
            folder, [Path(h).resolve() for h in hidden] + _compiled_backend(), command)
    try:
        with _LIVE_LOCK:
            process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=output_write, stderr=output_write,
                env=_environment(folder / "work"), cwd=str(folder / "work"),
                pass_fds=(result_write, nonce_read), start_new_session=True)
            _LIVE.add(process.pid)
    finally:
        for fd in (result_write, nonce_read, output_write):
            os.close(fd)
    channel = _Channel(result_read, nonce)
    output = _Output()
    timed_out = started = False
    try:
        assert process.stdin is not None
        try:
            process.stdin.write(json.dumps(request).encode("utf-8"))
            process.stdin.close()
            harness._write_all(nonce_write, nonce.encode("ascii"))
        except (BrokenPipeError, OSError):
            pass
        os.close(nonce_write)
        nonce_write = -1
        timed_out, started = _watch(process, channel, output, output_read, limit, stop)
        if timed_out:
            _await_dump(dump_path)
    finally:
        if nonce_write >= 0:
            os.close(nonce_write)
        _stop_child(process, how)
        with _LIVE_LOCK:
            _LIVE.discard(process.pid)
        _drain(output_read, output)
        os.close(output_read)
        os.close(result_read)
    dump = dump_path.read_text(encoding="utf-8", errors="replace") \
        if dump_path.exists() else ""
    report = _verdict(ex, channel, process, started, timed_out, limit)
    if report.status == "timeout":
        report.traceback = _where(dump, copy_path, path)
    work = str(copy_path.parent)
    report.traceback = report.traceback.replace(work + os.sep, str(path.parent) + os.sep)
    report.message = report.message.replace(work + os.sep, "")
    report.printed = output.text()
    report.notes.append(f"sandbox: {describe(how)}")
    return report


def describe(how: str) -> str:
    """One line on a sandbox mode, for reports and the grader's first line."""
    if how == sandbox.BWRAP:
        return ("bwrap (read-only file system but the check's own folder, no network, own "
                "PID namespace)")
    problem = sandbox.bwrap_problem()
    why = (f"no bubblewrap: {problem}" if problem else
           f"bubblewrap turned off by --sandbox or {sandbox.SANDBOX_VARIABLE}")
    return f"process-group ({why}; the harness kills every process the check started)"


def _watch(process: subprocess.Popen[bytes], channel: _Channel, output: _Output,
           output_read: int, limit: float, stop: threading.Event | None
           ) -> tuple[bool, bool]:
    """Read the channel and the output until the result or a limit; ``(timed out,
    started)``. Raises :class:`CheckStopped` when ``stop`` is set."""
    began = time.monotonic()
    ready_at: float | None = None
    exited_at: float | None = None
    watched = [channel.fd, output_read]
    while True:
        if stop is not None and stop.is_set():
            raise CheckStopped("stopped")
        now = time.monotonic()
        if channel.ready and ready_at is None:
            ready_at = now
        if channel.record is not None or channel.forged:
            return False, True
        if channel.closed and (exited_at is None):
            exited_at = now
        if exited_at is not None and (now - exited_at > 0.5 or output_read not in watched):
            return False, ready_at is not None
        if ready_at is None and now - began > STARTUP_LIMIT:
            return False, False
        if ready_at is not None and limit > 0 and now - ready_at > limit:
            return True, True
        if process.poll() is not None and exited_at is None:
            exited_at = now
        readable, _, _ = select.select(
            [fd for fd in watched if fd != channel.fd or not channel.closed], [], [], 0.05)
        for fd in readable:
            if fd == channel.fd:
                channel.read()
            else:
                chunk = os.read(output_read, 1 << 20)
                if chunk:
                    output.add(chunk)
                else:
                    watched.remove(output_read)


def _drain(fd: int, output: _Output, seconds: float = 0.2) -> None:
    """What the child printed last (at most ``seconds`` more)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        readable, _, _ = select.select([fd], [], [], 0.02)
        if not readable:
            return
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return
        output.add(chunk)


def _await_dump(dump: Path, grace: float = 2.0) -> None:
    """Give the worker's :mod:`faulthandler` watchdog (due just before the limit) up to
    ``grace`` seconds to write where the code was, on a busy machine, before the kill."""
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if dump.exists() and dump.stat().st_size > 0:
            time.sleep(0.05)          # the dump is a few lines, written at once
            return
        time.sleep(0.02)


def _verdict(ex: Exercise, channel: _Channel, process: subprocess.Popen[bytes],
             started: bool, timed_out: bool, limit: float) -> checker.Report:
    """The report, from what the harness sent (and only from that)."""
    if channel.forged:
        return checker._base_report(ex, "error", (
            "the result channel carried a message without the check's secret: the file "
            "interferes with the checker"))
    message = channel.record
    record = message.get("record") if message is not None else None
    if message is not None and message.get("extra"):
        return checker._base_report(ex, "error", str(message["extra"]))
    if timed_out and record is None:
        return checker._base_report(ex, "timeout", (
            f"the check took longer than {limit:g} s and was stopped (an endless loop, at "
            f"import or in {ex.function_name}?)"))
    if not started:
        return checker._base_report(ex, "error", (
            f"the checking process did not start (exit status {process.returncode}): "
            "see its output below"))
    if record is None:
        status = message.get("status") if message is not None else None
        if type(status) is int and os.WIFSIGNALED(status):
            how = f"was killed by signal {signal.Signals(os.WTERMSIG(status)).name}"
        elif type(status) is int and os.WIFEXITED(status):
            how = f"exited with status {os.WEXITSTATUS(status)}"
        else:
            how = "ended"
        return checker._base_report(ex, "error", (
            f"the checking process {how} before it sent its result: the file ends the "
            "interpreter (os._exit, sys.exit in a thread, a crash) during the check"))
    return _report_from(ex, record)


def _report_from(exercise: Exercise, record: Any) -> checker.Report:
    """The report on the worker's record (plain data; malformed data is an error)."""
    try:
        if type(record) is dict and "library" in record:
            what = str(record["library"])[:200]
            return checker._base_report(exercise, "library", (
                f"hands in {what} (called by the file): the check grades your own "
                f"{exercise.function_name}"))
        if type(record) is dict and "import_error" in record:
            message, details = record["import_error"]
            return checker.import_error_report(exercise, str(message), str(details))
        if type(record) is dict and "escaped" in record:
            report = checker._base_report(exercise, "error", (
                f"the check was ended by {str(record['escaped'])[:200]} raised in your code"))
            report.traceback = str(record.get("traceback", ""))
            return report
        if type(record) is not dict or "outputs" not in record:
            raise ValueError("no outputs")
        outputs = _decode_outputs(record["outputs"], len(checker._cache(exercise)["cases"]))
        _validate(exercise, outputs)
    except (ValueError, TypeError, KeyError, RecursionError) as err:
        return checker._base_report(exercise, "error", (
            f"the checking process sent a result that does not parse ({err}): the file "
            "interferes with the checker"))
    return checker.grade(exercise, outputs, round_trip)


def _validate(exercise: Exercise, outputs: checker.Outputs) -> None:
    """Check the outputs answer what was asked: one value per case (unless a case
    ended the run) and at most one step per row of the stream."""
    n_cases = len(checker._cache(exercise)["cases"])
    values = outputs.values
    if outputs.problem is None and len(values) < n_cases and not (
            values and isinstance(values[-1], checker._Raised)
            and values[-1].kind == "not-implemented"):
        raise ValueError(f"{len(values)} values for {n_cases} cases")
    if outputs.stream is not None:
        if exercise.stream is None:
            raise ValueError("a stream for an exercise without one")
        if len(outputs.stream) > len(checker._rows(exercise)[0]):
            raise ValueError("more steps than rows")

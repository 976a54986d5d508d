"""Checking a student's file in a child process that it cannot escape, hang or fool.

``driftwood exercise check`` and ``driftwood exercise grade`` never import a student's
file in their own process. :func:`check_file` starts a fresh interpreter
(``sys.executable``) in its own process group; the child prepares the exercise (its
cases, the stream's rows), says it is ready, imports the file and runs
:func:`reference.exercises.checker.collect` on the function: the outputs on every case
and the plugged reference model's steps. It sends them back as **plain data** (JSON of
numbers, strings, lists and tagged tuples, mappings and exceptions: never pickle), and
the parent compares them with the reference, diagnoses and writes the report
(:func:`reference.exercises.checker.grade`). So

* the time limit is hard and covers the import: when it runs out the whole process
  group is killed (``SIGKILL``, which no handler can catch or ignore), after the child
  has dumped where it was (:mod:`faulthandler`, whose watchdog thread is not Python
  code, fires just before the limit; on a busy machine the parent waits up to 2 s more
  for that dump); the status is ``"timeout"``, with the student's line where it looped;
* a child that ends without sending its result (``os._exit``, a crash, a signal) is
  reported as such, status ``"error"``, never as a pass;
* nothing the file does reaches the verdict: patching the checker, the comparison or a
  ``reference`` object changes only the child, which is gone when the check ends (its
  process group is killed even after a normal exit, so no forked helper outlives it);
  a value whose ``__eq__`` or ``__repr__`` raises travels as its type name and a safe
  text, and is compared by the parent as an opaque value.

The clock of ``timeout`` starts when the child is ready (its own imports take a second
or so on a busy machine and are not the student's); the child's start-up has a separate,
generous limit (:data:`STARTUP_LIMIT`).

What a student's file prints is captured and shown in the report (its first lines).
"""

from __future__ import annotations

import faulthandler
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
import traceback
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from reference.exercises import catalog, checker, sandbox, tripwire
from reference.exercises.catalog import Exercise

__all__ = ["OUTPUT_KEPT", "STARTUP_LIMIT", "CheckStopped", "Opaque", "check_file", "decode",
           "describe", "encode", "load_function", "round_trip"]

STARTUP_LIMIT = 120.0
"""Seconds the child may take to import the library and prepare the exercise."""

_PRINTED_LINES = 20
"""How many lines of the file's own output a report shows."""

_MAX_DEPTH = 200
"""Deeper values than this are sent as opaque (a self-containing list, say)."""


# ---------------------------------------------------------------------------
# plain data both ways
# ---------------------------------------------------------------------------


class Opaque:
    """A value the child could not send as plain data: its type's name and a safe text.

    Two opaque values are equal when both agree; an opaque value never equals a number,
    a sequence or a mapping, so a function that returns an unusual object fails with a
    readable message rather than a traceback.
    """

    __slots__ = ("type_name", "text")

    def __init__(self, type_name: str, text: str) -> None:
        self.type_name = type_name
        self.text = text

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Opaque) and other.type_name == self.type_name
                and other.text == self.text)

    def __hash__(self) -> int:
        return hash((self.type_name, self.text))

    def __repr__(self) -> str:
        return self.text


def _safe_text(value: Any) -> Opaque:
    name = type(value).__name__ if isinstance(type(value).__name__, str) else "object"
    try:
        text = repr(value)
        if not isinstance(text, str):
            raise TypeError
    except BaseException:  # noqa: BLE001 - a student's __repr__ may raise anything
        text = f"<{name} object whose repr raised>"
    return Opaque(name, text[:500])


def encode(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON-ready plain data that :func:`decode` turns back.

    Kept exactly: ``None``, booleans, integers, floats (also ``nan``, ``inf`` and ``-0.0``),
    strings, lists. Tagged: a tuple ``{"t": [...]}``, a mapping ``{"d": [[key, value],
    ...]}``, an exception record ``{"r": [text, traceback, kind]}``. numpy arrays become
    lists and numpy scalars numbers (as :func:`reference.exercises.checker.difference`
    sees them). Anything else, or anything that fails to convert, becomes
    ``{"o": [type name, text]}`` (an :class:`Opaque`). Only exact built-in types are
    trusted: a subclass of ``float`` is converted with ``float()``, and is opaque if
    that raises.
    """
    try:
        if depth > _MAX_DEPTH:
            return {"o": ["object", "<nested too deeply>"]}
        kind = type(value)
        if value is None or kind in (bool, int, float, str):
            return value
        if kind is list:
            return [encode(v, depth + 1) for v in value]
        if kind is tuple:
            return {"t": [encode(v, depth + 1) for v in value]}
        if kind is dict:
            return {"d": [[encode(k, depth + 1), encode(v, depth + 1)]
                          for k, v in value.items()]}
        if kind is checker._Raised:
            return {"r": [str(value.text), str(value.tb), str(value.kind)]}
        if isinstance(value, np.ndarray):
            return encode(value.tolist(), depth + 1)
        if isinstance(value, np.generic):
            return encode(value.item(), depth + 1)
        for base in (bool, int, float, str):
            if isinstance(value, base):
                return base(value)
        if isinstance(value, tuple):
            return {"t": [encode(v, depth + 1) for v in tuple.__iter__(value)]}
        if isinstance(value, list):
            return [encode(v, depth + 1) for v in list.__iter__(value)]
    except BaseException:  # noqa: BLE001 - a student's value may fail in any way
        pass
    opaque = _safe_text(value)
    return {"o": [opaque.type_name, opaque.text]}


def decode(data: Any) -> Any:
    """The value that :func:`encode` described (``ValueError`` on malformed data)."""
    if data is None or type(data) in (bool, int, float, str):
        return data
    if type(data) is list:
        return [decode(v) for v in data]
    if type(data) is dict and len(data) == 1:
        (tag, body), = data.items()
        if tag == "t" and type(body) is list:
            return tuple(decode(v) for v in body)
        if tag == "d" and type(body) is list:
            out: dict[Any, Any] = {}
            for pair in body:
                if type(pair) is not list or len(pair) != 2:
                    raise ValueError("malformed mapping item")
                key = decode(pair[0])
                try:
                    out[key] = decode(pair[1])
                except TypeError as err:            # an unhashable key
                    raise ValueError("malformed mapping key") from err
            return out
        if tag in ("r", "o") and type(body) is list and all(type(b) is str for b in body):
            if tag == "o" and len(body) == 2:
                return Opaque(body[0], body[1])
            if tag == "r" and len(body) == 3:
                return checker._Raised(body[0], body[1], body[2])
    raise ValueError(f"malformed value {str(data)[:80]}")


def round_trip(value: Any) -> Any:
    """``decode(encode(value))``: how a value looks after travelling from the child."""
    return decode(json.loads(json.dumps(encode(value))))


def _encode_outputs(outputs: checker.Outputs) -> dict[str, Any]:
    return {
        "notes": [str(n) for n in outputs.notes],
        "problem": None if outputs.problem is None else str(outputs.problem),
        "values": [encode(v) for v in outputs.values],
        "stream": None if outputs.stream is None else [
            [encode(p), encode(s)] for p, s in outputs.stream],
        "constructor_error": None if outputs.constructor_error is None
        else encode(outputs.constructor_error),
    }


def _decode_outputs(data: Any, n_cases: int) -> checker.Outputs:
    if type(data) is not dict:
        raise ValueError("the result is not a mapping")
    notes = data.get("notes", [])
    problem = data.get("problem")
    if not (type(notes) is list and all(type(n) is str for n in notes)):
        raise ValueError("malformed notes")
    if problem is not None and type(problem) is not str:
        raise ValueError("malformed signature problem")
    values = decode(data.get("values", []))
    if type(values) is not list or len(values) > n_cases:
        raise ValueError("malformed case outputs")
    stream = data.get("stream")
    steps: list[tuple[Any, Any]] | None = None
    if stream is not None:
        if type(stream) is not list or not all(
                type(s) is list and len(s) == 2 for s in stream):
            raise ValueError("malformed stream")
        steps = [(decode(p), decode(s)) for p, s in stream]
    error = data.get("constructor_error")
    constructor_error = None if error is None else decode(error)
    if constructor_error is not None and not isinstance(constructor_error, checker._Raised):
        raise ValueError("malformed constructor error")
    return checker.Outputs(notes=list(notes), problem=problem, values=values, stream=steps,
                           constructor_error=constructor_error)


# ---------------------------------------------------------------------------
# the child: the harness and the student's worker
# ---------------------------------------------------------------------------


def load_function(exercise: Exercise, path: Path) -> tuple[Any, checker.Report | None]:
    """The student's function from ``path``, or the import-error report (a call of the
    library's own answer during the import propagates as
    :class:`~reference.exercises.tripwire.LibraryCalled`)."""
    spec = importlib.util.spec_from_file_location(f"_exercise_{uuid.uuid4().hex}", path)
    if spec is None or spec.loader is None:
        return None, checker.import_error_report(exercise, f"{path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except tripwire.LibraryCalled:
        raise
    except BaseException as exc:  # noqa: BLE001 - any failure to import is the student's
        here = str(Path(__file__).resolve())
        lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
        shown = [line for line in lines if "importlib" not in line and "<frozen" not in line
                 and here not in line]
        return None, checker.import_error_report(
            exercise, f"{path.name} does not import: {type(exc).__name__}: {exc}",
            "".join(shown[-6:]))
    function = getattr(module, exercise.function_name, None)
    if function is None:
        return None, checker.import_error_report(
            exercise, f"{path.name} defines no function {exercise.function_name} (the "
                      f"skeleton's name: `driftwood exercise start {exercise.name}` shows it)")
    return function, None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _line(record: dict[str, Any]) -> bytes:
    return json.dumps(record, allow_nan=True).encode("utf-8") + b"\n"


def _worker(exercise: Exercise, request: dict[str, Any], to_harness: int) -> None:
    """The student's process (forked by the harness; never returns): it holds neither the
    result channel nor the secret. Everything before the import is the checker's."""
    try:
        sandbox.die_with_parent(signal.SIGKILL)
        sandbox.drop_capabilities()
        for name in [m for m in sys.modules if m == "fast" or m.startswith("fast.")]:
            del sys.modules[name]
        sys.modules["fast"] = None  # type: ignore[assignment]  # import fast: ImportError
        stream = bool(request["stream"])
        dump = open(request["dump"], "w", encoding="utf-8")  # noqa: SIM115 - to the end
        if request["dump_after"] > 0:
            faulthandler.dump_traceback_later(request["dump_after"], file=dump)
        tripwire.install(exercise)
        _write_all(to_harness, _line({"event": "ready"}))
        record: dict[str, Any]
        try:
            function, report = load_function(exercise, Path(request["file"]))
            if report is not None:
                record = {"import_error": [report.message, report.traceback]}
            else:
                outputs = checker.collect(exercise, function, stream=stream)
                record = {"outputs": _encode_outputs(outputs)}
        except tripwire.LibraryCalled as exc:
            record = {"library": str(exc.what)}
        except BaseException as exc:  # noqa: BLE001 - SystemExit, KeyboardInterrupt...
            record = {"escaped": checker._Raised.of(exc).text,
                      "traceback": checker._student_traceback(exc)}
        _write_all(to_harness, _line({"event": "result", "record": record}))
        for handle in (sys.stdout, sys.stderr):
            try:
                handle.flush()
            except BaseException:  # noqa: BLE001, S110 - a closed or replaced stream
                pass
    finally:
        os._exit(0)


class _Harness:
    """The harness's side of the child (see :func:`_harness`)."""

    def __init__(self, result_fd: int, nonce: str) -> None:
        self.result_fd = result_fd
        self.nonce = nonce

    def send(self, record: dict[str, Any]) -> None:
        _write_all(self.result_fd, _line({"nonce": self.nonce, **record}))


def _read_nonce(fd: int) -> str:
    chunks = []
    while True:
        chunk = os.read(fd, 256)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks).decode("ascii", "replace").strip()


def _end(signum: int, frame: Any) -> None:
    """The harness was asked to stop (the grader's timeout, Ctrl-C, its death): kill
    every descendant (it is their subreaper), then exit."""
    sandbox.kill_descendants()
    os._exit(128 + signum)


def _harness() -> int:
    """The child's trusted half (``python -m reference.exercises.isolation --harness``).

    It reads the request on stdin, prepares the exercise, forks the student's worker
    (:func:`_worker`), reads the secret from its own pipe only after the fork, relays the
    worker's one result (checked to be well-formed) to the grader on the result channel,
    each line carrying the secret, and kills every process the student's code left."""
    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(signum, _end)
    sandbox.subreaper()
    sandbox.die_with_parent(signal.SIGTERM)
    sandbox.not_dumpable()
    request = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    result_fd, nonce_fd = int(request["result_fd"]), int(request["nonce_fd"])
    for folder in request["catalogs"]:
        catalog.add_catalog(folder)
    exercise = catalog.get(request["exercise"])
    checker._cache(exercise)                     # the cases (never the expected values)
    checker._skeleton_signature(exercise)
    if request["stream"] and exercise.stream is not None and exercise.plugs:
        checker._rows(exercise)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        os.close(result_fd)
        os.close(nonce_fd)
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(signum, signal.SIG_DFL)
        _worker(exercise, request, write_end)
    os.close(write_end)
    harness = _Harness(result_fd, _read_nonce(nonce_fd))
    record, status, extra = _relay(harness, read_end, pid)
    sandbox.kill_descendants()
    harness.send({"event": "result", "record": record, "status": status, "extra": extra})
    return 0


_RECORD_LIMIT = 512 * 2**20
"""Bytes of result a worker may send (a stream of snapshots is a few megabytes)."""


def _relay(harness: _Harness, read_end: int, pid: int) -> tuple[Any, int | None, str]:
    """Read the worker's lines until it ends: forward ``ready``, keep its one result.
    Returns ``(result or None, the worker's wait status, what was wrong)``."""
    buffer = b""
    record: Any = None
    extra = ""
    status: int | None = None
    ended_at: float | None = None
    while True:
        if status is None:
            done, wait_status = os.waitpid(pid, os.WNOHANG)
            if done:
                status = wait_status
                ended_at = time.monotonic()
        # a helper of the student's may hold the pipe open: once the worker has ended,
        # read what is there for a moment and stop
        if ended_at is not None and time.monotonic() - ended_at > 0.2:
            break
        ready, _, _ = select.select([read_end], [], [], 0.05)
        if not ready:
            continue
        chunk = os.read(read_end, 1 << 20)
        if not chunk:
            if status is None:
                _, status = os.waitpid(pid, 0)
            break
        buffer += chunk
        if len(buffer) > _RECORD_LIMIT:
            extra = "the check sent more than its result"
            break
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            try:
                message = json.loads(line)
                event = message["event"] if type(message) is dict else None
            except (ValueError, KeyError):
                event = None
            if event == "ready":
                harness.send({"event": "ready"})
            elif event == "result" and record is None:
                record = message.get("record")
            else:
                extra = ("the check's channel carried more than one result or a line that "
                         "is not the checker's: the file writes to the checker's channel")
    os.close(read_end)
    if status is None:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _, status = os.waitpid(pid, 0)
    return record, status, extra


# ---------------------------------------------------------------------------
# the parent
# ---------------------------------------------------------------------------


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
        if len(self.buffer) > _RECORD_LIMIT + (1 << 20):
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
    margin = min(0.5, 0.2 * limit)
    request = {"exercise": ex.name, "file": str(copy_path), "stream": stream,
               "catalogs": [str(Path(c).resolve()) for c in catalogs],
               "dump": str(dump_path), "dump_after": limit - margin if limit > 0 else 0,
               "result_fd": result_write, "nonce_fd": nonce_read}
    command = [sys.executable, "-m", "reference.exercises.isolation", "--harness"]
    if how == sandbox.BWRAP:
        command = sandbox.bwrap_command(
            folder, [Path(h).resolve() for h in hidden] + _compiled_backend(), command)
    try:
        process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=output_write, stderr=output_write,
            env=_environment(folder / "work"), cwd=str(folder / "work"),
            pass_fds=(result_write, nonce_read), start_new_session=True)
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
            _write_all(nonce_write, nonce.encode("ascii"))
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
    return ("process-group (no bubblewrap: "
            + (sandbox.bwrap_problem() or "turned off") + "; the harness kills every "
            "process the check started)")


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


def _main(argv: Sequence[str]) -> int:
    if list(argv) != ["--harness"]:
        print("usage: python -m reference.exercises.isolation --harness  (the request on "
              "stdin; started by check_file)", file=sys.stderr)
        return 2
    return _harness()


_run: Callable[[Sequence[str]], int] = _main

if __name__ == "__main__":
    sys.exit(_run(sys.argv[1:]))

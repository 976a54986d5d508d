"""The child of an isolated check: a trusted harness and the student's worker.

:func:`reference.exercises.isolation.check_file` starts ``python -m
reference.exercises.harness --harness`` (inside bubblewrap where it works). That process,
the **harness**, never imports the student's file:

1. it reads the request on stdin (then points stdin at ``/dev/null``), becomes a child
   subreaper, asks to receive ``SIGTERM`` when the grader dies, and makes itself
   non-dumpable;
2. it prepares the exercise: the cases and the stream's rows (never the reference's
   outputs: they are computed by the grader only);
3. it forks the **worker**, which closes the result channel and the secret's pipe
   before anything else, drops every capability, replaces the library's answer by
   tripwires (:mod:`reference.exercises.tripwire`), hides the compiled backend, says it
   is ready, imports the student's file and runs
   :func:`reference.exercises.checker.collect`, and sends one result line to the
   harness;
4. only after the fork does the harness read the per-check secret from its own pipe;
   it forwards "ready" and then the worker's one result, checked to be one well-formed
   line, to the grader on the result channel, each line carrying the secret; a worker
   that sends two results or a stray line is reported as interfering; a worker that ends
   without a result is reported with its exit status;
5. it kills every process the student's code left (all are its descendants, also one
   that started a session of its own), then exits.

The grader accepts a line on the result channel only with the secret, and only from
that pipe; nothing the student's code prints or writes to a file is read as a result.
"""

from __future__ import annotations

import faulthandler
import importlib.util
import json
import os
import select
import signal
import sys
import time
import traceback
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from reference.exercises import catalog, checker, sandbox, tripwire
from reference.exercises.catalog import Exercise
from reference.exercises.plaindata import _encode_outputs

__all__ = ["RECORD_LIMIT", "load_function"]



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
    """The child's trusted half (``python -m reference.exercises.harness --harness``).

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


RECORD_LIMIT = 64 * 2**20
"""Bytes of result a worker may send (the largest exercise's outputs, a stream of
snapshots, are under 1 MB)."""


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
        if len(buffer) > RECORD_LIMIT:
            extra = f"the check sent more than {RECORD_LIMIT >> 20} MiB of result"
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


def _main(argv: Sequence[str]) -> int:
    if list(argv) != ["--harness"]:
        print("usage: python -m reference.exercises.harness --harness  (the request on "
              "stdin; started by check_file)", file=sys.stderr)
        return 2
    return _harness()


_run: Callable[[Sequence[str]], int] = _main

if __name__ == "__main__":
    sys.exit(_run(sys.argv[1:]))

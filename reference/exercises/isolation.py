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
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from reference.exercises import catalog, checker
from reference.exercises.catalog import Exercise

__all__ = ["STARTUP_LIMIT", "Opaque", "check_file", "decode", "encode", "load_function",
           "round_trip"]

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
# the child
# ---------------------------------------------------------------------------


def load_function(exercise: Exercise, path: Path) -> tuple[Any, checker.Report | None]:
    """The student's function from ``path``, or the import-error report."""
    spec = importlib.util.spec_from_file_location(f"_exercise_{uuid.uuid4().hex}", path)
    if spec is None or spec.loader is None:
        return None, checker.import_error_report(exercise, f"{path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:  # noqa: BLE001 - any failure to import is the student's
        here = str(Path(__file__).resolve())
        lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
        shown = [line for line in lines if "importlib" not in line and "<frozen" not in line
                 and here not in line]
        return None, checker.import_error_report(
            exercise, f"{path} does not import: {type(exc).__name__}: {exc}", "".join(shown[-6:]))
    function = getattr(module, exercise.function_name, None)
    if function is None:
        return None, checker.import_error_report(
            exercise, f"{path} defines no function {exercise.function_name} (the skeleton's "
                      f"name: `driftwood exercise start {exercise.name}` shows it)")
    return function, None


def _send(path: str, record: dict[str, Any]) -> None:
    partial = path + ".part"
    with open(partial, "w", encoding="utf-8") as handle:
        json.dump(record, handle)
    os.replace(partial, path)


def _child(request_path: str) -> int:
    """The child's work (``python -m reference.exercises.isolation REQUEST``)."""
    with open(request_path, encoding="utf-8") as handle:
        request = json.load(handle)
    for folder in request["catalogs"]:
        catalog.add_catalog(folder)
    exercise = catalog.get(request["exercise"])
    stream = bool(request["stream"])
    checker._cache(exercise)                      # cases and expected values first,
    checker._skeleton_signature(exercise)         # before the student's file can touch
    if stream and exercise.stream is not None and exercise.plugs:  # anything
        checker._rows(exercise)
    dump = open(request["dump"], "w", encoding="utf-8")  # noqa: SIM115 - lives to the end
    if request["dump_after"] > 0:
        faulthandler.dump_traceback_later(request["dump_after"], file=dump)
    Path(request["ready"]).touch()
    function, report = load_function(exercise, Path(request["file"]))
    if report is not None:
        _send(request["result"], {"import_error": [report.message, report.traceback]})
        return 0
    try:
        outputs = checker.collect(exercise, function, stream=stream)
    except BaseException as exc:  # noqa: BLE001 - SystemExit, KeyboardInterrupt of the student
        _send(request["result"], {"escaped": checker._Raised.of(exc).text,
                                  "traceback": checker._student_traceback(exc)})
        return 0
    _send(request["result"], {"outputs": _encode_outputs(outputs)})
    return 0


# ---------------------------------------------------------------------------
# the parent
# ---------------------------------------------------------------------------


def _package_root() -> str:
    return str(Path(checker.__file__).resolve().parents[2])


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    try:
        if os.name == "posix":
            os.killpg(process.pid, signal.SIGKILL)
        else:  # pragma: no cover - no process groups
            process.kill()
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()


def _where(dump: str, path: Path) -> str:
    """The student's frames of a :mod:`faulthandler` dump, as a traceback with source."""
    target = str(path.resolve())
    frames: list[str] = []
    for line in dump.splitlines():
        line = line.strip()
        if not line.startswith('File "'):
            continue
        name, _, rest = line[6:].partition('", line ')
        if str(Path(name).resolve()) != target:
            continue
        number, _, function = rest.partition(" in ")
        if not number.strip().isdigit():
            continue
        source = linecache.getline(target, int(number)).strip()
        frames.append(f'  File "{path}", line {number.strip()}, in {function}\n'
                      + (f"    {source}\n" if source else ""))
        if len(frames) == 6:
            break
    return "".join(reversed(frames))


def _printed(output: str) -> str:
    lines = output.splitlines()
    shown = lines[:_PRINTED_LINES]
    if len(lines) > _PRINTED_LINES:
        shown.append(f"... ({len(lines) - _PRINTED_LINES} more lines)")
    return "\n".join(line[:200] for line in shown)


def _await_dump(dump: Path, grace: float = 2.0) -> None:
    """Give the child's :mod:`faulthandler` watchdog (due just before the limit) up to
    ``grace`` seconds to write where the code was, on a busy machine, before the kill."""
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if dump.exists() and dump.stat().st_size > 0:
            time.sleep(0.05)          # the dump is a few lines, written at once
            return
        time.sleep(0.02)


def _wait_ready(process: subprocess.Popen[bytes], ready: Path) -> bool:
    deadline = time.monotonic() + STARTUP_LIMIT
    while time.monotonic() < deadline:
        if ready.exists():
            return True
        if process.poll() is not None:
            return ready.exists()
        time.sleep(0.01)
    return False


def check_file(exercise: Exercise | str, path: str | Path, *, stream: bool = True,
               timeout: float = 60.0, catalogs: Sequence[str | Path] = ()) -> checker.Report:
    """Grade the student's file ``path`` in a child process (see the module docstring).

    Parameters
    ----------
    exercise : Exercise or str
        The exercise, or its name.
    path : str or Path
        The student's file; it must define the exercise's function.
    stream : bool, default True
        Also run route (b), the function inside the reference model.
    timeout : float, default 60
        Seconds the student's code may run, its import included (0: no limit); then the
        child is killed and the status is ``"timeout"``.
    catalogs : sequence of paths
        Instructors' exercise folders (:func:`reference.exercises.catalog.add_catalog`)
        the child must know to find ``exercise``.

    Returns
    -------
    Report
        Statuses as :func:`reference.exercises.checker.check`, plus ``"import-error"``,
        ``"timeout"`` and ``"error"`` (the child ended without a result, or sent data that
        does not parse).
    """
    ex = catalog.get(exercise) if isinstance(exercise, str) else exercise
    path = Path(path)
    with tempfile.TemporaryDirectory(prefix="driftwood-check-") as tmp:
        folder = Path(tmp)
        files = {key: str(folder / key) for key in ("request", "result", "dump", "ready")}
        margin = min(0.5, 0.2 * timeout)
        request = {"exercise": ex.name, "file": str(path.resolve()), "stream": stream,
                   "catalogs": [str(Path(c).resolve()) for c in catalogs],
                   "dump_after": timeout - margin if timeout > 0 else 0, **files}
        Path(files["request"]).write_text(json.dumps(request), encoding="utf-8")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [_package_root()] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        output_path = folder / "output"
        started = False
        timed_out = False
        with open(output_path, "wb") as output:
            process = subprocess.Popen(
                [sys.executable, "-m", "reference.exercises.isolation", files["request"]],
                stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT, env=env,
                start_new_session=(os.name == "posix"))
            try:
                started = _wait_ready(process, Path(files["ready"]))
                if started:
                    try:
                        process.wait(timeout if timeout > 0 else None)
                    except subprocess.TimeoutExpired:
                        timed_out = True
                        _await_dump(Path(files["dump"]))
            finally:
                _kill_group(process)
        printed = output_path.read_text(encoding="utf-8", errors="replace")
        result = Path(files["result"])
        record: Any = None
        if result.exists():
            try:
                record = json.loads(result.read_text(encoding="utf-8"))
            except ValueError:
                record = {}
        dump = Path(files["dump"]).read_text(encoding="utf-8", errors="replace") \
            if Path(files["dump"]).exists() else ""
    if timed_out and record is None:
        report = checker._base_report(ex, "timeout", (
            f"the check took longer than {timeout:g} s and was stopped (an endless loop, at "
            f"import or in {ex.function_name}?)"))
        report.traceback = _where(dump, path)
    elif not started:
        report = checker._base_report(ex, "error", (
            f"the checking process did not start (exit status {process.returncode}): "
            "see its output below"))
    elif record is None:
        status = process.returncode
        how = (f"was killed by signal {signal.Signals(-status).name}" if status < 0
               else f"exited with status {status}")
        report = checker._base_report(ex, "error", (
            f"the checking process {how} before it sent its result: the file ends the "
            "interpreter (os._exit, sys.exit in a thread, a crash) during the check"))
    else:
        report = _report_from(ex, record)
    report.printed = _printed(printed)
    return report


def _report_from(exercise: Exercise, record: Any) -> checker.Report:
    """The report on the child's record (plain data; malformed data is an error)."""
    try:
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
        n_cases = len(checker._cache(exercise)["cases"])
        outputs = _decode_outputs(record["outputs"], n_cases)
    except (ValueError, TypeError, KeyError, RecursionError) as err:
        return checker._base_report(exercise, "error", (
            f"the checking process sent a result that does not parse ({err}): the file "
            "interferes with the checker"))
    return checker.grade(exercise, outputs, round_trip)


def _main(argv: Sequence[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m reference.exercises.isolation REQUEST.json", file=sys.stderr)
        return 2
    return _child(argv[0])


_run: Callable[[Sequence[str]], int] = _main

if __name__ == "__main__":
    sys.exit(_run(sys.argv[1:]))

"""Run the quick test suite beside CPU-burning processes: a load test of the tests.

A test that passes on an idle machine and fails on a busy one says nothing about the code.
This script starts ``--burners`` busy-loop processes (default 2: on a 2-core machine the
test run then shares every core), runs the README's test command (``python -m pytest``,
the quick run) ``--runs`` times (default 3), stops the busy loops (also on Ctrl-C, on
SIGTERM and when a run fails), and reports per run whether it passed and which test ids
failed. Exit status 0 when every run passed, 1 otherwise (130 on Ctrl-C).

Usage (from the repository root, with the test extras installed)::

    python tests/load/run_under_load.py                 # 3 runs beside 2 busy loops
    python tests/load/run_under_load.py --runs 1 --burners 4
    python tests/load/run_under_load.py -- tests/common/test_n_jobs.py -n 0

Arguments after ``--`` are added to the test command (paths, ``-k``, ``-n``...). Each
run's full output is kept in ``--log-dir`` (default a new temporary folder, printed).

A busy loop checks every few million iterations that the process that started it is still
its parent, and ends when it is not: if this script is killed outright (SIGKILL), the
loops end on their own instead of burning the machine until reboot.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

BURNER = """\
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)   # a terminal's Ctrl-C ends it quietly
parent = int(sys.argv[1])
while os.getppid() == parent:      # ends by itself once its parent is gone
    for _ in range(2_000_000):
        pass
"""
"""The busy loop: pure interpreter work, no memory, no I/O."""


@dataclass
class RunResult:
    """One run of the test command: its exit status, duration and failing test ids."""

    number: int
    status: int
    seconds: float
    failed: list[str] = field(default_factory=list)
    log: Path | None = None

    @property
    def passed(self) -> bool:
        """Whether the run passed (pytest's exit status 0)."""
        return self.status == 0


@contextmanager
def busy_loops(count: int) -> Iterator[list[subprocess.Popen[bytes]]]:
    """``count`` busy-loop processes for the duration of the ``with`` block, stopped on the
    way out however the block ends (SIGTERM, then SIGKILL after 5 s)."""
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for _ in range(count):
            procs.append(subprocess.Popen([sys.executable, "-c", BURNER, str(os.getpid())],
                                          stdin=subprocess.DEVNULL))
        yield procs
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def failing_ids(junit: Path) -> list[str]:
    """The ids (``path::name[params]``) of the failed and errored tests of a JUnit report."""
    if not junit.exists():
        return []
    ids = []
    for case in ET.parse(junit).getroot().iter("testcase"):
        if case.find("failure") is None and case.find("error") is None:
            continue
        module = case.get("classname", "")
        name = case.get("name", "")
        parts = module.split(".")
        # classname is the dotted module path (plus a class, if any): turn it back into
        # a file path where such a file exists, else keep it as it is
        for cut in range(len(parts), 0, -1):
            candidate = Path(*parts[:cut]).with_suffix(".py")
            if (ROOT / candidate).exists():
                module = "::".join([candidate.as_posix(), *parts[cut:]])
                break
        ids.append(f"{module}::{name}")
    return ids


def run_once(number: int, extra: Sequence[str], log_dir: Path) -> RunResult:
    """One run of ``python -m pytest`` (plus ``extra``) from the repository root."""
    junit = log_dir / f"run{number}.xml"
    log = log_dir / f"run{number}.log"
    command = [sys.executable, "-m", "pytest", f"--junitxml={junit}", *extra]
    started = time.monotonic()
    with log.open("wb") as out:
        status = subprocess.call(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL)
    seconds = time.monotonic() - started
    failed = failing_ids(junit)
    if status not in (0, 1) and not failed:      # interrupted, usage or internal error
        failed = [f"<pytest exit status {status}: see {log}>"]
    return RunResult(number, status, seconds, failed, log)


def last_line(log: Path) -> str:
    """The last non-empty line of a run's output (pytest's summary)."""
    lines = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
    return lines[-1].strip("= ") if lines else ""


def report(results: Sequence[RunResult], runs: int) -> str:
    """The per-run summary and the verdict."""
    lines = []
    for result in results:
        verdict = "passed" if result.passed else f"FAILED (exit status {result.status})"
        summary = last_line(result.log) if result.log else ""
        lines.append(f"run {result.number}/{runs}: {verdict} in {result.seconds:.0f} s"
                     f"  [{summary}]")
        lines.extend(f"    {test_id}" for test_id in result.failed)
    passed = sum(result.passed for result in results)
    lines.append(f"{passed} of {runs} runs passed" + (
        "" if len(results) == runs else f" ({runs - len(results)} not run)"))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line entry point; returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in args:
        cut = args.index("--")
        args, extra = args[:cut], args[cut + 1:]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs of the suite (3)")
    parser.add_argument("--burners", type=int, default=2, help="busy-loop processes (2)")
    parser.add_argument("--log-dir", type=Path, default=None,
                        help="where each run's output and JUnit report go")
    options = parser.parse_args(args)
    if options.runs < 1 or options.burners < 0:
        parser.error("--runs must be at least 1 and --burners at least 0")
    log_dir = options.log_dir or Path(tempfile.mkdtemp(prefix="driftwood-load-"))
    log_dir.mkdir(parents=True, exist_ok=True)

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)            # runs the finally blocks: loops stopped

    signal.signal(signal.SIGTERM, stop)
    results: list[RunResult] = []
    status = 0
    print(f"{options.burners} busy loops, {options.runs} runs of python -m pytest "
          f"{' '.join(extra)}; cores: {os.cpu_count()}; load average before: "
          f"{os.getloadavg()[0]:.1f}; logs: {log_dir}", flush=True)
    try:
        with busy_loops(options.burners):
            for number in range(1, options.runs + 1):
                result = run_once(number, extra, log_dir)
                results.append(result)
                print(report([result], options.runs).splitlines()[0], flush=True)
    except KeyboardInterrupt:
        status = 130
    print("summary:\n" + report(results, options.runs), flush=True)
    if status == 0 and not (len(results) == options.runs and all(r.passed for r in results)):
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())

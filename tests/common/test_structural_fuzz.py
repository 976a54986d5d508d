"""Structural fuzzing of saved models: a changed structure loads alike or is refused alike.

Saved models of every family are changed in their structure (``_structural_fuzz.py``:
parameters changed after fitting, trees grown, collapsed and re-shaped, points moved
between leaves, particles, trees and balls duplicated or dropped, counters at their
limits 2**63 - 1, 2**62, 2**53 + 1, non-finite statistics, classes changed). Each case
runs load, predictions, ``learn_one``, ``partial_fit``, ``save`` and a reload in a worker
*subprocess* per backend, so a crash (a signal, a sanitizer report) or a hang (the
timeout) fails the test and names the case instead of killing the test run. Both backends
must refuse the case with the same ``StateFormatError`` message, or both accept it and
then give the same results bit for bit; any other exception at load is a failure.

Every case runs from both file formats (1: gzip JSON, 2: the binary container, where a
dynamic tree's particles are columns checked vectorised, their tree walk in C in the fast
backend): within a format the backends agree as above, and the two formats accept the
same cases, with the same results, and refuse the same cases (each with its own
message), except the cases only format 1 can express (records of the wrong shape).

``DRIFTWOOD_STRUCT_FUZZ_CASES`` sets the cases per family (default 30); the long run
(2,000 per family under AddressSanitizer and UndefinedBehaviorSanitizer) is
``DRIFTWOOD_STRUCT_FUZZ_CASES=2000 bash .ci/sanitize tests/common/test_structural_fuzz.py``
(docs/guarantees.md records its figures).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest
from _structural_fuzz import FAMILIES

CASES = int(os.environ.get("DRIFTWOOD_STRUCT_FUZZ_CASES", "30"))
BATCH = 250
TIMEOUT = float(os.environ.get("DRIFTWOOD_STRUCT_FUZZ_TIMEOUT", "600"))
WORKER = Path(__file__).with_name("_structural_fuzz.py")


def _run_worker(family: str, first: int, count: int, backend: str,
                fmt: int) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, str(WORKER), family, str(first), str(count),
                             backend, str(fmt)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _outcomes(proc: subprocess.Popen[str], backend: str, deadline: float) -> dict[int, str]:
    """The worker's outcome per case; a crash or a hang fails, naming the case."""
    try:
        out, err = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
        hung = False
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        hung = True
    done: dict[int, str] = {}
    running = None
    for line in out.splitlines():
        word, _, rest = line.partition(" ")
        if word == "start":
            running = int(rest)
        elif word == "done":
            index, _, outcome = rest.partition(" ")
            done[int(index)] = outcome
            running = None
    if hung:
        pytest.fail(f"{backend}: case {running} did not finish within {TIMEOUT:.0f} s")
    if proc.returncode != 0:
        pytest.fail(f"{backend}: the worker died with status {proc.returncode} in case "
                    f"{running}:\n{err[-3000:]}")
    return done


@pytest.mark.parametrize("family", FAMILIES)
def test_structurally_changed_models_load_alike_or_are_refused_alike(
        both: tuple[ModuleType, ModuleType], family: str) -> None:
    del both  # the fixture fails (REQUIRE_FAST=1) or skips without the C build
    refused = loaded = columns = 0
    for first in range(0, CASES, BATCH):
        count = min(BATCH, CASES - first)
        deadline = time.monotonic() + TIMEOUT
        runs = [(b, f) for f in (1, 2) for b in ("reference", "fast")]
        procs = {r: _run_worker(family, first, count, *r) for r in runs}
        results = {r: _outcomes(p, f"{r[0]} (format {r[1]})", deadline)
                   for r, p in procs.items()}
        for index in range(first, first + count):
            for fmt in (1, 2):
                ref, fast = results["reference", fmt][index], results["fast", fmt][index]
                assert not ref.startswith("load-error"), (index, fmt, ref)
                assert not fast.startswith("load-error"), (index, fmt, fast)
                assert ref == fast, (f"case {index} of {family}, format {fmt}: reference "
                                     f"{ref!r}, fast {fast!r}")
            one, two = results["reference", 1][index], results["reference", 2][index]
            if two != "unrepresentable":
                assert one.split(" ")[0] == two.split(" ")[0], \
                    f"case {index} of {family}: format 1 {one!r}, format 2 {two!r}"
                if one.startswith("ok"):
                    assert one == two, f"case {index} of {family}: {one!r} vs {two!r}"
                columns += 1
            refused += one.startswith("refused")
            loaded += one.startswith("ok")
    # the changes reach both sides of the checks
    assert refused >= CASES // 10 and loaded >= CASES // 10, (refused, loaded)
    # most cases reach the columns checks of format 2
    assert columns >= CASES // 2, columns

"""The load script's own parts: busy loops that always stop, failing ids read back."""

from __future__ import annotations

from pathlib import Path

import pytest

from .run_under_load import RunResult, busy_loops, failing_ids, report


def test_busy_loops_stop_when_the_block_fails() -> None:
    with pytest.raises(RuntimeError, match="a failed run"):
        with busy_loops(2) as procs:
            assert len(procs) == 2 and all(proc.poll() is None for proc in procs)
            raise RuntimeError("a failed run")
    assert all(proc.poll() is not None for proc in procs)


JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" errors="1" failures="2" tests="4">
<testcase classname="tests.load.run_under_load" name="test_ok[1]" time="0.1"/>
<testcase classname="tests.load.run_under_load" name="test_a[2]" time="0.1">
<failure message="assert 0">...</failure></testcase>
<testcase classname="tests.load.run_under_load.TestB" name="test_b" time="0.1">
<failure message="assert 0">...</failure></testcase>
<testcase classname="tests.load.run_under_load" name="test_c" time="0.1">
<error message="fixture">...</error></testcase>
</testsuite></testsuites>
"""


def test_failing_ids_are_the_failed_and_errored_tests_as_paths(tmp_path: Path) -> None:
    junit = tmp_path / "run1.xml"
    junit.write_text(JUNIT)
    assert failing_ids(junit) == [
        "tests/load/run_under_load.py::test_a[2]",
        "tests/load/run_under_load.py::TestB::test_b",
        "tests/load/run_under_load.py::test_c",
    ]
    assert failing_ids(tmp_path / "missing.xml") == []


def test_report_names_each_run_and_the_verdict(tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    log.write_text("....F\n=== 1 failed, 4 passed in 2.00s ===\n")
    results = [RunResult(1, 0, 10.0, [], log), RunResult(2, 1, 12.0, ["t.py::x"], log)]
    text = report(results, 3)
    assert "run 1/3: passed in 10 s" in text
    assert "run 2/3: FAILED (exit status 1) in 12 s  [1 failed, 4 passed in 2.00s]" in text
    assert "    t.py::x" in text
    assert text.endswith("1 of 3 runs passed (1 not run)")

"""The plain C driver (tests/c/driver.c) over every model's C paths.

The default run compiles the driver against csrc/ and runs it (its own checks plus the
allocation-failure sweeps); the slow run (``--runslow``) runs tests/c/run_valgrind.sh,
valgrind memcheck with ``--leak-check=full`` and every leak kind counted as an error.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_driver_runs_clean(tmp_path: Path) -> None:
    exe = tmp_path / "driver"
    # the library's sources: every csrc/**/*.c but the Python row packer (csrc/common/rows.c,
    # the extension module fast._rows_ext, which needs Python.h)
    sources = sorted(str(p) for p in (ROOT / "csrc").rglob("*.c") if p.name != "rows.c")
    subprocess.run(["gcc", "-std=c99", "-O1", "-ffp-contract=off", "-Wall", "-Wextra",
                    "-Werror", f"-I{ROOT / 'csrc'}", "-o", str(exe),
                    str(ROOT / "tests/c/driver.c"), *sources, "-lm"], check=True)
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "all checks passed" in run.stdout


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("valgrind") is None or shutil.which("gcc") is None,
                    reason="needs valgrind and gcc")
def test_valgrind_memcheck_clean() -> None:
    run = subprocess.run(["bash", str(ROOT / "tests/c/run_valgrind.sh")], capture_output=True,
                         text=True, timeout=1200)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]

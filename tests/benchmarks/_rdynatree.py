"""Run a workload in R's dynaTree from a benchmark script (a helper, not a test).

The benchmarks compare ``fast`` with dynaTree *in the same run*: the same data (written to
a CSV file with 17 significant digits), the same model settings, CPU time measured inside
R (``proc.time()`` user + system, so R's start-up and the CSV reading are not counted).
When R or the package is missing, :func:`available` says so and :data:`INSTALL` says how
to get them; the scripts then fall back to the figures stored in them, labelled as such.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

INSTALL = """\
   dynaTree is not installed, so the figures below are stored ones, not measured now.
   To measure dynaTree in the same run (Debian / Ubuntu):
     apt-get install -y r-base-core r-base-dev
     git clone https://github.com/cran/dynaTree /tmp/dynaTree   # the CRAN sources
     R CMD INSTALL /tmp/dynaTree"""


def available() -> bool:
    """Whether ``Rscript`` runs and ``library(dynaTree)`` loads."""
    if shutil.which("Rscript") is None:
        return False
    probe = subprocess.run(["Rscript", "-e", "suppressMessages(library(dynaTree))"],
                           capture_output=True)
    return probe.returncode == 0


def run(script: str, data: np.ndarray, *args: str) -> list[str]:
    """Run the R ``script`` with the CSV of ``data`` as its first argument, then ``args``.

    Returns the lines the script prints (standard output); raises if R fails.
    """
    with tempfile.TemporaryDirectory() as tmp:
        csv, src = Path(tmp) / "d.csv", Path(tmp) / "run.R"
        np.savetxt(csv, data, delimiter=",", fmt="%.17g")
        src.write_text(script)
        out = subprocess.run(["Rscript", str(src), str(csv), *args], capture_output=True,
                             text=True)
        if out.returncode != 0:
            raise RuntimeError(f"Rscript failed:\n{out.stderr}")
    return [line for line in out.stdout.splitlines() if line.strip()]


def cpu_seconds(script: str, data: np.ndarray, *args: str) -> float:
    """CPU seconds of an R ``script`` whose last output line is the seconds it measured."""
    return float(run(script, data, *args)[-1].split()[-1])

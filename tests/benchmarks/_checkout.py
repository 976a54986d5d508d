"""One measurement in a fresh interpreter importing a given checkout (the ``--against``
of the benchmark scripts): single-threaded BLAS, the checkout first on ``PYTHONPATH``, the
last line of the output read as JSON, and a check that ``fast`` came from that checkout
(the child prints ``fast.__file__`` under ``"file"``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def run_in_checkout(code: str, checkout: Path, *args: str) -> dict[str, Any]:
    """Run ``python -c code *args`` in ``checkout``; its JSON result without ``"file"``."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(checkout), env.get("PYTHONPATH", "")) if p)
    run = subprocess.run([sys.executable, "-c", code, *args], cwd=checkout, env=env,
                         capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise RuntimeError(run.stderr)
    result: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
    file = result.pop("file", None)
    if file is None or not Path(file).resolve().is_relative_to(checkout.resolve()):
        raise SystemExit(f"{checkout}: imported fast from {file}")
    return result

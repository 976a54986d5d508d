"""Run the mutants of :mod:`tests.mutation.mutants` and report which the oracles kill.

For each mutant: copy the package sources (``reference``, ``fast``, ``csrc``, ``tests``,
``pyproject.toml``) into a scratch directory, apply the paired Python and C edits, build
the C library there, and run the mutant's named oracle test against it. The mutant is
*killed* when that test fails, *survives* when it passes. Before any mutant, the same
oracle tests run on an unmutated scratch copy and must pass (else the report would be
meaningless).

Usage (from the repository root; opt-in, not part of the default suite)::

    python -m tests.mutation.run                 # every mutant, 2 at a time
    python -m tests.mutation.run --only ab-laplace --jobs 1
    python -m tests.mutation.run --report mutation-report.md

Exit status 0 when every non-equivalent mutant is killed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.mutation.mutants import MUTANTS, Mutant

ROOT = Path(__file__).resolve().parents[2]
COPIED = ("reference", "fast", "csrc", "tests", "pyproject.toml")


def apply_edits(tree: Path, mutant: Mutant) -> None:
    """Apply the mutant's edits in ``tree``; ValueError if an edit does not match."""
    for path, old, new, count in mutant.edits:
        file = tree / path
        text = file.read_text(encoding="utf-8")
        found = text.count(old)
        if found != count:
            raise ValueError(f"{mutant.id}: {path} holds {found} copies of {old!r}, "
                             f"expected {count}")
        file.write_text(text.replace(old, new), encoding="utf-8")


def scratch_copy(base: Path) -> Path:
    """A copy of the sources without build products."""
    tree = Path(tempfile.mkdtemp(prefix="driftwood-mutant-", dir=base))
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, tree / name, ignore=shutil.ignore_patterns(
                "*.o", "_lib*.so", "_lib.c", "__pycache__", ".pytest_cache"))
        else:
            shutil.copy2(source, tree / name)
    return tree


def build_and_test(tree: Path, killer: str) -> tuple[bool, str]:
    """Build the C library in ``tree`` and run ``killer`` there: (passed, output tail)."""
    env = {**os.environ, "PYTHONPATH": str(tree), "REQUIRE_FAST": "1"}
    build = subprocess.run([sys.executable, "fast/_ffibuild.py"], cwd=tree, env=env,
                           capture_output=True, text=True)
    if build.returncode != 0:
        return False, "build failed: " + build.stderr[-500:]
    test = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                           "-o", "addopts=", "--full", killer], cwd=tree, env=env,
                          capture_output=True, text=True)
    lines = [ln for ln in test.stdout.splitlines() if ln.strip()]
    return test.returncode == 0, lines[-1] if lines else test.stderr[-300:]


def run_mutant(base: Path, mutant: Mutant) -> tuple[Mutant, str, str, float]:
    start = time.perf_counter()
    tree = scratch_copy(base)
    try:
        apply_edits(tree, mutant)
        passed, tail = build_and_test(tree, mutant.killer)
    finally:
        shutil.rmtree(tree, ignore_errors=True)
    if mutant.equivalent:
        verdict = "equivalent"
    else:
        verdict = "SURVIVED" if passed else "killed"
    return mutant, verdict, tail, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", help="mutant ids to run (default: all)")
    parser.add_argument("--jobs", type=int, default=2, help="mutants run at once")
    parser.add_argument("--report", type=Path, help="also write the table (Markdown) here")
    args = parser.parse_args(argv)
    chosen = [m for m in MUTANTS if not args.only or m.id in args.only]
    base = Path(tempfile.mkdtemp(prefix="driftwood-mutation-"))
    try:
        baseline = scratch_copy(base)
        killers = sorted({m.killer.split("::")[0] for m in chosen})
        for killer in killers:
            passed, tail = build_and_test(baseline, killer)
            if not passed:
                print(f"baseline: {killer} fails without any mutant ({tail})")
                return 2
        print(f"baseline: {len(killers)} oracle test file(s) pass on the unmutated code")
        rows = []
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for mutant, verdict, tail, seconds in pool.map(lambda m: run_mutant(base, m),
                                                           chosen):
                print(f"{verdict:>10}  {mutant.id:<28} {seconds:5.1f} s  {tail}", flush=True)
                rows.append((mutant, verdict))
    finally:
        shutil.rmtree(base, ignore_errors=True)
    killed = sum(v == "killed" for _, v in rows)
    equivalent = sum(v == "equivalent" for _, v in rows)
    survived = [m.id for m, v in rows if v == "SURVIVED"]
    summary = (f"{killed} killed, {len(survived)} survived, {equivalent} equivalent, "
               f"of {len(rows)} mutants")
    print(summary)
    if args.report:
        lines = ["| mutant | change | oracle | verdict |", "|---|---|---|---|"]
        lines += [f"| `{m.id}` | {m.what} | `{m.killer}` | {v}"
                  f"{' (' + m.equivalent + ')' if m.equivalent else ''} |" for m, v in rows]
        args.report.write_text("\n".join(lines + ["", summary, ""]), encoding="utf-8")
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())

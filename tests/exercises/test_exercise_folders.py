"""Exercises as folders: the package's families are scanned folders, and an instructor's
folder outside the package (the teaching page's worked example) is listed, started,
checked, hinted and graded with ``--catalog``."""

from __future__ import annotations

import ast
import csv
import json
import shutil
from pathlib import Path

import pytest
from _installed import tree_path

from reference.evaluation.cli import main
from reference.exercises import catalog
from reference.exercises.catalog import FAMILY_MODULES, all_exercises, folder_hints

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "teaching" / "instructor-exercises"
PACKAGE = tree_path("reference/exercises")


@pytest.fixture(autouse=True)
def _no_leftover_catalogs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with the package's exercises only, and leaves it so."""
    monkeypatch.setattr(catalog, "_CATALOGS", [])


def test_every_exercise_module_is_at_most_800_lines() -> None:
    lengths = {p.relative_to(PACKAGE).as_posix(): len(p.read_text().splitlines())
               for p in PACKAGE.rglob("*.py")}
    assert {name: n for name, n in lengths.items() if n > 800} == {}


def test_each_family_folder_holds_one_folder_per_exercise() -> None:
    """Scanning finds every exercise folder, each with its four files; the skeleton is
    the file ``start`` writes and parses; the hints are the folder's text."""
    seen = 0
    for family in FAMILY_MODULES:
        folder = PACKAGE / family.rsplit(".", 1)[1]
        subs = sorted(p for p in folder.iterdir() if (p / "exercise.py").is_file())
        seen += len(subs)
        for sub in subs:
            for name in ("skeleton.py", "hints.txt", "statement.md", "__init__.py"):
                assert (sub / name).is_file(), sub / name
            ast.parse((sub / "skeleton.py").read_text())
    exercises = all_exercises()
    assert seen == len(exercises)
    for ex in exercises:
        sub = PACKAGE / ex.family / ex.name.replace("-", "_")
        assert ex.skeleton == (sub / "skeleton.py").read_text()
        assert ex.hints == folder_hints(str(sub / "exercise.py")) and len(ex.hints) >= 2
        assert ex.statement.startswith(f"# {ex.name}: ")


def test_a_folder_missing_from_the_order_is_refused(tmp_path: Path) -> None:
    package = tmp_path / "fam"
    shutil.copytree(PACKAGE / "determinism" / "rng_uniform", package / "rng_uniform")
    (package / "__init__.py").write_text("")
    import sys
    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(ValueError, match=r"folders \['rng_uniform'\] are not in its ORDER"):
            catalog.load_family("fam", ())
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("fam", None)


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    if argv[0] in ("check", "grade") and "--timeout" not in argv:
        # a time limit this test does not measure: far beyond what a loaded machine needs
        argv = (*argv, "--timeout", "600")
    status = main(["exercise", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_outside_folder_is_listed_started_checked_hinted_and_graded(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    option = ("--catalog", str(EXAMPLE))
    status, out, _ = _cli(capsys, "list", *option)
    assert status == 0 and "course-running-mean" in out and "course: 1 exercise, 5 minutes" in out
    catalog._CATALOGS.clear()   # a new command: the folder is not listed without the option
    status, out, _ = _cli(capsys, "list")
    assert "course-running-mean" not in out

    work = tmp_path / "work"
    status, out, _ = _cli(capsys, "start", "course-running-mean", "--dir", str(work), *option)
    skeleton = work / "course_running_mean.py"
    assert status == 0 and skeleton.read_text() == (
        EXAMPLE / "course_running_mean" / "skeleton.py").read_text()
    status, out, _ = _cli(capsys, "check", "course-running-mean", str(skeleton), *option)
    assert status == 1 and "NOT-IMPLEMENTED" in out

    skeleton.write_text("def running_mean(mean, n, x):\n    return mean + (x - mean) / n\n")
    status, out, _ = _cli(capsys, "check", "course-running-mean", str(skeleton), *option,
                          "--json")
    record = json.loads(out)
    assert status == 1 and record["status"] == "raises"          # n = 0: ZeroDivisionError
    skeleton.write_text("def running_mean(mean, n, x):\n"
                        "    return mean + (x - mean) / max(n, 1)\n")
    status, out, _ = _cli(capsys, "check", "course-running-mean", str(skeleton), *option,
                          "--json")
    record = json.loads(out)
    assert status == 1 and record["diagnosis"]["id"] == "course-divides-by-n"

    status, out, _ = _cli(capsys, "hint", "course-running-mean", "--level", "3", *option)
    assert status == 0 and "mean + (x - mean) / (n + 1)" in out and "the last hint" in out

    klass = tmp_path / "class"
    (klass / "ada").mkdir(parents=True)
    (klass / "ada" / "course_running_mean.py").write_text(
        "def running_mean(mean, n, x):\n    return (mean * n + x) / (n + 1)\n")
    (klass / "bob").mkdir()
    (klass / "bob" / "course_running_mean.py").write_text(
        "def running_mean(mean, n, x):\n    return mean + (x - mean) / (n + 1)\n")
    grades = tmp_path / "grades.csv"
    status, out, _ = _cli(capsys, "grade", str(klass), "--csv", str(grades), *option)
    assert status == 0
    rows = list(csv.reader(grades.open()))
    assert rows == [["student", "course-running-mean", "passed"],
                    ["ada", "failed:course-sum-overflows", "0"],
                    ["bob", "passed", "1"]]


def test_a_name_already_taken_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    shutil.copytree(PACKAGE / "determinism" / "rng_uniform", folder / "rng_uniform")
    with pytest.raises(ValueError, match="already taken: rng-uniform"):
        catalog.add_catalog(folder)
    assert catalog.catalogs() == []

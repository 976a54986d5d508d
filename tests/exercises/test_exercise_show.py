"""``driftwood exercise show``, the commands ``start`` prints and the "read first" pointers,
as a user of the installed package (no clone, no built documentation) follows them."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from reference.evaluation.cli import main
from reference.evaluation.notebooks import section_pointer
from reference.exercises import all_exercises, get
from reference.exercises import report as report_module

ROOT = Path(__file__).resolve().parents[2]
INSTRUCTOR = ROOT / "docs" / "teaching" / "instructor-exercises"


@pytest.fixture
def no_docs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """As in an installed package: no documentation address, no built pages."""
    monkeypatch.delenv(report_module.DOCS_URL_VARIABLE, raising=False)
    monkeypatch.setattr(report_module, "BUILT_DOCS", tmp_path / "no-docs-built")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("name", [ex.name for ex in all_exercises()])
def test_show_prints_the_statement_and_where_to_read(
        name: str, no_docs: None, capsys: pytest.CaptureFixture[str]) -> None:
    """Every exercise: its statement (the equation the skeleton states), the section to
    read as an installed package finds it, and the commands to start and check."""
    exercise = get(name)
    status, out, _ = run(capsys, "exercise", "show", name)
    assert status == 0
    body = exercise.statement.split("Tutorial:")[0]
    assert body.strip() and body.strip() in out
    assert "tutorials/" not in out                  # no path that exists only in a clone
    title = section_pointer(exercise.anchor)
    assert title.startswith('section "') and f"read first: {title}" in out
    assert f"driftwood exercise start {name}\n" in out
    assert f"driftwood exercise check {name} {name.replace('-', '_')}.py\n" in out


def test_show_of_an_unknown_exercise_is_a_usage_error(
        capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "exercise", "show", "no-such-exercise")
    assert status == 2 and out == "" and "no exercise 'no-such-exercise'" in err


def test_the_read_first_pointer_resolves_without_a_clone(
        no_docs: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``start`` names the section and the command that writes its tutorial; that command
    works, and the notebook it writes holds the section."""
    status, out, _ = run(capsys, "exercise", "start", "rng-below", "--dir", str(tmp_path))
    assert status == 0
    pointer = out.split("the derivation to read first: ", 1)[1].strip()
    assert "tutorials/01_determinism.md" not in out
    assert pointer == section_pointer(get("rng-below").anchor)
    command = pointer.split("`")[1]
    assert command == "driftwood tutorial get 01_determinism"
    assert main([*shlex.split(command)[1:], "--dir", str(tmp_path)]) == 0
    notebook = json.loads((tmp_path / "01_determinism.ipynb").read_text(encoding="utf-8"))
    markdown = "".join("".join(c["source"]) for c in notebook["cells"]
                       if c["cell_type"] == "markdown")
    title = pointer.split('"')[1]
    assert f"## {title}" in markdown


def test_every_exercise_anchor_is_a_section_of_a_shipped_tutorial() -> None:
    for exercise in all_exercises():
        assert section_pointer(exercise.anchor).startswith('section "'), exercise.anchor
    assert section_pointer("tutorials/01_determinism.md#no-such-heading").startswith(
        "tutorial 01_determinism (")


def test_start_with_a_catalog_prints_a_check_command_that_works(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The printed command keeps ``--catalog`` (and quotes a folder with a space): run as
    printed it checks the skeleton (exit 1: not yet written, where a usage error, such as
    an exercise the command does not know, would be 2)."""
    work = tmp_path / "my work"
    status, out, _ = run(capsys, "exercise", "start", "course-running-mean", "--dir", str(work),
                         "--catalog", str(INSTRUCTOR))
    assert status == 0
    line = next(x.strip() for x in out.splitlines() if x.strip().startswith("driftwood "))
    words = shlex.split(line)
    assert words[:3] == ["driftwood", "exercise", "check"] and "--catalog" in words
    assert words[words.index("--catalog") + 1] == str(INSTRUCTOR)
    assert run(capsys, *words[1:], "--no-stream")[0] == 1

"""``driftwood exercise list|start|check|hint``, run in-process; exit statuses 0 / 1 / 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reference.evaluation.cli import main
from reference.exercises import all_exercises, get

from .test_determinism_solutions import SOLUTIONS

PATIENT = "600"
"""``--timeout`` of every check whose test is not about the time limit: far beyond what a
correct check needs even on a loaded machine (seconds), so that only a hang runs out."""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    if argv[0] == "check" and "--timeout" not in argv:
        argv = (*argv, "--timeout", PATIENT)
    status = main(["exercise", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def check_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    status, out, _ = run(capsys, "check", *argv, "--json")
    return status, json.loads(out)


def test_list_shows_every_exercise_in_100_columns(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "list")
    assert status == 0
    lines = out.splitlines()
    assert all(len(line) <= 100 for line in lines)
    exercises = all_exercises()
    names = [line.split()[0] for line in lines[1:] if line.startswith("  ") and line[2] != " "]
    assert names == [ex.name for ex in exercises]
    assert "determinism: 5 exercises, 60 minutes" in lines
    words = " ".join(out.split())
    for ex in exercises:   # every row: name, paper tag, minutes, the whole title (wrapped)
        assert f"{ex.name} {ex.tag.split(';')[0].strip()} {ex.minutes} {ex.title}" in words


def test_start_then_check_the_skeleton(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, "start", "rng-uniform")
    assert status == 0 and "rng_uniform.py" in out
    assert "the derivation to read first: " in out and (   # the built page, or the section
        "#a-double-uniform-on-0-1" in out or 'section "A double uniform on [0, 1)"' in out)
    assert (tmp_path / "rng_uniform.py").read_text() == get("rng-uniform").skeleton
    status, out, _ = run(capsys, "check", "rng-uniform")        # the default file name
    assert status == 1 and "NOT-IMPLEMENTED" in out and "NotImplementedError" in out
    status, record = check_json(capsys, "rng-uniform", "rng_uniform.py")
    assert status == 1 and record["status"] == "not-implemented"


def test_start_refuses_to_overwrite_without_force(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    homework = tmp_path / "hw"
    assert run(capsys, "start", "rng-below", "--dir", str(homework))[0] == 0
    target = homework / "rng_below.py"
    target.write_text("# my work\n")
    status, _, err = run(capsys, "start", "rng-below", "--dir", str(homework))
    assert status == 2 and "--force" in err and target.read_text() == "# my work\n"
    assert run(capsys, "start", "rng-below", "--dir", str(homework), "--force")[0] == 0
    assert target.read_text() == get("rng-below").skeleton


@pytest.mark.parametrize("name", ["rng-xoshiro-step", "rng-below"])
def test_check_a_correct_file_passes_with_exit_0(name: str, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mine.py"
    path.write_text(SOLUTIONS[name][0])
    status, record = check_json(capsys, name, str(path))
    assert status == 0 and record["passed"] and record["status"] == "passed"
    assert record["stream"]["steps"] > 0 and record["stream_divergence"] is None
    status, out, _ = run(capsys, "check", name, str(path), "--no-stream")
    assert status == 0 and "PASSED" in out and "stream" not in out


def test_check_a_typical_mistake_names_it_and_the_step(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRIFTWOOD_DOCS_URL", "https://docs.example.org/driftwood/")
    path = tmp_path / "rng_uniform.py"
    path.write_text("def uniform_from_word(word):\n    return word / 2**64\n")
    status, out, _ = run(capsys, "check", "rng-uniform", str(path))
    assert status == 1
    assert "MISMATCH" in out and "divided by 2**64" in out
    assert ("reread: https://docs.example.org/driftwood/tutorials/01_determinism.html"
            "#a-double-uniform-on-0-1") in out
    assert "diverges from the fast DynamicTreeRegressor at step" in out or (
        "unplugged reference" in out)


def test_check_a_file_that_does_not_import(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "broken.py"
    path.write_text("def uniform_from_word(word)\n    return 0.0\n")
    status, out, _ = run(capsys, "check", "rng-uniform", str(path))
    assert status == 1 and "does not import: SyntaxError" in out and "broken.py" in out
    path.write_text("import no_such_module_for_driftwood\n")
    status, record = check_json(capsys, "rng-uniform", str(path))
    assert status == 1 and record["status"] == "import-error"
    assert "ModuleNotFoundError" in record["message"]


def test_check_a_file_without_the_function(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "other.py"
    path.write_text("def uniform(word):\n    return 0.0\n")
    status, record = check_json(capsys, "rng-uniform", str(path))
    assert status == 1 and record["status"] == "import-error"
    assert "defines no function uniform_from_word" in record["message"]


def test_check_wrong_signature_and_raising_function(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "sig.py"
    path.write_text("def uniform_from_word():\n    return 0.0\n")
    status, record = check_json(capsys, "rng-uniform", str(path))
    assert status == 1 and record["status"] == "wrong-signature"
    path.write_text("def uniform_from_word(word):\n    return [0.0][word]\n")
    status, out, _ = run(capsys, "check", "rng-uniform", str(path))
    assert status == 1 and "RAISES" in out and "IndexError" in out
    assert "sig.py" in out and "return [0.0][word]" in out


def test_endless_loop_is_stopped_where_it_loops(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "loop.py"
    path.write_text("def below(n, words):\n    while n > 1:\n        pass\n    return 0, 1\n")
    status, record = check_json(capsys, "rng-below", str(path), "--timeout", "1")
    assert status == 1 and record["status"] == "timeout"
    assert "longer than 1 s" in record["message"] and "loop.py" in record["traceback"]
    assert "while n > 1" in record["traceback"] or "    pass\n" in record["traceback"]


def test_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "check", "rng-nothing", str(tmp_path / "x.py"))
    assert status == 2 and "no exercise 'rng-nothing'" in err and "rng-uniform" in err
    status, _, err = run(capsys, "hint", "rng-unifrom")
    assert status == 2 and "did you mean rng-uniform" in err
    status, _, err = run(capsys, "check", "rng-uniform", str(tmp_path / "missing.py"))
    assert status == 2 and "no file" in err
    assert run(capsys, "start", "rng-nothing", "--dir", str(tmp_path))[0] == 2
    assert run(capsys, "hint", "rng-nothing")[0] == 2
    assert run(capsys, "hint", "rng-uniform", "--level", "99")[0] == 2
    with pytest.raises(SystemExit) as exc:
        main(["exercise"])
    assert exc.value.code == 2
    capsys.readouterr()


def test_hint_levels(capsys: pytest.CaptureFixture[str]) -> None:
    hints = get("rng-below").hints
    status, out, _ = run(capsys, "hint", "rng-below")
    assert status == 0 and hints[0] in out and f"hint 1/{len(hints)}" in out
    status, out, _ = run(capsys, "hint", "rng-below", "--level", "2")
    assert status == 0 and hints[1] in out and hints[0] not in out


@pytest.mark.parametrize("action", ["list", "start", "check", "hint", "grade"])
def test_every_help_has_an_example(action: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["exercise", action, "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "Examples:" in out and f"driftwood exercise {action}" in out


def test_a_mismatch_the_stream_does_not_reach_does_not_read_as_a_pass(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Wrong on one edge case the stream never meets: the stream line says so."""
    path = tmp_path / "rng_uniform.py"
    path.write_text("def uniform_from_word(word):\n"
                    "    if word == 2**64 - 1:\n"
                    "        return 0.5\n"
                    "    return (word >> 11) * 2.0**-53\n")
    status, out, _ = run(capsys, "check", "rng-uniform", str(path))
    assert status == 1 and "MISMATCH" in out
    stream_line = next(line for line in out.splitlines() if line.startswith("  stream:"))
    assert "never reach a case where your function is wrong" in stream_line
    assert "not passed" in stream_line and " agrees with " not in stream_line

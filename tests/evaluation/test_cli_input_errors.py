"""Every input error of the command line: one line naming the problem and the next step,
exit status 2, never a traceback (bad CSV files, bad options, bad grid specs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reference.evaluation.cli import main

BASE = '[[models]]\nname = "mean"\n[[streams]]\nname = "parabola"\nn = 50\n'

CSV_FILES: dict[str, bytes] = {
    "empty": b"",
    "ragged": b"a,b,y\n1,2,3\n4,5\n",
    "not-utf8": b"a,b,y\n1,2,\xff\xfe\n",
    "semicolons": b"a;b;y\n1;2;3\n4;5;6\n",
    "nan-target": b"a,b,y\n1,2,nan\n4,5,6\n",
    "infinite-feature": b"a,b,y\n1,inf,3.5\n4,5,6.5\n7,8,9.5\n",
}

GRID_SPECS: dict[str, bytes] = {
    "grid-not-a-table": b'[[models]]\nname = "sgt"\ngrid = 5\n[[streams]]\nname = "friedman"\n'
                        b"n = 50\n",
    "params-a-string": b'[[models]]\nname = "sgt"\nparams = "lam"\n[[streams]]\n'
                       b'name = "friedman"\nn = 50\n',
    "rate-text": b'[experiment]\nrate = "abc"\n' + BASE.encode(),
    "not-utf8": b'[experiment]\nname = "\xff\xfe"\n' + BASE.encode(),
    "deep-nesting": b"x = " + b"[" * 100_000 + b"]" * 100_000 + b"\n",
    "huge-repetitions": b"[experiment]\nrepetitions = 1000000000000\n" + BASE.encode(),
    "huge-product": b'[[models]]\nname = "sgt"\ngrid = { '
                    + b", ".join(f"{k} = [{', '.join(map(str, range(2, 102)))}]".encode()
                                 for k in ("lam", "gamma", "delta", "bins", "grace_period"))
                    + b' }\n[[streams]]\nname = "friedman"\nn = 50\n',
}


def _one_line_error(capsys: pytest.CaptureFixture[str], status: int) -> str:
    err = capsys.readouterr().err
    assert status == 2, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("driftwood: error: "), err
    assert "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize("name", sorted(CSV_FILES))
def test_a_bad_csv_stream_is_one_line(name: str, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / f"{name}.csv"
    path.write_bytes(CSV_FILES[name])
    status = main(["run", "--model", "mean", "--stream", f"csv:{path}", "--task", "regression",
                   "--no-progress"])
    line = _one_line_error(capsys, status)
    assert f"{name}.csv" in line or "finite" in line


@pytest.mark.parametrize("name", sorted(GRID_SPECS))
def test_a_bad_grid_spec_is_one_line_before_any_cell(name: str, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / f"{name}.toml"
    path.write_bytes(GRID_SPECS[name])
    status = main(["grid", str(path), "--out", str(tmp_path / "out"), "--no-progress"])
    _one_line_error(capsys, status)
    assert not (tmp_path / "out").exists()


def test_an_unknown_metric_is_refused_before_the_run(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["run", "--model", "mean", "--stream", "parabola", "--n", "50",
                   "--metric", "nosuch", "--no-progress"])
    assert "choose one of rmse, mae" in _one_line_error(capsys, status)


def test_a_stream_longer_than_memory_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["run", "--model", "mean", "--stream", "parabola", "--n", "100000000000",
                   "--no-progress"])
    assert "smaller --n" in _one_line_error(capsys, status)


def test_data_fetch_from_an_empty_directory_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["data", "fetch", "elec_moa", "--from", str(tmp_path), "--no-progress"])
    _one_line_error(capsys, status)


def test_metrics_may_be_one_string(tmp_path: Path) -> None:
    from reference.evaluation.grid.spec import load_experiment

    path = tmp_path / "one.toml"
    path.write_text('[experiment]\nmetrics = "mae"\n' + BASE)
    assert load_experiment(path).metrics == ["mae"]


def test_task_regression_reads_whole_number_targets_as_regression(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "whole.csv"
    path.write_text("a,y\n" + "".join(f"{i},{i % 4}\n" for i in range(60)))
    assert main(["run", "--model", "mean", "--stream", f"csv:{path}", "--no-progress"]) == 2
    assert "is classification" in capsys.readouterr().err
    assert main(["run", "--model", "mean", "--stream", f"csv:{path}", "--task", "regression",
                 "--no-progress"]) == 0
    assert "mae" in capsys.readouterr().out


# ---- issue 41, second round: very wide files, a closed stdout, every subcommand -----------

WIDE = 2_000_000


def _wide_csv(path: Path, header: bool) -> Path:
    names = ",".join(f"c{i}" for i in range(WIDE))
    values = ",".join("0.5" for _ in range(WIDE))
    path.write_text((names + "\n" if header else "a,b,y\n") + values + "\n")
    return path


@pytest.mark.parametrize("model", ["mean", "sgt"])
@pytest.mark.parametrize("header", [True, False], ids=["wide-header", "narrow-header"])
def test_a_csv_row_of_two_million_columns_is_one_line_or_runs(
        model: str, header: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Pins the "two million columns" CSV case (on 469477c ``sgt`` ended in a
    ``MemoryError`` traceback from ``sgt_model_new``): one row of 2,000,000 values, under a
    header as wide or a narrow one, either runs (the running mean) or is one
    ``driftwood: error:`` line (SGT: a leaf would need over 2**31 / 64 cells)."""
    path = _wide_csv(tmp_path / "wide.csv", header)
    status = main(["run", "--model", model, "--stream", f"csv:{path}", "--task", "regression",
                   "--no-progress"])
    if status == 0:
        assert "Traceback" not in capsys.readouterr().err
    else:
        line = _one_line_error(capsys, status)
        assert "fewer columns" in line or "wide.csv" in line


@pytest.mark.parametrize("command", [["exercise", "list"], ["list"], ["tutorial", "list"],
                                     ["data", "list"],
                                     ["run", "--model", "mean", "--stream", "parabola",
                                      "--n", "50", "--no-progress"]])
def test_a_stdout_closed_by_its_reader_ends_quietly(command: list[str]) -> None:
    """Pins ``driftwood exercise list | head`` (a ``BrokenPipeError`` traceback on
    469477c; on the first round's branch a misleading "fix the input" line): the read end
    of stdout is closed before the command writes, and the command ends with status 141
    (128 + SIGPIPE) and nothing on stderr, as the Python docs' note on SIGPIPE advises."""
    import os
    import subprocess
    import sys

    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run([sys.executable, "-m", "reference", *command], stdout=write_end,
                              stderr=subprocess.PIPE, text=True, timeout=300,
                              cwd=Path(__file__).resolve().parents[2])
    finally:
        os.close(write_end)
    assert done.returncode == 141, done.stderr
    assert done.stderr == ""


def _subcommands() -> list[list[str]]:
    """Every command path of the parser (``run``, ``data``, ``exercise list``, ...)."""
    import argparse

    from reference.evaluation.cli import build_parser

    def walk(parser: argparse.ArgumentParser, path: list[str]) -> list[list[str]]:
        out = [path] if path else []
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    out += walk(child, [*path, name])
        return out

    return walk(build_parser(), [])


SUBCOMMANDS = _subcommands()
DEFAULT_WORKLOADS = (["run"], ["compare"])
"""Commands whose no-argument form is a documented default run (50,000 rows of SGT; a
1,000-row comparison): too long for this sweep, covered by the tests of those commands."""


def _no_traceback(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run ``main(argv)`` in this process: any exception but argparse's ``SystemExit``
    propagates and fails the test (it would be a traceback)."""
    try:
        status = main(argv)
    except SystemExit as exit_:
        status = int(exit_.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return status, out, err


def test_the_sweep_sees_every_subcommand() -> None:
    names = {" ".join(path) for path in SUBCOMMANDS}
    assert {"run", "compare", "list", "data", "grid", "exercise", "exercise list",
            "figures", "tutorial", "tutorial get"} <= names


@pytest.mark.parametrize("path", SUBCOMMANDS, ids=" ".join)
def test_every_subcommand_help_bad_option_and_no_arguments(
        path: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``--help`` (status 0, a usage text), an unknown option (status 2, the last stderr
    line an error) and, but for the default workloads, no arguments (status 0 or 2, at
    most a usage and one error line): never a traceback."""
    monkeypatch.chdir(tmp_path)         # whatever a command writes stays here
    status, out, _ = _no_traceback([*path, "--help"], capsys)
    assert status == 0 and "usage:" in out
    status, _, err = _no_traceback([*path, "--no-such-option"], capsys)
    assert status == 2
    last = err.strip().splitlines()[-1]
    assert last.startswith("driftwood") and "error:" in last, err
    if path in DEFAULT_WORKLOADS:
        return
    status, _, err = _no_traceback(list(path), capsys)
    assert status in (0, 2), err
    if status == 2:
        errors = [line for line in err.splitlines() if "error:" in line]
        assert len(errors) == 1, err


# ---- issue 41, round 3: a header wider or narrower than its rows --------------------------

WIDTH_MISMATCH: dict[str, tuple[bytes, int, int, int]] = {
    # name: (file, line named, header width, row width)
    "wide-header": (",".join(f"c{i}" for i in range(WIDE)).encode() + b"\n1,2,3\n4,5,6\n",
                    2, WIDE, 3),
    "narrow-header": (b"a,y\n1,2,3\n4,5,6\n", 2, 2, 3),
    "blank-lines-first": (b"a,b,c,y\n\n# a comment\n1,2,3\n4,5,6\n", 4, 4, 3),
}


@pytest.mark.parametrize("name", sorted(WIDTH_MISMATCH))
def test_a_header_and_rows_of_different_widths_is_one_line(
        name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Pins the header/row width mismatch (on 469477c a 2,000,000-name header over
    3-column rows ran without complaint): one ``driftwood: error:`` line naming the file,
    the first data line and both widths."""
    data, line_no, names, width = WIDTH_MISMATCH[name]
    path = tmp_path / f"{name}.csv"
    path.write_bytes(data)
    status = main(["run", "--model", "mean", "--stream", f"csv:{path}", "--task", "regression",
                   "--no-progress"])
    line = _one_line_error(capsys, status)
    assert f"{name}.csv, line {line_no}:" in line
    assert f"header has {names:,} columns" in line and f"rows have {width:,}" in line


@pytest.mark.parametrize("name", sorted(WIDTH_MISMATCH))
def test_the_loader_refuses_a_header_and_rows_of_different_widths(
        name: str, tmp_path: Path) -> None:
    from reference.evaluation.datasets.real import load_csv

    data, line_no, names, width = WIDTH_MISMATCH[name]
    (tmp_path / f"{name}.csv").write_bytes(data)
    with pytest.raises(ValueError, match=f"line {line_no}: the header has {names:,} columns "
                                         f"but the rows have {width:,}"):
        load_csv(name, data_dir=tmp_path)


def test_a_header_as_wide_as_its_rows_loads(tmp_path: Path) -> None:
    """The check refuses only a mismatch: quoted names holding commas count once."""
    from reference.evaluation.datasets.real import load_csv

    (tmp_path / "ok.csv").write_bytes(b'"x, first",b,y\n# note\n\n1,2,3.5\n4,5,6.5\n')
    X, y = load_csv("ok", data_dir=tmp_path)
    assert X.tolist() == [[1.0, 2.0], [4.0, 5.0]] and y.tolist() == [3.5, 6.5]


def test_a_ragged_row_is_named_by_its_line_and_widths(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A row narrower than the rows before it: the line (blank and comment lines counted
    as the file has them) and both widths, not numpy's "non-numeric value ... use
    `usecols`" (469477c and the round before)."""
    path = tmp_path / "ragged.csv"
    path.write_bytes(b"a,b,y\n1,2,3\n\n# note\n4,5,6\n7,8\n")
    status = main(["run", "--model", "mean", "--stream", f"csv:{path}", "--task", "regression",
                   "--no-progress"])
    line = _one_line_error(capsys, status)
    assert "ragged.csv, line 6: a row of 2 columns after rows of 3" in line
    assert "non-numeric" not in line and "usecols" not in line

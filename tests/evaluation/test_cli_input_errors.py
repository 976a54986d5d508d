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

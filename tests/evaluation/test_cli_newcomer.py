"""The ``driftwood`` command line as a new user meets it: defaults that finish, progress off
a terminal, Ctrl-C, missing extras, errors that say what to do, tables within 100 columns,
examples in every ``--help``."""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from _installed import PACKAGE_PARENT
from _timing import CHILD_TIMEOUT

from conftest import require_fast
from reference.evaluation import catalog
from reference.evaluation.baselines import NearestNeighbours
from reference.evaluation.cli import build_parser, main
from reference.evaluation.cli import compare as compare_module
from reference.evaluation.cli import run as run_module
from reference.evaluation.cli._output import WIDTH, columns, table, with_examples
from reference.evaluation.datasets import sea
from reference.evaluation.prequential import ProgressBar, prequential

ROOT = Path(__file__).resolve().parents[2]

TINY_GRID = """
[experiment]
name = "tiny"
seed = 3
repetitions = 2
backend = "reference"
metrics = ["mae"]

[[models]]
name = "mean"

[[models]]
name = "sgt"
grid = { lam = [0.1, 0.5, 1.0, 2.0] }
params = { warmup = 20, grace_period = 50 }

[[streams]]
name = "friedman"
n = 200

[[streams]]
name = "parabola"
n = 200
"""
"""A grid of 20 small cells, each a fraction of a second."""


def _widest(text: str) -> int:
    return max((len(line) for line in text.splitlines()), default=0)


def _commands() -> dict[str, argparse.ArgumentParser]:
    """The subcommands' parsers, by name."""
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("driftwood has no subcommands")


# ---------------------------------------------------------------- Ctrl-C

ANNOUNCE_AND_RUN = r"""
import runpy, signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)  # also as a background job
from reference.evaluation.prequential import progress
init, update = progress.ProgressBar.__init__, progress.ProgressBar.update
outer = []
def first_bar(bar, *args, **kwargs):        # the command's own bar is the first one made
    init(bar, *args, **kwargs)              # (a grid's cells make their own inside it)
    if not outer:
        outer.append(bar)
def announce(bar, steps=1):                 # say "started" when its first step is done
    update(bar, steps)
    if bar is not outer[0]:
        return
    if not getattr(bar, "announced", False):
        bar.announced = True
        print("started", flush=True)
    else:                                   # later steps slowed, so that Ctrl-C always
        time.sleep(0.05)                    # comes before the end, however fast the machine
progress.ProgressBar.__init__ = first_bar
progress.ProgressBar.update = announce
sys.argv = ["driftwood", *sys.argv[1:]]
runpy.run_module("reference", run_name="__main__")     # python -m reference ...
"""
"""Runs ``python -m reference ARGS`` and prints "started" on stdout after the first step
(row or cell), with Python's own Ctrl-C handler (which a child started with SIGINT ignored
would not get)."""


def _interrupt(args: list[str], cwd: Path) -> tuple[int, list[str], str]:
    """Start the command, SIGINT it after its first step; (status, stderr lines, stdout)."""
    child = subprocess.Popen(
        [sys.executable, "-c", ANNOUNCE_AND_RUN, *args], cwd=cwd, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(PACKAGE_PARENT)},
    )
    assert child.stdout is not None
    first = child.stdout.readline()
    assert first == "started\n", (first, child.communicate(timeout=CHILD_TIMEOUT))
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=CHILD_TIMEOUT)
    # progress lines ("[...] k/n rows, ...") come only every 5 s; the rest is the message
    message = [line for line in err.splitlines() if not line.startswith("[")]
    return child.returncode, message, out


@pytest.mark.parametrize(
    ("args", "kept"),
    [
        (["run", "--model", "sgt", "--backend", "reference", "--n", "100000"],
         "nothing was kept (a run is not saved)"),
        (["compare", "--model", "sgt", "--n", "100000"],
         "nothing was kept (a comparison is not saved)"),
    ],
)
def test_ctrl_c_ends_a_run_with_one_line_and_status_130(args: list[str], kept: str,
                                                        tmp_path: Path) -> None:
    if args[0] == "compare":
        require_fast()
    status, message, out = _interrupt(args, tmp_path)
    assert status == 130
    assert len(message) == 1, message
    assert message[0].startswith("driftwood: interrupted: stopped after ")
    assert kept in message[0] and "rerun with a smaller --n" in message[0]
    assert "Traceback" not in out


def test_ctrl_c_in_a_grid_names_the_saved_cells_and_the_command_that_resumes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pandas")
    (tmp_path / "tiny.toml").write_text(TINY_GRID)
    status, message, _ = _interrupt(["grid", "tiny.toml", "--engine", "serial"], tmp_path)
    assert status == 130 and len(message) == 1, message
    saved = len(list((tmp_path / "grid-tiny" / "cells").glob("*.csv")))
    assert 1 <= saved < 20
    head, command = message[0].split("; resume with: ")
    assert head == f"driftwood: interrupted: {saved} of 20 cells are saved in grid-tiny/cells"
    assert shlex.split(command) == ["driftwood", "grid", "tiny.toml", "--out", "grid-tiny",
                                    "--engine", "serial"]
    # the printed command finishes the grid
    monkeypatch.chdir(tmp_path)
    assert main(shlex.split(command)[1:] + ["--no-progress"]) == 0
    assert "20 cells" in capsys.readouterr().out
    assert len(list((tmp_path / "grid-tiny" / "cells").glob("*.csv"))) == 20


def test_ctrl_c_that_no_command_caught_still_ends_with_one_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def stopped(*args: object) -> None:
        raise KeyboardInterrupt  # e.g. while the stream is generated

    monkeypatch.setattr(catalog, "make_stream", stopped)
    assert main(["run", "--model", "mean"]) == 130
    assert capsys.readouterr().err == "driftwood: interrupted: nothing was kept\n"


# ---------------------------------------------------------------- progress off a terminal


def test_progress_lines_appear_when_stderr_is_not_a_terminal(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(ProgressBar, "INTERVAL", 0.0)  # a line at every step
    assert main(["run", "--model", "mean", "--n", "50"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("[mean on friedman] 1/50 rows, ")
    assert "elapsed, ~" in lines[0] and lines[0].endswith(" left")
    assert lines[-1].startswith("[mean on friedman] 50/50 rows, ")
    assert main(["run", "--model", "mean", "--n", "50", "--no-progress"]) == 0
    assert capsys.readouterr().err == ""


def test_progress_lines_of_compare_and_grid(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    require_fast()
    pytest.importorskip("pandas")
    monkeypatch.setattr(ProgressBar, "INTERVAL", 0.0)
    assert main(["compare", "--n", "20"]) == 0
    assert "[compare sgt] 10/20 rows, " in capsys.readouterr().err
    (tmp_path / "tiny.toml").write_text(TINY_GRID)
    out = tmp_path / "out"
    assert main(["grid", str(tmp_path / "tiny.toml"), "--out", str(out), "--engine",
                 "serial"]) == 0
    assert "[grid tiny] 10/20 cells, " in capsys.readouterr().err


# ---------------------------------------------------------------- defaults


def test_bare_compare_runs_the_default_model(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    require_fast()
    monkeypatch.setattr(compare_module, "DEFAULT_ROWS", 30)  # the default, made short
    assert main(["compare"]) == 0
    out = capsys.readouterr().out
    assert "sgt (SGTRegressor)" in out and "n=30" in out and "30/30" in out


def test_slow_models_run_on_fewer_rows_by_default() -> None:
    assert compare_module.default_rows("dynatree") == 200
    assert compare_module.default_rows("dynatree-clf") == 200
    assert compare_module.default_rows("abacoc") == compare_module.DEFAULT_ROWS == 1000
    assert run_module.default_rows("nn3") == run_module.default_rows("dynatree") == 10000
    assert run_module.default_rows("sgt") == run_module.DEFAULT_ROWS == 50000
    for command in ("run", "compare"):
        assert build_parser().parse_args([command]).n is None  # decided per model
    text = " ".join(_commands()["compare"].format_help().split())
    assert "default 1000; 200 for dynatree and dynatree-clf" in text
    text = " ".join(_commands()["run"].format_help().split())
    assert "default 50000; 10000 for nn3, dynatree and dynatree-clf" in text


def test_run_uses_the_shorter_default_of_a_slow_model(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(run_module.ROWS, "nn3", 120)
    assert main(["run", "--model", "nn3"]) == 0
    assert "sea (n=120, seed=0)" in capsys.readouterr().out


# ---------------------------------------------------------------- errors that say what next


def test_grid_without_the_grid_extra_names_it(monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)  # `import pandas` fails
    assert main(["grid", "ag13-aba"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("driftwood: error: `driftwood grid` needs pandas, of the optional ")
    assert "pip install -e \".[grid]\"" in err and "Traceback" not in err
    assert err.count("\n") == 1


def test_missing_extra_in_a_fresh_interpreter() -> None:
    """As a user without pandas sees it: every ``import pandas`` fails from the start."""
    blocker = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('pandas', 'joblib', 'distributed'):\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}')\n"
        "sys.meta_path.insert(0, Block())\n"
        "from reference.evaluation.cli import main\n"
        "sys.exit(main(['grid', 'ag13-aba', '--engine', 'dask']))\n"
    )
    done = subprocess.run([sys.executable, "-c", blocker], capture_output=True, text=True,
                          timeout=CHILD_TIMEOUT, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(PACKAGE_PARENT)})
    assert done.returncode == 2
    assert "needs pandas, distributed, of the optional dependencies 'grid'" in done.stderr
    assert "pip install -e \".[grid]\"" in done.stderr


def test_usage_errors_offer_the_choices_that_fit(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--model", "mean", "--stream", "sea"]) == 2
    err = capsys.readouterr().err
    assert "choose a regression stream (friedman, friedman10, " in err
    assert "or a classification model (majority, nn3" in err
    assert main(["run", "--model", "mean", "-p", "window=3"]) == 2
    assert "RunningMean has no parameter window; its parameters: " in capsys.readouterr().err
    assert main(["grid", "--summary-only", "--out", "nowhere"]) == 2
    assert "run the grid first, `driftwood grid SPEC --out nowhere`" in capsys.readouterr().err


def test_an_unknown_grid_lists_the_shipped_grids(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pandas")
    pytest.importorskip("joblib")
    from reference.evaluation.grid import shipped_experiments

    shipped = shipped_experiments()
    assert {"ag13-lambda", "doc15-size"} <= set(shipped)
    for argv in (["grid", "nosuch"], ["grid"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "the shipped grids are " + ", ".join(shipped) in err
        assert "driftwood grid ag13-aba" in err


def test_fetch_without_network_says_how_to_install_a_copy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import pooch

    def offline(*args: object, **kwargs: object) -> str:
        raise ConnectionError("Failed to resolve 'raw.githubusercontent.com'")

    monkeypatch.setattr(pooch, "retrieve", offline)
    monkeypatch.setenv("DRIFTWOOD_DATA", str(tmp_path))
    assert main(["data", "fetch", "elec_moa", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "download of https://" in err and "failed (ConnectionError" in err
    assert "driftwood data fetch elec_moa --from PATH" in err
    assert "DRIFTWOOD_DATA" in err and "elec_moa.csv" in err
    assert list(tmp_path.iterdir()) == []  # nothing was written
    assert main(["data", "fetch"]) == 2
    assert "elec_moa" in capsys.readouterr().err  # the names to choose from


# ---------------------------------------------------------------- tables and help


def test_columns_wrap_the_flexible_column_to_fit() -> None:
    params = ", ".join(f"p{i}=value{i}" for i in range(12))
    rows = [["dynatree", params, "drift-slow", "0.123"], ["sgt", "lam=1", "friedman", "10.5"]]
    text = columns(rows, ["model", "params", "stream", "mean"], right=[3], flex=1, width=60)
    lines = text.splitlines()
    assert _widest(text) <= 60 and len(lines) > 3
    assert lines[0].split() == ["model", "params", "stream", "mean"]
    assert lines[1].split()[0] == "dynatree" and lines[1].endswith("drift-slow  0.123")
    start = lines[0].index("params")
    continued = [line[start:].strip() for line in lines[1:-1]]
    assert " ".join(piece.split("  ")[0] for piece in continued) == params
    assert all(line[:start].strip() == "" for line in lines[2:-1])
    assert lines[-1].split() == ["sgt", "lam=1", "friedman", "10.5"]
    assert table([("a", "b"), ("long name", "c")]) == "a          b\nlong name  c"


def test_grid_summary_fits_100_columns_and_shows_shared_parameters_once(
        tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    from reference.evaluation.cli.grid import summary_text
    from reference.evaluation.grid import summarize

    shared = {"active_size": 500, "burn_in": 500, "intercept": "augmented", "leaf": "linear",
              "n_particles": 50, "retirement": "historical"}
    rows = []
    for lam in (1.0, 0.99, 0.4):
        for rep in range(2):
            params = json.dumps({**shared, "lam": lam}, sort_keys=True)
            assert len(params) > 130
            for metric, value in (("rmse", 2.0 + rep), ("alpd", -math.inf if lam == 0.4 else -1)):
                rows.append({"cell": f"c{lam}{rep}", "model": "dynatree", "params": params,
                             "stream": "drift-slow", "n": 10000, "rep": rep, "data_seed": 1,
                             "model_seed": 2, "metric": metric, "value": value})
    text = summary_text(summarize(pd.DataFrame(rows)))
    assert _widest(text) <= WIDTH
    assert text.count("retirement=historical") == 1
    body = [line.split() for line in text.splitlines() if line.startswith("dynatree  lam=")]
    assert [(r[1], r[4], r[5]) for r in body if r[4] == "rmse"] == [
        ("lam=0.4", "rmse", "2.5"), ("lam=0.99", "rmse", "2.5"), ("lam=1.0", "rmse", "2.5")]
    assert "average log predictive density" in text and "is -inf where" in text


def test_every_table_of_the_commands_fits_100_columns(
        capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["list"], ["data", "list"], ["run", "--model", "nn3", "--n", "300"],
                 ["run", "--model", "mean", "--stream", "aba", "--n", "300"]):
        assert main(argv) == 0
        out = capsys.readouterr().out
        assert _widest(out) <= WIDTH, (argv, out)


def test_alpd_minus_infinity_is_explained(capsys: pytest.CaptureFixture[str]) -> None:
    """nn3 votes: a label none of the 3 neighbours has gets probability 0, so alpd is -inf;
    the note counts those steps and gives the mean over the others."""
    assert main(["run", "--model", "nn3", "--n", "300", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "alpd               -inf (see the note)" in out
    X, y = sea(300, concept_length=75, seed=0)  # the stream and model of the command
    model = catalog.build_model(NearestNeighbours, catalog.MODELS["nn3"], 0,
                                catalog.class_list("classification", y), {})
    dens = prequential(model, X, y).log_density
    assert dens is not None
    zero = int(np.sum(dens == -np.inf))
    rest = float(np.mean(dens[np.isfinite(dens)]))
    note = " ".join(out[out.index("note: "):].split())
    assert note.startswith("note: alpd, the average log predictive density, is the mean")
    assert f"probability was 0 at {zero} of {int(np.sum(~np.isnan(dens)))} steps" in note
    assert f"over the other steps it is {rest:.6g}." in note and zero > 0


def test_every_command_help_has_examples(capsys: pytest.CaptureFixture[str]) -> None:
    commands = _commands()
    assert set(commands) >= {"run", "compare", "list", "data", "grid"}
    for argv in [[], *([name] for name in commands)]:
        with pytest.raises(SystemExit) as done:
            main([*argv, "--help"])
        assert done.value.code == 0
        text = capsys.readouterr().out
        examples = text[text.index("\nExamples:\n"):]
        assert "\n  driftwood " in examples, argv
        assert _widest(text) <= WIDTH, argv


def test_help_examples_are_laid_out_as_written() -> None:
    short = with_examples(("driftwood list", "streams"), ("driftwood run", "a demo"))
    assert short["epilog"] == ("Examples:\n  driftwood list  # streams\n"
                               "  driftwood run   # a demo")
    long = with_examples(("driftwood run " + "--x " * 15, "a long one"), note="More.")
    assert long["epilog"].splitlines()[1:3] == ["  # a long one",
                                                "  driftwood run " + "--x " * 15]
    assert long["epilog"].endswith("\n\nMore.")
    assert long["formatter_class"] is argparse.RawDescriptionHelpFormatter

"""The ``driftwood`` command line, run in-process through ``reference.evaluation.cli.main``."""

from __future__ import annotations

import re
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from _timing import CHILD_TIMEOUT

import reference
from reference.evaluation import catalog
from reference.evaluation.baselines import RunningMean
from reference.evaluation.catalog import ModelSpec
from reference.evaluation.cli import main
from reference.evaluation.compare import first_difference


def test_default_run_is_the_sgt_demo(capsys: pytest.CaptureFixture[str]) -> None:
    """`driftwood run` with no arguments: SGT on 50,000 Friedman-1 rows, summary table."""
    assert main([]) == 0
    out = capsys.readouterr().out
    assert "SGTRegressor" in out and "friedman" in out
    assert "rmse" in out and "examples" in out and "50000" in out


def test_run_classification_with_curve_and_sub_sampling(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    png = tmp_path / "curve.png"
    status = main(
        [
            "run",
            "--model",
            "majority",
            "--stream",
            "sea",
            "--n",
            "3000",
            "--rate",
            "0.5",
            "--curve",
            str(png),
            "--no-progress",
        ]
    )
    assert status == 0
    out = capsys.readouterr().out
    assert "accuracy" in out and "auc" in out and "h_measure" in out
    assert "label rate" in out
    learned = int(next(line.split()[-1] for line in out.splitlines() if line.startswith("learned")))
    assert 1300 < learned < 1700
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("stream", list(catalog.STREAMS))
def test_every_built_in_stream_runs(stream: str, capsys: pytest.CaptureFixture[str]) -> None:
    model = "mean" if catalog.STREAMS[stream].task == "regression" else "majority"
    assert main(["run", "--model", model, "--stream", stream, "--n", "300"]) == 0
    assert "examples" in capsys.readouterr().out


def test_csv_stream(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "toy.csv").write_text("a,y\n" + "".join(f"{i},{i % 2}\n" for i in range(50)))
    assert (
        main(["run", "--model", "majority", "--stream", "csv:toy", "--data-dir", str(tmp_path)])
        == 0
    )
    assert "n=50" in capsys.readouterr().out
    assert main(["run", "--stream", "csv:missing", "--data-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "missing.csv" in err and "DRIFTWOOD_DATA" in err


def test_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--stream", "nowhere"]) == 2
    assert "unknown stream" in capsys.readouterr().err
    assert main(["run", "--model", "mean", "--stream", "sea"]) == 2
    assert "regression" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["run", "--model", "no-such-model"])


def test_compare_refuses_baselines(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", "--model", "mean"]) == 2
    assert "no fast twin" in capsys.readouterr().err


def test_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for name in list(catalog.MODELS) + list(catalog.STREAMS):
        assert name in out


def test_model_missing_from_backend_is_reported(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # a model that exists in reference only: listed, but `run --backend fast` explains
    monkeypatch.setitem(catalog.MODELS, "ghost", ModelSpec("GhostRegressor", "regression"))
    monkeypatch.setattr(reference, "GhostRegressor", ToyRegressor, raising=False)
    empty_fast = types.ModuleType("fast")
    monkeypatch.setattr(
        catalog, "import_backend", lambda name, *_: reference if name == "reference" else empty_fast
    )
    assert "ghost" in catalog.known_models()
    assert main(["run", "--model", "ghost", "--backend", "fast", "--n", "20"]) == 2
    err = capsys.readouterr().err
    assert "GhostRegressor" in err and "'fast'" in err
    assert main(["run", "--model", "ghost", "--backend", "reference", "--n", "20"]) == 0


def test_models_missing_everywhere_are_not_offered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(catalog.MODELS, "phantom", ModelSpec("PhantomRegressor", "regression"))
    assert "phantom" not in catalog.known_models()
    with pytest.raises(SystemExit):
        main(["run", "--model", "phantom"])


# ---------------------------------------------------------------- compare with stand-in backends


class ToyRegressor(RunningMean):
    """A seeded RunningMean standing in for a model that exists in both backends."""

    def __init__(self, seed: int = 0, shift_after: int = -1) -> None:
        super().__init__()
        self.seed = seed
        self.shift_after = shift_after

    def learn_one(self, x: Any, y: float) -> None:
        super().learn_one(x, y)
        if self.n_seen_ == self.shift_after:
            self.mean_ += 1e-12


def fake_backends(monkeypatch: pytest.MonkeyPatch, fast_cls: type) -> None:
    ref = types.ModuleType("reference_stand_in")
    ref.ToyRegressor = ToyRegressor  # type: ignore[attr-defined]
    fast = types.ModuleType("fast_stand_in")
    fast.ToyRegressor = fast_cls  # type: ignore[attr-defined]
    monkeypatch.setitem(catalog.MODELS, "toy", ModelSpec("ToyRegressor", "regression"))
    monkeypatch.setattr(catalog, "known_models", lambda: list(catalog.MODELS))
    monkeypatch.setattr(catalog, "import_backend",
                        lambda name, *_: ref if name == "reference" else fast)


def test_compare_reports_agreement_and_speed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_backends(monkeypatch, ToyRegressor)
    assert main(["compare", "--model", "toy", "--n", "60"]) == 0
    out = capsys.readouterr().out
    assert "60/60" in out and "first mismatch" in out and "none" in out
    assert "speed ratio" in out


def test_compare_finds_the_first_mismatch(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class Drifting(ToyRegressor):
        def __init__(self, seed: int = 0) -> None:
            super().__init__(seed, shift_after=25)

    fake_backends(monkeypatch, Drifting)
    assert main(["compare", "--model", "toy", "--n", "60"]) == 1
    out = capsys.readouterr().out
    # learning row 24 (0-based) makes n_seen 25: the snapshot after step 24 differs
    assert "step 24: snapshot.mean" in out and "24/60" in out


def test_first_difference() -> None:
    assert first_difference({"a": [1, 2.0]}, {"a": [1, 2.0]}) is None
    assert first_difference({"a": 1}, {"b": 1}) == "<root>: keys differ: ['a'] vs ['b']"
    assert first_difference([1.0, [2.0, 3.0]], [1.0, [2.0, 4.0]]) == "[1][1]: 3.0 != 4.0"
    assert first_difference(float("nan"), float("nan")) is None
    assert first_difference(1, 1.0) is not None
    assert first_difference((1, 2), [1, 2]) is None
    assert first_difference([1], [1, 2]) == "<root>: lengths differ: 1 vs 2"


# ---------------------------------------------------------------- real models, when both exist


@pytest.mark.parametrize("name", catalog.compare_candidates() or ["<none>"])
def test_compare_real_models(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    if name == "<none>":
        pytest.skip("no model exists in both backends yet")
    assert main(["compare", "--model", name, "--n", "40"]) == 0, capsys.readouterr().out
    assert "40/40" in capsys.readouterr().out


@pytest.mark.parametrize("module", ["reference", "reference.evaluation.cli"])
def test_module_entry_point(module: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", module, "list"],
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT,
    )
    assert done.returncode == 0 and "models" in done.stdout


def test_run_names_what_size_counts_and_quotes_one_wall_time(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The header says what the size counts; the progress line and the table's wall time
    are the same measure (the model time, inside predict and learn, is labelled apart)."""
    import re

    assert main(["run", "--model", "sgt", "--n", "3000", "--progress"]) == 0
    captured = capsys.readouterr()
    assert "number of tree nodes (the model's n_nodes_)" in captured.out
    assert "attribute n_nodes_" not in captured.out
    wall = float(re.search(r"wall time \[s\]\s+([0-9.]+)", captured.out).group(1))
    model = float(re.search(r"model time \[s\]\s+([0-9.]+)", captured.out).group(1))
    shown = re.search(r"rows, ([0-9.]+) s elapsed", captured.err)
    assert shown is not None and abs(float(shown.group(1)) - wall) <= 0.05 + 1e-9
    assert model <= wall


def test_run_on_a_missing_c_backend_says_once_how_to_build_it(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import importlib

    real = importlib.import_module

    def no_fast(name: str, *args: Any) -> Any:
        if name == "fast":
            raise ImportError("no module fast._lib (simulated)")
        return real(name, *args)

    monkeypatch.setattr(catalog.importlib, "import_module", no_fast)
    assert main(["run", "--model", "sgt", "--n", "10", "--backend", "fast"]) == 2
    err = capsys.readouterr().err
    assert err.count("build it with") == 1 and "or run with --backend reference" in err


# ------------------------------------------------- without the C backend (a no-compiler install)


def no_fast(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``import fast`` fail as in an install whose C build was skipped."""
    for name in [m for m in sys.modules if m == "fast" or m.startswith("fast.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "fast._lib", None)  # import fast._lib: ImportError


def test_run_falls_back_to_the_reference_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    no_fast(monkeypatch)
    assert main(["run", "--model", "sgt", "--n", "300", "--no-progress"]) == 0
    captured = capsys.readouterr()
    notes = [line for line in captured.err.splitlines() if line.strip()]
    assert len(notes) == 1, captured.err
    assert "not built" in notes[0] and "reference" in notes[0]
    assert "about 10x slower" in notes[0] and "import fast" in notes[0]
    header = dict(line.split(None, 1) for line in captured.out.splitlines()[:3])
    assert header["backend"].strip() == "reference"


def test_the_reference_runs_the_dynamic_trees_on_a_shorter_default_stream(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without a C build and without ``--n``, ``run`` takes the reference's shorter default
    (REFERENCE_ROWS, made tiny here) and its one line says so, how long that takes and how
    to choose; an explicit ``--n`` is run as given; ``--backend reference`` chosen by hand
    takes the same shorter default, without the note."""
    from reference.evaluation.cli import run

    monkeypatch.setitem(run.REFERENCE_ROWS, "dynatree", (25, "a moment"))
    no_fast(monkeypatch)

    def stream_rows(out: str) -> int:
        found = re.search(r"\(n=(\d+), seed=", out)
        assert found, out
        return int(found.group(1))

    assert main(["run", "--model", "dynatree", "--no-progress"]) == 0
    captured = capsys.readouterr()
    notes = [line for line in captured.err.splitlines() if line.strip()]
    assert len(notes) == 1, captured.err
    assert "300x or more slower for dynatree: 25 rows instead of 10000 (a moment; --n N " \
        "chooses)" in notes[0]
    assert stream_rows(captured.out) == 25
    assert main(["run", "--model", "dynatree", "--n", "12", "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "instead of" not in captured.err and "300x or more slower" in captured.err
    assert stream_rows(captured.out) == 12
    assert main(["run", "--model", "dynatree", "--backend", "reference", "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and stream_rows(captured.out) == 25


def test_the_reference_defaults_are_shorter_than_the_c_defaults() -> None:
    from reference.evaluation.cli.run import REFERENCE_ROWS, SLOWDOWN, default_rows

    for model, (n, takes) in REFERENCE_ROWS.items():
        assert model in SLOWDOWN and takes
        assert default_rows(model, "reference") == n < default_rows(model, "fast")
    assert default_rows("sgt", "reference") == default_rows("sgt", "fast")


def test_run_of_a_baseline_needs_no_fallback_note(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    no_fast(monkeypatch)
    assert main(["run", "--model", "mean", "--n", "200", "--no-progress"]) == 0
    assert capsys.readouterr().err == ""


def test_compare_without_fast_checks_the_reference_against_itself(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    no_fast(monkeypatch)
    assert catalog.compare_candidates() == ["dynatree", "dynatree-clf", "sgt", "sgt-clf",
                                            "abacoc"]
    assert main(["compare", "--model", "abacoc", "--n", "50", "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert len(captured.err.strip().splitlines()) == 1
    assert "about 30x slower" in captured.err
    assert "50/50" in captured.out
    assert "compared with itself" in captured.out and "speed ratio" not in captured.out


def test_every_fast_model_has_a_stated_slowdown() -> None:
    from reference.evaluation.cli.run import SLOWDOWN

    assert set(SLOWDOWN) == {name for name, spec in catalog.MODELS.items() if not spec.baseline}


def test_import_fast_without_its_build_names_the_remedy() -> None:
    """In a fresh interpreter where the extension is missing, ``import fast`` raises an
    ImportError that says what to install and which command to run."""
    code = ("import sys; sys.modules['fast._lib'] = None\n"
            "try:\n    import fast\nexcept ImportError as exc:\n"
            "    print(type(exc).__name__, exc)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=CHILD_TIMEOUT, check=True)
    message = done.stdout
    # ModuleNotFoundError (an ImportError): pytest.importorskip("fast") skips on it
    assert message.startswith("ModuleNotFoundError ")
    assert "fast._lib" in message and "not built" in message
    assert "pip install --force-reinstall driftwood-learn" in message
    assert "C compiler" in message and "pip install -e ." in message


def test_version_is_single_sourced_and_printed(capsys: pytest.CaptureFixture[str]) -> None:
    """``driftwood --version`` prints ``reference._version.__version__``, the one version
    ``pyproject.toml`` reads (dynamic), and says whether the C backend is built."""
    import importlib.metadata

    from reference import _version

    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"driftwood {_version.__version__} (distribution driftwood-learn;")
    assert "C backend built" in out or "C backend not built" in out
    assert reference.__version__ == _version.__version__
    root = Path(__file__).resolve().parents[2]
    project = tomllib.loads((root / "pyproject.toml").read_text())
    assert project["project"]["name"] == _version.DISTRIBUTION
    assert "version" in project["project"]["dynamic"]
    assert (project["tool"]["setuptools"]["dynamic"]["version"]["attr"]
            == "reference._version.__version__")
    try:  # the installed metadata, where this checkout is installed under its name
        assert importlib.metadata.version(_version.DISTRIBUTION) == _version.__version__
    except importlib.metadata.PackageNotFoundError:
        pass

"""``driftwood figures`` and :mod:`reference.evaluation.figures`: slide figures as SVG and PDF.

Every registered figure is drawn at a small ``scale`` (a fraction of a second each with
the fast backend); the CLI writes valid, non-empty SVG and PDF files, reproducibly, and
lists every registered figure in ``--help`` and ``--list``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from matplotlib.figure import Figure

from reference.evaluation import figures
from reference.evaluation.cli import main

SMALL = 0.05
"""Scale of the tests' figures: streams and particle counts at 5% (with floors)."""


@pytest.mark.parametrize("name", list(figures.FIGURES))
def test_every_registered_figure_draws_at_a_reduced_scale(name: str) -> None:
    fig = figures.draw(name, scale=SMALL)
    assert isinstance(fig, Figure)
    axes = [ax for ax in fig.axes if ax.has_data()]
    assert axes, f"{name} draws nothing"
    assert all(ax.get_xlabel() or ax.get_title() for ax in axes), f"{name}: unlabelled panel"


def test_registry_entries_have_a_description_and_an_existing_tutorial() -> None:
    root = Path(__file__).resolve().parents[2]
    for name, spec in figures.FIGURES.items():
        assert spec.description and "\n" not in spec.description, name
        assert (root / "tutorials" / f"{spec.tutorial}.md").is_file(), name
    covered = {spec.tutorial[:2] for spec in figures.FIGURES.values()}
    assert {"01", "02", "03", "04", "05"} <= covered, "a tutorial without a slide figure"


def test_cli_writes_valid_svg_and_pdf_with_a_progress_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["figures", "--out", str(tmp_path), "--only", "parabola-fit", "uniform-draws",
                   "--scale", str(SMALL)])
    assert status == 0
    out = capsys.readouterr().out
    assert "[1/2] parabola-fit" in out and "[2/2] uniform-draws" in out
    for name in ("parabola-fit", "uniform-draws"):
        svg = tmp_path / f"{name}.svg"
        root = ET.parse(svg).getroot()                      # well-formed XML
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        assert len(list(root.iter())) > 100                 # paths, not an empty canvas
        pdf = (tmp_path / f"{name}.pdf").read_bytes()
        assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF")
        assert len(pdf) > 5000


def test_saved_files_are_byte_identical_across_runs(tmp_path: Path) -> None:
    """No creation date, fixed SVG ids: the same figure gives the same bytes."""
    paths = []
    for run in ("a", "b"):
        fig = figures.draw("parabola-fit", scale=SMALL)
        paths.append(figures.save(fig, tmp_path / run))
    for first, second in zip(*paths, strict=True):
        assert first.suffix == second.suffix
        assert first.read_bytes() == second.read_bytes(), first.suffix


def test_help_and_list_name_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["figures", "--help"])
    assert stop.value.code == 0
    text = capsys.readouterr().out
    assert "driftwood figures --out" in text                # the example
    assert main(["figures", "--list"]) == 0
    listing = capsys.readouterr().out
    for name, spec in figures.FIGURES.items():
        assert name in text and spec.description in text, name
        assert name in listing, name


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["figures"], "needs --out"),
        (["figures", "--out", "x", "--only", "no-such-figure"], "no figure 'no-such-figure'"),
        (["figures", "--out", "x", "--format", "svg,docx"], "--format"),
        (["figures", "--out", "x", "--scale", "0"], "--scale"),
    ],
)
def test_bad_requests_exit_with_status_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_draw_rejects_unknown_names_and_bad_scales() -> None:
    with pytest.raises(KeyError, match="known: uniform-draws"):
        figures.draw("nope")
    with pytest.raises(ValueError, match="scale"):
        figures.draw("uniform-draws", scale=float("nan"))


def test_ctrl_c_leaves_only_whole_files_and_says_what_was_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ctrl-C while the second figure's PDF is written: the first figure's files and the
    second's SVG are whole, no partial or temporary file is left, and the message names
    what was kept and what was not drawn."""
    names = list(figures.FIGURES)[:3]
    real_savefig = Figure.savefig
    calls = {"n": 0}

    def interrupted_savefig(self: Figure, fname: object, **kwargs: object) -> None:
        calls["n"] += 1
        if calls["n"] == 4:                      # the second figure's PDF, half written
            Path(str(fname)).write_bytes(b"%PDF-1.4 truncated")
            raise KeyboardInterrupt
        real_savefig(self, fname, **kwargs)

    monkeypatch.setattr(Figure, "savefig", interrupted_savefig)
    status = main(["figures", "--out", str(tmp_path), "--only", *names, "--scale", "0.2",
                   "--format", "svg,pdf"])
    err = capsys.readouterr().err
    assert status == 130
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted([f"{names[0]}.svg", f"{names[0]}.pdf", f"{names[1]}.svg"])
    for path in tmp_path.iterdir():
        assert path.stat().st_size > 1000
    assert "nothing was kept" not in err
    assert f"kept 3 whole files in {tmp_path}" in err
    assert f"not finished: {names[1]}, {names[2]}" in err and "--only" in err

"""The stored results of the Reproduction page are what the code computes today.

``docs/reproduction/<name>/`` holds a grid's ``experiment.json`` and ``results.csv``; the
page only reads them. Here every stored experiment must be the shipped spec of that name,
cover all of its cells, and the shortest cell of every model (the first by length and key),
recomputed now, must give the stored numbers exactly: a change of any model's defaults or
results shows up here, not only one of the model that happens to sort first.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("pandas")

from conftest import require_dataset  # noqa: E402
from reference.evaluation import grid  # noqa: E402

STORE = Path(__file__).resolve().parents[2] / "docs" / "reproduction"
STORED = sorted(p.name for p in STORE.iterdir() if (p / "results.csv").exists()) \
    if STORE.is_dir() else []


def test_the_reproduction_page_has_stored_results() -> None:
    assert STORED, "docs/reproduction holds no stored grid"


@pytest.mark.parametrize("name", STORED)
def test_stored_results_are_the_shipped_experiment_recomputed(name: str, both: object) -> None:
    exp = grid.Experiment(**json.loads((STORE / name / "experiment.json").read_text()))
    if name in grid.shipped_experiments():
        assert exp == grid.load_experiment(name), "stored results of another spec"
    stored = grid.read_results(STORE / name)
    cells = sorted(exp.cells(), key=lambda c: (c.n, c.key))   # the shortest cell first
    assert set(stored["cell"]) == {c.digest for c in cells}, "the stored grid is incomplete"
    firsts = list({c.model: c for c in reversed(cells)}.values())   # per model, its first
    for cell in firsts:
        if cell.stream.startswith("csv:"):
            require_dataset(cell.stream[4:])         # skip (fail in CI) if not fetched
        fresh = {r["metric"]: r["value"] for r in grid.run_cell(exp, cell)}
        kept = stored[stored["cell"] == cell.digest]
        assert dict(zip(kept["metric"], kept["value"], strict=True)) == fresh, cell.key

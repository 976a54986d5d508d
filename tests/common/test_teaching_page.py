"""The Teaching page (docs/teaching.md) stays in step with the code it describes.

- it is in the docs toctree;
- its exercise tables (the ``exercise-table`` directive of ``docs/_ext``) cover every
  registered exercise, and every exercise name written on the page exists;
- the homework grids ship with the package, parse, and use only generated streams and
  shipped data; the page's homework tables are exactly the stored results in
  ``docs/teaching/<grid>/``, and one cell of each, recomputed now, gives the stored numbers;
- the figures table names every registered slide figure, and the JSON fields it
  documents are those of the checker's report.

Run ``python tests/common/test_teaching_page.py`` to print the homework tables from the
stored results (what the page must contain).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _installed import PACKAGE_PARENT, tree_path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGE = DOCS / "teaching.md"
STORE = DOCS / "teaching"
HOMEWORK = ("homework-retirement", "homework-abacoc", "homework-sgt-delta")

from reference.exercises.catalog import Case, Exercise, all_exercises  # noqa: E402


def extension() -> Any:
    """``docs/_ext/driftwood_exercises`` (skip without docutils, a docs dependency)."""
    pytest.importorskip("docutils")
    if str(DOCS / "_ext") not in sys.path:
        sys.path.insert(0, str(DOCS / "_ext"))
    import driftwood_exercises

    return driftwood_exercises


def page() -> str:
    return PAGE.read_text(encoding="utf-8")


# -- the toctree -------------------------------------------------------------------------------


def test_teaching_page_is_in_the_docs_toctree() -> None:
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```\{toctree\}\n(.*?)```", index, flags=re.S)
    entries = {line.strip() for block in blocks for line in block.splitlines()
               if line.strip() and not line.startswith(":")}
    assert "teaching" in entries
    assert page().startswith("(teaching)=\n# Teaching with driftwood")


# -- exercises -----------------------------------------------------------------------------------


def directives(text: str) -> list[dict[str, str]]:
    """The options of every ``exercise-table`` directive of a MyST page."""
    found = []
    for match in re.finditer(r"^```\{exercise-table\}\n((?::[\w-]+:.*\n)*)```", text, flags=re.M):
        found.append(dict(re.findall(r"^:([\w-]+):\s*(.*?)\s*$", match.group(1), flags=re.M)))
    return found


def test_every_registered_exercise_is_in_a_session_table() -> None:
    tables = directives(page())
    assert {} in tables, "the page lacks the whole-catalogue table"
    sessions = [t for t in tables if t]
    assert [t.get("tutorial") for t in sessions] == [
        "01_determinism", "02_dynamic_trees", "05_data_retirement",
        "03_stochastic_gradient_trees", "04_abacoc"]
    for options in sessions:
        assert (ROOT / "tutorials" / f"{options['tutorial']}.md").is_file(), options
    catalogue = all_exercises()
    covered = {ex.name for t in sessions
               for ex in extension().select(catalogue, t.get("tutorial"), t.get("family"))}
    missing = sorted({ex.name for ex in catalogue} - covered)
    assert not missing, f"exercises in no session of docs/teaching.md: {missing}"


def _exercise(name: str, anchor: str, family: str, minutes: int) -> Exercise:
    def solution(x: float) -> float:
        return x

    return Exercise(name=name, title=f"title of {name}", family=family,
                    tag="[AG13, Eq. 4]; [DT-SPEC §6.1]", anchor=anchor, function_name="f",
                    skeleton="def f(x):\n    raise NotImplementedError\n", reference=solution,
                    cases=lambda: [Case((1.0,))], minutes=minutes)


def test_exercise_table_selects_by_tutorial_and_family_and_renders_rows() -> None:
    catalogue = [
        _exercise("dt-a", "tutorials/02_dynamic_trees.md#x", "dynamic_trees", 20),
        _exercise("dt-b", "tutorials/05_data_retirement.md#y", "dynamic_trees", 25),
        _exercise("rng-c", "tutorials/01_determinism.md", "determinism", 10),
    ]
    driftwood_exercises = extension()
    select = driftwood_exercises.select
    assert [e.name for e in select(catalogue, "05_data_retirement")] == ["dt-b"]
    assert [e.name for e in select(catalogue, family="dynamic_trees")] == ["dt-a", "dt-b"]
    assert [e.name for e in select(catalogue)] == ["dt-a", "dt-b", "rng-c"]
    assert driftwood_exercises.rows(catalogue[:1]) == [
        ("dt-a", "title of dt-a", "[AG13, Eq. 4]", "20")]
    table = driftwood_exercises.build_table(driftwood_exercises.rows(catalogue))
    text = table.astext()
    assert all(e.name in text and e.title in text for e in catalogue)
    assert len(list(table.findall(lambda n: n.tagname == "row"))) == 1 + len(catalogue)


def test_exercise_names_written_on_the_page_exist() -> None:
    catalogue = {ex.name for ex in all_exercises()}
    if not catalogue:
        pytest.skip("no exercise is registered in this checkout")
    written = set(re.findall(r"(?<![\w-])((?:rng|dt|sgt|ab)-[a-z0-9]+(?:-[a-z0-9]+)*)", page()))
    unknown = sorted(written - catalogue)
    assert not unknown, f"docs/teaching.md names exercises that do not exist: {unknown}"


def test_json_fields_on_the_page_are_the_reports_fields() -> None:
    checker = pytest.importorskip("reference.exercises.checker")
    catalogue = all_exercises()
    if not catalogue:
        pytest.skip("no exercise is registered in this checkout")
    namespace: dict[str, Any] = {}
    exec(catalogue[0].skeleton, namespace)  # noqa: S102 - the catalogue's own skeleton
    report = checker.check(catalogue[0], namespace[catalogue[0].function_name], stream=False)
    section = page().split("## The JSON report of a check", 1)[1].split("\n## ", 1)[0]
    documented = {name for line in section.splitlines() if line.startswith("`")
                  for name in re.findall(r"`(\w+)`", line)}
    assert documented == set(report.to_json()), "the page's JSON fields are not the report's"
    statuses = set(re.findall(r"`([a-z-]+)`", section.split("`status`", 1)[1].split("\n`", 1)[0]))
    assert set(checker.STATUSES) <= statuses


# -- homework -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", HOMEWORK)
def test_homework_grid_ships_parses_and_needs_no_fetched_data(name: str) -> None:
    from reference.evaluation.catalog import STREAMS
    from reference.evaluation.grid import load_experiment, shipped_experiments

    assert name in shipped_experiments()
    spec = tree_path(f"reference/_data/grids/{name}.toml")
    assert spec.is_file()
    exp = load_experiment(name)
    assert exp.name == name and exp.backend == "fast"
    for stream in exp.streams:
        if stream["name"].startswith("csv:"):
            shipped = tree_path(f"reference/_data/{stream['name'][4:]}.csv.gz")
            assert shipped.is_file(), f"{name}: {stream['name']} does not ship"
        else:
            assert stream["name"] in STREAMS
    assert f"driftwood grid {name} --out {name} --jobs 2" in page()
    assert f"Run: driftwood grid {name}" in spec.read_text(encoding="utf-8")


def _pm(mean: float, se: float, digits: int) -> str:
    return f"{mean:.{digits}f} ± {se:.{digits}f}"


def _summary(name: str) -> Any:
    from reference.evaluation.grid import read_results, summarize

    table = summarize(read_results(STORE / name))
    table["p"] = [json.loads(p) for p in table["params"]]
    return table


def _retirement() -> str:
    table = _summary("homework-retirement")
    value = {(p["variant"], p.get("pool")): _pm(m, s, 3)
             for p, m, s in zip(table["p"], table["mean"], table["se"], strict=True)}
    lines = ["| active pool | ORIG | ORAND | OALC |", "|---|---|---|---|"]
    for pool in (50, 100, 200):
        lines.append(f"| {pool} | " + " | ".join(value[(v, pool)]
                                                 for v in ("ORIG", "ORAND", "OALC")) + " |")
    lines += ["", f"FULL, which keeps all 2,000 points active: {value[('FULL', None)]}."]
    return "\n".join(lines)


ABACOC_METHODS = [
    ("BASE", lambda m, p: p.get("variant") == "base"),
    ("BASE-ADJ", lambda m, p: p.get("variant") == "base_adj"),
    ("AUTO", lambda m, p: p.get("variant") == "auto"),
    ("AUTO-ADJ", lambda m, p: p.get("variant") == "auto_adj" and len(p) == 2),
    ("AUTO-ADJ, rate 5%", lambda m, p: m == "abacoc" and p.get("rate") == 0.05),
    ("NN3, rate 5%", lambda m, p: m == "nn3"),
    ("AUTO-ADJ-FIX, budget 1%", lambda m, p: p.get("budget_fraction") == 0.01),
    ("AUTO-ADJ-FIX, budget 5%", lambda m, p: p.get("budget_fraction") == 0.05),
]
ABACOC_STREAMS = [("csv:bananas", "banana"), ("csv:image_segments", "image segments"),
                  ("csv:letter", "letter")]


def _abacoc() -> str:
    table = _summary("homework-abacoc")
    head = " | ".join(f"{label}: accuracy | size, %" for _, label in ABACOC_STREAMS)
    lines = [f"| method | {head} |", "|---|" + "---|" * (2 * len(ABACOC_STREAMS))]
    for label, chosen in ABACOC_METHODS:
        cells = []
        for stream, _ in ABACOC_STREAMS:
            mine = [chosen(m, p) for m, p in zip(table["model"], table["p"], strict=True)]
            part = table[np.array(mine) & (table["stream"] == stream).to_numpy()]
            acc = part[part["metric"] == "accuracy"].iloc[0]
            size = part[part["metric"] == "size"].iloc[0]
            assert len(part) == 2, (label, stream)
            cells += [_pm(acc["mean"], acc["se"], 3),
                      _pm(100 * size["mean"] / size["n"], 100 * size["se"] / size["n"], 2)]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


SGT_STREAMS = [("csv:bananas", "banana"), ("csv:spambase", "spambase"), ("csv:letter", "letter")]


def _sgt_delta() -> str:
    table = _summary("homework-sgt-delta")
    table["delta"] = [p["delta"] for p in table["p"]]
    head = " | ".join(f"{label}: accuracy | nodes" for _, label in SGT_STREAMS)
    lines = [f"| δ | {head} |", "|---|" + "---|" * (2 * len(SGT_STREAMS))]
    for delta in sorted(set(table["delta"]), reverse=True):
        cells = []
        for stream, _ in SGT_STREAMS:
            part = table[(table["delta"] == delta) & (table["stream"] == stream)]
            acc = part[part["metric"] == "accuracy"].iloc[0]
            size = part[part["metric"] == "size"].iloc[0]
            cells += [_pm(acc["mean"], acc["se"], 3), _pm(size["mean"], size["se"], 1)]
        lines.append(f"| {delta:g} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


TABLES: dict[str, Callable[[], str]] = {
    "homework-retirement": _retirement,
    "homework-abacoc": _abacoc,
    "homework-sgt-delta": _sgt_delta,
}


@pytest.mark.parametrize("name", HOMEWORK)
def test_page_tables_are_the_stored_homework_results(name: str) -> None:
    pytest.importorskip("pandas")
    from reference.evaluation.grid import Experiment, load_experiment, read_results

    exp = Experiment(**json.loads((STORE / name / "experiment.json").read_text()))
    assert exp == load_experiment(name), "stored results of another spec"
    stored = read_results(STORE / name)
    assert set(stored["cell"]) == {c.digest for c in exp.cells()}, "incomplete stored grid"
    assert TABLES[name]() in page(), f"the page's table of {name} is not the stored result"


CHEAP: dict[str, Callable[[str, dict[str, Any]], bool]] = {
    "homework-retirement": lambda stream, p: p["variant"] == "ORIG" and p["pool"] == 200,
    "homework-abacoc": lambda stream, p: (stream == "csv:image_segments"
                                          and p.get("budget_fraction") == 0.01),
    "homework-sgt-delta": lambda stream, p: stream == "csv:bananas" and p["delta"] == 1e-7,
}
"""Per homework, a cell that runs in well under a second (and, for ABACOC, draws deletions)."""


@pytest.mark.parametrize("name", HOMEWORK)
def test_one_stored_homework_cell_is_what_the_code_computes_today(
    name: str, both: object
) -> None:
    pytest.importorskip("pandas")
    from reference.evaluation.grid import load_experiment, read_results, run_cell

    exp = load_experiment(name)
    cell = next(c for c in exp.cells() if c.rep == 0 and CHEAP[name](c.stream, dict(c.params)))
    stored = read_results(STORE / name)
    kept = stored[stored["cell"] == cell.digest]
    fresh = {row["metric"]: row["value"] for row in run_cell(exp, cell)}
    assert dict(zip(kept["metric"], kept["value"], strict=True)) == fresh, cell.key


# -- figures -------------------------------------------------------------------------------------


def test_figures_table_names_every_registered_figure() -> None:
    from reference.evaluation.figures import FIGURES

    section = page().split("## Figures for slides", 1)[1]
    listed = re.findall(r"^\| `([\w-]+)` \| \{doc\}`tutorials/(\w+)`", section, flags=re.M)
    assert listed == [(name, spec.tutorial) for name, spec in FIGURES.items()]
    outline = page().split("## How students work", 1)[0]
    for name in FIGURES:
        assert f"`{name}`" in outline, f"no session shows the figure {name}"


if __name__ == "__main__":
    for homework in HOMEWORK:
        print(f"{homework}:\n{TABLES[homework]()}\n")


# -- answers out of sight ------------------------------------------------------------------------


def _asked_for() -> dict[tuple[str, str], set[str]]:
    """``(file, pyobject)`` of every reference function an exercise plugs its answer into,
    with the exercises that ask for it."""
    import importlib

    found: dict[tuple[str, str], set[str]] = {}
    for ex in all_exercises():
        for plug in ex.plugs:
            parts = plug.target.split(".")
            for i in range(len(parts), 0, -1):
                try:
                    module = importlib.import_module(".".join(parts[:i]))
                    break
                except ModuleNotFoundError:
                    continue
            assert module.__file__ is not None
            path = Path(module.__file__).resolve().relative_to(PACKAGE_PARENT).as_posix()
            found.setdefault((path, ".".join(parts[i:])), set()).add(ex.name)
    return found


def test_no_tutorial_shows_an_exercise_answer_outside_a_solution_block() -> None:
    """Every inclusion of a function an exercise asks for sits in a ``solution`` block
    naming that exercise (collapsed on the built page); the C twins of the generator and
    of ``merge`` too."""
    asked = _asked_for()
    include = re.compile(r"(?P<before>[^\n]*)\n```\{literalinclude\} \.\./\.\./(?P<file>\S+)\n"
                         r"(?P<options>(?::\S+:.*\n)*)```")
    wrapped = 0
    for md in sorted((ROOT / "tutorials").glob("*.md")):
        text = md.read_text(encoding="utf-8")
        for match in include.finditer(text):
            options = dict(re.findall(r":(\S+): (.*)", match.group("options")))
            names = asked.get((match.group("file"), options.get("pyobject", "")))
            if names is None:
                continue
            before = match.group("before")
            assert before.startswith(":::{solution}"), (md.name, match.group("file"), names)
            assert names <= set(before.split()[1:]), (md.name, before, names)
            wrapped += 1
    assert wrapped >= 30


def test_solution_directive_renders_a_collapsed_block() -> None:
    driftwood_exercises = extension()
    from docutils.core import publish_parts
    from docutils.parsers.rst import directives as rst_directives

    rst_directives.register_directive("solution", driftwood_exercises.Solution)
    html = publish_parts(".. solution:: rng-uniform\n\n   The code.\n",
                         writer="html")["body"]
    assert '<details class="solution"><summary>Solution (exercise rng-uniform)</summary>' in html
    assert html.index("The code.") < html.index("</details>")


# -- the outline fits its sessions ---------------------------------------------------------------


def test_each_sessions_core_exercises_fit_its_45_minutes() -> None:
    """The page gives about 45 minutes of exercises per session: every session table marks
    its core exercises, which exist in that table and fit the budget; the rest is extra."""
    assert "about 45 minutes of exercises in class" in " ".join(page().split())
    sessions = [t for t in directives(page()) if t]
    catalogue = all_exercises()
    driftwood_exercises = extension()
    for options in sessions:
        assert options.get("budget") == "45", options
        core = options["core"].split()
        chosen = driftwood_exercises.select(catalogue, options.get("tutorial"))
        assert set(core) <= {ex.name for ex in chosen}, options
        in_class, extra = driftwood_exercises.split_minutes(chosen, core)
        assert 0 < in_class <= 45, (options["tutorial"], in_class)
        assert in_class + extra == sum(ex.minutes for ex in chosen)


def test_core_minutes_over_the_budget_fail_the_build() -> None:
    driftwood_exercises = extension()
    from docutils.core import publish_parts
    from docutils.parsers.rst import directives as rst_directives
    from docutils.utils import SystemMessage

    rst_directives.register_directive("exercise-table", driftwood_exercises.ExerciseTable)
    names = "rng-splitmix64 rng-seed-state rng-xoshiro-step rng-uniform rng-below"
    source = (".. exercise-table::\n   :tutorial: 01_determinism\n"
              f"   :core: {names}\n   :budget: 45\n")
    with pytest.raises(SystemMessage, match="more than the session's 45"):
        publish_parts(source, writer="html", settings_overrides={"halt_level": 3})
    fits = source.replace(names, "rng-uniform rng-below")
    html = publish_parts(fits, writer="html", settings_overrides={"halt_level": 3})["body"]
    assert "Core: 2 exercises, 25 minutes of the 45 in class" in html
    assert html.count(">extra<") == 3 and html.count(">core<") == 2


def test_homeworks_are_numbered_in_the_order_they_are_given() -> None:
    text = page()
    handed = [int(n) for n in re.findall(r"\*\*Homework (\d)\*\* is handed out", text)]
    assert handed == [1, 2, 3]
    headings = [int(n) for n in re.findall(r"^### Homework (\d):", text, flags=re.M)]
    assert headings == [1, 2, 3]

"""The ``exercise-table`` directive: a table of the course kit's exercises, from the catalogue.

The Teaching page (``docs/teaching.md``) lists the exercises of each session with

````md
```{exercise-table}
:tutorial: 02_dynamic_trees
```
````

which renders, at build time, one row per exercise of
:func:`reference.exercises.catalog.all_exercises` whose tutorial section (``Exercise.anchor``)
is in ``tutorials/02_dynamic_trees.md``: its name, title, paper tag and time estimate, then
a line with the count and the total time. ``:family: sgt`` selects by family instead; with
neither option the table lists every exercise. ``:core: NAME NAME ...`` marks the
exercises done in class (the others are *extra*) and ``:budget: 45`` the minutes the
session gives them: the table gets a "part" column and the line sums the minutes of
each part; core minutes above the budget, or a core name not in the table, fail the
build. The page therefore cannot drift from the
catalogue: a new exercise appears in its session's table by itself, and
``tests/common/test_teaching_page.py`` checks that every registered exercise is in one of
the page's tables.

The ``solution`` directive keeps an exercise's answer out of sight on a tutorial page:

````md
:::{solution} sgt-split-test
```{literalinclude} ../../reference/sgt/splits.py
:pyobject: t_test_p_value
```
:::
````

renders its content inside a collapsed HTML ``<details>`` block whose summary reads
"Solution (exercise sgt-split-test)"; the reader opens it after the derivation.
``tests/common/test_teaching_page.py`` checks that every reference function an exercise
asks for, where a tutorial includes it, sits in such a block.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive, directives

COLUMNS = (("exercise", 22), ("what you write", 46), ("paper", 22), ("minutes", 8))
PART_COLUMN = ("part", 8)
"""The extra column of a session's table (``core`` or ``extra``)."""
"""Header and relative width of each column."""


def tutorial_of(anchor: str) -> str:
    """``"02_dynamic_trees"`` for ``"tutorials/02_dynamic_trees.md#some-heading"``."""
    page = anchor.split("#", 1)[0]
    name = page.rsplit("/", 1)[-1]
    return name[:-3] if name.endswith(".md") else name


def select(exercises: Sequence[Any], tutorial: str | None = None,
           family: str | None = None) -> list[Any]:
    """The exercises of one tutorial and/or family, in catalogue order."""
    return [ex for ex in exercises
            if (tutorial is None or tutorial_of(ex.anchor) == tutorial)
            and (family is None or ex.family == family)]


def rows(exercises: Sequence[Any]) -> list[tuple[str, str, str, str]]:
    """The table's cells: name, title, paper tag (before any spec tag), minutes."""
    out = []
    for ex in exercises:
        paper = ex.tag.split(";", 1)[0].strip()
        out.append((ex.name, ex.title, paper, str(ex.minutes)))
    return out


def _entry(text: str, literal: bool = False) -> nodes.entry:
    entry = nodes.entry()
    para = nodes.paragraph()
    para += nodes.literal(text, text) if literal else nodes.Text(text)
    entry += para
    return entry


def split_minutes(exercises: Sequence[Any], core: Sequence[str]) -> tuple[int, int]:
    """Minutes of the core exercises and of the extra ones."""
    chosen = set(core)
    return (sum(ex.minutes for ex in exercises if ex.name in chosen),
            sum(ex.minutes for ex in exercises if ex.name not in chosen))


def build_table(cells: Sequence[Sequence[str]]) -> nodes.table:
    """A docutils table of ``cells`` under the :data:`COLUMNS` header (and the
    :data:`PART_COLUMN` when the cells have a fifth item)."""
    columns = COLUMNS + ((PART_COLUMN,) if cells and len(cells[0]) > len(COLUMNS) else ())
    table = nodes.table(classes=["exercise-table"])
    group = nodes.tgroup(cols=len(columns))
    table += group
    for _, width in columns:
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    row = nodes.row()
    for title, _ in columns:
        row += _entry(title)
    head += row
    group += head
    body = nodes.tbody()
    for cell in cells:
        row = nodes.row()
        row += _entry(cell[0], literal=True)
        for text in cell[1:]:
            row += _entry(text)
        body += row
    group += body
    return table


class ExerciseTable(Directive):
    """``exercise-table``: the catalogue's exercises of one tutorial or family."""

    has_content = False
    option_spec = {"tutorial": directives.unchanged, "family": directives.unchanged,
                   "core": directives.unchanged, "budget": directives.nonnegative_int}

    def run(self) -> list[nodes.Node]:
        from reference.exercises.catalog import all_exercises

        chosen = select(all_exercises(), self.options.get("tutorial"),
                        self.options.get("family"))
        if not chosen:
            para = nodes.paragraph()
            para += nodes.emphasis("", "No exercise is registered for this part yet.")
            return [para]
        minutes = sum(ex.minutes for ex in chosen)
        summary = nodes.paragraph()
        if "core" not in self.options:
            summary += nodes.Text(f"{len(chosen)} exercise{'s' if len(chosen) != 1 else ''}, "
                                  f"about {minutes} minutes in all.")
            return [build_table(rows(chosen)), summary]
        core = self.options["core"].replace(",", " ").split()
        unknown = sorted(set(core) - {ex.name for ex in chosen})
        if unknown:
            raise self.error(f"core exercises not in this table: {', '.join(unknown)}")
        in_class, extra = split_minutes(chosen, core)
        budget = self.options.get("budget")
        if budget is not None and in_class > budget:
            raise self.error(f"the core exercises take {in_class} minutes, more than the "
                             f"session's {budget}")
        cells = [(*cell, "core" if ex.name in core else "extra")
                 for ex, cell in zip(chosen, rows(chosen), strict=True)]
        n_extra = len(chosen) - len(core)
        of = f" of the {budget} in class" if budget is not None else ""
        summary += nodes.Text(
            f"Core: {len(core)} exercises, {in_class} minutes{of}. Extra: {n_extra} "
            f"exercise{'s' if n_extra != 1 else ''}, {extra} minutes (for students who "
            "finish early, or at home).")
        return [build_table(cells), summary]


class Solution(Directive):
    """``solution NAME...``: the content, collapsed, as the answer to exercises NAME."""

    has_content = True
    optional_arguments = 10
    final_argument_whitespace = False

    def run(self) -> list[nodes.Node]:
        names = ", ".join(self.arguments)
        label = f"Solution (exercise {names})" if names else "Solution"
        container = nodes.container(classes=["solution"])
        self.state.nested_parse(self.content, self.content_offset, container)
        opening = nodes.raw("", f'<details class="solution"><summary>{label}</summary>',
                            format="html")
        closing = nodes.raw("", "</details>", format="html")
        return [opening, container, closing]


def setup(app: Any) -> dict[str, Any]:
    app.add_directive("exercise-table", ExerciseTable)
    app.add_directive("solution", Solution)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

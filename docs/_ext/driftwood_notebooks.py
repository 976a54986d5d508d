"""Each tutorial page offers its Jupyter notebook, generated at build time from the same
MyST source the page executes.

:func:`offer_notebooks` runs at configuration time, after the tutorials are copied into
``docs/tutorials/``: it writes ``docs/tutorials/_notebooks/<name>.ipynb`` with
:func:`reference.evaluation.notebooks.write_notebook` (the converter that
``driftwood tutorial get`` uses) and adds, under each page's title, a download link to it
(Sphinx copies the file into the built site). ``conf.py`` excludes ``_notebooks`` from
the sources, so the notebooks are offered, not built a second time.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["NOTEBOOKS", "offer_notebooks"]

NOTEBOOKS = "_notebooks"
"""The folder, inside the copied tutorials, that holds the generated notebooks."""


def offer_notebooks(folder: Path) -> list[Path]:
    """Write the notebook of every tutorial page in ``folder`` and link it from the page;
    returns the notebooks written."""
    from reference.evaluation.notebooks import NEEDS, write_notebook

    written = []
    for page in sorted(folder.glob("*.md")):
        notebook = write_notebook(page, folder / NOTEBOOKS / f"{page.stem}.ipynb")
        written.append(notebook)
        needs = " and ".join(f"`{n}`" for n in NEEDS.get(page.stem, ()))
        extra = f" (with {needs}, which it reads)" if needs else ""
        link = (f"\n```{{note}}\nThis page as a Jupyter notebook: "
                f"{{download}}`{page.stem}.ipynb <{NOTEBOOKS}/{page.stem}.ipynb>`, or, offline, "
                f"`driftwood tutorial get {page.stem}`{extra}.\n```\n")
        text = page.read_text(encoding="utf-8")
        title = re.search(r"^# .*\n", text, flags=re.M)
        if title is not None:
            text = text[:title.end()] + link + text[title.end():]
        page.write_text(text, encoding="utf-8")
    return written

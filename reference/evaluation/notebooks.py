"""The tutorials as Jupyter notebooks: the same MyST sources the documentation executes.

Each tutorial is a MyST text notebook (``tutorials/<name>.md``: front matter, Markdown,
and ```` ```{code-cell} ipython3 ```` blocks). :func:`to_notebook` turns one into an
``.ipynb`` (nbformat 4, written as JSON: no dependency beyond the standard library) that
runs as it is on a student's machine:

* every code cell becomes a code cell, every stretch of Markdown between them a Markdown
  cell;
* what only Sphinx understands is made readable: a ``literalinclude`` of the package's
  Python source becomes the included code (``:pyobject:`` selects a function, class or
  method, as in Sphinx); a ``solution`` block stays collapsed, as an HTML ``<details>``
  that Jupyter renders closed; a citation ``{cite:p}`BV21``` reads ``[BV21]``, the other
  roles their text; an admonition becomes a quoted paragraph; an include of a file the
  package does not ship (the C sources, ``fast/_ffibuild.py``) becomes a pointer to the
  documentation page.

The documentation build writes every notebook next to its page and links it from the
page (``docs/_ext/driftwood_docs.py``); ``driftwood tutorial get NAME --dir D`` writes it
with the files it reads (the stored copy of the cover-type curves for tutorial 03), from
the copy of the tutorials that ships in the package, offline.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["NEEDS", "get_tutorial", "section_pointer", "to_notebook", "tutorial_names",
           "tutorials_dir", "write_notebook"]

NEEDS: dict[str, tuple[str, ...]] = {
    "03_stochastic_gradient_trees": ("stored/covtype_sgt.py", "stored/covtype_sgt.json"),
}
"""Files beside a notebook that it reads (paths relative to the tutorials folder)."""

_PACKAGE = Path(__file__).resolve().parents[1]          # reference/
_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```[ \t]*$", flags=re.M | re.S)
_INCLUDE = re.compile(r"^```\{literalinclude\} (?P<path>\S+)\n(?P<options>(?::[\w-]+:.*\n)*)```"
                      r"[ \t]*$", flags=re.M)
_SOLUTION = re.compile(r"^:::\{solution\}(?P<names>[^\n]*)\n(?P<body>.*?)^:::[ \t]*$",
                       flags=re.M | re.S)
_ADMONITION = re.compile(r"^```\{(?:admonition|note|warning|tip)\}(?P<title>[^\n]*)\n"
                        r"(?:(?::[\w-]+:.*\n)*)\n?(?P<body>.*?)^```[ \t]*$", flags=re.M | re.S)
_ROLE = re.compile(r"\{(?P<role>[\w:]+)\}`(?P<text>[^`]*)`")


def tutorials_dir() -> Path:
    """Where the tutorials' sources are: the copy shipped in the package
    (``reference/_tutorials``), or a source checkout's ``tutorials/``."""
    for folder in (_PACKAGE / "_tutorials", _PACKAGE.parent / "tutorials"):
        if folder.is_dir() and any(folder.glob("*.md")):
            return folder
    raise FileNotFoundError("the tutorials are not installed with this copy of driftwood "
                            "(reference/_tutorials is missing)")


def tutorial_names() -> list[str]:
    """The tutorials, in their order (``01_determinism``, ...)."""
    return sorted(p.stem for p in tutorials_dir().glob("*.md"))


def _slug(title: str) -> str:
    """The anchor MyST gives a heading (``myst_heading_anchors``: GitHub's rule), from its
    source text with the Markdown escapes, emphasis and maths markers removed."""
    text = re.sub(r"[\\*`]", "", re.sub(r"\$[^$]*\$", "", title)).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def section_pointer(anchor: str) -> str:
    """Where a tutorial section ``"tutorials/<page>.md#<slug>"`` is found by a user of the
    installed package: its title, its tutorial and the command that writes the tutorial as a
    notebook, e.g. ``section "A double uniform on [0, 1)" of tutorial 01_determinism
    (`driftwood tutorial get 01_determinism` writes it as a notebook)``. A page or slug
    that is not found is named as it is written.

    Examples
    --------
    >>> where = section_pointer("tutorials/04_abacoc.md#the-template")
    >>> print(where)  # doctest: +NORMALIZE_WHITESPACE
    section "The template" of tutorial 04_abacoc (`driftwood tutorial get 04_abacoc` writes it
    as a notebook)
    """
    page, _, slug = anchor.partition("#")
    name = Path(page).stem
    try:
        source = (tutorials_dir() / f"{name}.md").read_text(encoding="utf-8")
    except OSError:
        return anchor
    titles, fenced = [], False
    for line in source.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and re.match(r"^#{1,3} ", line):
            titles.append(line.lstrip("#").strip())
    title = next((t for t in titles if _slug(t) == slug), None)
    where = f"tutorial {name} (`driftwood tutorial get {name}` writes it as a notebook)"
    if title is None:
        return where
    shown = re.sub(r"[\\`$]", "", title)
    return f'section "{shown}" of {where}'


def _source_file(path: str) -> Path | None:
    """The file a tutorial's ``literalinclude`` names (``../../reference/rng.py``), found
    in the installed package or beside the tutorials."""
    parts = Path(path).parts
    while parts and parts[0] == "..":
        parts = parts[1:]
    if not parts:
        return None
    if parts[0] == "reference":
        candidate = _PACKAGE.joinpath(*parts[1:])
    elif parts[0] == "tutorials":
        candidate = tutorials_dir().joinpath(*parts[1:])
    else:
        return None
    return candidate if candidate.is_file() else None


def _pyobject(source: str, dotted: str) -> str:
    """The source lines of ``Class.method`` or ``function`` (decorators included)."""
    body: list[ast.stmt] = ast.parse(source).body
    node: ast.AST | None = None
    for name in dotted.split("."):
        node = next((n for n in body if isinstance(
            n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == name), None)
        if node is None:
            raise KeyError(f"no object {dotted}")
        body = getattr(node, "body", [])
    assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    lines = source.splitlines()[first - 1:node.end_lineno]
    indent = min(len(line) - len(line.lstrip()) for line in lines if line.strip())
    return "\n".join(line[indent:] for line in lines)


def _include(match: re.Match[str]) -> str:
    options = dict(re.findall(r"^:([\w-]+):\s*(.*?)\s*$", match.group("options"), flags=re.M))
    language = options.get("language", "python")
    found = _source_file(match.group("path"))
    if found is None or language != "python":
        name = match.group("path").lstrip("./")
        what = "the C sources are" if name.endswith((".c", ".h")) else "this file is"
        return (f"*(The documentation page shows `{name}` here"
                + (f", from `{options['start-at']}`" if "start-at" in options else "")
                + f": {what} not part of the installed package.)*")
    text = found.read_text(encoding="utf-8")
    if "pyobject" in options:
        text = _pyobject(text, options["pyobject"])
    return f"```python\n{text.rstrip()}\n```"


def _solution(match: re.Match[str]) -> str:
    names = match.group("names").split()
    label = f"Solution (exercise {', '.join(names)})" if names else "Solution"
    return (f"<details><summary>{label}</summary>\n\n{match.group('body').strip()}\n\n"
            "</details>")


def _roles(text: str) -> str:
    def readable(match: re.Match[str]) -> str:
        role, inner = match.group("role"), match.group("text")
        if role.startswith("cite"):
            return "[" + ", ".join(k.strip() for k in inner.split(",")) + "]"
        shown = re.sub(r"\s*<[^>]*>$", "", inner)       # "text <target>" -> "text"
        if role == "eq":
            return f"({shown})"
        if role in ("doc", "ref"):
            return shown.rsplit("/", 1)[-1] if "<" not in inner else shown
        return f"`{shown.lstrip('~').rsplit('.', 1)[-1]}`" if role in (
            "class", "func", "meth", "mod") else shown
    return _ROLE.sub(readable, text)


def _admonition(match: re.Match[str]) -> str:
    title = match.group("title").strip()
    lines = ([f"**{title}**", ""] if title else []) + match.group("body").rstrip().splitlines()
    return "\n".join(f"> {line}".rstrip() for line in lines)


def _markdown(text: str) -> str:
    text = _INCLUDE.sub(_include, text)
    text = _ADMONITION.sub(_admonition, text)
    text = _SOLUTION.sub(_solution, text)
    text = re.sub(r"^\$\$ \(([\w-]+)\)$", r"$$", text, flags=re.M)   # labelled equations
    text = re.sub(r"^\((?:[\w-]+)\)=\n", "", text, flags=re.M)      # MyST targets
    return _roles(text)


def _cell(kind: str, text: str) -> dict[str, Any]:
    lines = text.splitlines(keepends=True)
    if lines:
        lines[-1] = lines[-1].rstrip("\n")
    cell: dict[str, Any] = {"cell_type": kind, "metadata": {}, "source": lines}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def to_notebook(text: str) -> dict[str, Any]:
    """The notebook (nbformat 4, as a JSON-ready mapping) of a MyST text notebook."""
    body = text
    if body.startswith("---\n"):
        body = body.split("\n---\n", 1)[1]
    cells: list[dict[str, Any]] = []
    position = 0
    for match in _CELL.finditer(body):
        markdown = _markdown(body[position:match.start()]).strip()
        if markdown:
            cells.append(_cell("markdown", markdown))
        cells.append(_cell("code", match.group(1).rstrip()))
        position = match.end()
    tail = _markdown(body[position:]).strip()
    if tail:
        cells.append(_cell("markdown", tail))
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def write_notebook(source: Path, target: Path) -> Path:
    """Write the notebook of the MyST file ``source`` to ``target``; returns ``target``."""
    notebook = to_notebook(source.read_text(encoding="utf-8"))
    for i, cell in enumerate(notebook["cells"]):
        cell["id"] = f"{source.stem[:20]}-{i}"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n",
                      encoding="utf-8")
    return target


def _tutorial_files(full: str, folder: Path) -> list[tuple[Path, bytes]]:
    """What ``get_tutorial`` writes for tutorial ``full`` into ``folder``: (path, bytes)."""
    notebook = to_notebook((tutorials_dir() / f"{full}.md").read_text(encoding="utf-8"))
    for i, cell in enumerate(notebook["cells"]):
        cell["id"] = f"{full[:20]}-{i}"
    text = json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
    files = [(folder / f"{full}.ipynb", text.encode("utf-8"))]
    files += [(folder / needed, (tutorials_dir() / needed).read_bytes())
              for needed in NEEDS.get(full, ())]
    return files


def get_tutorial(name: str, directory: str | Path = ".", *, overwrite: bool = False,
                 report: Callable[[str], None] | None = None) -> list[Path]:
    """Write tutorial ``name`` as ``<directory>/<name>.ipynb`` with the files it reads.

    ``name`` may omit the number, or be any part of the name that only one tutorial has
    (``abacoc``, or ``stochastic`` for ``03_stochastic_gradient_trees``).

    Nothing a user may have changed is replaced unless ``overwrite``: an existing
    notebook, or an existing data file (``stored/covtype_sgt.py``) whose bytes differ
    from the shipped copy, raises ``FileExistsError`` naming every such file, before
    anything is written (a data file identical to the shipped one is left as it is).
    ``directory`` that exists and is not a folder raises ``NotADirectoryError`` (with or
    without ``overwrite``: ``overwrite`` never deletes a file to make a folder). Returns
    the paths written.
    """
    names = tutorial_names()
    chosen = [n for n in names if n == name or n.split("_", 1)[1] == name]
    if not chosen:
        chosen = [n for n in names if name and name in n]
    if len(chosen) != 1:
        what = "no tutorial" if not chosen else "more than one tutorial matches"
        raise KeyError(f"{what} {name!r}; known: {', '.join(names)}")
    full = chosen[0]
    folder = Path(directory)
    files = _tutorial_files(full, folder)
    for path, _ in files:
        inside = [folder / q for q in reversed(path.relative_to(folder).parents) if q.parts]
        for where in [folder, *inside]:
            if where.exists() and not where.is_dir():
                raise NotADirectoryError(f"{where} is a file, not a folder: choose another "
                                         "--dir, or move the file")
        if path.is_dir():
            raise IsADirectoryError(f"{path} is a folder: choose another --dir, or move it")
    if not overwrite:
        kept = [path for i, (path, content) in enumerate(files)
                if path.exists() and (i == 0 or not path.is_file()
                                      or path.read_bytes() != content)]
        if kept:
            listed = ", ".join(str(p) for p in kept)
            raise FileExistsError(f"{listed} {'exists' if len(kept) == 1 else 'exist'} "
                                  "(changed since `tutorial get` wrote it, or yours): "
                                  "nothing written; keep your work, or overwrite it "
                                  "explicitly")
    written = []
    for path, content in files:
        if path.exists() and path.is_file() and path.read_bytes() == content:
            written.append(path)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        written.append(path)
    if report is not None:
        for path in written:
            report(str(path))
    return written

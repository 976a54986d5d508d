"""Build helpers of the driftwood docs (a Sphinx extension plus config-time functions).

Kept out of ``conf.py`` so that the tests can import them without side effects.

- :func:`copy_tutorials` mirrors ``tutorials/`` into ``docs/tutorials/``.
- :func:`generate_api_pages` writes ``docs/api/generated/*.rst`` from the packages.
- :func:`render_custom_sections` keeps the project's own docstring sections (``Notation``)
  that numpydoc would drop.
- The pybtex style ``driftwood_tags`` labels bibliography entries by their keys, so the
  docs show the same tags as the code (``[AG13]``, ``[TGP11]``, ...).
- :class:`SpecTagLinks` turns every specification tag in the text (``[DT-SPEC §5.2]``,
  ``[ABACOC-SPEC T1]``, ...), in docstrings and pages alike, into a link to that section
  of ``docs/spec/``.
- One-line summaries of the API tables do not stop at the period of ``Eq.``, ``Fig.``, ...
  (:data:`CITATION_ABBREVIATIONS`).
- A notebook that fails to execute shows its traceback on the console (as a warning, so
  ``-W --keep-going`` reports every failing notebook) and fails the build even without
  ``-W`` (:func:`fail_on_notebook_errors`).
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import shutil
from pathlib import Path
from typing import Any

from docutils import nodes
from pybtex.plugin import register_plugin
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels import BaseLabelStyle
from sphinx import addnodes
from sphinx.transforms import SphinxTransform
from sphinx.util import logging as sphinx_logging

LOGGER = sphinx_logging.getLogger(__name__)

# -- tutorials -----------------------------------------------------------------------------


def copy_tutorials(src: Path, dst: Path) -> list[str]:
    """Mirror ``src`` into ``dst``: files removed from ``src`` disappear from ``dst``.

    Hidden entries and ``__pycache__``-like entries are skipped. Returns the copied names.
    """
    if dst.exists():
        shutil.rmtree(dst)
    dst.mkdir(parents=True)
    copied = []
    if src.is_dir():
        for path in sorted(src.iterdir()):
            if path.name.startswith((".", "__")):
                continue
            if path.is_dir():
                shutil.copytree(path, dst / path.name)
            else:
                shutil.copy2(path, dst / path.name)
                if path.suffix == ".md":
                    _default_kernel_language(dst / path.name)
            copied.append(path.name)
    return copied


def _default_kernel_language(path: Path) -> None:
    """Add ``language: python`` to a notebook's ``kernelspec`` front matter if missing.

    myst-nb takes the code-cell lexer from the executed kernel; when a build does not
    execute (``-D nb_execution_mode=off``) it falls back to ``kernelspec.language``, and
    without one every code cell would warn.
    """
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---" or "---" not in [x.strip() for x in lines[1:]]:
        return
    end = 1 + [x.strip() for x in lines[1:]].index("---")
    front = lines[1:end]
    if "kernelspec:" not in [x.rstrip() for x in front]:
        return
    at = 1 + [x.rstrip() for x in front].index("kernelspec:")
    block_end = at + 1
    while block_end < end and lines[block_end].startswith((" ", "\t")):
        block_end += 1
    if any(x.strip().startswith("language:") for x in lines[at + 1 : block_end]):
        return
    lines.insert(at + 1, "  language: python")
    stat = path.stat()
    path.write_text("\n".join(lines), encoding="utf-8")
    os.utime(path, (stat.st_atime, stat.st_mtime))


# -- API pages -----------------------------------------------------------------------------

EVALUATION_KIT = [
    ("reference.evaluation.datasets", "Data sets and synthetic streams"),
    ("reference.evaluation.registry", "The data registry and its user cache"),
    ("reference.evaluation.metrics", "Metrics"),
    ("reference.evaluation.prequential", "Prequential evaluation"),
    ("reference.evaluation.baselines", "Baseline learners"),
    ("reference.evaluation.plotting", "Plotting"),
    ("reference.evaluation.figures", "Figures for slides"),
    ("reference.evaluation.compare", "Backend comparison"),
    ("reference.evaluation.catalog", "Models and streams of the command line and the grids"),
    ("reference.evaluation.grid", "Experiment grids"),
    ("reference.evaluation.protocols", "Grid protocols"),
    ("reference.evaluation.cli", "Command line"),
]
"""Evaluation-kit modules documented on the evaluation page."""

NUMERICS = [
    ("reference.rng", "The generator"),
    ("reference.special", "Special functions"),
    ("reference.rows", "Input rows"),
    ("reference.state", "Pickled state format"),
]
"""Numerical building blocks documented on the numerics page."""


def _heading(text: str, char: str, overline: bool = False) -> list[str]:
    line = char * len(text)
    return [line, text, line, ""] if overline else [text, line, ""]


def _import(name: str) -> tuple[Any, str]:
    """The module, or ``None`` and the reason it could not be imported."""
    try:
        return importlib.import_module(name), ""
    except Exception as exc:  # missing module, missing C build, ...
        return None, f"{type(exc).__name__}: {exc}"


def package_page(package: str, intro: str) -> list[str]:
    """Lines of a page documenting every public name of ``package`` (its ``__all__``)."""
    module, why = _import(package)
    lines = _heading(f"``{package}``", "=", overline=True)
    lines += [intro, ""]
    if module is None:
        lines += [
            ".. note::",
            "",
            f"   ``{package}`` could not be imported when these pages were built ({why}).",
            "",
        ]
        return lines
    names = list(getattr(module, "__all__", []))
    lines += [f".. currentmodule:: {package}", "", ".. autosummary::", ""]
    lines += [f"   {name}" for name in names]
    lines += [""]
    for name in names:
        obj = getattr(module, name)
        lines += _heading(name, "-")
        owner = _shared_owner(obj, package, name)
        if owner:
            # documented once, where it is defined: a second autodoc entry would declare
            # the same canonical name twice
            lines += [
                f"``{package}.{name}`` is :py:obj:`{owner}.{name}` itself: "
                f"both backends use this one object.",
                "",
            ]
        elif inspect.isclass(obj):
            # the public classes are facades written once (their methods live in the
            # family's facade base) and fast's classes only choose their engine: list
            # the methods they inherit, not just those they define
            lines += [f".. autoclass:: {package}.{name}", "   :members:",
                      "   :inherited-members: object", ""]
        elif callable(obj):
            lines += [f".. autofunction:: {package}.{name}", ""]
        else:
            lines += [f".. autodata:: {package}.{name}", "   :no-value:", ""]
    return lines


def _shared_owner(obj: Any, package: str, name: str) -> str:
    """The other package that defines ``obj`` and exports it as ``name``, or ``""``.

    ``fast`` re-exports some pure-Python objects of ``reference`` (loss definitions,
    parameter classes); they are the same objects, documented on the ``reference`` page.
    """
    if not (inspect.isclass(obj) or inspect.isfunction(obj)):
        return ""
    root = (getattr(obj, "__module__", "") or "").split(".")[0]
    if not root or root == package:
        return ""
    owner, _ = _import(root)
    return root if owner is not None and getattr(owner, name, None) is obj else ""


def modules_page(title: str, intro: str, modules: list[tuple[str, str]]) -> list[str]:
    """Lines of a page with an ``automodule`` section for each module that imports."""
    lines = _heading(title, "=", overline=True)
    lines += [intro, ""]
    for name, caption in modules:
        module, why = _import(name)
        if module is None:  # a listed module must import: fail the build, never skip
            raise ImportError(f"documented module {name} does not import: {why}")
        lines += _heading(f"{caption}: ``{name}``", "-")
        lines += [f".. automodule:: {name}", "   :members:", ""]
    return lines


def write_if_changed(path: Path, lines: list[str]) -> None:
    """Write ``lines`` to ``path`` unless it already holds exactly that text."""
    text = "\n".join(lines).rstrip("\n") + "\n"
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def generate_api_pages(out: Path) -> None:
    """Write the four generated API pages into ``out``."""
    write_if_changed(
        out / "reference.rst",
        package_page(
            "reference",
            "The readable pure-Python backend: the specification. Every model follows its "
            "paper equation by equation; :doc:`fast` runs the same algorithms in C with "
            "bit-identical results. Where a paper is silent or ambiguous, the choice is fixed "
            "in the specification: :doc:`/spec/dynamic_trees`, :doc:`/spec/sgt`, "
            ":doc:`/spec/abacoc` and :doc:`/spec/determinism` (cited in docstrings with tags "
            "such as ``[DT-SPEC §5.2]``).",
        ),
    )
    write_if_changed(
        out / "fast.rst",
        package_page(
            "fast",
            "The C backend (cffi): the same public names, signatures and results as "
            ":doc:`reference`. Swap backends by changing one import. Both follow the "
            ":doc:`/spec/index`.",
        ),
    )
    write_if_changed(
        out / "evaluation.rst",
        modules_page(
            "Evaluation kit",
            "The evaluation wing, ``reference.evaluation``: backend-agnostic tools shared by "
            "both packages: streams and data, metrics, prequential (test-then-train) "
            "evaluation, the baseline learners, the backend comparison, experiment grids "
            "and the command line.",
            EVALUATION_KIT,
        ),
    )
    write_if_changed(
        out / "numerics.rst",
        modules_page(
            "Generator and numerics",
            "The building blocks written twice, once in Python and once in C with the same "
            "operations in the same order (``csrc/common/rng.c``, ``csrc/common/special.c``, ...).",
            NUMERICS,
        ),
    )


# -- docstring conventions of the project --------------------------------------------------

_SECTION_RE = re.compile(r"^-{3,}\s*$")


def _numpydoc_sections() -> set[str]:
    from numpydoc.docscrape import NumpyDocString

    return set(NumpyDocString.sections)


def render_custom_sections(
    app: Any, what: str, name: str, obj: Any, options: Any, lines: list[str]
) -> None:
    """Keep the project's own docstring sections, such as ``Notation`` (see writing_docs.md).

    numpydoc silently drops sections it does not know. Before it runs, each such section
    is moved to the end of the extended summary and rendered as a rubric over a literal
    block: these blocks are aligned plain-text tables (symbol, meaning), not
    reStructuredText, and keep their layout that way. ``lines`` is edited in place.
    """
    known = _numpydoc_sections()
    starts = [
        i for i in range(len(lines) - 1) if lines[i].strip() and _SECTION_RE.match(lines[i + 1])
    ]
    custom = [i for i in starts if lines[i].strip() not in known]
    if not custom:
        return

    def section_end(begin: int) -> int:
        later = [i for i in starts if i > begin]
        return later[0] if later else len(lines)

    ends = {begin: section_end(begin) for begin in custom}
    blocks: list[str] = []
    for begin in reversed(custom):  # from the end, so earlier indices stay valid
        body = list(lines[begin + 2 : ends[begin]])
        while body and not body[-1].strip():
            body.pop()
        while body and not body[0].strip():
            body.pop(0)
        title = lines[begin].strip()
        del lines[begin : ends[begin]]
        blocks[0:0] = [f".. rubric:: {title}", "", "::", ""] + ["    " + b for b in body] + [""]
    first_known = [i for i in starts if i not in custom]
    if first_known:
        removed_before = sum(ends[b] - b for b in custom if b < first_known[0])
        insert_at = first_known[0] - removed_before
    else:
        insert_at = len(lines)
    lines[insert_at:insert_at] = blocks


# -- bibliography labels -------------------------------------------------------------------


class KeyLabelStyle(BaseLabelStyle):  # type: ignore[misc]
    """Label each bibliography entry with its key (``AG13``), as the code cites it."""

    def format_labels(self, sorted_entries: Any) -> Any:
        for entry in sorted_entries:
            yield entry.key


class TagStyle(UnsrtStyle):  # type: ignore[misc]
    """``unsrt`` formatting, labels from the keys, sorted by author, year and title."""

    default_label_style = KeyLabelStyle
    default_sorting_style = "author_year_title"


register_plugin("pybtex.style.formatting", "driftwood_tags", TagStyle)


# -- specification tags ---------------------------------------------------------------------

SPEC_PAGES = {"DT": "dynamic_trees", "SGT": "sgt", "ABACOC": "abacoc", "DET": "determinism"}
"""Tag family -> page of ``docs/spec/`` (without ``.md``)."""

SPEC_TAG = re.compile(r"\[(DT|SGT|ABACOC|DET)-SPEC (§(?:\d+(?:\.\d+)?|[A-Z])|[A-Z]\d{1,2})\]")
"""A well-formed tag: ``[DT-SPEC §5.2]``, ``[DT-SPEC §A]`` (an appendix), ``[ABACOC-SPEC T1]``
(a rule code). ``tests/common/test_citations.py`` rejects every other form in the repository."""


def spec_label(family: str, inside: str) -> str:
    """The label of the section a tag cites: ``[DT-SPEC §5.2]`` -> ``dt-spec-5-2``.

    Each numbered section of a specification page carries that label as a MyST target
    (``(dt-spec-5-2)=`` above its heading), so links to it survive rewording of the title.
    """
    return f"{family.lower()}-spec-{inside.removeprefix('§').replace('.', '-').lower()}"


_NO_LINKS = (
    nodes.FixedTextElement,  # literal blocks, code cells and their outputs, doctests
    nodes.literal,
    nodes.raw,
    nodes.math,
    nodes.math_block,
    nodes.reference,
    nodes.target,
    nodes.title,
    addnodes.pending_xref,
    addnodes.desc_signature,
)
"""Places where a tag stays text: code shows what is written, and links do not nest."""


def _linkable(node: nodes.Node) -> bool:
    from sphinx.ext.autosummary import autosummary_table

    parent = node.parent
    while parent is not None:
        if isinstance(parent, autosummary_table):
            return True  # a comment node (so a FixedTextElement) that holds the API tables
        if isinstance(parent, _NO_LINKS):
            return False
        parent = parent.parent
    return True


class SpecTagLinks(SphinxTransform):
    """Make every specification tag in running text a link to the section it cites.

    Runs on every document after parsing, so it reaches MyST pages, notebooks and the
    docstrings that autodoc and autosummary parsed into the API pages. A tag whose section
    does not exist is an ``undefined label`` warning (an error under ``-W``).
    """

    default_priority = 500

    def apply(self, **kwargs: Any) -> None:
        for text in list(self.document.findall(nodes.Text)):
            value = str(text)
            if "-SPEC " not in value or not _linkable(text):
                continue
            pieces: list[nodes.Node] = []
            at = 0
            for match in SPEC_TAG.finditer(value):
                if match.start() > at:
                    pieces.append(nodes.Text(value[at : match.start()]))
                tag = match.group(0)
                xref = addnodes.pending_xref(
                    "", nodes.inline(tag, tag, classes=["spec-tag"]),
                    refdomain="std", reftype="ref", reftarget=spec_label(*match.groups()),
                    refexplicit=True, refwarn=True, refdoc=self.env.docname,
                )
                xref.source, xref.line = text.parent.source, text.parent.line
                pieces.append(xref)
                at = match.end()
            if not pieces:
                continue
            if at < len(value):
                pieces.append(nodes.Text(value[at:]))
            text.parent.replace(text, pieces)


# -- one-line summaries ----------------------------------------------------------------------

CITATION_ABBREVIATIONS = ("Eq.", "Eqs.", "Fig.", "Figs.", "Alg.", "Sec.", "Thm.", "Prop.",
                          "Lemma.", "Def.", "Ch.", "Tab.", "No.", "p.", "pp.")
"""Abbreviations of the paper citations (``[GPF19, Eq. 13]``) after which a summary goes on.

autosummary's one-line summary is the docstring's first sentence, cut at the first period
followed by a space unless it ends a well-known abbreviation; without these it would cut
``Logistic loss ... [GPF19, Eq. 27]`` after ``Eq.``.
"""


def extend_summary_abbreviations() -> None:
    from sphinx.ext import autosummary

    known = tuple(autosummary.WELL_KNOWN_ABBREVIATIONS)
    extra = tuple(a for a in CITATION_ABBREVIATIONS if a not in known)
    autosummary.WELL_KNOWN_ABBREVIATIONS = known + extra  # type: ignore[attr-defined,unused-ignore]


# -- failing notebooks -----------------------------------------------------------------------


def _notebook_failures(env: Any) -> dict[str, str]:
    """Docname -> error class of every notebook whose last execution failed."""
    failed = {}
    for docname, data in getattr(env, "nb_metadata", {}).items():
        exec_data = data.get("exec_data") or {}
        if exec_data and not exec_data.get("succeeded", True):
            failed[docname] = str(exec_data.get("error"))
    return failed


def reread_failed_notebooks(
    app: Any, env: Any, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    """Execute a notebook that failed last time again, even if its source is unchanged.

    The failure may have been in the library; an incremental build must not keep the
    stale error (or, worse, the stale page) after the library was fixed.
    """
    return sorted(d for d in _notebook_failures(env) if d in env.found_docs and d not in removed)


def fail_on_notebook_errors(app: Any, exception: BaseException | None) -> None:
    """Fail the build, naming the notebooks, when any notebook raised.

    myst-nb is configured not to raise (``nb_execution_raise_on_error = False``): raising
    stops the build at the first failing notebook and hides the cell's traceback in a log
    file. Instead each failure is a warning that carries the traceback
    (``nb_execution_show_tb``), and this handler then fails the build (exit status 1),
    with or without ``-W``.
    """
    if exception is not None:
        return
    failed = _notebook_failures(app.env)
    if failed:
        listing = ", ".join(f"{name} ({error})" for name, error in sorted(failed.items()))
        app.statuscode = 1  # "build finished with problems", exit status 1
        LOGGER.error("notebook execution failed (tracebacks above): %s", listing)


def setup(app: Any) -> dict[str, Any]:
    # priority 400: before numpydoc's own autodoc-process-docstring handler (500)
    app.connect("autodoc-process-docstring", render_custom_sections, priority=400)
    app.add_transform(SpecTagLinks)
    extend_summary_abbreviations()
    app.connect("env-get-outdated", reread_failed_notebooks)
    app.connect("build-finished", fail_on_notebook_errors)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

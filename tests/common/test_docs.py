"""Checks of the documentation sources and build (docs/, tutorials/).

The default run checks, without executing any notebook:

- the bibliography has every paper tag the project cites, and every ``{cite}`` in the
  tutorials and docs pages names an entry of it;
- every tutorial is a MyST notebook named ``NN_name.md`` with the required front matter;
- every ``literalinclude`` of a tutorial points at an existing file, object (``:pyobject:``)
  and marker text (``:start-at:`` ...), so code shown in the docs cannot silently vanish;
- the docs helpers (tutorial copy, custom docstring sections) behave as documented;
- the whole site builds with warnings as errors when notebooks are not executed
  (``-D nb_execution_mode=off``; about 5 s): docstring markup errors of every documented
  module show up here, with the file and line.

With ``--runslow``: the real build (notebooks executed, exactly CI's command but into a
temporary directory), and checks that MathJax is served locally.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
TUTORIALS = ROOT / "tutorials"
PAPER_KEYS = {"AG13", "AG11", "TGP11", "GPF19", "DOC15", "BV21", "Hand09", "SK01", "HSD01"}


def bib_keys() -> set[str]:
    text = (DOCS / "references.bib").read_text(encoding="utf-8")
    return set(re.findall(r"^@\w+\{([^,\s]+),", text, flags=re.M))


def tutorial_files() -> list[Path]:
    return sorted(TUTORIALS.glob("*.md"))


def docs_pages() -> list[Path]:
    return sorted(DOCS.glob("*.md")) + sorted((DOCS / "api").glob("*.md"))


def literalincludes(text: str) -> list[tuple[str, dict[str, str]]]:
    """``(path, options)`` of every MyST ``literalinclude`` directive in ``text``."""
    found = []
    pattern = r"^(`{3,}|~{3,})\{literalinclude\}\s+(\S+)\s*\n((?::[\w-]+:.*\n)*)"
    for match in re.finditer(pattern, text, flags=re.M):
        options = dict(re.findall(r"^:([\w-]+):\s*(.*?)\s*$", match.group(3), flags=re.M))
        found.append((match.group(2), options))
    return found


def has_pyobject(source: str, dotted: str) -> bool:
    """Whether ``dotted`` (``name`` or ``Class.method``) is defined in ``source``."""
    body: list[ast.stmt] = ast.parse(source).body
    for part in dotted.split("."):
        match = [
            node
            for node in body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and node.name == part
        ]
        if not match:
            return False
        body = match[0].body
    return True


def test_bibliography_has_every_paper_tag() -> None:
    missing = PAPER_KEYS - bib_keys()
    assert not missing, f"docs/references.bib lacks {sorted(missing)}"


@pytest.mark.parametrize(
    "page", tutorial_files() + docs_pages(), ids=lambda p: str(p.relative_to(ROOT))
)
def test_citations_name_bibliography_entries(page: Path) -> None:
    keys = bib_keys()
    text = page.read_text(encoding="utf-8")
    cited = {
        key.strip()
        for group in re.findall(r"\{cite(?::\w+)?\}`([^`]+)`", text)
        for key in group.split(",")
    }
    unknown = cited - keys
    assert not unknown, f"{page.name} cites {sorted(unknown)}, not in docs/references.bib"


def test_there_is_a_first_tutorial() -> None:
    assert (TUTORIALS / "01_determinism.md").is_file()


@pytest.mark.parametrize("tutorial", tutorial_files(), ids=lambda p: p.name)
def test_tutorial_is_a_named_myst_notebook(tutorial: Path) -> None:
    assert re.fullmatch(r"\d\d_[a-z0-9_]+\.md", tutorial.name), "name must be NN_name.md"
    head = tutorial.read_text(encoding="utf-8").split("\n")
    assert head[0] == "---", "front matter must open the file"
    front = head[1 : head.index("---", 1)]
    assert "file_format: mystnb" in front
    assert "kernelspec:" in front
    assert any(line.strip() == "name: python3" for line in front)


@pytest.mark.parametrize("tutorial", tutorial_files(), ids=lambda p: p.name)
def test_tutorial_literalincludes_resolve(tutorial: Path) -> None:
    copy_dir = DOCS / "tutorials"  # the tutorial is built from its copy there
    for path, options in literalincludes(tutorial.read_text(encoding="utf-8")):
        target = Path(os.path.normpath(copy_dir / path))
        assert target.is_file(), f"{tutorial.name}: {path} does not exist"
        source = target.read_text(encoding="utf-8")
        if "pyobject" in options:
            assert has_pyobject(source, options["pyobject"]), (
                f"{tutorial.name}: no {options['pyobject']} in {path}"
            )
        for key in ("start-at", "start-after", "end-at", "end-before"):
            if key in options:
                assert options[key] in source, f"{tutorial.name}: {key} text not in {path}"


def test_first_tutorial_shows_the_generator_code() -> None:
    includes = literalincludes((TUTORIALS / "01_determinism.md").read_text(encoding="utf-8"))
    shown = {opts.get("pyobject") for _, opts in includes}
    assert {"splitmix64", "seed_state", "Rng.next_u64", "Rng.uniform", "Rng.below"} <= shown
    assert any(path.endswith("csrc/common/rng.c") for path, _ in includes)


def _driftwood_docs() -> Any:
    pytest.importorskip("numpydoc")
    pytest.importorskip("pybtex")
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import driftwood_docs  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    return driftwood_docs


def test_copy_tutorials_mirrors_and_sets_kernel_language(tmp_path: Path) -> None:
    helpers = _driftwood_docs()
    src, dst = tmp_path / "src", tmp_path / "dst"
    src.mkdir()
    (src / "01_a.md").write_text(
        "---\nfile_format: mystnb\nkernelspec:\n  name: python3\n---\n# A\n", encoding="utf-8"
    )
    (src / ".hidden.md").write_text("x", encoding="utf-8")
    dst.mkdir()
    (dst / "99_stale.md").write_text("gone", encoding="utf-8")
    assert helpers.copy_tutorials(src, dst) == ["01_a.md"]
    assert sorted(p.name for p in dst.iterdir()) == ["01_a.md"]
    text = (dst / "01_a.md").read_text(encoding="utf-8")
    assert "kernelspec:\n  language: python\n  name: python3\n" in text
    helpers.copy_tutorials(src, dst)  # idempotent: the language line is not doubled
    assert (dst / "01_a.md").read_text(encoding="utf-8").count("language:") == 1


def test_custom_docstring_sections_are_kept_before_numpydoc_sections() -> None:
    helpers = _driftwood_docs()
    lines = [
        "Summary.",
        "",
        "Notation",
        "--------",
        "``g``   gradient",
        "",
        "Parameters",
        "----------",
        "x : int",
        "    An input.",
        "",
        "Public functions",
        "----------------",
        "``f(x)``",
        "    does f.",
    ]
    helpers.render_custom_sections(None, "module", "m", None, None, lines)
    assert lines == [
        "Summary.",
        "",
        ".. rubric:: Notation",
        "",
        "::",
        "",
        "    ``g``   gradient",
        "",
        ".. rubric:: Public functions",
        "",
        "::",
        "",
        "    ``f(x)``",
        "        does f.",
        "",
        "Parameters",
        "----------",
        "x : int",
        "    An input.",
        "",
    ]


def _sphinx_build(out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    for module in ("sphinx", "myst_nb", "numpydoc", "sphinxcontrib.bibtex"):
        pytest.importorskip(module)
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]
    command += ["-d", str(out / "doctrees"), *extra, "docs", str(out / "html")]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)


def _assert_local_mathjax(html_dir: Path) -> None:
    page = (html_dir / "tutorials" / "01_determinism.html").read_text(encoding="utf-8")
    scripts = re.findall(r'<script[^>]*src="([^"]+)"', page)
    mathjax = [s for s in scripts if "mathjax" in s.lower()]
    assert mathjax == ["../_static/mathjax/tex-chtml.js"], scripts
    assert not [s for s in scripts if s.startswith(("http:", "https:", "//"))], scripts
    assert (html_dir / "_static" / "mathjax" / "tex-chtml.js").is_file()
    assert (html_dir / "_static" / "mathjax" / "output" / "chtml" / "fonts").is_dir()
    assert 'class="math notranslate nohighlight"' in page  # maths left for MathJax


def test_docs_build_without_warnings_when_notebooks_are_not_executed(tmp_path: Path) -> None:
    result = _sphinx_build(tmp_path, "-D", "nb_execution_mode=off")
    assert result.returncode == 0, result.stderr[-6000:]
    _assert_local_mathjax(tmp_path / "html")
    api = (tmp_path / "html" / "api" / "generated" / "fast.html").read_text(encoding="utf-8")
    import fast
    import reference

    for name in fast.__all__:
        if getattr(reference, name, None) is getattr(fast, name):  # one shared object
            assert f">fast.{name}</span></code> is" in api, f"fast.{name} not on the API page"
        else:
            assert f'id="fast.{name}"' in api, f"fast.{name} missing from the API page"


@pytest.mark.slow
def test_docs_build_with_executed_tutorials(tmp_path: Path) -> None:
    result = _sphinx_build(tmp_path)
    assert result.returncode == 0, result.stderr[-6000:]
    html_dir = tmp_path / "html"
    _assert_local_mathjax(html_dir)
    page = (html_dir / "tutorials" / "01_determinism.html").read_text(encoding="utf-8")
    assert "identical values and identical final states" in page  # a cell's output

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

- the no-execution build passes the checks of the built HTML (``docs/_ext/check_html.py``:
  raw markup, ``(*args, **kwargs)`` signatures, cut summaries, unlinked specification tags,
  broken links), and those checks catch each kind of problem on small pages;
- every public class has its constructor's signature for documentation tools, one-line
  summaries do not stop inside a citation, and every specification tag the extension links
  resolves to a labelled section;
- a notebook that raises fails the build and shows its traceback on the console;
- the stored covtype curves of tutorial 03 are what the code computes today (when the data
  set is available; under ``REQUIRE_DATA=1`` it must be).

With ``--runslow``: the real build (notebooks executed, exactly CI's command but into a
temporary directory), its HTML checks, and checks that MathJax is served locally.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _installed import INSTALLED_MODE, NOT_INSTALLED, tree_path

from conftest import require_dataset, require_fast

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
        if target.is_relative_to(ROOT):  # reference/ and fast/ as imported (a wheel's)
            relative = target.relative_to(ROOT).as_posix()
            if INSTALLED_MODE and relative in NOT_INSTALLED and not tree_path(relative).exists():
                continue    # the build script: the docs are built from a source tree, which
                            # has it (checked there); the notebook names it as not installed
            target = tree_path(relative)
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


def _check_html() -> Any:
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import check_html  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    return check_html


def test_docs_build_without_warnings_when_notebooks_are_not_executed(tmp_path: Path) -> None:
    result = _sphinx_build(tmp_path, "-D", "nb_execution_mode=off")
    assert result.returncode == 0, result.stderr[-6000:]
    _assert_local_mathjax(tmp_path / "html")
    problems = _check_html().static_checks(tmp_path / "html", figures=False)
    assert not problems, "\n".join(problems)
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
    problems = _check_html().static_checks(html_dir)
    assert not problems, "\n".join(problems)
    page = (html_dir / "tutorials" / "01_determinism.html").read_text(encoding="utf-8")
    assert "identical values and identical final states" in page  # a cell's output


# -- API signatures and summaries ------------------------------------------------------------


def test_every_public_class_shows_its_constructor_signature_to_doc_tools() -> None:
    """Sphinx takes a class's signature from ``__signature__``, else ``__new__`` first: the
    models' lock-creating ``__new__(*args, **kwargs)`` must not be what the API pages show."""
    import reference

    packages = [reference]
    try:
        packages.append(require_fast())
    except pytest.skip.Exception:
        pass
    for package in packages:
        for name in package.__all__:
            cls = getattr(package, name)
            if not inspect.isclass(cls) or "__new__" not in dir(cls):
                continue
            if not any(inspect.isfunction(vars(k).get("__new__")) for k in cls.__mro__):
                continue  # a built-in __new__ (object's, Exception's): Sphinx skips it
            shown = getattr(cls, "__signature__", None)
            assert isinstance(shown, inspect.Signature), f"{package.__name__}.{name}"
            init = inspect.signature(cls.__init__)
            assert list(shown.parameters.values()) == list(init.parameters.values())[1:], name
            assert "args" not in shown.parameters and "kwargs" not in shown.parameters, name


def test_one_line_summaries_do_not_stop_inside_a_citation() -> None:
    _driftwood_docs().extend_summary_abbreviations()  # as the extension's setup does
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser
    from sphinx.ext.autosummary import extract_summary

    settings = get_default_settings(Parser)
    settings.report_level = 5
    import reference

    cut = []
    for name in reference.__all__:
        doc = inspect.getdoc(getattr(reference, name)) or ""
        first = doc.split("\n\n")[0]
        summary = extract_summary(first.splitlines(), settings)
        if summary.count("[") != summary.count("]") or summary.count("(") != summary.count(")"):
            cut.append(f"{name}: {summary!r}")
    assert not cut, "\n".join(cut)
    tricky = ["Squared error l = (f - y)² / 2, σ = identity [GPF19, Eq. 23-25]. More here."]
    assert extract_summary(tricky, settings) == tricky[0].removesuffix(" More here.")


# -- specification tags ----------------------------------------------------------------------


def test_every_specification_tag_links_to_a_labelled_section() -> None:
    """The extension links exactly the tags the repository uses, each to a section label."""
    helpers = _driftwood_docs()
    import test_citations

    targets = test_citations.spec_targets()
    assert helpers.SPEC_PAGES == test_citations.PAGES
    labels = {f"{family.lower()}-spec-{name}" for family, names in targets.items()
              for name in names}
    seen = 0
    for path in test_citations.tracked_text_files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        cited = [m.group(0) for m in test_citations.TAG.finditer(text)]
        linked = [m.group(0) for m in helpers.SPEC_TAG.finditer(text)]
        assert linked == cited, f"{path.relative_to(ROOT)}: tags the extension would not link"
        for match in helpers.SPEC_TAG.finditer(text):
            label = helpers.spec_label(*match.groups())
            assert label in labels, f"{path.relative_to(ROOT)}: {match.group(0)} -> {label}"
            seen += 1
    assert seen > 150, f"only {seen} tags found: is the scan looking at the repository?"


def test_spec_label_names_the_section_target() -> None:
    helpers = _driftwood_docs()
    assert helpers.spec_label("DT", "§5.2") == "dt-spec-5-2"
    assert helpers.spec_label("DT", "§A") == "dt-spec-a"
    assert helpers.spec_label("ABACOC", "T1") == "abacoc-spec-t1"
    assert helpers.spec_label("DET", "§2") == "det-spec-2"
    malformed = "[DT-" + "SPEC 5.2]"  # spelled in pieces: the repository scan rejects it
    assert not helpers.SPEC_TAG.search(malformed)


# -- the HTML checks on small pages ----------------------------------------------------------

_CLEAN = """<html><body><div id="top">
<p>Text with <span class="math notranslate nohighlight">\\(x^2\\)</span> and
<a class="reference internal" href="spec.html#dt-spec-5-2"><span>[DT-SPEC §5.2]</span></a>,
a price of $5 and <a href="#top">a link</a>.</p>
<pre>code keeps {eq}`x` and $y$ and [DT-SPEC §1] and (*args, **kwargs)</pre>
<table class="autosummary longtable"><tr><td><p>f</p></td>
<td><p>Loss [GPF19, Eq. 13].</p></td></tr></table>
<dl class="py class"><dt class="sig sig-object py" id="pkg.Model">
<em>class </em><span>Model</span>(<em>seed=0</em>)</dt><dd></dd></dl>
</div></body></html>"""


def _site(tmp_path: Path, page: str) -> Path:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(page, encoding="utf-8")
    (site / "spec.html").write_text('<p id="dt-spec-5-2">s</p>', encoding="utf-8")
    return site


def test_html_checks_pass_a_clean_page(tmp_path: Path) -> None:
    site = _site(tmp_path, _CLEAN)
    assert _check_html().static_checks(site, figures=False) == []


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("and <a href", "and {doc}`tutorials/01` <a href"), "raw MyST role"),
        (("\\(x^2\\)</span>", "\\(x {eq}`eq-a`\\)</span>"), "role inside a formula"),
        (("a price of $5", "a price of $x_t$"), "$-maths left as text"),
        (("(<em>seed=0</em>)", "(<em>*args</em>, <em>**kwargs</em>)"), "(*args, **kwargs)"),
        (("Loss [GPF19, Eq. 13].", "Loss [GPF19, Eq."), "summary cut"),
        (("a price", "see [SGT-SPEC §7.3], a price"), "tag is not a link"),
        (("#dt-spec-5-2", "#dt-spec-9-9"), "no anchor #dt-spec-9-9"),
        (('href="#top"', 'href="missing.html"'), "no file"),
    ],
)
def test_html_checks_catch_each_problem(
    tmp_path: Path, change: tuple[str, str], message: str
) -> None:
    assert change[0] in _CLEAN
    site = _site(tmp_path, _CLEAN.replace(*change))
    problems = _check_html().static_checks(site, figures=False)
    assert len(problems) == 1 and message in problems[0], problems
    assert problems[0].startswith("index.html: ")


def test_html_checks_want_a_figure_on_pages_that_draw(tmp_path: Path) -> None:
    site = _site(tmp_path, _CLEAN)
    (site / "tutorials").mkdir()
    checker = _check_html()
    drawing = checker.drawing_pages(site)
    assert site / "reproduction.html" in drawing and len(drawing) > 1
    for page in drawing:
        page.write_text('<p><img src="../index.html"></p>' if page.parent != site
                        else '<img src="index.html">', encoding="utf-8")
    assert checker.static_checks(site) == []
    drawing[0].write_text("<p>no figure</p>", encoding="utf-8")
    problems = checker.static_checks(site)
    assert len(problems) == 1 and "draws but shows no image" in problems[0]


def test_mathjax_check_reads_errors_and_untypeset_formulas() -> None:
    checker = _check_html()
    good = ('<span class="math notranslate nohighlight"><mjx-container class="MathJax">'
            "<mjx-math></mjx-math></mjx-container></span>")
    assert checker.mathjax_problems("p.html", good, 1) == []
    error = ('<span class="math notranslate nohighlight"><mjx-container><mjx-merror '
             'data-mjx-error="Undefined control sequence \\foo"><mjx-mtext>\\foo'
             "</mjx-mtext></mjx-merror></mjx-container></span>")
    problems = checker.mathjax_problems("p.html", error, 1)
    assert problems == ["p.html: MathJax error: 'Undefined control sequence \\\\foo'"]
    raw = '<div class="math notranslate nohighlight">\\[x^2\\]</div>'
    problems = checker.mathjax_problems("p.html", raw, 1)
    assert any("not typeset" in p for p in problems) and any("0 typeset" in p for p in problems)


@pytest.mark.skipif(
    not any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")),
    reason="no Chromium: the MathJax check is exercised where a browser is installed",
)
def test_mathjax_check_typesets_a_page_in_chromium(tmp_path: Path) -> None:
    """The browser check on a real page served by the local MathJax copy."""
    offline = pytest.importorskip("sphinx-mathjax-offline")  # the extension's module name
    checker = _check_html()
    mathjax = Path(offline.__file__).parent / "static" / "mathjax"
    if not (mathjax / "tex-chtml.js").is_file():
        pytest.skip(f"no MathJax copy in {mathjax}")
    site = tmp_path / "site"
    shutil.copytree(mathjax, site / "_static" / "mathjax")
    head = ('<html><head><script defer src="_static/mathjax/tex-chtml.js"></script></head>'
            "<body>")
    ok = head + '<p><span class="math notranslate nohighlight">\\(x^2 + \\frac12\\)</span></p>'
    bad = head + "".join(
        f'<span class="math notranslate nohighlight">\\({tex}\\)</span>'
        for tex in ("x^^2", "\\undefinedmacro x", "\\frac{1}{2")
    )
    (site / "index.html").write_text(ok + "</body></html>", encoding="utf-8")
    (site / "bad.html").write_text(bad + "</body></html>", encoding="utf-8")
    problems = checker.mathjax_checks(site, checker.find_browser())
    assert all(p.startswith("bad.html: ") for p in problems), problems
    assert any("MathJax error: 'Missing open brace for superscript'" in p for p in problems)
    assert any("undefined control sequence \\undefinedmacro" in p for p in problems)
    assert any("3 formulas in the page, 2 typeset" in p for p in problems), problems


# -- notebooks -------------------------------------------------------------------------------


def test_failing_notebooks_show_tracebacks_and_fail_the_build() -> None:
    """The configuration and the hook; the real build is the ``slow`` test below."""
    helpers = _driftwood_docs()
    conf = (DOCS / "conf.py").read_text(encoding="utf-8")
    assert re.search(r"^nb_execution_raise_on_error = False", conf, flags=re.M)
    assert re.search(r"^nb_execution_show_tb = True", conf, flags=re.M)

    class Env:
        found_docs = {"ok", "broken"}
        nb_metadata = {"ok": {"exec_data": {"succeeded": True, "error": None}},
                       "broken": {"exec_data": {"succeeded": False, "error": "CellExecutionError"}},
                       "page": {}}

    class App:
        env = Env()
        statuscode = 0

    app = App()
    assert helpers.reread_failed_notebooks(app, app.env, set(), set(), set()) == ["broken"]
    assert helpers.reread_failed_notebooks(app, app.env, set(), set(), {"broken"}) == []
    helpers.fail_on_notebook_errors(app, RuntimeError("the build failed anyway"))
    assert app.statuscode == 0
    helpers.fail_on_notebook_errors(app, None)
    assert app.statuscode == 1
    Env.nb_metadata["broken"]["exec_data"]["succeeded"] = True
    app.statuscode = 0
    helpers.fail_on_notebook_errors(app, None)
    assert app.statuscode == 0


@pytest.mark.slow
def test_failing_notebook_fails_the_build_and_shows_its_traceback(tmp_path: Path) -> None:
    for module in ("sphinx", "myst_nb", "numpydoc", "sphinxcontrib.bibtex", "ipykernel"):
        pytest.importorskip(module)
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(DOCS / '_ext')!r})\n"
        "extensions = ['myst_nb', 'sphinx.ext.autodoc', 'driftwood_docs']\n"
        "nb_execution_mode = 'force'\n"
        "nb_execution_raise_on_error = False\n"
        "nb_execution_show_tb = True\n",
        encoding="utf-8",
    )
    (src / "index.md").write_text(
        "# Index\n\n```{toctree}\nbroken\n```\n", encoding="utf-8"
    )
    (src / "broken.md").write_text(
        "---\nfile_format: mystnb\nkernelspec:\n  name: python3\n  display_name: Python 3\n"
        "---\n# Broken\n\n```{code-cell} ipython3\ndef deep():\n"
        "    raise ValueError('the cause is shown')\n\ndeep()\n```\n",
        encoding="utf-8",
    )
    command = [sys.executable, "-m", "sphinx", "-q", "-b", "html", str(src), str(tmp_path / "out")]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert result.returncode != 0, "a failing notebook must fail the build (even without -W)"
    console = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout + result.stderr)  # no colours
    assert "ValueError: the cause is shown" in console, console[-4000:]
    assert "deep()" in console  # the failing cell's code and frames, not just a file name
    assert "notebook execution failed" in console and "broken" in console


def _covtype_module() -> Any:
    spec = importlib.util.spec_from_file_location(
        "covtype_sgt", TUTORIALS / "stored" / "covtype_sgt.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_stored_covtype_curves_are_what_the_code_computes_on_a_prefix() -> None:
    """Tutorial 03 draws these when covtype_50k is missing: they must not go stale.

    The curves are prequential, so their points up to row ``m`` depend on the first ``m``
    rows only: a run on a prefix checks them exactly, at a fifth of the cost (the whole
    stream, with the final model sizes: the ``slow`` twin below).
    """
    require_fast()
    helper = _covtype_module()
    stored = helper.read_stored()
    assert stored["command"] == helper.COMMAND and stored["data_set"] == helper.DATA_SET
    assert helper.STORED.name in (TUTORIALS / "03_stochastic_gradient_trees.md").read_text(
        encoding="utf-8"
    )
    X, y = require_dataset(helper.DATA_SET)
    m = 10_000
    curves, _ = helper.accuracy_curves(X[:m], y[:m])
    at = [i for i, n in enumerate(stored["instances"]) if n <= m]
    assert len(at) > 80
    for name, curve in curves.items():
        fresh = [float(curve[stored["instances"][i] - 1]) for i in at]
        kept = [stored["accuracy"][name][i] for i in at]
        assert fresh == kept, f"{name}: stored curves out of date: run `{helper.COMMAND}`"


@pytest.mark.slow
def test_stored_covtype_curves_are_what_the_code_computes() -> None:
    require_fast()
    helper = _covtype_module()
    X, y = require_dataset(helper.DATA_SET)
    fresh = helper.thinned(*helper.accuracy_curves(X, y))
    assert fresh == helper.read_stored(), f"stored curves out of date: `{helper.COMMAND}`"


def test_tutorials_need_no_data_set_that_is_not_shipped() -> None:
    """A tutorial loads a fetched set only behind the stored-copy fallback."""
    from reference.evaluation.registry import REGISTRY

    for tutorial in tutorial_files():
        text = tutorial.read_text(encoding="utf-8")
        for name in re.findall(r"load_csv\(\s*[\"']([\w.]+)[\"']", text):
            name = name.removesuffix(".csv")
            assert name in REGISTRY, f"{tutorial.name}: {name} is not a registered set"
            if REGISTRY[name].shipped:
                continue
            assert re.search(rf'status\("{name}"\) == "missing"', text), (
                f"{tutorial.name} loads {name}, which is not shipped, without a fallback"
            )

"""The tutorials as notebooks: converted from the MyST sources, offered by each docs page
and by ``driftwood tutorial get``, shipped in the package, and runnable as a student
would run them (one executed here with nbclient; CI executes it too)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _installed import INSTALLED_MODE, PACKAGE_PARENT

from reference.evaluation import notebooks
from reference.evaluation.cli import main

ROOT = Path(__file__).resolve().parents[2]
TUTORIALS = sorted((ROOT / "tutorials").glob("*.md"))


def _text(cell: dict[str, Any]) -> str:
    return "".join(cell["source"])


@pytest.mark.parametrize("source", TUTORIALS, ids=[p.stem for p in TUTORIALS])
def test_every_tutorial_converts_cell_for_cell(source: Path) -> None:
    text = source.read_text(encoding="utf-8")
    notebook = notebooks.to_notebook(text)
    assert notebook["nbformat"] == 4 and notebook["metadata"]["kernelspec"]["name"] == "python3"
    code = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    written = re.findall(r"^```\{code-cell\}[^\n]*\n(.*?)^```", text, flags=re.M | re.S)
    assert [_text(c) for c in code] == [w.rstrip() for w in written]
    markdown = "\n".join(_text(c) for c in notebook["cells"] if c["cell_type"] == "markdown")
    for sphinx_only in ("{literalinclude}", ":::{solution}", "{cite:p}", "{doc}`",
                        "{admonition}", "file_format: mystnb"):
        assert sphinx_only not in markdown, sphinx_only
    assert markdown.count("<details><summary>Solution") == text.count(":::{solution}")
    assert markdown.count("<details>") == markdown.count("</details>")


def test_an_included_function_is_its_source_and_c_is_a_pointer() -> None:
    text = (ROOT / "tutorials" / "03_stochastic_gradient_trees.md").read_text(encoding="utf-8")
    markdown = "\n".join(_text(c) for c in notebooks.to_notebook(text)["cells"]
                         if c["cell_type"] == "markdown")
    from reference.sgt import splits

    assert "def t_test_p_value(" in markdown
    start = markdown.index("def t_test_p_value(")
    assert markdown[start - 200:start].count("<details><summary>Solution (exercise "
                                            "sgt-split-test)</summary>") == 1
    assert splits.t_test_p_value.__doc__ is not None
    assert splits.t_test_p_value.__doc__.strip().splitlines()[0] in markdown
    assert "csrc/sgt/grad_hess.c" in markdown and "not part of the installed package" in markdown


def test_tutorial_get_writes_the_notebook_and_its_files_offline(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tutorial", "list"]) == 0
    assert capsys.readouterr().out.split() == [p.stem for p in TUTORIALS]
    assert main(["tutorial", "get", "stochastic", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    notebook = tmp_path / "03_stochastic_gradient_trees.ipynb"
    assert str(notebook) in out
    assert json.loads(notebook.read_text())["cells"]
    assert (tmp_path / "stored" / "covtype_sgt.py").read_bytes() == (
        ROOT / "tutorials" / "stored" / "covtype_sgt.py").read_bytes()
    assert (tmp_path / "stored" / "covtype_sgt.json").is_file()
    assert main(["tutorial", "get", "stochastic", "--dir", str(tmp_path)]) == 2   # exists
    assert "--force" in capsys.readouterr().err
    assert main(["tutorial", "get", "stochastic", "--dir", str(tmp_path), "--force"]) == 0
    assert main(["tutorial", "get", "nothing-like-it", "--dir", str(tmp_path)]) == 2
    assert "no tutorial 'nothing-like-it'" in capsys.readouterr().err
    assert main(["tutorial", "get", "_", "--dir", str(tmp_path)]) == 2
    assert "more than one tutorial matches" in capsys.readouterr().err


def test_tutorial_get_never_replaces_a_file_the_user_changed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A student's edit of a data file beside the notebook survives ``tutorial get``
    without ``--force`` (exit 2, the file named, nothing written); a data file left as
    shipped is no obstacle; ``--force`` restores the shipped copy."""
    assert main(["tutorial", "get", "stochastic", "--dir", str(tmp_path)]) == 0
    notebook = tmp_path / "03_stochastic_gradient_trees.ipynb"
    edited = tmp_path / "stored" / "covtype_sgt.py"
    shipped = edited.read_bytes()
    notebook.unlink()                              # the notebook gone, the data as shipped
    assert main(["tutorial", "get", "stochastic", "--dir", str(tmp_path)]) == 0
    capsys.readouterr()
    notebook.unlink()                              # now the student edits the data file
    edited.write_text("# my own version\n" + shipped.decode("utf-8"), encoding="utf-8")
    mine = edited.read_bytes()
    assert main(["tutorial", "get", "stochastic", "--dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert str(edited) in err and "--force" in err and "nothing written" in err
    assert edited.read_bytes() == mine and not notebook.exists()
    assert main(["tutorial", "get", "stochastic", "--dir", str(tmp_path), "--force"]) == 0
    assert edited.read_bytes() == shipped and notebook.is_file()


@pytest.mark.parametrize("force", [False, True], ids=["plain", "force"])
def test_tutorial_get_into_a_file_says_so_with_or_without_force(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], force: bool) -> None:
    """``--dir`` naming a file (or a file where ``stored/`` must go): exit 2 with a message
    that the path is a file, never "(use --force)", which would not help; the file kept."""
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine\n")
    extra = ["--force"] if force else []
    assert main(["tutorial", "get", "01_determinism", "--dir", str(a_file), *extra]) == 2
    err = capsys.readouterr().err
    assert f"{a_file} is a file, not a folder" in err and "--force" not in err
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "stored").write_text("mine\n")
    assert main(["tutorial", "get", "stochastic", "--dir", str(folder), *extra]) == 2
    err = capsys.readouterr().err
    assert "stored is a file, not a folder" in err and "--force" not in err
    assert a_file.read_text() == "mine\n" and (folder / "stored").read_text() == "mine\n"
    assert not (folder / "03_stochastic_gradient_trees.ipynb").exists()


def test_the_package_build_ships_the_tutorials(tmp_path: Path) -> None:
    """``build_py`` (what a wheel holds) copies the tutorials and their stored files into
    ``reference/_tutorials``, where ``tutorial get`` looks first, and leaves out the build
    script (which reads ``csrc/``, absent there). Testing an installed wheel
    (``DRIFTWOOD_TEST_INSTALLED=1``), the installed package is what is checked."""
    if INSTALLED_MODE:
        lib = PACKAGE_PARENT
    else:
        subprocess.run([sys.executable, "setup.py", "-q", "build_py", "--build-lib",
                        str(tmp_path)], cwd=ROOT, check=True, capture_output=True)
        lib = tmp_path
    shipped = lib / "reference" / "_tutorials"
    assert sorted(p.name for p in shipped.glob("*.md")) == [p.name for p in TUTORIALS]
    for needed in notebooks.NEEDS["03_stochastic_gradient_trees"]:
        assert (shipped / needed).is_file()
    assert (lib / "reference" / "exercises" / "determinism" / "rng_uniform"
            / "hints.txt").is_file()
    assert (lib / "fast" / "_ffi.py").is_file() and not (lib / "fast" / "_ffibuild.py").exists()


def test_the_docs_offer_each_page_its_notebook(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        import driftwood_notebooks
    finally:
        sys.path.remove(str(ROOT / "docs" / "_ext"))
    page = tmp_path / "04_abacoc.md"
    page.write_text((ROOT / "tutorials" / "04_abacoc.md").read_text(encoding="utf-8"))
    written = driftwood_notebooks.offer_notebooks(tmp_path)
    assert written == [tmp_path / "_notebooks" / "04_abacoc.ipynb"]
    text = page.read_text(encoding="utf-8")
    title_end = text.index("\n", text.index("\n# ") + 1)
    assert "{download}`04_abacoc.ipynb <_notebooks/04_abacoc.ipynb>`" in text[title_end:][:300]
    assert "driftwood tutorial get 04_abacoc" in text


EVERY_NOTEBOOK = os.environ.get("DRIFTWOOD_NOTEBOOKS") == "all"
"""``DRIFTWOOD_NOTEBOOKS=all`` runs every tutorial's notebook (CI does, in the
no-compiler install and against the installed wheel, each with the ``course`` extra);
by default one, since the docs build already executes the same cells."""

NOTEBOOK_MINUTES = 10
"""The longest a notebook may take, top to bottom, with or without the C backend."""


@pytest.mark.parametrize("name", [p.stem for p in TUTORIALS] if EVERY_NOTEBOOK
                         else ["01_determinism"])
def test_a_notebook_runs_as_on_a_students_machine(name: str, tmp_path: Path) -> None:
    """``tutorial get`` then nbclient in the notebook's folder: every cell runs, within
    :data:`NOTEBOOK_MINUTES`, with the C backend or, where it is not built, on the
    reference (the first cell then says so). With ``DRIFTWOOD_NOTEBOOKS=all`` a missing
    notebook runner fails instead of skipping."""
    import importlib.util
    import time

    missing = [m for m in ("nbformat", "nbclient", "ipykernel")
               if importlib.util.find_spec(m) is None]
    if missing and EVERY_NOTEBOOK:
        pytest.fail(f"DRIFTWOOD_NOTEBOOKS=all needs {', '.join(missing)} (the test extra)")
    if missing:
        pytest.skip(f"no {', '.join(missing)}")
    import nbclient
    import nbformat

    have_fast = _fast_imports()
    notebooks.get_tutorial(name, tmp_path)
    notebook = nbformat.read(tmp_path / f"{name}.ipynb", as_version=4)
    start = time.monotonic()
    nbclient.NotebookClient(notebook, timeout=NOTEBOOK_MINUTES * 60, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    seconds = time.monotonic() - start
    print(f"{name}: {seconds:.0f} s ({'fast' if have_fast else 'reference only'})")
    assert seconds < NOTEBOOK_MINUTES * 60
    outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs]
    assert outputs and not any(o.get("output_type") == "error" for o in outputs)
    first = "".join(o.get("text", "") for o in notebook.cells[
        next(i for i, c in enumerate(notebook.cells) if c.cell_type == "code")].outputs)
    assert ("C backend" in first or "not built" in first) != have_fast, first


def _fast_imports() -> bool:
    try:
        import fast  # noqa: F401
    except ImportError:
        return False
    return True


_DISTRIBUTIONS = {"sklearn": "scikit-learn", "river": "river", "matplotlib": "matplotlib",
                  "numpy": "numpy"}
"""Import name -> distribution, for the imports of the tutorials that are not the
package's own or the standard library's."""


def _requirement_names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~;\[ ]", r, maxsplit=1)[0].strip().lower() for r in requirements}


def test_the_course_extra_installs_every_import_of_every_tutorial() -> None:
    """Every module a tutorial imports (its code cells and the stored scripts it reads) is
    the standard library's, the package's own, or installed by the dependencies plus the
    ``course`` extra, which also brings the Jupyter kernel."""
    import ast

    tomllib = pytest.importorskip("tomllib")       # Python 3.11 and later
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    installed = (_requirement_names(project["dependencies"])
                 | _requirement_names(project["optional-dependencies"]["course"]))
    assert "ipykernel" in installed
    own = {"reference", "fast", "stored"}
    sources = [_text(c) for p in TUTORIALS
               for c in notebooks.to_notebook(p.read_text(encoding="utf-8"))["cells"]
               if c["cell_type"] == "code"]
    sources += [p.read_text(encoding="utf-8")
                for p in (ROOT / "tutorials" / "stored").glob("*.py")]
    imported: set[str] = set()
    for source in sources:
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    third_party = imported - own - set(sys.stdlib_module_names) - {"__future__"}
    assert third_party <= set(_DISTRIBUTIONS), sorted(third_party - set(_DISTRIBUTIONS))
    assert {_DISTRIBUTIONS[m] for m in third_party} <= installed
    assert {"sklearn", "river", "matplotlib"} <= third_party   # the check sees them

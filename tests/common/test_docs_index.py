"""The docs index starts a newcomer: install lines and a quick start that runs; wide
tables fit the page."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INDEX = ROOT / "docs" / "index.md"


def _section(text: str, title: str) -> str:
    return text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_index_has_install_lines_and_commands_that_exist() -> None:
    section = _section(INDEX.read_text(encoding="utf-8"), "Install and quick start")
    blocks = re.findall(r"```bash\n(.*?)```", section, flags=re.S)
    assert blocks
    lines = [line.split("#")[0].strip() for block in blocks for line in block.splitlines()]
    assert lines[0] == "pip install driftwood-learn"     # the student's install comes first
    assert "python -m pip install -e ." in lines         # then the clone route
    from reference.evaluation.cli import main

    for line in lines:
        if line.startswith("driftwood "):   # every command named parses (its --help)
            words = line.split()[1:]
            with pytest.raises(SystemExit) as done, contextlib.redirect_stdout(io.StringIO()):
                main([*[w for w in words if not w.startswith("-")][:2], "--help"]
                     if words[0] == "exercise" else [words[0], "--help"])
            assert done.value.code == 0, line


def test_index_quick_start_runs_and_prints_its_result() -> None:
    pytest.importorskip("fast")
    section = _section(INDEX.read_text(encoding="utf-8"), "Install and quick start")
    code = re.search(r"```python\n(.*?)```", section, flags=re.S)
    assert code is not None
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code.group(1), "docs/index.md", "exec"), {})  # noqa: S102
    found = re.fullmatch(r"prequential MAE (\d+\.\d\d) with (\d+) nodes\n", out.getvalue())
    assert found is not None, out.getvalue()
    assert 1.0 < float(found.group(1)) < 5.0 and int(found.group(2)) > 1


def test_wide_tables_get_the_fitting_style() -> None:
    conf = (ROOT / "docs" / "conf.py").read_text(encoding="utf-8")
    assert 'html_static_path: list[str] = ["_static"]' in conf
    assert 'html_css_files = ["driftwood.css"]' in conf
    css = (ROOT / "docs" / "_static" / "driftwood.css").read_text(encoding="utf-8")
    assert "overflow-wrap: anywhere" in css and "table.docutils" in css

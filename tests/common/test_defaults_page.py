"""The defaults page (docs/defaults.md) stays in step with the benchmark that writes its table.

- the page is in the docs toctree;
- its generated block (between the markers of ``tests/benchmarks/bench_defaults.py``) has
  the script's table header and lists exactly the script's data sets, each with every
  driftwood model at its defaults and at the paper's settings;
- the script's ``paper`` settings follow the installed SGT: ``quantization="global"`` is
  passed exactly when the constructor has that parameter;
- ``--markdown`` on a 20-row cut of one set prints a block with the same header, and
  ``--update`` replaces the page's block with it.
"""

from __future__ import annotations

import contextlib
import importlib.util
import inspect
import io
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "defaults.md"
SCRIPT = ROOT / "tests" / "benchmarks" / "bench_defaults.py"


def bench() -> ModuleType:
    """``tests/benchmarks/bench_defaults.py`` as a module (it is not in a package)."""
    if "bench_defaults" in sys.modules:
        return sys.modules["bench_defaults"]
    spec = importlib.util.spec_from_file_location("bench_defaults", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_defaults"] = module
    spec.loader.exec_module(module)
    return module


def block(text: str) -> str:
    """The generated block of a page (or of the script's ``--markdown`` output)."""
    b = bench()
    found = re.search(re.escape(b.BEGIN) + r"(.*?)" + re.escape(b.END), text, flags=re.S)
    assert found, "no generated block between the bench_defaults markers"
    return found.group(1)


def table(text: str) -> tuple[list[str], list[list[str]]]:
    """The header lines and the cell rows of the block's Markdown table."""
    lines = [line for line in block(text).splitlines() if line.startswith("|")]
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[2:]]
    return lines[:2], rows


def test_defaults_page_is_in_the_docs_toctree() -> None:
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```\{toctree\}\n(.*?)```", index, flags=re.S)
    entries = {line.strip() for b in blocks for line in b.splitlines()
               if line.strip() and not line.startswith(":")}
    assert "defaults" in entries
    assert PAGE.read_text(encoding="utf-8").startswith("(defaults)=\n# ")


def test_page_table_has_the_script_header_and_data_sets() -> None:
    header, rows = table(PAGE.read_text(encoding="utf-8"))
    assert "\n".join(header) == bench().markdown_header()
    names = list(dict.fromkeys(row[0] for row in rows))
    assert names == list(bench().data_set_names())
    for name in names:
        task = next(row[1] for row in rows if row[0] == name)
        ours = (("SGTRegressor", "DynamicTreeRegressor") if task == "regression"
                else ("SGTClassifier", "DynamicTreeClassifier", "ABACOCClassifier"))
        settings = {(row[3], row[4]) for row in rows if row[0] == name}
        for model in ours:
            assert {(model, "defaults"), (model, "paper")} <= settings, (name, model)


def test_paper_sgt_settings_ask_for_global_bins_when_the_model_has_quantization(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import fast

    b = bench()
    has = "quantization" in inspect.signature(fast.SGTClassifier).parameters
    assert ("quantization" in b.paper_kwargs("SGTClassifier", 2000)) == has
    assert b.paper_kwargs("SGTClassifier", 2000)["warmup"] == 1000

    class WithQuantization:
        def __init__(self, quantization: str = "leaf", warmup: int = 100) -> None:
            pass

    monkeypatch.setattr(fast, "SGTRegressor", WithQuantization)
    kwargs = b.paper_kwargs("SGTRegressor", 2000)
    assert kwargs["quantization"] == "global" and kwargs["warmup"] == 1000
    assert b.current_defaults("SGTRegressor") == {"quantization": "leaf", "warmup": 100}


def test_markdown_output_matches_the_page_and_updates_it(tmp_path: Path) -> None:
    pytest.importorskip("river")
    b = bench()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        b.main(["--rows", "20", "--only", "Phishing", "--markdown", "--quiet"])
    header, rows = table(out.getvalue())
    assert "\n".join(header) == b.markdown_header()
    assert {row[0] for row in rows} == {"Phishing"}
    assert {row[2] for row in rows} == {"20"}
    assert all(not row[6].startswith("failed") for row in rows), rows
    page = tmp_path / "page.md"
    page.write_text(f"# page\n\n{b.BEGIN}\nSTALE-ROW\n{b.END}\n\nafter\n", encoding="utf-8")
    b.update_page(page, out.getvalue().strip())
    text = page.read_text(encoding="utf-8")
    assert "STALE-ROW" not in text and text.endswith("\n\nafter\n")
    assert table(text)[1] == rows

"""The README's Python examples run as written (both backends must be built)."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import require_fast

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_python_blocks_run() -> None:
    require_fast()
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert len(blocks) >= 2
    for block in blocks:
        exec(compile(block, str(README), "exec"), {})  # noqa: S102 - our own README


def test_readme_names_the_two_setup_commands() -> None:
    text = README.read_text()
    assert "pip install -e . && driftwood run" in text
    assert 'pip install -e ".[test]" && python -m pytest' in text

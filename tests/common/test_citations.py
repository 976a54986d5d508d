"""Every specification citation in the repository resolves to a section of docs/spec/.

Code, docstrings, C comments, tests and tutorials cite the specification with tags such as
``[DT-SPEC §5.2]``, ``[SGT-SPEC §7.3]``, ``[ABACOC-SPEC T1]`` or ``[DET-SPEC §2]`` (the
grammar is on the page docs/spec/index.md). This test walks the tracked text files, resolves
every tag to its MyST target in the matching page (``(dt-spec-5-2)=`` for ``[DT-SPEC §5.2]``)
and fails, naming the file and line, on a tag whose section does not exist or that does not
follow the grammar. It also fails on any reference to the folder of design notes and data
that sat beside the repository during development (see ``FORBIDDEN``), which users of the
repository do not have.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SPEC_DIR = ROOT / "docs" / "spec"

PAGES = {"DT": "dynamic_trees", "SGT": "sgt", "ABACOC": "abacoc", "DET": "determinism"}
"""Tag family -> page of docs/spec/ (without ``.md``)."""

TAG = re.compile(r"\[(DT|SGT|ABACOC|DET)-SPEC ([^\]\n]*)\]")
"""A bracketed tag: family and what follows it up to the closing bracket."""

TARGET = re.compile(r"^§(\d+(?:\.\d+)?|[A-Z])$|^([A-Z]\d{1,2})$")
"""The inside of a well-formed tag: ``§5``, ``§5.2``, ``§A`` (appendix) or a rule code ``T1``."""

OPEN_TAG = re.compile(r"\[(?:DT|SGT|ABACOC|DET)-SPEC(?![^\]\n]*\])")
"""A tag opened but not closed on its line (e.g. broken across two lines)."""

_SHARED = "sha" + "red"
FORBIDDEN = re.compile(rf"\.\./{_SHARED}|{_SHARED}/spec|spec" + " §")
"""Paths and citations that only existed beside the repository (spelled in pieces so that
this file does not match itself)."""

SKIPPED = ("tests/data/", ".ci/", "tests/common/test_citations.py")
"""Tracked paths not scanned: generated test vectors; CI scripts (which may point at CI's own
data folder); this file, whose negative tests hold broken tags on purpose."""


def spec_targets(spec_dir: Path = SPEC_DIR) -> dict[str, set[str]]:
    """MyST targets defined on each specification page, by tag family."""
    targets: dict[str, set[str]] = {}
    for family, page in PAGES.items():
        path = spec_dir / f"{page}.md"
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
        prefix = family.lower()
        targets[family] = set(
            re.findall(rf"^\({prefix}-spec-([a-z0-9-]+)\)=$", text, flags=re.MULTILINE)
        )
    return targets


def anchor(inside: str) -> str | None:
    """The target name (after ``<family>-spec-``) of a tag's inside, or None if malformed."""
    match = TARGET.match(inside.strip())
    if match is None:
        return None
    section, code = match.groups()
    return (section or code).replace(".", "-").lower()


def check_text(
    text: str, where: str, targets: dict[str, set[str]], forbid: bool = True
) -> list[str]:
    """Problems of one file's text: unresolved or malformed tags, forbidden references."""
    problems = []
    for number, line in enumerate(text.splitlines(), start=1):
        for match in TAG.finditer(line):
            family, inside = match.groups()
            name = anchor(inside)
            if name is None:
                problems.append(f"{where}:{number}: malformed tag {match.group(0)!r}")
            elif name not in targets[family]:
                problems.append(
                    f"{where}:{number}: {match.group(0)} has no target "
                    f"({family.lower()}-spec-{name}) in docs/spec/{PAGES[family]}.md"
                )
        if OPEN_TAG.search(line):
            problems.append(f"{where}:{number}: tag not closed on its line: {line.strip()!r}")
        if forbid and FORBIDDEN.search(line):
            problems.append(f"{where}:{number}: refers to material outside the repository")
    return problems


def tracked_text_files(root: Path = ROOT) -> list[Path]:
    """The repository's tracked files (``git ls-files``), or every file outside a checkout."""
    try:
        listing = subprocess.run(
            ["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.split("\n")
        names: Iterable[str] = [name for name in listing if name]
    except (OSError, subprocess.CalledProcessError):
        names = [
            str(p.relative_to(root)) for p in root.rglob("*")
            if p.is_file() and ".git" not in p.parts and "_build" not in p.parts
        ]
    return [root / name for name in names if not name.startswith(SKIPPED)]


def check_repository(root: Path = ROOT, spec_dir: Path = SPEC_DIR) -> list[str]:
    """Every problem in every tracked text file of the repository."""
    targets = spec_targets(spec_dir)
    problems = []
    for path in tracked_text_files(root):
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError):
            continue  # binary (compressed data) or deleted in the work tree
        problems += check_text(text, str(path.relative_to(root)), targets)
    return problems


def test_every_specification_citation_resolves() -> None:
    problems = check_repository()
    assert not problems, "\n".join(problems)


def test_the_pages_define_the_sections_the_code_cites_most() -> None:
    targets = spec_targets()
    assert {"5-2", "3-1", "7-4", "a"} <= targets["DT"]
    assert {"7-3", "14"} <= targets["SGT"]
    assert {"11", "t1", "t6", "a1", "a25"} <= targets["ABACOC"]
    assert {"1", "2", "3", "4"} <= targets["DET"]


def test_checker_reports_a_broken_citation(tmp_path: Path) -> None:
    spec = tmp_path / "spec"
    spec.mkdir()
    (spec / "dynamic_trees.md").write_text("(dt-spec-5-2)=\n### 5.2 Resample\n")
    targets = spec_targets(spec)
    good = "x = 1  # resampling [DT-SPEC §5.2]\n"
    assert check_text(good, "good.py", targets) == []
    bad = "a  # [DT-SPEC §5.3]\nb  # [DT-SPEC 5.2]\nc  # [SGT-SPEC §1]\nd  # [DT-SPEC\n"
    problems = check_text(bad, "bad.py", targets)
    assert len(problems) == 4
    assert problems[0].startswith("bad.py:1:") and "dt-spec-5-3" in problems[0]
    assert problems[1].startswith("bad.py:2:") and "malformed" in problems[1]
    assert problems[2].startswith("bad.py:3:") and "sgt.md" in problems[2]
    assert problems[3].startswith("bad.py:4:") and "not closed" in problems[3]


@pytest.mark.parametrize(
    "line", [f"see ../{_SHARED}/spec/sgt.md", "(spec" + " §4.2)", f"from {_SHARED}/spec/"]
)
def test_checker_reports_references_outside_the_repository(line: str) -> None:
    assert check_text(line, "f.md", {f: set() for f in PAGES}) != []

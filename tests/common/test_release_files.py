"""What a release needs besides the code: one version everywhere it is written, the
licence shipped, the citation file naming the papers as the bibliography does, a
changelog entry, an sdist that carries its tests, and wheels configured for the five
platforms (docs/releasing.md)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from reference import _version

ROOT = Path(__file__).resolve().parents[2]
PAPERS = ("TGP11", "AG13", "GPF19", "DOC15")
"""The papers whose algorithms the library implements (AG11 is extended by AG13)."""


def _pyproject() -> dict[str, Any]:
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    parsed: dict[str, Any] = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return parsed


def _citation() -> dict[str, Any]:
    yaml = pytest.importorskip("yaml")
    parsed: dict[str, Any] = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    return parsed


def _identifiers(bib_key: str) -> tuple[str | None, str | None]:
    """(doi, arXiv id) of an entry of docs/references.bib."""
    text = (ROOT / "docs" / "references.bib").read_text()
    entry = re.search(r"@\w+\{" + bib_key + r",(.*?)\n\}", text, flags=re.S)
    assert entry is not None, bib_key
    doi = re.search(r"doi\s*=\s*\{([^}]*)\}", entry.group(1))
    eprint = re.search(r"eprint\s*=\s*\{([^}]*)\}", entry.group(1))
    return (doi.group(1) if doi else None, eprint.group(1) if eprint else None)


def test_the_licence_file_is_bsd3_and_declared() -> None:
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("BSD 3-Clause License")
    assert "the driftwood developers" in text
    assert "Neither the name of the copyright holder" in text
    project = _pyproject()["project"]
    assert project["license"] == "BSD-3-Clause" and project["license-files"] == ["LICENSE"]


def test_one_version_everywhere() -> None:
    project = _pyproject()
    assert project["project"]["name"] == _version.DISTRIBUTION == "driftwood-learn"
    assert "version" not in project["project"]  # read from reference/_version.py
    assert str(_citation()["version"]) == _version.__version__
    headings = re.findall(r"^## (\S+)", (ROOT / "CHANGELOG.md").read_text(), flags=re.M)
    assert _version.__version__ in headings, headings


def test_the_citation_file_cites_the_papers_as_the_bibliography_does() -> None:
    citation = _citation()
    assert citation["cff-version"] == "1.2.0" and citation["type"] == "software"
    assert citation["license"] == "BSD-3-Clause"
    cited = {ref["title"].lower(): ref for ref in citation["references"]}
    bib = (ROOT / "docs" / "references.bib").read_text()
    for key in PAPERS:
        title = re.search(r"@\w+\{" + key + r",.*?title\s*=\s*\{(.*?)\},\n", bib, flags=re.S)
        assert title is not None
        plain = re.sub(r"[{}]", "", title.group(1)).lower()
        assert plain in cited, f"{key} ({plain}) is not in CITATION.cff"
        doi, eprint = _identifiers(key)
        ref = cited[plain]
        if doi is not None:
            assert ref["doi"] == doi, key
        else:
            assert eprint is not None
            values = [i["value"] for i in ref.get("identifiers", [])]
            assert f"arXiv:{eprint}" in values, key


def test_the_sdist_carries_what_tests_and_builds_it() -> None:
    manifest = (ROOT / "MANIFEST.in").read_text().split("\n")
    for folder in ("csrc", "tests", "tutorials", "docs"):
        assert f"graft {folder}" in manifest, folder
    included = next(line for line in manifest if line.startswith("include "))
    for name in ("LICENSE", "CITATION.cff", "CHANGELOG.md", "README.md"):
        assert name in included.split(), name
        assert (ROOT / name).is_file()


def test_wheels_are_configured_for_the_five_platforms() -> None:
    cibw = _pyproject()["tool"]["cibuildwheel"]
    assert set(cibw["linux"]["archs"]) == {"x86_64", "aarch64"}
    assert set(cibw["macos"]["archs"]) == {"arm64", "x86_64"}
    assert cibw["windows"]["archs"] == ["AMD64"]
    assert cibw["environment"]["DRIFTWOOD_REQUIRE_C"] == "1"
    assert cibw["test-environment"]["REQUIRE_FAST"] == "1"
    commands = " ".join(cibw["test-command"])
    for family in ("sgt", "abacoc", "dynatree"):
        assert f"tests/{family}/test_lockstep.py" in commands
    requires_python = _pyproject()["project"]["requires-python"]
    assert requires_python == ">=3.10" and "cp310-*" in cibw["build"]


def test_the_install_pages_lead_with_the_wheel_install() -> None:
    """README and the teaching page give the student's install (the wheel, no compiler)
    before the clone route."""
    wheel = f"pip install {_version.DISTRIBUTION}"
    readme = (ROOT / "README.md").read_text()
    assert readme.index(wheel) < readme.index("pip install -e .")
    teaching = (ROOT / "docs" / "teaching.md").read_text()
    first_section = teaching.index("\n## ")
    assert teaching[first_section:].startswith("\n## Installing on the students' laptops")
    for system in ("Windows", "macOS", "Linux"):
        assert system in teaching[first_section:teaching.index("## Course outline")]
    assert "--platform win_amd64" in teaching and "--platform macosx_11_0_arm64" in teaching


def test_install_instructions_hold_no_placeholder_address() -> None:
    """A reader can type every install line: no ``<the ... repository>``-style placeholder
    stands where an address or a name should be (README, docs, tutorials)."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")),
             *sorted((ROOT / "tutorials").glob("*.md"))]
    placeholder = re.compile(r"<(?:the |your )?[\w ]*(?:repository|repo|url|address)>", re.I)
    found = [f"{page.relative_to(ROOT)}: {hit.group(0)}" for page in pages
             if "_build" not in page.parts
             for hit in placeholder.finditer(page.read_text(encoding="utf-8"))]
    assert not found, found

"""The architecture page names files, folders and modules that exist.

``docs/architecture.md`` is the map of the code; a map that points at renamed or deleted
files misleads the reader it was written for. These tests read every inline code span of
the page: a span that looks like a repository path must exist, and a span that looks like
a dotted name in ``reference`` or ``fast`` must resolve to a module or an attribute of one.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
from _installed import INSTALLED_MODE, NOT_INSTALLED, tree_path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "architecture.md"
TOP = ("reference/", "fast/", "csrc/", "tests/", "docs/", "tutorials/")


def _spans() -> list[str]:
    text = PAGE.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # the picture is not a list of names
    return re.findall(r"`([^`\n]+)`", text)


def _paths() -> list[str]:
    out = []
    for span in _spans():
        if span.startswith(TOP) and "<" not in span and " " not in span:
            out.append(span.rstrip("/"))
    return sorted(set(out))


def _dotted() -> list[str]:
    pattern = re.compile(r"^(reference|fast)(\.[A-Za-z_][A-Za-z0-9_]*)+$")
    return sorted({span for span in _spans() if pattern.match(span)})


def test_page_names_enough_to_be_checked() -> None:
    # the extraction itself works: the page names dozens of files and several modules
    assert len(_paths()) > 40
    assert len(_dotted()) >= 5


@pytest.mark.parametrize("path", _paths())
def test_named_path_exists(path: str) -> None:
    if INSTALLED_MODE and path in NOT_INSTALLED:
        pytest.skip(f"{path} is in the source tree, not in the installed wheel")
    assert tree_path(path).exists(), f"docs/architecture.md names {path}, which does not exist"


@pytest.mark.parametrize("name", _dotted())
def test_named_module_or_attribute_resolves(name: str) -> None:
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            assert hasattr(obj, attr), f"docs/architecture.md names {name}: no {attr}"
            obj = getattr(obj, attr)
        return
    pytest.fail(f"docs/architecture.md names {name}, which does not import")


def test_page_is_in_the_docs_tree() -> None:
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert re.search(r"^architecture$", index, flags=re.M), "architecture missing from a toctree"


def test_every_fast_model_module_only_chooses_an_engine() -> None:
    # the page's central claim: fast's public classes add nothing but their engine
    import fast
    import reference

    for name in ("DynamicTreeRegressor", "DynamicTreeClassifier", "SGTRegressor",
                 "SGTClassifier", "SGTMultiInstanceClassifier", "SGT", "ABACOCClassifier"):
        fast_cls, ref_cls = getattr(fast, name), getattr(reference, name)
        assert issubclass(fast_cls, ref_cls)
        own = {k for k in vars(fast_cls) if k not in ("__module__", "__doc__", "__qualname__",
                                                        "_engine_class", "__firstlineno__",
                                                        "__static_attributes__")}
        assert not own, f"fast.{name} defines {sorted(own)} beyond its engine"
        assert fast_cls._engine_class is not ref_cls._engine_class

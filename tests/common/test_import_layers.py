"""The Python layers of ``docs/architecture.md``: no import cycle, imports only go down.

Every module-level import of every module in ``reference/`` and ``fast/`` (read from the
source, not by importing) is an edge of the module graph. Imports inside functions are
deliberate late imports (optional dependencies, the CLI choosing a backend) and are not
edges. The graph must have no cycle, and the layers must point one way:

* ``reference`` never imports ``fast`` (the specification does not depend on the C);
* the paper families (``reference.dynatree``, ``reference.sgt``, ``reference.abacoc``) never
  import each other or the evaluation wing (``reference.evaluation``);
* the common modules (``reference.rng``, ``reference.special``, ...) import no family.
"""

from __future__ import annotations

import ast
from pathlib import Path

from _graphs import find_cycle
from _installed import PACKAGE_PARENT, tree_path

FAMILIES = ("reference.dynatree", "reference.sgt", "reference.abacoc")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE_PARENT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    out = {}
    for package in ("reference", "fast"):
        for path in tree_path(package).rglob("*.py"):
            if "_data" not in path.parts:
                out[_module_name(path)] = path
    return out


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The longest prefix of a dotted name that is one of our modules."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        candidate = ".".join(parts[:cut])
        if candidate in modules:
            return candidate
    return None


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in tree.body:                                   # module level only
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(anchor + ([base] if base else []))
                targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
            for target in targets:
                resolved = _resolve(target, modules)
                if resolved is not None and resolved != name:
                    graph[name].add(resolved)
    return graph


def _drop_package_edges(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Without the edges into a package's ``__init__`` from inside the package: a submodule
    importing ``reference.sgt.x`` makes Python run ``reference/sgt/__init__.py`` first, but
    that is the package exporting its children, not a dependency of the child on them."""
    out = {}
    for name, targets in graph.items():
        out[name] = {t for t in targets if not name.startswith(t + ".")}
    return out


def test_the_graph_is_read() -> None:
    graph = _graph()
    assert "reference.sgt.engine" in graph["fast.sgt.engine"]
    assert "reference.rng" in graph["fast.rng"]


def test_no_import_cycle() -> None:
    cycle = find_cycle(_drop_package_edges(_graph()))
    assert cycle is None, f"import cycle {cycle}"


def test_cycle_finder_finds_afind_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_reference_never_imports_fast() -> None:
    bad = [(m, t) for m, ts in _graph().items() if m.startswith("reference")
           for t in ts if t.startswith("fast")]
    assert not bad


def test_families_import_neither_each_other_nor_the_evaluation_wing() -> None:
    bad = []
    for module, targets in _graph().items():
        family = next((f for f in FAMILIES if module == f or module.startswith(f + ".")), None)
        if family is None:
            continue
        for target in targets:
            other = next((f for f in FAMILIES if target == f or target.startswith(f + ".")), None)
            if (other is not None and other != family) or target.startswith("reference.evaluation"):
                bad.append((module, target))
    assert not bad


def test_common_modules_import_no_family() -> None:
    bad = []
    for module, targets in _graph().items():
        if module.count(".") != 1 or not module.startswith("reference."):
            continue                                  # reference.<common module> only
        if module in FAMILIES or module == "reference.evaluation":
            continue                                  # packages, not common modules
        if module in ("reference.persist", "reference.river_adapter"):
            continue                                  # they dispatch to every family by design
        bad += [(module, t) for t in targets if t.startswith(FAMILIES)]
    assert not bad

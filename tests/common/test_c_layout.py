"""The layout rules of the C library ``csrc/`` (see ``docs/developing.md``).

``csrc/`` mirrors the Python packages: ``csrc/common/<stem>.c`` is the twin of
``reference/<stem>.py`` and ``csrc/<family>/<stem>.c`` the twin of
``reference/<family>/<stem>.py``. These tests parse the C sources with a few regular
expressions (comments and string literals removed first) and fail if

- an ``#include "..."`` cycle exists between the headers and sources of ``csrc/``;
- a call cycle exists between ``.c`` files (file A calls a function defined in file B
  and B, directly or through other files, calls one defined in A);
- a C function body is longer than :data:`MAX_BODY_LINES` lines;
- a ``.c`` file has no Python twin module of the same name in its family, unless it is
  one of the C-only files of :data:`C_ONLY`.

The parser is deliberately simple (the code base follows one brace style: a function's
opening brace ends its signature line or stands alone on the next line); the tests at
the end check it on small hand-written inputs, so that a parser that finds nothing
cannot make the layout tests pass vacuously.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from _graphs import find_cycle
from _installed import tree_path

ROOT = Path(__file__).resolve().parents[2]
CSRC = ROOT / "csrc"
REFERENCE = tree_path("reference")
MAX_BODY_LINES = 80
"""Longest function body allowed, counted from the line of ``{`` to the line of ``}``."""

C_ONLY = {
    # the allocation wrappers and the failure-injection hook of the hardening tests: the
    # Python reference never allocates by hand
    "common/alloc.c": "allocation wrappers with the alloc_fail_after test hook",
    # the status codes in words (st_message); Python raises its own exceptions
    "common/status.c": "status codes in words",
    # the undo log (transaction log) that makes one learned row or one manual retirement
    # of a dynamic tree atomic under allocation failure; the reference cannot fail half-way
    "dynatree/txn.c": "undo log of the dynamic trees",
}
"""C files without a Python twin, each with what it is."""

_KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do", "else"}


def strip_comments(text: str) -> str:
    """``text`` with comments, string and character literals blanked, newlines kept."""

    def blank(match: re.Match[str]) -> str:
        return re.sub(r"[^\n]", " ", match.group(0))

    pattern = r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'"
    return re.sub(pattern, blank, text, flags=re.S)


def includes(text: str) -> list[str]:
    """The quoted ``#include "..."`` targets of a C file, in order."""
    return re.findall(r'^\s*#\s*include\s*"([^"]+)"', text, flags=re.M)


def functions(text: str) -> list[tuple[str, bool, int, str]]:
    """Every function definition of C source ``text`` (comments already stripped).

    Returns ``(name, is_static, body_lines, body)`` per definition, where ``body_lines``
    counts the lines from the opening to the closing brace, both included.
    """
    out = []
    depth = 0
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "{":
            if depth == 0:
                full = text[:i]
                head = full[max(full.rfind(";"), full.rfind("}"), full.rfind("#")) + 1:]
                sig = re.search(r"([A-Za-z_]\w*)\s*\((?:[^()]|\([^()]*\))*\)\s*$", head)
                end = _matching_brace(text, i)
                if sig is not None and sig.group(1) not in _KEYWORDS:
                    prefix = head[:sig.start()]
                    if "=" not in prefix and not re.search(r"\b(struct|enum|union)\s*$", prefix):
                        body = text[i:end + 1]
                        lines = body.count("\n") + 1
                        static = re.search(r"\bstatic\b", prefix) is not None
                        out.append((sig.group(1), static, lines, body))
                i = end + 1
                continue
            depth += 1
        elif ch == "}":
            depth -= 1
        i += 1
    return out


def _matching_brace(text: str, start: int) -> int:
    depth = 0
    for k in range(start, len(text)):
        if text[k] == "{":
            depth += 1
        elif text[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    raise ValueError("unbalanced braces")


def call_graph(sources: dict[str, str]) -> dict[str, set[str]]:
    """File -> files whose non-static functions it calls (self-calls dropped)."""
    defined: dict[str, str] = {}
    for name, text in sources.items():
        for fn, static, _, _ in functions(strip_comments(text)):
            if not static:
                defined[fn] = name
    graph: dict[str, set[str]] = {}
    for name, text in sources.items():
        called = set()
        for _, _, _, body in functions(strip_comments(text)):
            called.update(re.findall(r"\b([A-Za-z_]\w*)\s*\(", body))
        graph[name] = {defined[c] for c in called if c in defined and defined[c] != name}
    return graph


def _c_files(suffixes: tuple[str, ...] = (".c",)) -> dict[str, str]:
    return {p.relative_to(CSRC).as_posix(): p.read_text()
            for p in sorted(CSRC.rglob("*")) if p.suffix in suffixes}


def test_csrc_has_the_family_folders() -> None:
    folders = {p.name for p in CSRC.iterdir() if p.is_dir()}
    assert folders == {"common", "dynatree", "sgt", "abacoc"}
    assert not list(CSRC.glob("*.c")) and not list(CSRC.glob("*.h")), "files outside folders"


def test_no_include_cycle() -> None:
    files = _c_files((".c", ".h"))
    graph: dict[str, set[str]] = {}
    for name, text in files.items():
        targets = set()
        for inc in includes(text):
            local = (Path(name).parent / inc).as_posix()
            if local in files:
                targets.add(local)
            elif inc in files:
                targets.add(inc)
            else:
                pytest.fail(f"{name} includes {inc!r}, which is not under csrc/")
        graph[name] = targets
    assert find_cycle(graph) is None, f"include cycle {find_cycle(graph)}"


def test_no_call_cycle_between_files() -> None:
    graph = call_graph(_c_files())
    assert sum(len(v) for v in graph.values()) > 20, "the call graph parser found no calls"
    cycle = find_cycle(graph)
    assert cycle is None, "call cycle between files: " + " -> ".join(cycle or [])


def test_no_function_body_over_the_limit() -> None:
    long = []
    count = 0
    for name, text in _c_files().items():
        for fn, _, lines, _ in functions(strip_comments(text)):
            count += 1
            if lines > MAX_BODY_LINES:
                long.append(f"{name}:{fn} ({lines} lines)")
    assert count > 200, "the function parser found too few functions"
    assert not long, f"function bodies over {MAX_BODY_LINES} lines: " + ", ".join(long)


@pytest.mark.parametrize("name", sorted(_c_files()))
def test_every_c_file_has_a_python_twin(name: str) -> None:
    if name in C_ONLY:
        return
    family, stem = Path(name).parent.as_posix(), Path(name).stem
    twin = REFERENCE / f"{stem}.py" if family == "common" else REFERENCE / family / f"{stem}.py"
    assert twin.is_file(), f"csrc/{name} has no Python twin {twin.relative_to(REFERENCE.parent)}"


def test_c_only_files_exist() -> None:
    """The exception list names real files only (a stale entry would hide nothing)."""
    assert all((CSRC / name).is_file() for name in C_ONLY)


# --- the parser itself, on small inputs -------------------------------------------

SAMPLE = """
#include "a.h"
static int helper(int x) /* { not a brace */
{
    if (x) { return 1; }
    return other("}{", x);
}

int visible(const int *p, int (*cb)(int))
{
    return helper(p[0]) + cb(0);
}
typedef struct { int a; } s;
static const int table[2] = {1, 2};
"""


def test_parser_finds_functions_and_their_lengths() -> None:
    found = functions(strip_comments(SAMPLE))
    assert [(f, s, n) for f, s, n, _ in found] == [("helper", True, 4), ("visible", False, 3)]
    assert includes(SAMPLE) == ["a.h"]


def test_cycle_finder() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_call_graph_sees_a_cycle_between_files() -> None:
    graph = call_graph({"x.c": "int f(void)\n{\n    return g();\n}\n",
                        "y.c": "int g(void)\n{\n    return f();\n}\n",
                        "z.c": "static int f(void) { return 0; }\n"})
    assert graph == {"x.c": {"y.c"}, "y.c": {"x.c"}, "z.c": set()}
    assert find_cycle(graph) is not None

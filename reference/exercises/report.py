"""Comparing values and the report of a check.

How values are compared, and what a report holds, is described in
:mod:`reference.exercises.checker` (its module docstring); this module holds the
comparison (:func:`difference`, and the tolerant stream comparison of ``"rel"``
exercises) and the report's classes, which the parent process of an isolated check
(:mod:`reference.exercises.isolation`) builds from plain data.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from reference.exercises.catalog import Mistake, Tolerance

__all__ = ["DISCRETE", "DOCS_URL_VARIABLE", "CaseMismatch", "Divergence", "Report",
           "difference", "escape_control", "reread_link"]

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
                      "\u202a-\u202e\u2066-\u2069]")


def escape_control(text: str, keep_newlines: bool = True) -> str:
    r"""``text`` with every control character written as a visible escape (``\x1b``,
    ``\r``, ``\u202e``): the C0 and C1 controls but newline and tab (newline too
    with ``keep_newlines=False``), DEL, and the Unicode line separators and direction
    overrides. Whatever a student's code produced (its output, an exception's message, a
    value's ``repr``, a folder's name) goes through it before it reaches a terminal, a
    report or a gradebook, so it can neither move the cursor nor draw over a verdict.

    Examples
    --------
    >>> print(escape_control("ok\x1b[2K\rPASSED"))
    ok\x1b[2K\rPASSED
    """
    def visible(match: re.Match[str]) -> str:
        char = match.group()
        if char == "\r":
            return "\\r"
        code = ord(char)
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
    out = _CONTROL.sub(visible, text)
    return out if keep_newlines else out.replace("\n", "\\n")


def _escaped(value: Any) -> Any:
    """A JSON-ready value with :func:`escape_control` applied to every string in it."""
    if isinstance(value, str):
        return escape_control(value)
    if isinstance(value, list):
        return [_escaped(v) for v in value]
    if isinstance(value, dict):
        return {k: _escaped(v) for k, v in value.items()}
    return value

DOCS_URL_VARIABLE = "DRIFTWOOD_DOCS_URL"
"""Environment variable: where the built documentation is served (an ``http(s)://`` or
``file://`` address of its root), so that ``reread:`` lines are links to the page."""


BUILT_DOCS = Path(__file__).resolve().parents[2] / "docs" / "_build" / "html"
"""Where a source checkout's documentation is built (``docs/_build/html``)."""


def reread_link(anchor: str) -> str:
    """The built documentation page of a tutorial section ``"tutorials/<page>.md#<slug>"``.

    With :data:`DOCS_URL_VARIABLE` set, ``<that address>/tutorials/<page>.html#<slug>``;
    else, in a source checkout whose docs are built (``docs/_build/html``), the
    ``file://`` address of the page; else the section's title and tutorial with the command
    that writes the tutorial as a notebook
    (:func:`reference.evaluation.notebooks.section_pointer`), which an installed package
    resolves as well as a clone.
    """
    page, _, slug = anchor.partition("#")
    html = (page[:-3] + ".html" if page.endswith(".md") else page) + (f"#{slug}" if slug else "")
    base = os.environ.get(DOCS_URL_VARIABLE, "").strip()
    if base:
        return f"{base.rstrip('/')}/{html}"
    built = BUILT_DOCS
    if (built / html.partition("#")[0]).is_file():
        return (built / html.partition("#")[0]).as_uri() + (f"#{slug}" if slug else "")
    from reference.evaluation.notebooks import section_pointer  # the CLI's wing, late

    return section_pointer(anchor)

_VALUE_WIDTH = 160
"""Longest repr of one value in a report before it is shortened."""


# ---------------------------------------------------------------------------
# comparing values
# ---------------------------------------------------------------------------


def _plain(x: Any) -> Any:
    """numpy arrays and tuples become lists, numpy scalars Python numbers."""
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, tuple):
        return list(x)
    return x


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _same_number(expected: int | float, obtained: int | float, tolerance: Tolerance) -> bool:
    if isinstance(expected, int) and isinstance(obtained, int):
        return expected == obtained
    a, b = float(expected), float(obtained)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if tolerance.kind == "exact" or math.isinf(a) or math.isinf(b):
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return abs(a - b) <= tolerance.rtol * max(abs(a), abs(b))


def difference(expected: Any, obtained: Any, tolerance: Tolerance, path: str = "") -> str | None:
    """Where ``obtained`` departs from ``expected`` under ``tolerance``, or ``None``.

    The rules are in the module docstring of :mod:`reference.exercises.checker`. The
    message names the path inside the value (``"[1][2]"``, ``".mean"``, empty for the value
    itself).

    Examples
    --------
    >>> from reference.exercises.catalog import EXACT, Tolerance
    >>> difference((1, [2.0, 3.0]), [1, (2.0, 3.5)], EXACT)
    '[1][1]: expected 3.0, obtained 3.5'
    >>> difference(float("nan"), float("nan"), EXACT) is None
    True
    >>> difference(0.0, -0.0, EXACT)
    'expected 0.0, obtained -0.0 (the sign of zero differs)'
    >>> difference(1.0, 1.0 + 1e-15, Tolerance("rel", 1e-12)) is None
    True
    """
    stack: list[tuple[Any, Any, str]] = [(expected, obtained, path)]
    while stack:
        exp, obt, where = stack.pop()
        exp, obt = _plain(exp), _plain(obt)
        prefix = f"{where}: " if where else ""
        if isinstance(exp, Mapping):
            if not isinstance(obt, Mapping):
                return f"{prefix}expected a mapping, obtained {_short(obt)}"
            if set(exp) != set(obt):
                return f"{prefix}keys differ: expected {sorted(map(str, exp))}, " \
                    f"obtained {sorted(map(str, obt))}"
            for key in reversed(list(exp)):
                stack.append((exp[key], obt[key], f"{where}[{key!r}]"))
        elif isinstance(exp, list):
            if not isinstance(obt, list):
                return f"{prefix}expected a sequence of {len(exp)} items, obtained {_short(obt)}"
            if len(exp) != len(obt):
                return f"{prefix}expected {len(exp)} items, obtained {len(obt)}"
            for i in range(len(exp) - 1, -1, -1):
                stack.append((exp[i], obt[i], f"{where}[{i}]"))
        elif _is_number(exp) and _is_number(obt):
            if not _same_number(exp, obt, tolerance):
                zero = (
                    " (the sign of zero differs)" if exp == obt == 0 and not
                    (isinstance(exp, int) or isinstance(obt, int)) else ""
                )
                return f"{prefix}expected {_short(exp)}, obtained {_short(obt)}{zero}"
        elif isinstance(exp, bool) or isinstance(obt, bool):
            if not (type(exp) is type(obt) and exp == obt):
                return f"{prefix}expected {_short(exp)}, obtained {_short(obt)}"
        elif type(exp) is not type(obt) or exp != obt:
            return f"{prefix}expected {_short(exp)}, obtained {_short(obt)}"
    return None


DISCRETE = " (the model took another discrete decision: a split, a count, a resampled particle)"
"""Appended to a ``"rel"`` exercise's stream divergence that is not a rounding difference."""


def _tolerant_first_difference(a: Any, b: Any, rtol: float, path: str) -> str | None:
    """The stream comparison of a ``"rel"`` exercise: like ``first_difference`` (same
    message style, ``a != b``) but floats within ``rtol``; a difference of structure
    (keys, lengths) or of a non-float value is marked as a discrete decision."""
    tol = Tolerance("rel", rtol)
    stack: list[tuple[Any, Any, str]] = [(a, b, path)]
    while stack:
        left, right, where = stack.pop()
        left, right = _plain(left), _plain(right)
        if isinstance(left, Mapping) and isinstance(right, Mapping):
            if list(left) != list(right):
                return f"{where}: keys differ: {list(left)} vs {list(right)}{DISCRETE}"
            for key in reversed(list(left)):
                stack.append((left[key], right[key], f"{where}.{key}"))
        elif isinstance(left, list) and isinstance(right, list):
            if len(left) != len(right):
                return f"{where}: lengths differ: {len(left)} vs {len(right)}{DISCRETE}"
            for i in range(len(left) - 1, -1, -1):
                stack.append((left[i], right[i], f"{where}[{i}]"))
        elif isinstance(left, float) and isinstance(right, float):
            if not _same_number(left, right, tol):
                return f"{where}: {left!r} != {right!r}"
        elif type(left) is not type(right) or left != right:
            return f"{where}: {left!r} != {right!r}{DISCRETE}"
    return None


def _short(value: Any, width: int = _VALUE_WIDTH) -> str:
    text = repr(value)
    if len(text) > width:
        text = text[: width - 5] + " ...)"
    return text


# ---------------------------------------------------------------------------
# the report
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CaseMismatch:
    """The first case of route (a) where the answer departs from the reference."""

    index: int
    label: str
    args: tuple[Any, ...]
    expected: Any
    obtained: Any
    where: str

    def to_json(self) -> dict[str, Any]:
        """Plain data (values as their ``repr``, which JSON can always hold)."""
        return {
            "index": self.index, "label": self.label, "args": [repr(a) for a in self.args],
            "expected": repr(self.expected), "obtained": repr(self.obtained),
            "where": self.where,
        }


@dataclass(frozen=True)
class Divergence:
    """The first step of route (b) where the plugged reference model departs.

    ``step`` counts rows from 0; ``what`` is the first differing path and the two values
    (``"snapshot.rng_state[0]: 11520 != 4242"``), or the exception the model raised;
    ``against`` names the model it was compared with.
    """

    step: int
    what: str
    against: str

    def to_json(self) -> dict[str, Any]:
        """Plain data."""
        return {"step": self.step, "what": self.what, "against": self.against}


@dataclass
class Report:
    """The result of :func:`check`: ``str(report)`` is the message for the student,
    :meth:`to_json` the record for an autograder.

    Attributes
    ----------
    exercise : str
        The exercise's name.
    status : str
        One of :data:`STATUSES`.
    message : str
        One sentence on the status.
    first_mismatch : CaseMismatch or None
        Route (a)'s first differing case.
    diagnosis : Mistake or None
        The registered mistake the answer reproduces.
    stream_divergence : Divergence or None
        Route (b)'s first diverging step.
    """

    exercise: str
    status: str
    message: str
    title: str = ""
    tag: str = ""
    anchor: str = ""
    tolerance: Tolerance | None = None
    cases_checked: int = 0
    cases_total: int = 0
    first_mismatch: CaseMismatch | None = None
    diagnosis: Mistake | None = None
    stream_divergence: Divergence | None = None
    stream_model: str = ""
    stream_steps: int = 0
    stream_against: str = ""
    failing_case: str = ""
    traceback: str = ""
    notes: list[str] = field(default_factory=list)
    printed: str = ""

    @property
    def passed(self) -> bool:
        """Whether the answer is accepted (both routes agree with the reference)."""
        return self.status == "passed"

    def to_json(self) -> dict[str, Any]:
        """The report as plain data that :func:`json.dumps` accepts (for nbgrader, CI)."""
        d = self.diagnosis
        tol = self.tolerance
        record: dict[str, Any] = _escaped({
            "exercise": self.exercise,
            "status": self.status,
            "passed": self.passed,
            "message": self.message,
            "title": self.title,
            "tag": self.tag,
            "anchor": self.anchor,
            "tolerance": None if tol is None else {
                "kind": tol.kind, "rtol": tol.rtol, "why": tol.why},
            "cases_checked": self.cases_checked,
            "cases_total": self.cases_total,
            "first_mismatch": None if self.first_mismatch is None
            else self.first_mismatch.to_json(),
            "diagnosis": None if d is None else {
                "id": d.id, "sentence": d.sentence, "anchor": d.anchor, "mutant": d.mutant},
            "stream": None if not self.stream_model else {
                "model": self.stream_model, "steps": self.stream_steps,
                "against": self.stream_against},
            "stream_divergence": None if self.stream_divergence is None
            else self.stream_divergence.to_json(),
            "failing_case": self.failing_case or None,
            "traceback": self.traceback or None,
            "notes": list(self.notes),
            "printed": self.printed or None,
            "text": str(self),
        })
        return record

    def _lines(self) -> list[str]:
        head = f"{self.exercise}: {self.status.upper()}"
        if self.title:
            head += f" ({self.title})"
        lines = [head, f"  {self.message}"]
        m = self.first_mismatch
        if m is not None:
            lines += [
                f"  first differing case: #{m.index} ({m.label})",
                f"    arguments: {_short(m.args)}",
                f"    expected:  {_short(m.expected)}",
                f"    obtained:  {_short(m.obtained)}",
            ]
            if m.where and not m.where.startswith("expected "):
                lines.append(f"    where:     {m.where}")
        if self.failing_case:
            lines.append(f"  case: {self.failing_case}")
        if self.traceback:
            lines.append("  where it was stopped (your code):" if self.status == "timeout"
                         else "  traceback (your code):")
            lines += ["    " + line for line in self.traceback.rstrip().splitlines()]
        if self.diagnosis is not None:
            lines.append(f"  diagnosis: {self.diagnosis.sentence}")
            lines.append(f"    reread: {reread_link(self.diagnosis.anchor)}")
        elif self.status == "mismatch" and self.anchor:
            lines.append(f"  reread: {reread_link(self.anchor)}")
        if self.stream_model:
            if self.stream_divergence is not None:
                dv = self.stream_divergence
                lines.append(f"  stream: your function inside the reference {self.stream_model} "
                             f"diverges from {dv.against} at step {dv.step} (rows from 0; "
                             f"yours first): {dv.what}")
            elif self.status == "passed":
                lines.append(f"  stream: your function inside the reference {self.stream_model} "
                             f"agrees with {self.stream_against} for {self.stream_steps} steps")
            elif self.first_mismatch is not None:
                lines.append(f"  stream: the {self.stream_steps} steps of the short stream never "
                             f"reach a case where your function is wrong (the reference "
                             f"{self.stream_model} with it stays equal to "
                             f"{self.stream_against}); the differing case above decides: "
                             "not passed")
        if self.tolerance is not None and self.status in ("passed", "mismatch"):
            tol = self.tolerance
            kind = "exact" if tol.kind == "exact" else f"relative {tol.rtol:g}"
            lines.append(f"  tolerance: {kind}" + (f" ({tol.why})" if tol.why else ""))
        lines += [f"  note: {n}" for n in self.notes]
        if self.printed:
            lines.append("  your code printed:")
            lines += ["    " + line for line in self.printed.splitlines()]
        return lines

    def __str__(self) -> str:
        return escape_control("\n".join(self._lines()))

    def __repr__(self) -> str:
        return str(self)

    def _repr_markdown_(self) -> str:
        return "```text\n" + str(self) + "\n```"

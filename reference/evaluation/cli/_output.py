"""Text output of the command line: tables that fit 100 columns, help epilogs with examples.

- ``table(rows)``: two aligned columns (name, value).
- ``columns(rows, header=None, *, right=(), flex=-1, width=WIDTH)``: aligned columns; if
  they would be wider than ``width``, the ``flex`` column is wrapped onto continuation
  lines so that no line is.
- ``wrap(text)``: a paragraph (a footnote) wrapped to ``width``.
- ``with_examples(*examples)``: ``add_parser`` keywords giving a subcommand's ``--help``
  an "Examples:" epilog, printed as written (``RawDescriptionHelpFormatter``).
- ``progress_enabled(flag)``: the commands' ``--progress`` default (on).
"""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Sequence
from typing import Any

__all__ = ["WIDTH", "columns", "progress_enabled", "table", "with_examples", "wrap"]

WIDTH = 100
"""No line of a table or a note is wider than this."""


def table(rows: Sequence[tuple[str, str]], width: int = WIDTH) -> str:
    """Two aligned columns: names padded to the longest, two spaces, values (wrapped onto
    continuation lines if a line would be wider than ``width``)."""
    return columns(rows, flex=1, width=width)


def columns(
    rows: Sequence[Sequence[str]],
    header: Sequence[str] | None = None,
    *,
    right: Sequence[int] = (),
    flex: int = -1,
    width: int = WIDTH,
    indent: str = "",
) -> str:
    """Aligned columns, two spaces apart, no line wider than ``width``.

    Parameters
    ----------
    rows : sequence of sequences of str
        The cells; every row has the same number of cells.
    header : sequence of str, optional
        Column titles (a first line).
    right : sequence of int
        Indices of the columns aligned right (numbers).
    flex : int
        Index of the column wrapped onto continuation lines (the other cells of those
        lines blank) when the table would be too wide; at least 12 characters are kept.
    width : int
        Widest line allowed.
    indent : str
        Put before every line.

    Examples
    --------
    >>> print(columns([["a", "a long text here", "1.5"], ["bb", "short", "22"]],
    ...               ["key", "text", "x"], right=[2], flex=1, width=22))
    key  text            x
    a    a long text   1.5
         here
    bb   short          22
    """
    lines = [list(header)] if header is not None else []
    lines += [list(row) for row in rows]
    if not lines:
        return ""
    n = len(lines[0])
    flex = flex % n
    sizes = [max(len(line[i]) for line in lines) for i in range(n)]
    spare = width - len(indent) - (sum(sizes) + 2 * (n - 1))
    if spare < 0:
        sizes[flex] = max(12, sizes[flex] + spare)
    out = []
    for line in lines:
        pieces = textwrap.wrap(line[flex], sizes[flex], break_on_hyphens=False) or [""]
        for k, piece in enumerate(pieces):
            cells = [c if k == 0 else "" for c in line]
            cells[flex] = piece
            text = "  ".join(
                cell.rjust(sizes[i]) if i in right else cell.ljust(sizes[i])
                for i, cell in enumerate(cells)
            )
            out.append(indent + text.rstrip())
    return "\n".join(out)


def wrap(text: str, width: int = WIDTH) -> str:
    """A paragraph (a note under a table) wrapped to ``width`` columns."""
    return textwrap.fill(text, width, break_on_hyphens=False, break_long_words=False)


def with_examples(
    *examples: tuple[str, str], note: str = "", description: str = ""
) -> dict[str, Any]:
    """Keywords for ``add_parser``: an "Examples:" epilog of ``(command, comment)`` pairs.

    The epilog is printed as written (``argparse.RawDescriptionHelpFormatter``), so it is
    laid out here: comments aligned after the commands if that fits 79 columns, else each
    comment on a line of its own above its command. ``note`` is a paragraph after the
    examples; ``description`` (the text under the usage line) is wrapped too.

    Examples
    --------
    >>> kw = with_examples(("driftwood list", "models and streams"), ("driftwood run", ""))
    >>> print(kw["epilog"])
    Examples:
      driftwood list  # models and streams
      driftwood run
    """
    pad = max(len(command) for command, _ in examples)
    aligned = all(pad + len(comment) + 6 <= 79 for _, comment in examples)
    lines = ["Examples:"]
    for command, comment in examples:
        if not comment:
            lines.append(f"  {command}")
        elif aligned:
            lines.append(f"  {command:<{pad}}  # {comment}")
        else:
            lines += [f"  # {comment}", f"  {command}"]
    if note:
        lines += ["", wrap(note, 79)]
    keywords: dict[str, Any] = {
        "epilog": "\n".join(lines),
        "formatter_class": argparse.RawDescriptionHelpFormatter,
    }
    if description:
        keywords["description"] = wrap(description, 79)
    return keywords


def progress_enabled(flag: bool | None) -> bool:
    """``--progress`` / ``--no-progress`` / neither: on (a bar on a terminal; elsewhere a
    line every few seconds with the time left, and a last line at the end)."""
    return True if flag is None else flag

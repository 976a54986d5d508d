"""How a command of the command line ends early: Ctrl-C, and a missing optional dependency.

Both end with one line on stderr that says what to do next (``main`` prints it):

- :class:`Interrupted`: raised by a command that caught ``KeyboardInterrupt``, with what
  was kept and how to resume or rerun; exit status 130 (``128 + SIGINT``, the shells'
  convention). A ``KeyboardInterrupt`` that no command caught ends the same way with
  "nothing was kept".
- :func:`require_extra`: imports a command's optional dependencies or raises
  :class:`MissingExtra` (a :class:`~reference.evaluation.catalog.UsageError`, exit status
  2) naming the modules and the ``pip install`` line of the extra that provides them.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

from reference.evaluation.catalog import UsageError

__all__ = [
    "EXIT_INTERRUPTED",
    "EXTRAS",
    "Interrupted",
    "MissingExtra",
    "report_interrupt",
    "require_extra",
]

EXIT_INTERRUPTED = 130
"""Exit status after Ctrl-C: 128 + SIGINT."""

EXTRAS: dict[str, tuple[str, ...]] = {"grid": ("joblib", "pandas", "distributed")}
"""The optional-dependency groups of ``pyproject.toml`` a command may need (import names)."""


class Interrupted(Exception):
    """Ctrl-C during a command; the message says what was kept and how to go on."""


class MissingExtra(UsageError):
    """An optional dependency of a command is not installed; the message names its extra."""


def require_extra(extra: str, command: str, modules: Sequence[str]) -> None:
    """Import ``modules`` or raise :class:`MissingExtra` naming ``extra`` and how to install it.

    Parameters
    ----------
    extra : str
        Name of the optional-dependency group (a key of :data:`EXTRAS`).
    command : str
        The command that needs them, for the message (e.g. ``"driftwood grid"``).
    modules : sequence of str
        Import names to check.

    Examples
    --------
    >>> require_extra("grid", "driftwood grid", ["json"])
    >>> try:
    ...     require_extra("grid", "driftwood grid", ["no_such_module_xyz"])
    ... except MissingExtra as err:
    ...     print(err)  # doctest: +NORMALIZE_WHITESPACE
    `driftwood grid` needs no_such_module_xyz, of the optional dependencies 'grid'
    (joblib, pandas, distributed): install them with `pip install -e ".[grid]"` in the
    driftwood source tree (or `pip install "driftwood-learn[grid]"`)
    """
    missing = []
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    if missing:
        group = ", ".join(EXTRAS.get(extra, ()))
        raise MissingExtra(
            f"`{command}` needs {', '.join(missing)}, of the optional dependencies {extra!r} "
            f"({group}): install them with `pip install -e \".[{extra}]\"` in the driftwood "
            f"source tree (or `pip install \"driftwood-learn[{extra}]\"`)"
        )


def report_interrupt(message: str | None) -> int:
    """Print the one line of an interrupted command on stderr; return the exit status 130."""
    text = message or "nothing was kept"
    print(f"driftwood: interrupted: {text}", file=sys.stderr)
    return EXIT_INTERRUPTED

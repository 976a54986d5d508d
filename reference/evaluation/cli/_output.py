"""Text output of the command line."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["table"]


def table(rows: Sequence[tuple[str, str]]) -> str:
    """Two aligned columns: names padded to the longest, two spaces, values."""
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)

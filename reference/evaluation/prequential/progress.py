"""A one-line text progress bar on ``stderr``, with no dependency."""

from __future__ import annotations

import math
import sys
import time
from typing import TextIO

__all__ = ["ProgressBar"]


class ProgressBar:
    """A one-line text progress bar on ``stderr`` (no dependency).

    Redraws at most every 0.1 s: ``description [#####.....]  52%  5200/10000  3.1k it/s``.

    Parameters
    ----------
    total : int
        Number of steps (0 or less: unknown, no bar drawn, only counts).
    description : str
        Text before the bar.
    enabled : bool
        False makes every method a no-op.
    stream : text file, default sys.stderr

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> bar = ProgressBar(10, "demo", stream=out)
    >>> for _ in range(10):
    ...     bar.update()
    >>> bar.close()
    >>> "10/10" in out.getvalue()
    True
    """

    WIDTH = 30

    def __init__(
        self, total: int, description: str = "", enabled: bool = True, stream: TextIO | None = None
    ) -> None:
        self.total = total
        self.description = description
        self.enabled = enabled
        self.stream = sys.stderr if stream is None else stream
        self.count = 0
        self._start = time.perf_counter()
        self._last = -1.0

    def update(self, steps: int = 1) -> None:
        """Advance by ``steps``; redraw if 0.1 s passed since the last redraw."""
        self.count += steps
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self._last >= 0.1:
            self._last = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        elapsed = max(now - self._start, 1e-9)
        speed = self.count / elapsed
        if self.total > 0:
            frac = min(1.0, self.count / self.total)
            filled = int(frac * self.WIDTH)
            bar = "#" * filled + "." * (self.WIDTH - filled)
            left = (self.total - self.count) / speed if speed > 0 else math.inf
            eta = f"  eta {left:5.1f}s" if math.isfinite(left) else ""
            text = f"{self.description} [{bar}] {100 * frac:3.0f}%  {self.count}/{self.total}"
        else:
            text, eta = f"{self.description} {self.count}", ""
        self.stream.write(f"\r{text}  {_human(speed)} it/s{eta}   ")
        self.stream.flush()

    def close(self) -> None:
        """Draw the final state and end the line."""
        if not self.enabled:
            return
        self._draw(time.perf_counter())
        self.stream.write("\n")
        self.stream.flush()


def _human(value: float) -> str:
    for unit, scale in (("M", 1e6), ("k", 1e3)):
        if value >= scale:
            return f"{value / scale:.1f}{unit}"
    return f"{value:.0f}"

"""Progress on ``stderr`` with no dependency: a bar on a terminal, plain lines elsewhere."""

from __future__ import annotations

import math
import sys
import time
from typing import TextIO

__all__ = ["ProgressBar", "duration"]


class ProgressBar:
    """Progress of a loop of known length on ``stderr``: a bar, or a line every few seconds.

    On a terminal the bar is redrawn in place at most every 0.1 s:
    ``description [#####.....]  52%  5200/10000  3.1k it/s  eta 4.2 s``. Anywhere else (a
    log file, a pipe, a notebook) a carriage return would not redraw anything, so a plain
    line is written every ``interval`` seconds instead, with the time left estimated from
    the rate so far: ``[description] 5200/10000 rows, 35 s elapsed, ~32 s left``, and one
    last line on :meth:`close`.

    Parameters
    ----------
    total : int
        Number of steps (0 or less: unknown, no bar drawn, only counts).
    description : str
        Text before the bar.
    enabled : bool
        False makes every method a no-op (the count is still kept).
    stream : text file, default sys.stderr
    unit : str
        What a step is, in the plain lines (``"rows"``, ``"cells"``).
    style : {"auto", "bar", "lines"}
        ``"auto"``: the bar if ``stream`` is a terminal, else the lines.
    interval : float, optional
        Seconds between two plain lines (default :attr:`INTERVAL`).
    start : int
        Steps already done before this run (a resumed job): counted, but not used to
        estimate the rate.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> bar = ProgressBar(10, "demo", stream=out, unit="rows")
    >>> for _ in range(10):
    ...     bar.update()
    >>> bar.close()
    >>> out.getvalue().startswith("[demo] 10/10 rows")
    True
    """

    WIDTH = 30
    INTERVAL = 5.0
    """Default seconds between two plain lines."""

    def __init__(
        self,
        total: int,
        description: str = "",
        enabled: bool = True,
        stream: TextIO | None = None,
        *,
        unit: str = "it",
        style: str = "auto",
        interval: float | None = None,
        start: int = 0,
    ) -> None:
        if style not in ("auto", "bar", "lines"):
            raise ValueError(f"style must be 'auto', 'bar' or 'lines', got {style!r}")
        self.total = total
        self.description = description
        self.enabled = enabled
        self.stream = sys.stderr if stream is None else stream
        self.unit = unit
        self.interval = self.INTERVAL if interval is None else interval
        if style == "auto":
            isatty = getattr(self.stream, "isatty", None)
            style = "bar" if isatty is not None and isatty() else "lines"
        self.style = style
        self.count = start
        self._first = start
        self._start = time.perf_counter()
        self._closed: float | None = None
        self._last = -1.0 if style == "bar" else self._start
        self._drawn = False
        self._drawn_width = 0

    def update(self, steps: int = 1) -> None:
        """Advance by ``steps``; redraw the bar after 0.1 s, write a line after ``interval``."""
        self.count += steps
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self._last >= (0.1 if self.style == "bar" else self.interval):
            self._last = now
            self._draw(now)

    def elapsed(self) -> float:
        """Seconds since the bar was created; once closed, the seconds its final state
        shows (so a summary printed later quotes the same time)."""
        end = self._closed if self._closed is not None else time.perf_counter()
        return end - self._start

    def remaining(self, now: float | None = None) -> float:
        """Estimated seconds left at the rate so far (inf before the first step, NaN if the
        total is unknown)."""
        if self.total <= 0:
            return math.nan
        now = time.perf_counter() if now is None else now
        done = self.count - self._first
        if done <= 0:
            return math.inf
        return max(self.total - self.count, 0) * (now - self._start) / done

    def _draw(self, now: float) -> None:
        self._drawn = True
        if self.style == "lines":
            self.stream.write(self._line(now) + "\n")
            self.stream.flush()
            return
        elapsed = max(now - self._start, 1e-9)
        speed = (self.count - self._first) / elapsed
        if self.total > 0:
            frac = min(1.0, self.count / self.total)
            filled = int(frac * self.WIDTH)
            bar = "#" * filled + "." * (self.WIDTH - filled)
            left = self.remaining(now)
            # no estimate from the first second: the first steps include the warm-up
            known = math.isfinite(left) and now - self._start >= 1.0
            eta = f"  eta {duration(left)}" if known else ""
            text = f"{self.description} [{bar}] {100 * frac:3.0f}%  {self.count}/{self.total}"
        else:
            text, eta = f"{self.description} {self.count}", ""
        line = f"{text}  {_human(speed)} it/s{eta}"
        # spaces over what a longer previous line left behind
        self.stream.write(f"\r{line:<{self._drawn_width}}   ")
        self._drawn_width = len(line)
        self.stream.flush()

    def _line(self, now: float, final: bool = False) -> str:
        done = f"{self.count}/{self.total}" if self.total > 0 else str(self.count)
        text = f"[{self.description}] {done} {self.unit}, {duration(now - self._start)} elapsed"
        if final:
            return text
        left = self.remaining(now)
        if math.isfinite(left):
            text += f", ~{duration(left)} left"
        return text

    def close(self, final: bool = True) -> None:
        """End the progress display: the final state (bar or line), then a newline.

        ``final=False`` (an interrupted loop) only ends a bar's line, so that the next
        message starts on a line of its own; no final state is written.
        """
        self._closed = time.perf_counter() if final else None
        if not self.enabled:
            return
        if not final:
            if self.style == "bar" and self._drawn:
                self.stream.write("\n")
                self.stream.flush()
            return
        now = self._closed
        assert now is not None
        if self.style == "lines":
            self.stream.write(self._line(now, final=True) + "\n")
        else:
            self._draw(now)
            self.stream.write("\n")
        self.stream.flush()


def duration(seconds: float) -> str:
    """A duration for people: ``"0.4 s"``, ``"35 s"``, ``"4 min 10 s"``, ``"2 h 05 min"``.

    Examples
    --------
    >>> duration(0.42), duration(35.2), duration(250), duration(7500)
    ('0.4 s', '35 s', '4 min 10 s', '2 h 05 min')
    """
    if seconds < 10:
        return f"{seconds:.1f} s"
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


def _human(value: float) -> str:
    for unit, scale in (("M", 1e6), ("k", 1e3)):
        if value >= scale:
            return f"{value / scale:.1f}{unit}"
    return f"{value:.0f}"

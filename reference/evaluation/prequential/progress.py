"""Progress on ``stderr`` with no dependency: a bar on a terminal, plain lines elsewhere."""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
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

    The time left follows the measured rate, also when it changes along the loop (a
    dynamic tree's rows cost more as its trees grow): :meth:`remaining` measures the
    seconds per step over the first and over the second half of the steps done, takes
    the cost per step as a straight line through the two (at the middle of each half),
    and sums that line over the steps left. A steady rate gives the plain "steps left x
    seconds per step so far"; a cost per step growing linearly is followed exactly. A
    cost per step that falls (a warm-up at the start) is not extrapolated downwards: the
    steps left are then charged at the rate of the second half.

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
    clock : callable, optional
        Seconds, as ``time.perf_counter`` (the default) gives them; tests pass a fake.

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
    SAMPLE_GROWTH = 1.05
    """A (steps, time) pair is recorded each time the steps done grow by 5% (about 14
    pairs per doubling, 200 for a million steps): where :meth:`remaining` finds the time
    at half the steps."""

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
        clock: Callable[[], float] | None = None,
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
        self._clock = time.perf_counter if clock is None else clock
        self._start = self._clock()
        self._samples: list[tuple[int, float]] = [(0, 0.0)]   # (steps done, seconds)
        self._closed: float | None = None
        self._last = -1.0 if style == "bar" else self._start
        self._drawn = False
        self._drawn_width = 0

    def update(self, steps: int = 1) -> None:
        """Advance by ``steps``; redraw the bar after 0.1 s, write a line after ``interval``."""
        self.count += steps
        now = self._clock()
        done = self.count - self._first
        if done >= max(self._samples[-1][0] * self.SAMPLE_GROWTH, self._samples[-1][0] + 1):
            self._samples.append((done, now - self._start))
        if not self.enabled:
            return
        if now - self._last >= (0.1 if self.style == "bar" else self.interval):
            self._last = now
            self._draw(now)

    def elapsed(self) -> float:
        """Seconds since the bar was created; once closed, the seconds its final state
        shows (so a summary printed later quotes the same time)."""
        end = self._closed if self._closed is not None else self._clock()
        return end - self._start

    def remaining(self, now: float | None = None) -> float:
        """Estimated seconds left at the measured rate (inf before the first step, NaN if
        the total is unknown).

        With ``c`` steps done in ``T`` seconds and ``T0`` seconds recorded at ``c0``
        steps (the recorded pair nearest ``c / 2``), the seconds per step are
        ``r0 = T0 / c0`` around step ``c0 / 2`` and ``r1 = (T - T0) / (c - c0)`` around
        step ``(c0 + c) / 2``; the slope ``b = (r1 - r0) / (c / 2)`` (none below 0) gives
        the cost of step ``i`` as ``r1 + b (i - (c0 + c) / 2)``, summed over the ``L``
        steps left: ``L (r1 + b ((2 c + L) / 2 - (c0 + c) / 2))``. Until a pair is
        recorded (fewer than two steps), the rate so far: ``L T / c``.
        """
        if self.total <= 0:
            return math.nan
        now = self._clock() if now is None else now
        done = self.count - self._first
        if done <= 0:
            return math.inf
        left = max(self.total - self.count, 0)
        elapsed = now - self._start
        earlier = [(c, t) for c, t in self._samples if 0 < c <= done / 2]
        if not earlier:
            return left * elapsed / done
        c0, t0 = min(earlier, key=lambda pair: abs(pair[0] - done / 2))
        early, recent = t0 / c0, (elapsed - t0) / (done - c0)
        slope = max((recent - early) / (done / 2), 0.0)
        return left * (recent + slope * ((2 * done + left) / 2 - (c0 + done) / 2))

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
        self._closed = self._clock() if final else None
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

"""Ctrl-C in long calls: deferred to a safe point, then raised as ``KeyboardInterrupt``.

A long call (``partial_fit`` over many rows, a prediction over many rows) runs its loop in
pieces: in the C backend a piece is one call into C, which Python cannot interrupt; in the
reference backend a piece is one row. While such a call runs in the main thread, Python's
SIGINT handler is swapped for one that only records the signal; the loop checks the record
between pieces and raises ``KeyboardInterrupt`` there, after the pieces already done have
been accounted for (``n_seen_`` counts exactly the rows learned). The model is therefore
never left half-way through a row, and learning the remaining rows later gives the model an
uninterrupted call would have given, bit for bit.

Only the default handler is swapped: if a program installed its own SIGINT handler, it is
left alone. In other threads (which never receive signals in Python) nothing changes: the
deferral belongs to the main thread, and a call running in a worker thread at the same time
neither sees nor consumes the main thread's pending Ctrl-C.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from types import FrameType, TracebackType

__all__ = ["Interruptible", "pieces"]


class Interruptible:
    """Context manager deferring SIGINT to the loop's checks (:meth:`check`).

    Nested uses in the main thread share the outermost one, so a public method calling
    another does not swap the handler twice; in any other thread each use is its own guard,
    which no signal reaches.

    Examples
    --------
    >>> with Interruptible() as guard:
    ...     for start, stop in pieces(10, 4):
    ...         done = stop          # one piece of work
    ...         guard.check()        # raises KeyboardInterrupt here if Ctrl-C arrived
    >>> done
    10
    """

    _active: Interruptible | None = None

    def __init__(self) -> None:
        self.pending = False
        self._previous: object = None
        self._owner = False

    def __enter__(self) -> Interruptible:
        if threading.current_thread() is not threading.main_thread():
            # signals reach the main thread only: a worker's guard is its own and never
            # pending, so it cannot take the main thread's Ctrl-C (nor raise it)
            return self
        outer = Interruptible._active
        if outer is not None:
            return outer
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self._previous = signal.signal(signal.SIGINT, self._record)
            self._owner = True
            Interruptible._active = self
        return self

    def _record(self, signum: int, frame: FrameType | None) -> None:
        self.pending = True

    def check(self) -> None:
        """Raise ``KeyboardInterrupt`` if Ctrl-C arrived since the call began."""
        if self.pending:
            self.pending = False
            raise KeyboardInterrupt

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 trace: TracebackType | None) -> None:
        if not self._owner:
            return
        Interruptible._active = None
        signal.signal(signal.SIGINT, self._previous)  # type: ignore[arg-type]
        self._owner = False
        if self.pending and kind is None:
            self.pending = False
            raise KeyboardInterrupt


def pieces(n: int, size: int) -> Iterator[tuple[int, int]]:
    """``(start, stop)`` slices of ``range(n)`` of at most ``size`` items each."""
    size = max(1, int(size))
    for start in range(0, n, size):
        yield start, min(n, start + size)

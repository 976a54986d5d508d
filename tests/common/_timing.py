"""Observations that only real timing can make, retried a bounded number of times.

Most tests that involve time synchronise on events the code under test sets, or give a
time limit they do not measure a generous margin. A few properties are about time itself
("Ctrl-C stops the call promptly"): on a loaded machine a single observation can miss for
reasons that have nothing to do with the code (the process was not scheduled). Such a
test says so, wraps one observation in a function that calls :func:`timely` for the
timing condition (every other assertion stays a plain ``assert``, which fails at once),
and runs it with :func:`observe_with_retries`: the test fails only when every try misses.

>>> tries = iter([5.0, 0.5])
>>> def one_try() -> float:
...     took = next(tries)
...     timely(took < 1.0, f"took {took} s")
...     return took
>>> observe_with_retries(one_try, tries=3)
0.5
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

__all__ = ["CHILD_TIMEOUT", "TRIES", "TimingMiss", "observe_with_retries", "timely"]

T = TypeVar("T")

TRIES = 3
"""Observations made before a timing property is declared broken."""


class TimingMiss(AssertionError):
    """A condition on real elapsed time did not hold in one observation."""


def timely(condition: bool, message: str) -> None:
    """Assert a condition on real elapsed time: a :class:`TimingMiss` when it fails."""
    if not condition:
        raise TimingMiss(message)


def observe_with_retries(observation: Callable[[], T], tries: int = TRIES) -> T:
    """The result of the first call of ``observation`` that raises no :class:`TimingMiss`.

    Any other exception (a plain failed ``assert`` included) propagates at once: only the
    timing conditions are retried. After ``tries`` misses, an ``AssertionError`` lists
    every miss.
    """
    misses: list[str] = []
    for _ in range(tries):
        try:
            return observation()
        except TimingMiss as miss:
            misses.append(str(miss))
    raise AssertionError(f"the timing condition failed in all {tries} tries: "
                         + "; ".join(misses))


CHILD_TIMEOUT = 600.0
"""Seconds a test's child process may run before it counts as hung: a limit the test does
not measure, so far beyond what the child needs even on a loaded machine (where a fresh
interpreter's imports alone can take tens of seconds)."""

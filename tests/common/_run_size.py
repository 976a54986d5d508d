"""How much of each randomized test a run does: the quick default run or the full run.

``python -m pytest`` is the *quick* run: every test function runs, but the randomized ones
on fewer seeds, shorter streams and fewer generated examples, chosen so that every
configuration a test covers is still covered once. ``python -m pytest --full`` (what CI
runs; ``--runslow`` implies it) is the *full* run: every seed, the full stream lengths and
Hypothesis' ``ci`` profile. A test picks its size with :func:`sized`, at import time::

    from _run_size import sized

    SEEDS = sized(quick=range(2), full=range(8))
    N_ROWS = sized(quick=200, full=700)

Test modules are imported when pytest collects them, after ``tests/conftest.py`` has
called :func:`set_full` from the command line, so module-level values are already right.
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")

_FULL = False


def set_full(full: bool) -> None:
    """Choose the run size (called once by ``tests/conftest.py`` before collection)."""
    global _FULL
    _FULL = full


def full_run() -> bool:
    """True in the full run (``--full`` or ``--runslow``), False in the quick default run."""
    return _FULL


def sized(quick: T, full: T) -> T:
    """``full`` in the full run, ``quick`` in the quick default run."""
    return full if _FULL else quick

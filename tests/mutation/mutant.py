"""One mutant: a paired change to the Python and its C twin, and the oracle that must kill it.

Each edit is ``(path, old, new, count)``: ``old`` must occur exactly ``count`` times in
the file, and every occurrence is replaced (so a stale mutant fails loudly instead of
silently mutating nothing; ``tests/common/test_mutation_harness.py`` checks this in the default
suite). ``killer`` is a pytest node id or file: the oracle test that computes the formula
by another route. An *equivalent* mutant (one no test can kill, because the behaviour
does not change) carries ``equivalent``: the reason. A rule that lives only in Python
code both backends run (the model-file loader, the state checks) has no C twin: such a
mutant carries ``shared``, naming the shared code, and changes the Python alone.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mutant:
    """One paired change and the oracle that must kill it."""

    id: str
    what: str
    killer: str
    edits: tuple[tuple[str, str, str, int], ...]
    equivalent: str = ""
    shared: str = ""

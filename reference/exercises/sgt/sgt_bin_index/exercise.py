"""Exercise ``sgt-bin-index``: The equal-width bin index of a numeric value.

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

import math
import random

from reference.exercises.catalog import (
    EXACT,
    Case,
    Exercise,
    Mistake,
    Plug,
    folder_file,
    folder_hints,
)
from reference.exercises.sgt._shared import (
    _BIN_INDEX,
    LEAF_STATISTICS,
    REGRESSION_STREAM,
    Fn,
)

BIN_SKELETON = folder_file(__file__, "skeleton.py")


def bin_index(x: float, lo: float, hi: float, bins: int) -> int:
    """The reference: :func:`reference.sgt.quantizer.bin_index`."""
    return _BIN_INDEX(x, lo, hi, bins)


def _bin_cases() -> list[Case]:
    rng = random.Random(808)
    cases = [
        Case((1.0, 0.0, 1.0, 64), "the maximum (top edge of the last bin)"),
        Case((0.0, 0.0, 1.0, 64), "the minimum"),
        Case((0.5, 0.0, 1.0, 64), "a bin boundary"),
        Case((1.7, 0.0, 1.0, 64), "above the range"),
        Case((-0.3, 0.0, 1.0, 64), "below the range"),
        Case((-2.0, 0.0, 1.0, 64), "far below the range (position < -1)"),
        Case((math.inf, 0.0, 1.0, 16), "+inf"),
        Case((-math.inf, 0.0, 1.0, 16), "-inf"),
        Case((3.0, 2.0, 2.0, 16), "degenerate range"),
        Case((0.0, -1e308, 1e308, 16), "range wider than the largest double"),
        Case((0.3, 0.0, 1.0, 1), "one bin"),
        Case((0.999, 0.0, 1.0, 10), "just below the top edge"),
        Case((0.7, 0.0, 1.0, 10), "position 7 - 1 ulp (0.7 is not exact)"),
        Case((5.92, 0.96, 8.4, 3), "on a bin edge: the order of operations decides"),
        Case((6.013999999999999, 3.44, 6.443, 7), "on a bin edge, rounded the other way"),
    ]
    for i in range(60):
        lo = rng.uniform(-10.0, 10.0)
        hi = lo + rng.choice([1e-6, 1.0, 1000.0]) * rng.random()
        bins = rng.choice([2, 10, 16, 64, 255])
        if rng.random() < 0.3:
            x = lo + (hi - lo) * rng.randint(0, bins) / bins   # on a boundary
        else:
            x = rng.uniform(lo - 0.2 * (hi - lo), hi + 0.2 * (hi - lo))
        cases.append(Case((x, lo, hi, bins), f"random {i}"))
    return cases


def _bin_plugs() -> tuple[Plug, ...]:
    def adapt(student: Fn) -> Fn:
        def plugged(x: float, lo: float, hi: float, bins: int) -> int:
            return int(student(float(x), float(lo), float(hi), int(bins)))
        return plugged
    return (Plug("reference.sgt.quantizer.bin_index", adapt),)


def _bin_mistake(top: str = ">=", width_minus_one: bool = False, rounding: bool = False,
                 lower_clip: bool = True) -> Fn:
    def wrong(x: float, lo: float, hi: float, bins: int) -> int:
        if not hi > lo:
            return 0
        scale = float(bins - 1) if width_minus_one else float(bins)
        position = scale * (x - lo) / (hi - lo)
        if position != position:
            return 0
        if top == ">=" and position >= bins:
            return bins - 1
        if top == ">" and position > bins:
            return bins - 1
        if top == "B" and position >= bins:
            return bins
        if not position >= 0.0 and (lower_clip or math.isinf(position)):
            return 0
        return int(math.floor(position + 0.5)) if rounding else int(position)
    return wrong


def _bin_fraction_first(x: float, lo: float, hi: float, bins: int) -> int:
    if not hi > lo:
        return 0
    position = (x - lo) / (hi - lo) * bins
    if position >= bins:
        return bins - 1
    if not position >= 0.0:
        return 0
    return int(position)


BIN_INDEX = Exercise(
    name="sgt-bin-index",
    title="The equal-width bin index of a numeric value",
    family="sgt",
    tag="[GPF19, §3.2]; [SGT-SPEC §5.6]",
    anchor=LEAF_STATISTICS,
    function_name="bin_index",
    skeleton=BIN_SKELETON,
    reference=bin_index,
    cases=_bin_cases,
    tolerance=EXACT,
    plugs=_bin_plugs(),
    stream=REGRESSION_STREAM,
    mistakes=(
        Mistake(
            "bin-top-edge",
            "The maximum itself has position exactly B and belongs to the last bin: clip "
            "when position >= B, not only when position > B.",
            LEAF_STATISTICS,
            _bin_mistake(top=">"),
            mutant="sgt-bin-top-edge",
        ),
        Mistake(
            "bin-width",
            "Your position uses B - 1: B equal-width bins divide [min, max] into B parts, "
            "so the position is B (x - min)/(max - min).",
            LEAF_STATISTICS,
            _bin_mistake(width_minus_one=True),
            mutant="sgt-bin-width",
        ),
        Mistake(
            "bin-clip-to-b",
            "Off by one at the top: the bins are numbered 0 .. B - 1, so a value at or "
            "beyond the maximum goes to bin B - 1, not B.",
            LEAF_STATISTICS,
            _bin_mistake(top="B"),
        ),
        Mistake(
            "bin-position-order",
            "(x - min)/(max - min)·B rounds differently from B·(x - min)/(max - min) right at "
            "the bin edges: the specification multiplies by B first.",
            LEAF_STATISTICS,
            _bin_fraction_first,
        ),
        Mistake(
            "bin-rounding",
            "You rounded the position to the nearest integer: the bin is its floor.",
            LEAF_STATISTICS,
            _bin_mistake(rounding=True),
        ),
        Mistake(
            "bin-no-lower-clip",
            "Values below the minimum must be clipped to bin 0; int() truncates towards "
            "zero, so positions below -1 give negative bins.",
            LEAF_STATISTICS,
            _bin_mistake(lower_clip=False),
        ),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=10,
)



EXERCISE = BIN_INDEX

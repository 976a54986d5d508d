"""Exercise ``dt-residual-resample``: Residual resampling of the particle cloud.

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any

from reference.exercises.catalog import (
    Case,
    Exercise,
    Mistake,
    Plug,
    Stream,
    folder_file,
    folder_hints,
)
from reference.exercises.dynamic_trees._shared import (
    _REAL,
    A_PL,
    _regression_data,
)

RESAMPLE_SKELETON = folder_file(__file__, "skeleton.py")


class _ListRng:
    """A stand-in for :class:`reference.rng.Rng` whose ``uniform()`` reads a list."""

    def __init__(self, values: Sequence[float]) -> None:
        self._values = list(values)
        self._at = 0

    def uniform(self) -> float:
        value = self._values[self._at]
        self._at += 1
        return value


def _resample_reference(weights: list[float], uniforms: list[float]) -> list[int]:
    return [int(i) for i in _REAL["residual_resample"](list(weights), _ListRng(uniforms))]


_resample_reference.__name__ = "residual_resample"


def _cumulative(weights: Sequence[float]) -> list[float]:
    """The cumulative leftover probabilities of the specification (for tie cases)."""
    n = len(weights)
    expected = [float(n) * w for w in weights]
    counts = [math.floor(e) for e in expected]
    r = n - sum(counts)
    out = []
    c = 0.0
    for i in range(n):
        c = c + (expected[i] - float(counts[i])) / float(r)
        out.append(c)
    return out


def _normalised(raw: Sequence[float]) -> list[float]:
    total = 0.0
    for v in raw:
        total = total + v
    return [v / total for v in raw]


def _resample_cases() -> list[Case]:
    rng = random.Random(20_606)
    below_one = 1.0 - 2.0 ** -53

    def uniforms(n: int) -> list[float]:
        return [rng.random() for _ in range(n)]

    search = random.Random(5)
    while True:     # weights whose cumulative leftovers sum to less than 1 by rounding
        short_w = _normalised([search.random() for _ in range(search.randrange(3, 12))])
        short_c = _cumulative(short_w)
        if short_c[-1] < 1.0:
            break
    tie_w = _normalised([0.1, 0.2, 0.3, 0.4])
    tie_c = _cumulative(tie_w)
    cases = [
        Case(([0.25, 0.25, 0.25, 0.25], uniforms(4)), "equal weights: every particle once"),
        Case(([1.0], [0.5]), "a single particle"),
        Case(([0.0, 1.0, 0.0], uniforms(3)), "one particle has all the weight"),
        Case((tie_w, [tie_c[0], tie_c[1], 0.0, 0.0]),
             "ties: uniforms exactly on cumulative values (u < c_j is strict)"),
        Case((_normalised([3.0, 1e-300, 2.0, 1e-300, 5.0]), [below_one] * 5),
             "the largest uniform below 1 (the last cumulative value is 1)"),
        Case((short_w, [short_c[-1]] * len(short_w)),
             "rounding leaves the last cumulative value below 1, and u is above it"),
        Case((_normalised([0.0, 0.0, 1e-300, 0.0]), uniforms(4)),
             "tiny weights normalised"),
        Case((_normalised([1.0 + 1e-15, 1.0, 1.0 - 1e-15]), uniforms(3)),
             "almost equal weights"),
    ]
    for _ in range(50):
        n = rng.randrange(2, 31)
        raw = [rng.expovariate(1.0) ** 3 for _ in range(n)]
        for i in range(n):
            if rng.random() < 0.15:
                raw[i] = 0.0
        if sum(raw) == 0.0:
            raw[0] = 1.0
        cases.append(Case((_normalised(raw), uniforms(n))))
    return cases


def _resample_plug(student: Callable[..., Any]) -> Callable[..., Any]:
    def residual_resample(weights: Sequence[float], rng: Any) -> list[int]:
        n = len(weights)
        r = n
        for w in weights:
            r -= int(math.floor(float(n) * w))
        draws = [rng.uniform() for _ in range(r)]
        return [int(i) for i in student(list(weights), draws)]
    return residual_resample


def _resample_variant(*, floor: Callable[[float], int] = math.floor, residual: bool = True,
                      divide: bool = True, strict: bool = True, force_one: bool = True,
                      deterministic: bool = True) -> Callable[..., list[int]]:
    def residual_resample(weights: list[float], uniforms: list[float]) -> list[int]:
        n = len(weights)
        expected = [float(n) * w for w in weights]
        counts = [int(floor(e)) if deterministic else 0 for e in expected]
        out: list[int] = []
        for i in range(n):
            out.extend([i] * counts[i])
        r = n - len(out)
        if r <= 0:
            return out
        cum = []
        c = 0.0
        for i in range(n):
            if residual:
                step = expected[i] - float(counts[i])
                c = c + (step / float(r) if divide else step)
            else:
                c = c + expected[i] / float(n)
            cum.append(c)
        if force_one:
            cum[-1] = 1.0
        for k in range(r):
            u = uniforms[k]
            j = 0
            while j < n and not (u < cum[j] if strict else u <= cum[j]):
                j += 1
            out.append(j)
        return out
    return residual_resample


RESIDUAL_RESAMPLE = Exercise(
    name="dt-residual-resample",
    title="Residual resampling of the particle cloud",
    family="dynamic_trees",
    tag="[TGP11]; [AG13, §2.3]; [DT-SPEC §5.2]",
    anchor=A_PL,
    function_name="residual_resample",
    skeleton=RESAMPLE_SKELETON,
    reference=_resample_reference,
    cases=_resample_cases,
    plugs=(Plug("reference.dynatree.particles.residual_resample", _resample_plug),),
    stream=Stream("DynamicTreeRegressor", {"n_particles": 10, "seed": 1},
                  _regression_data(1)),
    mistakes=(
        Mistake("draws-from-weights",
                "The residual draws use the leftover fractions (N w_i - floor(N w_i))/R, not "
                "the weights themselves: particles already copied would be favoured twice.",
                A_PL, _resample_variant(residual=False), mutant="dt-residual-probabilities"),
        Mistake("round-not-floor",
                "The deterministic copies are floor(N w_i), rounded down, not rounded to the "
                "nearest integer.",
                A_PL, _resample_variant(floor=round)),
        Mistake("leftovers-not-divided",
                "The leftover fractions must be divided by R so that they sum to 1.",
                A_PL, _resample_variant(divide=False)),
        Mistake("less-or-equal",
                "The inverse CDF takes the first j with u < c_j (strict); with u <= c_j a "
                "uniform on a cumulative value picks the wrong particle.",
                A_PL, _resample_variant(strict=False)),
        Mistake("last-cumulative-not-one",
                "Set the last cumulative value to exactly 1: rounding can leave it just "
                "below 1, and a uniform above it must still pick a particle.",
                A_PL, _resample_variant(force_one=False)),
        Mistake("multinomial",
                "This is multinomial resampling (N draws from the weights); residual "
                "resampling first copies floor(N w_i) times and draws only the remaining R.",
                A_PL, _resample_variant(deterministic=False, residual=False)),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=20,
)



EXERCISE = RESIDUAL_RESAMPLE

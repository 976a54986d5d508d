"""Exercise ``sgt-split-test``: The split test: t statistic and two-sided p-value.

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from reference.exercises.catalog import (
    Case,
    Exercise,
    Mistake,
    Plug,
    Tolerance,
    folder_file,
    folder_hints,
)
from reference.exercises.sgt._shared import (
    _T_TEST_P_VALUE,
    REGRESSION_STREAM,
    T_TEST_ANCHOR,
    Fn,
)
from reference.special import betainc as _betainc

T_TEST_SKELETON = folder_file(__file__, "skeleton.py")


class BetaInc:
    """The regularised incomplete beta ``reference.special.betainc``, with a short repr:
    the ``betainc`` argument of the split-test exercise's cases and plug."""

    def __call__(self, a: float, b: float, x: float) -> float:
        return _betainc(a, b, x)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BetaInc)

    def __hash__(self) -> int:
        return hash("BetaInc")

    def __repr__(self) -> str:
        return "betainc"


BETAINC = BetaInc()


def t_test_p_value(mean: float, variance: float, n: int,
                   betainc: Callable[[float, float, float], float]) -> float:
    """The reference: :func:`reference.sgt.splits.t_test_p_value` (which uses the library's
    ``betainc`` itself)."""
    return _T_TEST_P_VALUE(mean, variance, n)


def _t_test_cases() -> list[Case]:
    rng = random.Random(707)
    cases = [
        Case((-3.0, 200.0, 200, BETAINC), "t = -3, n = 200 (the tutorial's example)"),
        Case((-1.0, 0.5, 1, BETAINC), "n = 1: no test"),
        Case((-1.0, 0.5, 0, BETAINC), "n = 0: no test"),
        Case((-0.2, 0.0, 50, BETAINC), "zero variance, negative mean"),
        Case((0.2, 0.0, 50, BETAINC), "zero variance, positive mean"),
        Case((0.0, 0.0, 50, BETAINC), "zero variance, zero mean"),
        Case((0.0, 1.0, 50, BETAINC), "zero mean"),
        Case((math.nan, 1.0, 50, BETAINC), "NaN mean"),
        Case((-1.0, math.inf, 50, BETAINC), "infinite variance"),
        Case((-1e-200, 1e-200, 1000, BETAINC), "tiny mean and variance"),
        Case((-2.0, 1e-300, 200, BETAINC), "tiny variance: p underflows to 0"),
        Case((-0.01, 1.0, 2, BETAINC), "two instances (ν = 1)"),
    ]
    for i in range(60):
        n = rng.randint(2, 5000)
        variance = math.exp(rng.uniform(-8.0, 4.0))
        t = rng.uniform(-8.0, 3.0)
        cases.append(Case((t * math.sqrt(variance / n), variance, n, BETAINC), f"random {i}"))
    return cases


def _t_test_plugs() -> tuple[Plug, ...]:
    def adapt(student: Fn) -> Fn:
        def p_value(mean: float, variance: float, n: int) -> float:
            return float(student(float(mean), float(variance), int(n), BETAINC))
        return p_value
    return (Plug("reference.sgt.splits.t_test_p_value", adapt),)


def _t_test_mistake(statistic: str = "square", df_n: bool = False, halve: bool = False,
                    river_zero: bool = False) -> Fn:
    def wrong(mean: float, variance: float, n: int,
              betainc: Callable[[float, float, float], float]) -> float:
        if n < 2 or not math.isfinite(mean) or not math.isfinite(variance):
            return 1.0
        if variance == 0.0:
            return 1.0 if river_zero or not mean < 0.0 else 0.0
        if statistic == "square":
            f_stat = float(n) * mean * mean / variance
        elif statistic == "n-1":
            f_stat = (float(n) - 1.0) * mean * mean / variance
        else:   # |t| in place of t²
            f_stat = abs(mean) * math.sqrt(float(n) / variance)
        nu = float(n) if df_n else float(n) - 1.0
        p = betainc(0.5 * nu, 0.5, nu / (nu + f_stat))
        return 0.5 * p if halve else p
    return wrong


SPLIT_TEST = Exercise(
    name="sgt-split-test",
    title="The split test: t statistic and two-sided p-value",
    family="sgt",
    tag="[GPF19, Eq. 16]; [SGT-SPEC §8]",
    anchor=T_TEST_ANCHOR,
    function_name="t_test_p_value",
    skeleton=T_TEST_SKELETON,
    reference=t_test_p_value,
    cases=_t_test_cases,
    tolerance=Tolerance(
        "rel", 1e-12,
        "n m²/s² may be formed in another order (or as t·t); the tail I_x(ν/2, 1/2) passes "
        "a few ulps of F on with a factor well below 1e4 for these n",
    ),
    plugs=_t_test_plugs(),
    stream=REGRESSION_STREAM,
    mistakes=(
        Mistake(
            "t-test-not-squared",
            "You passed |t| where the F statistic t² = n m²/s² belongs: P(|T| >= |t|) is "
            "P(F_{1,ν} >= t²).",
            T_TEST_ANCHOR,
            _t_test_mistake(statistic="abs"),
        ),
        Mistake(
            "t-test-degrees-of-freedom",
            "The t statistic of n instances has ν = n - 1 degrees of freedom, not n: one is "
            "spent on the sample mean inside s².",
            T_TEST_ANCHOR,
            _t_test_mistake(df_n=True),
            mutant="sgt-t-test-df",
        ),
        Mistake(
            "t-test-statistic-n-1",
            "Your statistic uses n - 1 in F = n m²/s²: the standard error of a mean of n "
            "instances is s/√n (the n - 1 is already inside s²).",
            T_TEST_ANCHOR,
            _t_test_mistake(statistic="n-1"),
            mutant="sgt-t-statistic",
        ),
        Mistake(
            "t-test-one-sided",
            "You halved the p-value (a one-sided test): the specification's test is "
            "two-sided, with the sign of m checked separately.",
            T_TEST_ANCHOR,
            _t_test_mistake(halve=True),
        ),
        Mistake(
            "t-test-zero-variance",
            "With s² = 0 and m < 0 you return 1 (River's rule): the specification follows "
            "the authors' Java, F = ∞ and p = 0.",
            T_TEST_ANCHOR,
            _t_test_mistake(river_zero=True),
        ),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=20,
)



EXERCISE = SPLIT_TEST

"""Exercise ``dt-leaf-alc``: ALC of a leaf: integrated reduction in variance.

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from reference.exercises.catalog import (
    Case,
    Exercise,
    Mistake,
    Plug,
    Stream,
    Tolerance,
    folder_file,
    folder_hints,
)
from reference.exercises.dynamic_trees._shared import (
    _REAL,
    A_ALC,
    _regression_data,
)

ALC_SKELETON = folder_file(__file__, "skeleton.py")


def _alc_reference(q: float, df: float, n_total: float, delta: int, ginv: list[list[float]],
                   xbar: list[float], z: list[float], lo: list[float], hi: list[float],
                   approx: bool) -> float:
    flat = [float(v) for row in ginv for v in row]
    return float(_REAL["alc_integral"](float(q), float(df), float(n_total), int(delta), flat,
                                       [float(v) for v in xbar], [float(v) for v in z],
                                       [float(v) for v in lo], [float(v) for v in hi],
                                       bool(approx)))


_alc_reference.__name__ = "leaf_alc"


def _gram_inverse(rows: Sequence[Sequence[float]]) -> list[list[float]]:
    """``(sum z z')^-1`` by Gauss-Jordan elimination with partial pivoting (case data)."""
    p = len(rows[0])
    g = [[sum(r[i] * r[j] for r in rows) for j in range(p)] for i in range(p)]
    aug = [g[i] + [1.0 if i == j else 0.0 for j in range(p)] for i in range(p)]
    for col in range(p):
        piv = max(range(col, p), key=lambda r: abs(aug[r][col]))
        aug[col], aug[piv] = aug[piv], aug[col]
        d = aug[col][col]
        aug[col] = [v / d for v in aug[col]]
        for r in range(p):
            if r != col:
                f = aug[r][col]
                aug[r] = [a - f * b for a, b in zip(aug[r], aug[col], strict=True)]
    return [row[p:] for row in aug]


def _alc_cases() -> list[Case]:
    rng = random.Random(21_010)

    def box(d: int) -> tuple[list[float], list[float]]:
        lo = [rng.uniform(-1.0, 0.5) for _ in range(d)]
        return lo, [a + rng.uniform(0.05, 1.5) for a in lo]

    def linear(d: int, kind: str, approx: bool, label: str = "random") -> Case:
        pts = [[rng.uniform(-1.0, 1.0) for _ in range(d)] for _ in range(rng.randrange(
            2 * d + 4, 30))]
        x = [rng.uniform(-1.0, 1.0) for _ in range(d)]
        lo, hi = box(d)
        q, df = rng.uniform(0.1, 20.0), rng.uniform(2.5, 40.0)
        tot = float(len(pts)) + (rng.uniform(0.0, 10.0) if kind != "implicit" else 0.0)
        if kind == "augmented":
            rows = [[1.0, *r] for r in pts]
            return Case((q, df, tot, 0, _gram_inverse(rows), [0.0] * (d + 1), [1.0, *x],
                         [1.0, *lo], [1.0, *hi], approx), label)
        if kind == "none":
            return Case((q, df, tot, 0, _gram_inverse(pts), [0.0] * d, x, lo, hi, approx),
                        label)
        means = [sum(r[j] for r in pts) / len(pts) for j in range(d)]
        centred = [[r[j] - means[j] for j in range(d)] for r in pts]
        return Case((q, df, tot, 1, _gram_inverse(centred), means, x, lo, hi, approx), label)

    def constant(d: int, approx: bool, label: str = "random") -> Case:
        lo, hi = box(d)
        return Case((rng.uniform(0.1, 20.0), rng.uniform(2.5, 40.0),
                     float(rng.randrange(4, 40)), 1, [], [], [], lo, hi, approx), label)

    cases = [
        constant(1, False, "constant leaf, one input"),
        constant(3, True, "constant leaf, approx (area = n + nu)"),
        Case((2.0, 5.0, 8.0, 1, [], [], [], [0.0, 0.3], [1.0, 0.3], False),
             "constant leaf with a degenerate side: area 0"),
        Case((2.0, 5.0, 0.0, 1, [], [], [], [0.0], [1.0], False),
             "empty leaf, no retired mass (n + nu = 0)"),
        Case((0.0, 5.0, 8.0, 1, [], [], [], [0.0], [1.0], False), "Q = 0: no variance"),
        Case((2.0, 2.0, 8.0, 1, [], [], [], [0.0], [1.0], False), "df = 2: infinite variance"),
        linear(1, "augmented", False, "augmented intercept: the ones column is a point mass"),
        linear(2, "implicit", False, "implicit intercept: the rectangle is centred"),
        linear(2, "none", True, "no intercept, approx"),
    ]
    for _ in range(45):
        d = rng.randrange(1, 4)
        kind = rng.choice(["constant", "augmented", "implicit", "none"])
        approx = rng.random() < 0.25
        cases.append(constant(d, approx) if kind == "constant" else linear(d, kind, approx))
    return cases


def _alc_plug(student: Callable[..., Any]) -> Callable[..., Any]:
    def alc_integral(q: float, df: float, tot: float, delta: int, ginv: Sequence[float],
                     xbar: Sequence[float], z: Sequence[float], lo: Sequence[float],
                     hi: Sequence[float], approx: bool) -> float:
        p = len(z)
        nested = [[float(ginv[i * p + j]) for j in range(p)] for i in range(p)]
        return float(student(q, df, tot, delta, nested, list(xbar[:p]), list(z), list(lo),
                             list(hi), approx))
    return alc_integral


def _alc_variant(*, df_minus: float = 2.0, m2_div: float = 3.0, cross_div: float = 2.0,
                 with_h: bool = True, centre: bool = True, point_mass: bool = True,
                 ) -> Callable[..., float]:
    eps = 2.220446049250313e-16

    def leaf_alc(q: float, df: float, n_total: float, delta: int, ginv: list[list[float]],
                 xbar: list[float], z: list[float], lo: list[float], hi: list[float],
                 approx: bool) -> float:
        if not (q > 0.0 and df > 2.0):
            return 0.0
        c = 1.0 / n_total if (delta == 1 and n_total > 0.0) else 0.0
        p = len(z)
        u = [z[j] - xbar[j] for j in range(p)]
        v = [sum(ginv[i][j] * u[j] for j in range(p)) for i in range(p)]
        v += [0.0] * (len(lo) - p)
        h = c + sum(u[i] * v[i] for i in range(p))
        shift = [xbar[i] if (centre and i < p) else 0.0 for i in range(len(lo))]
        a = [lo[i] - shift[i] for i in range(len(lo))]
        b = [hi[i] - shift[i] for i in range(len(lo))]
        cp = c
        area = 1.0
        regular = []
        for i in range(len(lo)):
            w = b[i] - a[i]
            if w <= eps and (point_mass or p == 0):
                if p > 0:
                    cp += v[i] * b[i]
                else:
                    area = 0.0
            else:
                regular.append(i)
                area *= w
        if approx:
            area = n_total
        s = cp * cp
        for k, i in enumerate(regular):
            m1 = a[i] + b[i]
            s += cp * v[i] * m1 + v[i] * v[i] * (a[i] * a[i] + a[i] * b[i] + b[i] * b[i]) / m2_div
            for j in regular[:k]:
                s += v[i] * v[j] * m1 * (a[j] + b[j]) / cross_div
        return q * area * s / ((df - df_minus) * ((1.0 + h) if with_h else 1.0))
    return leaf_alc


LEAF_ALC = Exercise(
    name="dt-leaf-alc",
    title="ALC of a leaf: integrated reduction in variance",
    family="dynamic_trees",
    tag="[AG13, §4]; [DT-SPEC §7.1]; [DT-SPEC §7.4]",
    anchor=A_ALC,
    function_name="leaf_alc",
    skeleton=ALC_SKELETON,
    reference=_alc_reference,
    cases=_alc_cases,
    tolerance=Tolerance("rel", 1e-12, why=(
        "the closed-form integral is a sum of signed terms; grouping them differently (for "
        "example 2 c M1 instead of c (a + b)) changes the last digits, more where they "
        "cancel")),
    plugs=(Plug("reference.dynatree.discard_stats.alc_integral", _alc_plug),),
    stream=Stream("DynamicTreeRegressor",
                  {"leaf": "linear", "intercept": "augmented", "n_particles": 10, "seed": 2,
                   "active_size": 20, "retirement": "alc"},
                  _regression_data(1, d=2)),
    mistakes=(
        Mistake("df-minus-one",
                "The predictive variance of a Student-t with df degrees of freedom has "
                "df - 2 in its denominator, not df - 1.",
                A_ALC, _alc_variant(df_minus=1.0), mutant="dt-alc-df"),
        Mistake("second-moment-over-four",
                "The mean of u^2 over [a, b] is (a^2 + a b + b^2)/3, not /4.",
                A_ALC, _alc_variant(m2_div=4.0), mutant="dt-alc-second-moment"),
        Mistake("cross-moment-over-four",
                "Each cross term 2 v_i v_j M1_i M1_j, with M1 = (a + b)/2, is "
                "v_i v_j (a_i + b_i)(a_j + b_j)/2, not /4.",
                A_ALC, _alc_variant(cross_div=4.0), mutant="dt-alc-cross-moment"),
        Mistake("missing-one-plus-h",
                "The reduction is divided by 1 + h(x), the new point's own leverage "
                "(Sherman-Morrison).",
                A_ALC, _alc_variant(with_h=False)),
        Mistake("rectangle-not-centred",
                "The rectangle must be shifted by -xbar (u = zeta - xbar) before "
                "integrating.",
                A_ALC, _alc_variant(centre=False)),
        Mistake("degenerate-side-integrated",
                "A degenerate side of a linear leaf (such as the ones column) is a point "
                "mass: it adds v_i b_i to c, it is not integrated over a zero width.",
                A_ALC, _alc_variant(point_mass=False)),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=40,
)



EXERCISE = LEAF_ALC

"""Exercise ``dt-forgetting-linear``: Forgetting: the power prior of a linear leaf.

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from reference.dynatree import leaf_models
from reference.dynatree.leaf_models import LeafConfig, LeafStats
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
    A_FORGET,
    _regression_data,
)

FORGET_LINEAR_SKELETON = folder_file(__file__, "skeleton.py")


def _linear_cfg(p: int) -> LeafConfig:
    return LeafConfig(kind=leaf_models.LINEAR, p=p, augmented=False, delta=0, n_classes=0,
                      nu0=0.0, s20=0.0)


def _forget_linear_reference(nu: float, syyg: float, gram: list[list[float]],
                             xty: list[float], z: list[float], y: float, lam: float
                             ) -> tuple[float, float, list[list[float]], list[float]]:
    p = len(z)
    cfg = _linear_cfg(p)
    st = LeafStats(cfg)
    st.nu = float(nu)
    st.syyg = float(syyg)
    st.Gg = [float(v) for row in gram for v in row]
    st.bg = [float(v) for v in xty]
    _REAL["absorb_retired"](st, cfg, [float(v) for v in z], float(y), float(lam))
    return (st.nu, st.syyg, [st.Gg[i * p:(i + 1) * p] for i in range(p)], list(st.bg))


_forget_linear_reference.__name__ = "absorb_retired_linear"


def _linear_retired(points: Sequence[tuple[list[float], float]], p: int,
                    lam: float) -> tuple[float, float, list[list[float]], list[float]]:
    nu = 0.0
    syyg = 0.0
    g = [[0.0] * p for _ in range(p)]
    b = [0.0] * p
    for z, y in points:
        nu = lam * nu + 1.0
        syyg = lam * syyg + y * y
        for j in range(p):
            b[j] = lam * b[j] + z[j] * y
            for k in range(p):
                g[j][k] = lam * g[j][k] + z[j] * z[k]
    return nu, syyg, g, b


def _forget_linear_cases() -> list[Case]:
    rng = random.Random(21_414)

    def point(p: int, augmented: bool) -> tuple[list[float], float]:
        x = [rng.uniform(-2.0, 2.0) for _ in range(p - 1 if augmented else p)]
        return ([1.0, *x] if augmented else x), rng.gauss(0.0, 2.0)

    def case(p: int, augmented: bool, k: int, lam: float, label: str = "random") -> Case:
        z, y = point(p, augmented)
        return Case((*_linear_retired([point(p, augmented) for _ in range(k)], p, lam), z, y,
                     lam), label)

    cases = [
        case(2, True, 0, 0.9, "the first retirement (nu = 0), augmented intercept"),
        case(3, True, 5, 1.0, "lam = 1: no forgetting"),
        case(2, False, 6, 0.5, "no intercept, lam = 0.5"),
        case(1, False, 30, 0.95, "one regressor, a long history"),
        case(3, True, 4, 1e-6, "tiny lam: almost forget all"),
    ]
    for _ in range(40):
        p = rng.randrange(1, 5)
        lam = 1.0 if rng.random() < 0.2 else rng.uniform(0.1, 1.0)
        cases.append(case(p, rng.random() < 0.5 and p > 1, rng.randrange(0, 20), lam))
    return cases


def _forget_linear_plug(student: Callable[..., Any]) -> Callable[..., Any]:
    def absorb_retired(st: LeafStats, cfg: LeafConfig, x: Sequence[float], y: float,
                       lam: float) -> None:
        if cfg.kind != leaf_models.LINEAR:
            _REAL["absorb_retired"](st, cfg, x, y, lam)
            return
        p = cfg.p
        gram = [st.Gg[i * p:(i + 1) * p] for i in range(p)]
        nu, syyg, g, b = student(st.nu, st.syyg, gram, list(st.bg),
                                 leaf_models.regressors(x, cfg), y, lam)
        st.nu, st.syyg = float(nu), float(syyg)
        st.Gg = [float(v) for row in g for v in row]
        st.bg = [float(v) for v in b]
    return absorb_retired


def _forget_linear_variant(*, discount_gram: bool = True, discount_xty: bool = True,
                           mass: bool = True, after: bool = False) -> Callable[..., Any]:
    def absorb_retired_linear(nu: float, syyg: float, gram: list[list[float]], xty: list[float],
                              z: list[float], y: float, lam: float
                              ) -> tuple[float, float, list[list[float]], list[float]]:
        p = len(z)
        if after:
            return (lam * (nu + 1.0), lam * (syyg + y * y),
                    [[lam * (gram[j][k] + z[j] * z[k]) for k in range(p)] for j in range(p)],
                    [lam * (xty[j] + z[j] * y) for j in range(p)])
        fg = lam if discount_gram else 1.0
        fb = lam if discount_xty else 1.0
        return ((lam * nu if mass else nu) + 1.0, lam * syyg + y * y,
                [[fg * gram[j][k] + z[j] * z[k] for k in range(p)] for j in range(p)],
                [fb * xty[j] + z[j] * y for j in range(p)])
    return absorb_retired_linear


FORGETTING_LINEAR = Exercise(
    name="dt-forgetting-linear",
    title="Forgetting: the power prior of a linear leaf",
    family="dynamic_trees",
    tag="[AG13, §3]; [AG13, §5]; [DT-SPEC §3.5]",
    anchor=A_FORGET,
    function_name="absorb_retired_linear",
    skeleton=FORGET_LINEAR_SKELETON,
    reference=_forget_linear_reference,
    cases=_forget_linear_cases,
    plugs=(Plug("reference.dynatree.forgetting.absorb_retired", _forget_linear_plug),),
    stream=Stream("DynamicTreeRegressor",
                  {"leaf": "linear", "intercept": "augmented", "n_particles": 10, "seed": 1,
                   "active_size": 15, "retirement": "historical", "lam": 0.8},
                  _regression_data(1)),
    mistakes=(
        Mistake("gram-not-discounted",
                "The retired Gram matrix must be discounted too: G^g <- lam G^g + z z'.",
                A_FORGET, _forget_linear_variant(discount_gram=False), mutant="dt-forget-gram"),
        Mistake("xty-not-discounted",
                "The retired b^g = sum z y must be discounted: b^g <- lam b^g + z y.",
                A_FORGET, _forget_linear_variant(discount_xty=False)),
        Mistake("mass-not-discounted",
                "The retired mass must be discounted: nu <- lam nu + 1.",
                A_FORGET, _forget_linear_variant(mass=False), mutant="dt-forget-mass"),
        Mistake("discounts-the-retiree",
                "Discount first, then add: the point retired now enters with weight 1, not "
                "lam.",
                A_FORGET, _forget_linear_variant(after=True)),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=15,
)



EXERCISE = FORGETTING_LINEAR

"""Helpers shared by the dynamic_trees exercises.

Moved from the family module when it was split into one folder per exercise."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any

from reference.dynatree import discard_stats, forgetting, leaf_models, moves, particles, tree
from reference.dynatree import retirement as retire_mod
from reference.dynatree.leaf_models import CLASS, CONSTANT, LeafConfig, LeafStats
from reference.exercises.catalog import Case

_REAL: dict[str, Callable[..., Any]] = {
    "log_split_prob": tree.log_split_prob,
    "log_leaf_prob": tree.log_leaf_prob,
    "regression_log_evidence": leaf_models.regression_log_evidence,
    "regression_predictive": leaf_models.regression_predictive,
    "regression_summary": leaf_models.regression_summary,
    "class_log_evidence": leaf_models.class_log_evidence,
    "class_probability": leaf_models.class_probability,
    "leaf_entropy": discard_stats.leaf_entropy,
    "move_weights": moves.move_weights,
    "residual_resample": particles.residual_resample,
    "alc_integral": discard_stats.alc_integral,
    "retire_from_leaf": retire_mod.retire_from_leaf,
    "absorb_retired": forgetting.absorb_retired,
    "receive_retired_share": leaf_models._receive_retired_share,
}
"""The reference functions as they were at import, before any plug."""


T02 = "tutorials/02_dynamic_trees.md"


T05 = "tutorials/05_data_retirement.md"


A_PRIOR = f"{T02}#the-tree-prior"


A_CONST = f"{T02}#the-constant-leaf-derived-step-by-step"


A_TEXTBOOK = f"{T02}#where-our-constant-differs-from-the-textbook-and-why"


A_CLASS = f"{T02}#the-multinomial-leaf"


A_PRED = f"{T02}#the-predictive-a-ratio-of-evidences"


A_MOVES = f"{T02}#the-three-moves"


A_PL = f"{T02}#particle-learning-and-residual-resampling"


A_RETIRE = f"{T05}#1-retirement-as-a-conjugate-prior-update"


A_ALC = f"{T05}#alc-for-regression"


A_FORGET = f"{T05}#4-forgetting-power-priors"


A_SHARE = f"{T05}#2-retired-information-when-trees-grow-and-prune"


LOG_2_OVER_PI = math.log(2.0 / math.pi)


LOG_2PI = math.log(2.0 * math.pi)


def _constant_cfg(nu0: float, s20: float) -> LeafConfig:
    return LeafConfig(kind=CONSTANT, p=0, augmented=False, delta=1, n_classes=0,
                      nu0=float(nu0), s20=float(s20))


def _constant_stats(cfg: LeafConfig, n: int, sy: float, syy: float, nu: float = 0.0,
                    syg: float = 0.0, syyg: float = 0.0) -> LeafStats:
    st = LeafStats(cfg)
    st.n = int(n)
    st.sy = float(sy)
    st.syy = float(syy)
    st.nu = float(nu)
    st.syg = float(syg)
    st.syyg = float(syyg)
    return st


def _sums(ys: Sequence[float]) -> tuple[int, float, float]:
    """``(n, S_y, S_yy)`` accumulated in arrival order, as the leaf does."""
    sy = 0.0
    syy = 0.0
    for v in ys:
        sy = sy + v
        syy = syy + v * v
    return len(ys), sy, syy


def _retired_sums(ys: Sequence[float], lam: float) -> tuple[float, float, float]:
    """``(nu, S^g_y, S^g_yy)`` after retiring ``ys`` in order with forgetting ``lam``."""
    nu = 0.0
    syg = 0.0
    syyg = 0.0
    for v in ys:
        nu = lam * nu + 1.0
        syyg = lam * syyg + v * v
        syg = lam * syg + v
    return nu, syg, syyg


def _regression_data(seed: int, n: int = 45, d: int = 1) -> Callable[[], tuple[Any, Any]]:
    """``n`` rows of a noisy step-and-sine function of ``d`` inputs in [0, 1]."""
    def data() -> tuple[list[list[float]], list[float]]:
        rng = random.Random(seed)
        X: list[list[float]] = []
        y: list[float] = []
        for _ in range(n):
            x = [rng.random() for _ in range(d)]
            f = math.sin(6.0 * x[0]) + (1.0 if x[-1] > 0.5 else 0.0)
            X.append(x)
            y.append(f + 0.2 * rng.gauss(0.0, 1.0))
        return X, y
    return data


def _class_data(seed: int, n: int = 45) -> Callable[[], tuple[Any, Any]]:
    """``n`` rows of 2 inputs with labels 0, 1, 2 by quadrant and 10% label noise."""
    def data() -> tuple[list[list[float]], list[int]]:
        rng = random.Random(seed)
        X: list[list[float]] = []
        y: list[int] = []
        for _ in range(n):
            x = [rng.random(), rng.random()]
            label = (1 if x[0] > 0.5 else 0) + (1 if x[1] > 0.4 else 0)
            if rng.random() < 0.1:
                label = rng.randrange(3)
            X.append(x)
            y.append(label)
        return X, y
    return data


def _function_of(names: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: give a mistake function the exercise's function name (for reports)."""
    def rename(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn.__name__ = names
        fn.__qualname__ = names
        return fn
    return rename


def _constant_leaf_cases(seed: int) -> list[Case]:
    """``(n, sy, syy, nu0, s20)`` of constant leaves: edge cases, then random leaves."""
    rng = random.Random(seed)
    cases = [
        Case((0, 0.0, 0.0, 0.0, 0.0), "empty leaf (n = 0), improper prior"),
        Case((0, 0.0, 0.0, 3.0, 0.5), "empty leaf (n = 0), proper prior nu0 = 3"),
        Case((*_sums([1.7]), 0.0, 0.0), "the first point (n = 1), improper prior"),
        Case((*_sums([1.7]), 2.0, 0.25), "the first point (n = 1), proper prior"),
        Case((*_sums([1.7, -0.4]), 0.0, 0.0), "two points (df = 1)"),
        Case((*_sums([1.3, 0.2, 2.9, 1.1, 1.7, 0.4]), 0.0, 0.0),
             "the tutorial's six points"),
        Case((*_sums([0.5] * 5), 0.0, 0.0), "ties: five equal responses, improper prior"),
        Case((*_sums([0.5] * 5), 4.0, 0.1), "ties: five equal responses, proper prior"),
        Case((*_sums([rng.gauss(0.0, 1e100) for _ in range(8)]), 0.0, 0.0),
             "huge responses (1e100)"),
        Case((*_sums([rng.gauss(0.0, 1e-100) for _ in range(8)]), 0.0, 0.0),
             "tiny responses (1e-100)"),
        Case((*_sums([rng.gauss(3.0, 2.0) for _ in range(500)]), 0.0, 0.0),
             "a large leaf (n = 500)"),
        Case((*_sums([rng.gauss(3.0, 2.0) for _ in range(12)]), 1e-6, 1e-3),
             "a very weak proper prior"),
    ]
    for _ in range(70):
        scale = 10.0 ** rng.uniform(-3.0, 3.0)
        loc = rng.uniform(-5.0, 5.0) * scale
        ys = [loc + scale * rng.gauss(0.0, 1.0) for _ in range(rng.randrange(2, 41))]
        if rng.random() < 0.4:
            nu0, s20 = 0.0, 0.0
        else:
            nu0, s20 = rng.uniform(0.5, 10.0), rng.uniform(0.01, 5.0) * scale * scale
        cases.append(Case((*_sums(ys), nu0, s20)))
    return cases


def _class_cfg(n_classes: int) -> LeafConfig:
    return LeafConfig(kind=CLASS, p=0, augmented=False, delta=1, n_classes=n_classes,
                      nu0=0.0, s20=0.0)


def _class_stats(counts: Sequence[int], retired: Sequence[float],
                 nu: float) -> tuple[LeafStats, LeafConfig]:
    cfg = _class_cfg(len(counts))
    st = LeafStats(cfg)
    st.counts = [int(c) for c in counts]
    st.gcounts = [float(a) for a in retired]
    st.n = sum(st.counts)
    st.nu = float(nu)
    return st, cfg


def _retired_counts(labels: Sequence[int], n_classes: int,
                    lam: float) -> tuple[list[float], float]:
    """Retired pseudo-counts and mass after retiring ``labels`` in order with ``lam``."""
    a = [0.0] * n_classes
    nu = 0.0
    for label in labels:
        nu = lam * nu + 1.0
        a = [lam * v for v in a]
        a[label] = a[label] + 1.0
    return a, nu


def _class_leaves(seed: int) -> list[tuple[list[int], list[float], float, str]]:
    """Class leaves ``(counts, retired, nu, label)``: edge cases, then random ones."""
    rng = random.Random(seed)
    leaves: list[tuple[list[int], list[float], float, str]] = [
        ([0, 0], [0.0, 0.0], 0.0, "empty leaf (n = 0), nothing retired"),
        ([1, 0, 0], [0.0, 0.0, 0.0], 0.0, "the first point (n = 1)"),
        ([0, 0, 0], *_retired_counts([0, 2, 2], 3, 1.0), "everything retired (n = 0)"),
        ([4, 4], *_retired_counts([0, 1], 2, 1.0), "ties: equal counts"),
        ([9, 0, 0], [0.0, 0.0, 0.0], 0.0, "a pure leaf"),
        ([2, 5, 1], *_retired_counts([rng.randrange(3) for _ in range(40)], 3, 0.9),
         "many retirements with forgetting (lam = 0.9)"),
        ([3, 1], *_retired_counts([0, 1, 1], 2, 1e-6), "tiny lam: almost all forgotten"),
        ([100_000, 7], [0.0, 0.0], 0.0, "large counts"),
    ]
    for _ in range(40):
        c = rng.randrange(2, 6)
        lam = 1.0 if rng.random() < 0.4 else rng.uniform(0.3, 1.0)
        labels = [rng.randrange(c) for _ in range(rng.randrange(0, 20))]
        leaves.append(([rng.randrange(0, 15) for _ in range(c)],
                       *_retired_counts(labels, c, lam), "random"))
    return leaves


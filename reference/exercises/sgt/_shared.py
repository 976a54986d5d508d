"""Helpers shared by the sgt exercises.

Moved from the family module when it was split into one folder per exercise."""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Callable, Sequence
from typing import Any

from reference.exercises.catalog import Stream
from reference.sgt import grad_hess as _grad_hess
from reference.sgt import losses as _losses
from reference.sgt import quantizer as _quantizer
from reference.sgt import splits as _splits

TUTORIAL = "tutorials/03_stochastic_gradient_trees.md"


SECOND_ORDER = f"{TUTORIAL}#a-second-order-view-of-one-update"


LEAF_STATISTICS = f"{TUTORIAL}#statistics-of-a-leaf"


OPTIMAL_VALUE = f"{TUTORIAL}#the-optimal-value-changes"


LOSS_CHANGE = f"{TUTORIAL}#how-much-does-the-loss-change-and-how-sure-are-we"


# "Why a $t$-test and not ...": MyST drops the inline math from the slug
T_TEST_ANCHOR = f"{TUTORIAL}#why-a--test-and-not-hoeffdings-bound"


SOFTMAX = f"{TUTORIAL}#several-classes-a-softmax-committee"


EPSILON = sys.float_info.min
"""The smallest normal double, added to the Newton step's denominator ([SGT-SPEC §7.1])."""


Fn = Callable[..., Any]


_LOGISTIC_GH = _losses.BinaryCrossEntropy.gradient_hessian


_PSEUDO_HUBER_GH = _losses.PseudoHuber.gradient_hessian


_MERGE = _grad_hess.merge


_SOFTMAX_GRADIENTS = _losses.softmax_gradients


_ADD = _grad_hess.GradHessStats.add


_DELTA_PREDICTION = _grad_hess.delta_prediction


_LOSS_CHANGE_MOMENTS = _grad_hess.loss_change_moments


_POOL_CHILDREN = _splits.pool_children


_T_TEST_P_VALUE = _splits.t_test_p_value


_BIN_INDEX = _quantizer.bin_index


# Small and quick: a 50-row warm-up, a split attempt every 25 rows and a lenient test
# (δ = 1e-3) so that the trees change many times in 200 rows. The features lie on a grid
# of step 0.1, so rows after the warm-up fall exactly on the frozen maximum (the top edge
# of the last bin) and a wrong bin rule shows.
SGT_PARAMS: dict[str, Any] = {"warmup": 50, "grace_period": 25, "delta": 1e-3, "bins": 8}


def _grid_rows(seed: int, n: int = 200) -> list[list[float]]:
    rng = random.Random(seed)
    return [[rng.randint(0, 10) / 10.0, rng.randint(0, 10) / 10.0] for _ in range(n)]


def _regression_data() -> tuple[list[list[float]], list[float]]:
    """200 rows: a step in x0 plus a slope in x1 plus noise."""
    rows = _grid_rows(11)
    noise = random.Random(12)
    targets = [(2.0 if x[0] > 0.5 else 0.0) + x[1] + 0.1 * noise.gauss(0.0, 1.0) for x in rows]
    return rows, targets


def _binary_data() -> tuple[list[list[float]], list[int]]:
    """200 rows: class 1 above the diagonal, 10 % of the labels flipped."""
    rows = _grid_rows(21)
    flip = random.Random(22)
    labels = [int((x[0] + x[1] > 1.0) != (flip.random() < 0.1)) for x in rows]
    return rows, labels


def _three_class_data() -> tuple[list[list[float]], list[int]]:
    """200 rows: three bands of x0 + x1, 10 % of the labels redrawn."""
    rows = _grid_rows(31)
    noise = random.Random(32)
    labels = []
    for x in rows:
        s = x[0] + x[1]
        k = 0 if s < 0.7 else (1 if s < 1.3 else 2)
        labels.append(noise.randrange(3) if noise.random() < 0.1 else k)
    return rows, labels


REGRESSION_STREAM = Stream("SGTRegressor", SGT_PARAMS, _regression_data)


BINARY_STREAM = Stream("SGTClassifier", {**SGT_PARAMS, "classes": [0, 1]}, _binary_data)


SOFTMAX_STREAM = Stream("SGTClassifier", {**SGT_PARAMS, "classes": [0, 1, 2]}, _three_class_data)


def _sigmoid(raw: float) -> float:
    """The overflow-free logistic function of [SGT-SPEC §3.2] (for the mistakes)."""
    if raw >= 0.0:
        return 1.0 / (1.0 + math.exp(-raw))
    e = math.exp(raw)
    return e / (1.0 + e)


def _loss_method(student: Fn) -> Fn:
    """``Loss.gradient_hessian(self, y, raw)`` computed by ``student(y, raw)``.

    The plug replaces the method of the reference loss class; the ``fast`` classes override
    it (their derivatives are C functions), so the ``fast`` model never sees the student.
    """
    def gradient_hessian(self: Any, y: float, raw: float) -> tuple[float, float]:
        g, h = student(float(y), float(raw))
        return float(g), float(h)
    return gradient_hessian


def _means(n: int, sum_g: float, sum_h: float) -> tuple[float, float]:
    if n <= 0:
        return 0.0, 0.0
    return sum_g / float(n), sum_h / float(n)


def _cell_from_pairs(pairs: Sequence[tuple[float, float]]) -> list[int | float]:
    """``[n, Σg, Σh, M_g, M_h, C]`` of a cell fed ``pairs`` (Welford, as the model does)."""
    cell = _grad_hess.GradHessStats()
    for g, h in pairs:
        _ADD(cell, g, h)
    return cell.as_list()


def _random_pairs(rng: random.Random, n: int, loss: str) -> list[tuple[float, float]]:
    """(g, h) pairs of a squared-error or logistic leaf with a random current value."""
    pairs = []
    shift = rng.gauss(0.0, 1.0)
    for _ in range(n):
        if loss == "squared":
            pairs.append((rng.gauss(shift, 1.5), 1.0))
        else:
            p = _sigmoid(rng.gauss(shift, 1.0))
            y = 1.0 if rng.random() < 0.6 else 0.0
            pairs.append((p - y, p * (1.0 - p)))
    return pairs


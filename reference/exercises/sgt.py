"""Exercises on stochastic gradient trees [GPF19]: losses, Newton step, split test, bins.

Each exercise asks for one formula of :mod:`reference.sgt` with plain values in its
signature; the :class:`~reference.exercises.catalog.Plug` adapters put the student's
function inside the reference model (a method of a loss, a function of ``grad_hess``,
``splits`` or ``quantizer``) so a short seeded stream can run it beside the ``fast`` model,
which never calls Python for these formulas.

The exercises, in course order: the gradient and Hessian of the squared error, of the
binary cross-entropy, of the softmax committee [GPF19, Eq. 19-29] and of the pseudo-Huber
loss ([SGT-SPEC §3.5]); Welford's update of a leaf's statistics and Chan's merge of two
cells ([SGT-SPEC §4.2], [SGT-SPEC §4.3]); the Newton leaf value [GPF19, Eq. 13]; the mean
and variance of the per-instance loss change [GPF19, Eq. 17-18]; the split gain, pooled over a
candidate's children ([SGT-SPEC §7.3]); the split test's p-value [GPF19, Eq. 16]; the
equal-width bin index ([SGT-SPEC §5.6]).

Tolerances: exact where the specification fixes the operations (every loss, the cell
updates, the Newton step, the bin); relative 1e-12 for the loss-change moments, the pooled
split gain and the p-value, where a student may reasonably group the terms differently.
"""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Callable, Sequence
from typing import Any

from reference.exercises.catalog import EXACT, Case, Exercise, Mistake, Plug, Stream, Tolerance
from reference.sgt import grad_hess as _grad_hess
from reference.sgt import losses as _losses
from reference.sgt import quantizer as _quantizer
from reference.sgt import splits as _splits
from reference.special import betainc as _betainc

__all__ = ["EXERCISES", "BetaInc", "BETAINC"]

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

# The reference functions, captured at import: the checker replaces the originals inside the
# ``reference.sgt`` modules while a student's function runs in the model, never here, so
# the reference answers below stay the reference even then (and never call the student).
_SQUARED_GH = _losses.SquaredError.gradient_hessian
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


# -- streams ---------------------------------------------------------------------------
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


# == 1. squared error ====================================================================
SQUARED_SKELETON = r'''import math


def squared_error_gradient_hessian(y: float, raw: float) -> tuple[float, float]:
    r"""Gradient and Hessian of the squared error at the raw score [GPF19, Eq. 23-25].

    The loss of one instance is half the squared residual,

    .. math::

        l(y, f) = \tfrac12 (f - y)^2, \qquad
        g = \frac{\partial l}{\partial f}, \qquad h = \frac{\partial^2 l}{\partial f^2},

    and the tree only ever sees the pair :math:`(g, h)` ([SGT-SPEC §3.1]).
    Tutorial: "A second-order view of one update" (tutorials/03_stochastic_gradient_trees.md).

    Parameters
    ----------
    y : float
        The target.
    raw : float
        The raw score :math:`f(x)` of the tree (for regression, the prediction).

    Returns
    -------
    tuple of float
        ``(g, h)``.
    """
    raise NotImplementedError
'''


def squared_error_gradient_hessian(y: float, raw: float) -> tuple[float, float]:
    """The reference: :meth:`reference.sgt.losses.SquaredError.gradient_hessian`."""
    return _SQUARED_GH(_losses.SquaredError(), y, raw)


def _squared_cases() -> list[Case]:
    rng = random.Random(101)
    cases = [
        Case((1.0, 1.0), "zero residual"),
        Case((3.0, 1.0), "the docstring example"),
        Case((0.0, -0.0), "signed zeros"),
        Case((1e300, -1e300), "huge values"),
        Case((1e-300, 3e-300), "tiny values"),
        Case((-2.5, 0.0), "raw score 0 (the warm-up step)"),
    ]
    for i in range(60):
        scale = 10.0 ** rng.randint(-3, 3)
        cases.append(Case((rng.gauss(0.0, scale), rng.gauss(0.0, scale)), f"random {i}"))
    return cases


def _squared_plugs() -> tuple[Plug, ...]:
    return (Plug("reference.sgt.losses.SquaredError.gradient_hessian", _loss_method),)


SQUARED_ERROR = Exercise(
    name="sgt-squared-error-gradient",
    title="Gradient and Hessian of the squared error",
    family="sgt",
    tag="[GPF19, Eq. 23-25]; [SGT-SPEC §3.1]",
    anchor=SECOND_ORDER,
    function_name="squared_error_gradient_hessian",
    skeleton=SQUARED_SKELETON,
    reference=squared_error_gradient_hessian,
    cases=_squared_cases,
    tolerance=EXACT,
    plugs=_squared_plugs(),
    stream=REGRESSION_STREAM,
    mistakes=(
        Mistake(
            "squared-hessian-two",
            "Your Hessian is 2: that is the curvature of (f - y)², but the loss is "
            "(f - y)²/2, whose second derivative is 1.",
            SECOND_ORDER,
            lambda y, raw: (raw - y, 2.0),
            mutant="sgt-squared-hessian",
        ),
        Mistake(
            "squared-missing-half",
            "You differentiated (f - y)² instead of (f - y)²/2: both g and h carry a "
            "spurious factor 2.",
            SECOND_ORDER,
            lambda y, raw: (2.0 * (raw - y), 2.0),
        ),
        Mistake(
            "squared-gradient-sign",
            "Your gradient has the wrong sign: ∂l/∂f = f - y (prediction minus target), "
            "not y - f.",
            SECOND_ORDER,
            lambda y, raw: (y - raw, 1.0),
        ),
    ),
    hints=(
        "Differentiate l(y, f) = (f - y)²/2 with respect to f, not with respect to y.",
        "The chain rule gives ∂l/∂f = (f - y) · ∂(f - y)/∂f; mind the ½ in front of the square.",
        "g is the residual with the prediction first; h is the derivative of g with respect to f, "
        "a constant.",
    ),
    minutes=5,
)


# == 2. binary cross-entropy =============================================================
LOGISTIC_SKELETON = r'''import math


def logistic_gradient_hessian(y: float, raw: float) -> tuple[float, float]:
    r"""Gradient and Hessian of the binary cross-entropy at the raw score [GPF19, Eq. 26-29].

    With the sigmoid :math:`\hat y = \sigma(f) = 1/(1 + e^{-f})` applied once to the raw
    score and :math:`y \in \{0, 1\}`,

    .. math::

        l = -y \log \hat y - (1 - y) \log (1 - \hat y), \qquad
        g = \frac{\partial l}{\partial f}, \qquad h = \frac{\partial^2 l}{\partial f^2}
        \quad ([SGT-SPEC §3.2]).

    Evaluate :math:`\sigma` without overflow, exactly as the specification does:
    ``1 / (1 + exp(-f))`` when ``f >= 0`` and ``e / (1 + e)`` with ``e = exp(f)``
    otherwise. Then ``g`` and ``h`` are one subtraction and one product of
    :math:`\hat y`.
    Tutorial: "A second-order view of one update" (tutorials/03_stochastic_gradient_trees.md).

    Parameters
    ----------
    y : float
        The target, 0.0 or 1.0.
    raw : float
        The raw score :math:`f(x)` (the log-odds of class 1).

    Returns
    -------
    tuple of float
        ``(g, h)``.
    """
    raise NotImplementedError
'''


def logistic_gradient_hessian(y: float, raw: float) -> tuple[float, float]:
    """The reference: :meth:`reference.sgt.losses.BinaryCrossEntropy.gradient_hessian`."""
    return _LOGISTIC_GH(_losses.BinaryCrossEntropy(), y, raw)


def _logistic_cases() -> list[Case]:
    rng = random.Random(202)
    cases = [
        Case((1.0, 0.0), "raw score 0 (the docstring example)"),
        Case((0.0, 0.0), "raw score 0, class 0"),
        Case((1.0, -3.0), "negative score"),
        Case((1.0, 40.0), "saturated sigmoid (h underflows towards 0)"),
        Case((0.0, -40.0), "saturated sigmoid, negative side"),
        Case((1.0, -745.0), "exp(f) is subnormal"),
        Case((0.0, -1000.0), "very negative score: exp(-f) would overflow"),
        Case((1.0, 1000.0), "very positive score"),
        Case((0.0, 1e-300), "tiny positive score"),
        Case((1.0, -1e-300), "tiny negative score"),
    ]
    for i in range(60):
        cases.append(Case((float(rng.randint(0, 1)), rng.gauss(0.0, 4.0)), f"random {i}"))
    return cases


def _logistic_plugs() -> tuple[Plug, ...]:
    return (Plug("reference.sgt.losses.BinaryCrossEntropy.gradient_hessian", _loss_method),)


def _logistic_sign(y: float, raw: float) -> tuple[float, float]:
    p = _sigmoid(raw)
    return y - p, p * (1.0 - p)


def _logistic_hessian_p(y: float, raw: float) -> tuple[float, float]:
    p = _sigmoid(raw)
    return p - y, p


def _logistic_negative_branch(y: float, raw: float) -> tuple[float, float]:
    if raw >= 0.0:
        p = 1.0 / (1.0 + math.exp(-raw))
    else:
        p = 1.0 / (1.0 + math.exp(raw))
    return p - y, p * (1.0 - p)


def _logistic_naive(y: float, raw: float) -> tuple[float, float]:
    p = 1.0 / (1.0 + math.exp(-raw))     # overflows for raw < -709.78
    return p - y, p * (1.0 - p)


def _logistic_twice(y: float, raw: float) -> tuple[float, float]:
    p = _sigmoid(_sigmoid(raw))
    return p - y, p * (1.0 - p)


LOGISTIC = Exercise(
    name="sgt-logistic-gradient",
    title="Gradient and Hessian of the logistic loss",
    family="sgt",
    tag="[GPF19, Eq. 26-29]; [SGT-SPEC §3.2]",
    anchor=SECOND_ORDER,
    function_name="logistic_gradient_hessian",
    skeleton=LOGISTIC_SKELETON,
    reference=logistic_gradient_hessian,
    cases=_logistic_cases,
    tolerance=EXACT,
    plugs=_logistic_plugs(),
    stream=BINARY_STREAM,
    mistakes=(
        Mistake(
            "logistic-gradient-sign",
            "Your gradient has the wrong sign: ∂l/∂f = σ(f) - y, the predicted probability "
            "minus the label.",
            SECOND_ORDER,
            _logistic_sign,
            mutant="sgt-bce-gradient-sign",
        ),
        Mistake(
            "logistic-hessian-p",
            "Your Hessian is σ(f): the derivative of σ is σ(1 - σ), so h = σ(f)(1 - σ(f)).",
            SECOND_ORDER,
            _logistic_hessian_p,
            mutant="sgt-bce-hessian",
        ),
        Mistake(
            "logistic-negative-branch",
            "For f < 0 your sigmoid is 1/(1 + e^f), which is σ(-f); the overflow-free form is "
            "e^f/(1 + e^f).",
            SECOND_ORDER,
            _logistic_negative_branch,
            mutant="sgt-sigmoid-negative-branch",
        ),
        Mistake(
            "logistic-sigmoid-twice",
            "You apply the sigmoid twice (σ(σ(f)), the River quirk R1): σ is applied once, "
            "to the raw score.",
            SECOND_ORDER,
            _logistic_twice,
        ),
        Mistake(
            "logistic-naive-sigmoid",
            "Your sigmoid is 1/(1 + e^-f) for every f: for f < 0 it rounds differently from "
            "e^f/(1 + e^f) and e^-f overflows below f = -709.78; use the two branches.",
            SECOND_ORDER,
            _logistic_naive,
        ),
    ),
    hints=(
        "Write l as a function of ŷ = σ(f) and use the chain rule; σ'(f) has a famous "
        "closed form in terms of σ(f) itself.",
        "With σ' = σ(1 - σ), the derivative of -y log σ - (1 - y) log(1 - σ) simplifies a lot: "
        "almost everything cancels.",
        "Compute p = σ(f) once, with the branch on the sign of f given in the docstring; "
        "then g is p minus the label and h is the derivative of p.",
    ),
    minutes=15,
)


# == 3. softmax committee ================================================================
SOFTMAX_SKELETON = r'''import math


def softmax_gradients(raws: list[float], label: int) -> tuple[list[float], list[float]]:
    r"""Per-tree gradient and Hessian of the softmax committee [GPF19, Eq. 19-22].

    ``k`` classes are learned by ``k - 1`` trees with scores :math:`f_1 .. f_{k-1}`;
    the last class has the score :math:`f_k = 0`, hard-wired ([SGT-SPEC §3.3]). With

    .. math::

        p_c = \frac{\exp f_c}{\sum_{c'=1}^{k} \exp f_{c'}}, \qquad l = -\log p_y,

    tree :math:`c < k` learns :math:`g_c = \partial l / \partial f_c` and the diagonal
    term :math:`h_c = \partial^2 l / \partial f_c^2` (the mixed derivatives are dropped).

    Compute the probabilities as the specification does: subtract the largest of the
    ``k`` scores before exponentiating, sum the ``k`` exponentials in class order with a
    plain loop (``total += e``; from Python 3.12 on, ``sum()`` compensates the rounding
    and may differ in the last bit), then divide each exponential by the sum.
    Tutorial: "Several classes: a softmax committee" (tutorials/03_stochastic_gradient_trees.md).

    Parameters
    ----------
    raws : list of float
        The raw scores of the ``k - 1`` trees.
    label : int
        The class index ``y`` in ``0 .. k - 1`` (``k - 1`` is the class without a tree).

    Returns
    -------
    tuple of two lists of float
        ``(g, h)``, each with one entry per tree (``k - 1`` entries).
    """
    raise NotImplementedError
'''


def softmax_gradients(raws: list[float], label: int) -> tuple[list[float], list[float]]:
    """The reference: :func:`reference.sgt.losses.softmax_gradients`."""
    return _SOFTMAX_GRADIENTS(list(raws), int(label))


def _softmax_cases() -> list[Case]:
    rng = random.Random(303)
    cases = [
        Case(([0.0], 0), "two classes, scores 0"),
        Case(([0.0, 0.0], 2), "all scores 0, the class without a tree"),
        Case(([2.0, -1.0], 0), "a positive largest score"),
        Case(([1.5, 1.5, -0.5], 1), "tied largest scores"),
        Case(([800.0, -800.0], 0), "huge scores (exp would overflow without the max)"),
        Case(([-800.0, -800.0], 2), "very negative scores"),
        Case(([1e-300, -1e-300, 0.0], 1), "tiny scores"),
    ]
    for i in range(60):
        trees = rng.randint(1, 5)
        raws = [rng.gauss(0.0, 2.0) for _ in range(trees)]
        cases.append(Case((raws, rng.randint(0, trees)), f"random {i}"))
    return cases


def _softmax_plugs() -> tuple[Plug, ...]:
    def adapt(student: Fn) -> Fn:
        def plugged(raws: Sequence[float], label: int) -> tuple[list[float], list[float]]:
            g, h = student([float(r) for r in raws], int(label))
            return [float(v) for v in g], [float(v) for v in h]
        return plugged
    return (Plug("reference.sgt.losses.softmax_gradients", adapt),)


def _probabilities(scores: list[float]) -> list[float]:
    top = max(scores)
    exps = [math.exp(s - top) for s in scores]
    total = 0.0
    for e in exps:
        total += e
    return [e / total for e in exps]


def _softmax_mistake(hess_p: bool = False, half: bool = False, fixed: float = 0.0,
                     no_reference_class: bool = False) -> Fn:
    def wrong(raws: list[float], label: int) -> tuple[list[float], list[float]]:
        scores = list(raws) if no_reference_class else list(raws) + [fixed]
        probs = _probabilities(scores)
        one = 0.5 if half else 1.0
        g = [probs[c] - (one if c == label else 0.0) for c in range(len(raws))]
        h = [probs[c] if hess_p else probs[c] * (1.0 - probs[c]) for c in range(len(raws))]
        return g, h
    return wrong


def _softmax_no_shift(raws: list[float], label: int) -> tuple[list[float], list[float]]:
    exps = [math.exp(s) for s in [*raws, 0.0]]
    total = 0.0
    for e in exps:
        total += e
    probs = [e / total for e in exps]
    return ([probs[c] - (1.0 if c == label else 0.0) for c in range(len(raws))],
            [probs[c] * (1.0 - probs[c]) for c in range(len(raws))])


SOFTMAX_EXERCISE = Exercise(
    name="sgt-softmax-gradients",
    title="Gradients and Hessians of the softmax committee",
    family="sgt",
    tag="[GPF19, Eq. 19-22]; [SGT-SPEC §3.3]",
    anchor=SOFTMAX,
    function_name="softmax_gradients",
    skeleton=SOFTMAX_SKELETON,
    reference=softmax_gradients,
    cases=_softmax_cases,
    tolerance=EXACT,
    plugs=_softmax_plugs(),
    stream=SOFTMAX_STREAM,
    mistakes=(
        Mistake(
            "softmax-hessian-p",
            "Your Hessian is p_c: differentiating p_c - [y = c] once more gives p_c(1 - p_c).",
            SOFTMAX,
            _softmax_mistake(hess_p=True),
            mutant="sgt-softmax-hessian",
        ),
        Mistake(
            "softmax-half-indicator",
            "Your gradient subtracts [y = c]/2: the derivative of -log p_y with respect to "
            "f_c is p_c - [y = c], with a full indicator.",
            SOFTMAX,
            _softmax_mistake(half=True),
            mutant="sgt-softmax-gradient",
        ),
        Mistake(
            "softmax-fixed-score-one",
            "The class without a tree has score f_k = 0 (so exp f_k = 1), not f_k = 1.",
            SOFTMAX,
            _softmax_mistake(fixed=1.0),
            mutant="sgt-softmax-fixed-score",
        ),
        Mistake(
            "softmax-no-max-shift",
            "Without subtracting the largest score first, exp overflows for large scores and "
            "the probabilities round differently; the specification shifts by the maximum.",
            SOFTMAX,
            _softmax_no_shift,
        ),
        Mistake(
            "softmax-no-reference-class",
            "You normalise over the k - 1 trees only: the sum in the denominator also holds "
            "the last class, exp(0) = 1.",
            SOFTMAX,
            _softmax_mistake(no_reference_class=True),
        ),
    ),
    hints=(
        "Write log p_y = f_y - log Σ_c' exp f_c' and differentiate with respect to one f_c.",
        "∂/∂f_c of log Σ exp f_c' is p_c; ∂p_c/∂f_c = p_c(1 - p_c). Remember that the "
        "normaliser runs over all k classes, including the one whose score is fixed.",
        "Append the fixed score to the k - 1 raw scores, subtract the maximum, exponentiate, "
        "sum in class order, divide; then loop over the trees only for g and h.",
    ),
    minutes=20,
)


# == 4. Newton step ======================================================================
NEWTON_SKELETON = r'''import sys

EPSILON = sys.float_info.min   # the smallest normal double, 2.2e-308


def newton_step(n: int, sum_g: float, sum_h: float, lam: float) -> float:
    r"""The Newton step of a leaf value, in the per-instance form [GPF19, Eq. 13].

    The paper minimises :math:`G v + \tfrac12 (H + \lambda) v^2` over the value change
    :math:`v`. Every implementation (and this library, [SGT-SPEC §7.1]) uses the means
    :math:`\bar g = \Sigma g / n`, :math:`\bar h = \Sigma h / n` instead of the sums, so
    that :math:`\lambda` is a per-instance shrinkage, and guards the denominator:

    .. math::

        \Delta = -\frac{\bar g}{\bar h + \lambda + \varepsilon}, \qquad
        \varepsilon = \text{the smallest normal double}.

    An empty cell (``n == 0``) has :math:`\bar g = \bar h = 0`, and the formula then gives
    ``-0.0``: keep it (the checker tells signed zeros apart). Add the three terms of the
    denominator left to right.
    Tutorial: "The optimal value changes" (tutorials/03_stochastic_gradient_trees.md).

    Parameters
    ----------
    n : int
        Number of (g, h) pairs in the leaf (or child) since its last reset.
    sum_g, sum_h : float
        Their sums :math:`\Sigma g` and :math:`\Sigma h`.
    lam : float
        :math:`\lambda \ge 0`.

    Returns
    -------
    float
        :math:`\Delta`, the change of the leaf value.
    """
    raise NotImplementedError
'''


def newton_step(n: int, sum_g: float, sum_h: float, lam: float) -> float:
    """The reference: :func:`reference.sgt.grad_hess.delta_prediction` of the cell."""
    cell = _grad_hess.GradHessStats()
    cell.n, cell.sum_g, cell.sum_h = int(n), float(sum_g), float(sum_h)
    return _DELTA_PREDICTION(cell, lam)


def _newton_cases() -> list[Case]:
    rng = random.Random(404)
    cases = [
        Case((0, 0.0, 0.0, 0.1), "empty child"),
        Case((0, 0.0, 0.0, 0.0), "empty child, λ = 0 (only ε in the denominator)"),
        Case((1, -2.0, 1.0, 0.1), "one instance (the tutorial's example)"),
        Case((10, 3.0, 0.0, 0.0), "zero Hessian and λ = 0: the ε guard"),
        Case((10, 3.0, 0.0, 0.5), "zero Hessian"),
        Case((5, 0.0, 5.0, 0.1), "zero gradient"),
        Case((1000, 1e300, 1e300, 0.1), "huge sums"),
        Case((3, 1e-300, 3e-300, 0.0), "tiny sums"),
    ]
    for i in range(60):
        n = rng.randint(1, 500)
        lam = rng.choice([0.0, 0.1, 1.0, rng.random()])
        cases.append(Case((n, rng.gauss(0.0, 1.0) * n, rng.random() * n, lam), f"random {i}"))
    return cases


def _cell_of(stats: Any) -> tuple[int, float, float]:
    return int(stats.n), float(stats.sum_g), float(stats.sum_h)


def _newton_plugs() -> tuple[Plug, ...]:
    def adapt(student: Fn) -> Fn:
        def delta_prediction(stats: Any, lam: float) -> float:
            n, sum_g, sum_h = _cell_of(stats)
            return float(student(n, sum_g, sum_h, float(lam)))
        return delta_prediction
    return (Plug("reference.sgt.grad_hess.delta_prediction", adapt),)


def _means(n: int, sum_g: float, sum_h: float) -> tuple[float, float]:
    if n <= 0:
        return 0.0, 0.0
    return sum_g / float(n), sum_h / float(n)


def _newton_two_lambda(n: int, sum_g: float, sum_h: float, lam: float) -> float:
    mean_g, mean_h = _means(n, sum_g, sum_h)
    return -mean_g / (mean_h + 2.0 * lam + EPSILON)


def _newton_sums(n: int, sum_g: float, sum_h: float, lam: float) -> float:
    return -sum_g / (sum_h + lam + EPSILON)


def _newton_sign(n: int, sum_g: float, sum_h: float, lam: float) -> float:
    mean_g, mean_h = _means(n, sum_g, sum_h)
    return mean_g / (mean_h + lam + EPSILON)


def _newton_no_lambda(n: int, sum_g: float, sum_h: float, lam: float) -> float:
    mean_g, mean_h = _means(n, sum_g, sum_h)
    return -mean_g / (mean_h + EPSILON)


def _newton_sums_n_lambda(n: int, sum_g: float, sum_h: float, lam: float) -> float:
    return -sum_g / (sum_h + n * lam + EPSILON)


NEWTON = Exercise(
    name="sgt-newton-step",
    title="The Newton step of a leaf value, -ḡ/(h̄ + λ)",
    family="sgt",
    tag="[GPF19, Eq. 13]; [SGT-SPEC §7.1]",
    anchor=OPTIMAL_VALUE,
    function_name="newton_step",
    skeleton=NEWTON_SKELETON,
    reference=newton_step,
    cases=_newton_cases,
    tolerance=EXACT,
    plugs=_newton_plugs(),
    stream=REGRESSION_STREAM,
    mistakes=(
        Mistake(
            "newton-sum-form",
            "You used the paper's sums, -Σg/(Σh + λ): the specification uses the means "
            "-ḡ/(h̄ + λ), so λ shrinks every step by the same factor whatever n is.",
            OPTIMAL_VALUE,
            _newton_sums,
        ),
        Mistake(
            "newton-two-lambda",
            "Your denominator has 2λ: the parabola G v + (H + λ) v²/2 has its minimum at "
            "-G/(H + λ), one λ.",
            OPTIMAL_VALUE,
            _newton_two_lambda,
            mutant="sgt-newton-lambda",
        ),
        Mistake(
            "newton-sign",
            "Your step has the wrong sign: a Newton step moves against the gradient, "
            "Δ = -ḡ/(h̄ + λ).",
            OPTIMAL_VALUE,
            _newton_sign,
        ),
        Mistake(
            "newton-sums-n-lambda",
            "-Σg/(Σh + nλ + ε) is the same step in real arithmetic but rounds differently: "
            "form the means first, then -ḡ/(h̄ + λ + ε).",
            OPTIMAL_VALUE,
            _newton_sums_n_lambda,
        ),
        Mistake(
            "newton-no-lambda",
            "You left out λ: the regulariser λ v²/2 adds λ to the curvature in the "
            "denominator.",
            OPTIMAL_VALUE,
            _newton_no_lambda,
        ),
    ),
    hints=(
        "Minimise the parabola ḡ v + (h̄ + λ) v²/2 in v: set its derivative to zero.",
        "Use the means Σg/n and Σh/n, not the sums, and take care of n = 0 before dividing.",
        "The result is minus the mean gradient over (mean Hessian + λ + EPSILON), "
        "with the denominator summed left to right.",
    ),
    minutes=10,
)


# == 5. moments of the loss change =======================================================
MOMENTS_SKELETON = r'''def loss_change_moments(delta: float, n: int, sum_g: float, sum_h: float,
                        m_g: float, m_h: float, c: float) -> tuple[float, float]:
    r"""Mean and variance of the per-instance loss change of a step [GPF19, Eq. 17-18].

    Changing a leaf (or child) value by :math:`\Delta` changes the loss of instance
    :math:`i` by about :math:`L_i = g_i \Delta + \tfrac12 h_i \Delta^2`. Treat
    :math:`\Delta` as a constant; then ([SGT-SPEC §7.2])

    .. math::

        m = \Delta \bar g + \tfrac12 \bar h \Delta^2, \qquad
        s^2 = \max\big(0,\ \Delta^2 s_g^2 + \tfrac14 \Delta^4 s_h^2 + \Delta^3 c_{gh}\big),

    with the means :math:`\bar g = \Sigma g / n`, :math:`\bar h = \Sigma h / n` (0 when
    :math:`n = 0`) and the sample variances and covariance
    :math:`s_g^2 = M_g/(n-1)`, :math:`s_h^2 = M_h/(n-1)`, :math:`c_{gh} = C/(n-1)`
    (0 when :math:`n < 2`). The λ term of the paper's Eq. 11 is not added. A variance
    that is not positive (rounding, or NaN) is reported as 0.
    Tutorial: "How much does the loss change, and how sure are we?"
    (tutorials/03_stochastic_gradient_trees.md).

    Parameters
    ----------
    delta : float
        The step :math:`\Delta` (the Newton step of the cell).
    n : int
        Number of (g, h) pairs in the cell.
    sum_g, sum_h : float
        :math:`\Sigma g`, :math:`\Sigma h`.
    m_g, m_h : float
        Centred sums of squares :math:`M_g = \Sigma (g - \bar g)^2`, :math:`M_h`.
    c : float
        Co-moment :math:`C = \Sigma (g - \bar g)(h - \bar h)`.

    Returns
    -------
    tuple of float
        ``(m, s2)``.
    """
    raise NotImplementedError
'''


def loss_change_moments(delta: float, n: int, sum_g: float, sum_h: float,
                        m_g: float, m_h: float, c: float) -> tuple[float, float]:
    """The reference: :func:`reference.sgt.grad_hess.loss_change_moments` of the cell."""
    cell = _grad_hess.GradHessStats.from_list([n, sum_g, sum_h, m_g, m_h, c])
    return _LOSS_CHANGE_MOMENTS(cell, delta)


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


def _moments_cases() -> list[Case]:
    rng = random.Random(505)
    cases = [
        Case((0.0, 0, 0.0, 0.0, 0.0, 0.0, 0.0), "empty cell"),
        Case((1.818181818181818, 1, -2.0, 1.0, 0.0, 0.0, 0.0), "one instance (n < 2)"),
        Case((0.5, 4, 2.0, 4.0, 0.0, 0.0, 0.0), "constant pairs (zero variances)"),
        Case((-0.25, 3, -0.75, 1.2, 0.5, 0.02, -0.1), "negative step"),
    ]
    for i in range(60):
        n = rng.randint(2, 200)
        loss = rng.choice(["squared", "logistic"])
        stats = _cell_from_pairs(_random_pairs(rng, n, loss))
        lam = rng.choice([0.0, 0.1, 1.0])
        mean_g = float(stats[1]) / n
        mean_h = float(stats[2]) / n
        delta = -mean_g / (mean_h + lam + EPSILON)
        cases.append(Case((delta, *stats), f"random {loss} cell {i}"))
    return cases


def _moments_plugs() -> tuple[Plug, ...]:
    def adapt(student: Fn) -> Fn:
        def moments(stats: Any, delta: float) -> tuple[float, float]:
            n, sum_g, sum_h, m_g, m_h, c = stats.as_list()
            mean, variance = student(float(delta), int(n), float(sum_g), float(sum_h),
                                     float(m_g), float(m_h), float(c))
            return float(mean), float(variance)
        return moments
    return (Plug("reference.sgt.grad_hess.loss_change_moments", adapt),)


def _moments_mistake(hessian_half: bool = False, covariance_two: bool = False,
                     full_h: bool = False, divide_by_n: bool = False) -> Fn:
    def wrong(delta: float, n: int, sum_g: float, sum_h: float, m_g: float, m_h: float,
              c: float) -> tuple[float, float]:
        mean_g, mean_h = _means(n, sum_g, sum_h)
        denominator = float(n) if divide_by_n else float(n) - 1.0
        var_g = m_g / denominator if n >= 2 else 0.0
        var_h = m_h / denominator if n >= 2 else 0.0
        cov = c / denominator if n >= 2 else 0.0
        mean = delta * mean_g + (1.0 if full_h else 0.5) * mean_h * delta * delta
        d2 = delta * delta
        variance = (d2 * var_g + (0.5 if hessian_half else 0.25) * d2 * d2 * var_h
                    + (2.0 if covariance_two else 1.0) * d2 * delta * cov)
        return mean, variance if variance > 0.0 else 0.0
    return wrong


MOMENTS = Exercise(
    name="sgt-loss-change-moments",
    title="Mean and variance of the per-instance loss change",
    family="sgt",
    tag="[GPF19, Eq. 17-18]; [SGT-SPEC §7.2]",
    anchor=LOSS_CHANGE,
    function_name="loss_change_moments",
    skeleton=MOMENTS_SKELETON,
    reference=loss_change_moments,
    cases=_moments_cases,
    tolerance=Tolerance(
        "rel", 1e-12,
        "you may group Δ², Δ³, Δ⁴ and the factors ½, ¼ in another order; the terms do not "
        "cancel on these cases, so rounding stays far below 1e-12 relative",
    ),
    plugs=_moments_plugs(),
    stream=REGRESSION_STREAM,
    mistakes=(
        Mistake(
            "moments-mean-half",
            "Your mean lacks the ½ of the Taylor term: m = Δḡ + h̄Δ²/2.",
            LOSS_CHANGE,
            _moments_mistake(full_h=True),
            mutant="sgt-loss-change-mean",
        ),
        Mistake(
            "moments-variance-n",
            "You divided the centred sums by n: the sample variances and covariance divide "
            "M_g, M_h and C by n - 1.",
            LOSS_CHANGE,
            _moments_mistake(divide_by_n=True),
        ),
        Mistake(
            "moments-hessian-term",
            "The Hessian term of Var(L) is Δ⁴ s_h²/4: the coefficient of h is Δ²/2, and it "
            "enters the variance squared.",
            LOSS_CHANGE,
            _moments_mistake(hessian_half=True),
            mutant="sgt-loss-change-hessian-term",
        ),
        Mistake(
            "moments-covariance-term",
            "The covariance term of Var(L) is Δ³ c_gh: 2ab Cov with a = Δ and b = Δ²/2 "
            "gives Δ³, the 2 cancels the ½.",
            LOSS_CHANGE,
            _moments_mistake(covariance_two=True),
            mutant="sgt-loss-change-covariance-term",
        ),
    ),
    hints=(
        "L_i is a linear combination a·g_i + b·h_i with constants a and b: its mean and "
        "variance follow from those of g and h.",
        "Var(aX + bY) = a² Var X + b² Var Y + 2ab Cov(X, Y); here a = Δ and b = Δ²/2. "
        "Sample variances divide by n - 1 and are 0 below two pairs.",
        "Compute ḡ, h̄, s_g², s_h², c_gh from the cell with their small-n conventions, then "
        "the two formulas of the docstring, and clip a non-positive variance to 0.",
    ),
    minutes=20,
)


# == 6. split gain: pooling the children =================================================
SPLIT_GAIN_SKELETON = r'''import sys

EPSILON = sys.float_info.min   # the smallest normal double, 2.2e-308


def split_gain(children: list[list[float]], lam: float) -> tuple[float, float]:
    r"""Mean and variance of the loss change of a split, pooled over its children.

    Each child :math:`j` of a candidate split gets its own Newton step
    :math:`\Delta_j = -\bar g_j / (\bar h_j + \lambda + \varepsilon)` [GPF19, Eq. 13] and
    the per-instance loss change of its instances has mean :math:`m_j` and variance
    :math:`s_j^2` [GPF19, Eq. 17-18] (the previous two exercises). Every instance of the
    leaf falls in exactly one child, so the candidate's loss change is the pooled sample
    ([SGT-SPEC §7.3]); with :math:`n = \sum_j n_j`,

    .. math::

        m = \frac{1}{n} \sum_j n_j m_j, \qquad
        s^2 = \frac{1}{n - 1}\Big[\sum_j (n_j - 1)\, s_j^2 + \sum_j n_j (m_j - m)^2\Big],

    summing over the children with :math:`n_j > 0` only; :math:`s^2 = 0` when
    :math:`n < 2`. :math:`m` is the gain (a negative loss change is an improvement); the
    split test of [GPF19, Eq. 16] uses both.
    Tutorial: "How much does the loss change, and how sure are we?"
    (tutorials/03_stochastic_gradient_trees.md).

    Parameters
    ----------
    children : list of lists
        One cell per child, ``[n_j, sum_g, sum_h, m_g, m_h, c]`` (count, sums, centred
        sums of squares and co-moment of its (g, h) pairs); at least one child has
        ``n_j > 0``.
    lam : float
        :math:`\lambda \ge 0`.

    Returns
    -------
    tuple of float
        ``(m, s2)``.
    """
    raise NotImplementedError
'''


def split_gain(children: list[list[float]], lam: float) -> tuple[float, float]:
    """The reference: :func:`reference.sgt.splits.pool_children` of the cells."""
    cells = [_grad_hess.GradHessStats.from_list(list(child)) for child in children]
    _, mean, variance = _POOL_CHILDREN(cells, lam)
    return mean, variance


def _split_gain_cases() -> list[Case]:
    rng = random.Random(606)
    one = _cell_from_pairs([(-1.0, 1.0)])
    two = _cell_from_pairs([(0.5, 1.0)])
    empty = _cell_from_pairs([])
    cases = [
        Case(([one, two], 0.1), "two children of one instance each"),
        Case(([one, empty], 0.1), "all instances in one child"),
        Case(([empty, _cell_from_pairs([(-1.0, 1.0), (-2.0, 1.0)])], 0.0),
             "empty first child, λ = 0"),
        Case(([one], 0.1), "a single instance: variance 0"),
    ]
    for i in range(60):
        loss = rng.choice(["squared", "logistic"])
        children = []
        for _ in range(rng.randint(2, 4)):
            size = 0 if rng.random() < 0.1 else rng.randint(1, 40)
            children.append(_cell_from_pairs(_random_pairs(rng, size, loss)))
        if all(child[0] == 0 for child in children):
            children[0] = _cell_from_pairs(_random_pairs(rng, 5, loss))
        cases.append(Case((children, rng.choice([0.0, 0.1, 1.0])), f"random {loss} split {i}"))
    return cases


def _split_gain_plugs() -> tuple[Plug, ...]:
    def adapt(student: Fn) -> Fn:
        def pool_children(children: Sequence[Any], lam: float
                          ) -> tuple[list[float], float, float]:
            deltas = [_DELTA_PREDICTION(child, lam) for child in children]
            mean, variance = student([child.as_list() for child in children], float(lam))
            return deltas, float(mean), float(variance)
        return pool_children
    return (Plug("reference.sgt.splits.pool_children", adapt),)


def _child_moments(child: Sequence[float], lam: float) -> tuple[int, float, float]:
    """``(n_j, m_j, s_j²)`` of one child cell (the formulas of [SGT-SPEC §7.1] and
    [SGT-SPEC §7.2])."""
    n = int(child[0])
    mean_g, mean_h = _means(n, float(child[1]), float(child[2]))
    delta = -mean_g / (mean_h + lam + EPSILON)
    var_g = float(child[3]) / (n - 1.0) if n >= 2 else 0.0
    var_h = float(child[4]) / (n - 1.0) if n >= 2 else 0.0
    cov = float(child[5]) / (n - 1.0) if n >= 2 else 0.0
    mean = delta * mean_g + 0.5 * mean_h * delta * delta
    d2 = delta * delta
    variance = d2 * var_g + 0.25 * d2 * d2 * var_h + d2 * delta * cov
    return n, mean, variance if variance > 0.0 else 0.0


def _pool_mistake(within_n: bool = False, between_unweighted: bool = False,
                  divide_by_n: bool = False, unweighted_mean: bool = False,
                  java_j1: bool = False) -> Fn:
    def wrong(children: list[list[float]], lam: float) -> tuple[float, float]:
        parts = [_child_moments(child, lam) for child in children]
        parts = [p for p in parts if p[0] > 0]
        n = sum(p[0] for p in parts)
        if unweighted_mean:
            mean = sum(p[1] for p in parts) / len(parts)
        else:
            mean = sum(p[0] * p[1] for p in parts) / n
        if n < 2:
            return mean, 0.0
        if java_j1:
            # the authors' Java: s² = n/(n-1) (S/n - m), S the pooled sum of squares
            squares = sum((p[0] - 1.0) * p[2] + p[0] * p[1] * p[1] for p in parts)
            return mean, n / (n - 1.0) * (squares / n - mean)
        within = sum((p[0] if within_n else p[0] - 1.0) * p[2] for p in parts)
        between = sum((1.0 if between_unweighted else p[0]) * (p[1] - mean) ** 2
                      for p in parts)
        return mean, (within + between) / (n if divide_by_n else n - 1.0)
    return wrong


SPLIT_GAIN = Exercise(
    name="sgt-split-gain",
    title="The split gain: a candidate's pooled loss change",
    family="sgt",
    tag="[GPF19, Eq. 17-18]; [SGT-SPEC §7.3]",
    anchor=LOSS_CHANGE,
    function_name="split_gain",
    skeleton=SPLIT_GAIN_SKELETON,
    reference=split_gain,
    cases=_split_gain_cases,
    tolerance=Tolerance(
        "rel", 1e-12,
        "you may sum over the children in another order, or form m as Σ (n_j/n) m_j; the "
        "pooled variance is a sum of non-negative terms, so rounding stays below 1e-12",
    ),
    plugs=_split_gain_plugs(),
    stream=REGRESSION_STREAM,
    mistakes=(
        Mistake(
            "pool-unweighted-mean",
            "You averaged the children's means without weights: the pooled mean weights "
            "child j by its share n_j/n of the instances.",
            LOSS_CHANGE,
            _pool_mistake(unweighted_mean=True),
        ),
        Mistake(
            "pool-within-n",
            "The within-child part of the pooled variance is Σ (n_j - 1) s_j²: each s_j² "
            "is a sample variance with n_j - 1 degrees of freedom.",
            LOSS_CHANGE,
            _pool_mistake(within_n=True),
            mutant="sgt-pool-within",
        ),
        Mistake(
            "pool-between-unweighted",
            "The between-children part is Σ n_j (m_j - m)²: every instance of child j "
            "sits at distance m_j - m from the pooled mean.",
            LOSS_CHANGE,
            _pool_mistake(between_unweighted=True),
            mutant="sgt-pool-between",
        ),
        Mistake(
            "pool-divide-by-n",
            "You divided the pooled sum of squares by n: the pooled sample variance divides "
            "by n - 1.",
            LOSS_CHANGE,
            _pool_mistake(divide_by_n=True),
            mutant="sgt-pool-denominator",
        ),
        Mistake(
            "pool-java-j1",
            "You subtracted m where m² belongs (the authors' Java bug J1): "
            "s² = n/(n-1) (S/n - m²), which inflates the variance when m < 0.",
            LOSS_CHANGE,
            _pool_mistake(java_j1=True),
        ),
    ),
    hints=(
        "Compute (n_j, m_j, s_j²) for every child with your two previous functions, then "
        "think of the candidate's loss changes as one sample made of the children's samples.",
        "A pooled sum of squared deviations is the sum of each group's own sum of squares "
        "((n_j - 1) s_j²) plus what the group means contribute (n_j (m_j - m)²).",
        "Skip empty children; weight the mean by n_j; divide the total sum of squares by "
        "n - 1, and return variance 0 when n < 2.",
    ),
    minutes=25,
)


# == 7. the split test's p-value =========================================================
T_TEST_SKELETON = r'''import math
from collections.abc import Callable


def t_test_p_value(mean: float, variance: float, n: int,
                   betainc: Callable[[float, float, float], float]) -> float:
    r"""Two-sided p-value of the split test: one-sample t-test of mean 0 [GPF19, Eq. 16].

    Under "the update does not change the loss", the mean loss change :math:`\tilde m`
    of :math:`n` instances with sample variance :math:`s^2` gives

    .. math::

        t = \frac{\tilde m \sqrt{n}}{s} \sim t_{\nu}, \quad \nu = n - 1, \qquad
        p = P(|T_\nu| \ge |t|) = P(F_{1,\nu} \ge F)
          = I_{\nu/(\nu + F)}\big(\tfrac{\nu}{2}, \tfrac12\big),
        \quad F = t^2 = \frac{n \tilde m^2}{s^2},

    with :math:`I` the regularised incomplete beta function (given as ``betainc``).
    Degenerate rules ([SGT-SPEC §8]): :math:`n < 2` gives 1; a non-finite mean or
    variance gives 1; :math:`s^2 = 0` gives 0 when :math:`\tilde m < 0`, else 1.
    Tutorial: "Why a t-test and not Hoeffding's bound"
    (tutorials/03_stochastic_gradient_trees.md).

    Parameters
    ----------
    mean : float
        The penalised mean loss change :math:`\tilde m`.
    variance : float
        Its sample variance :math:`s^2 \ge 0`.
    n : int
        The leaf count since its last reset.
    betainc : callable
        ``betainc(a, b, x)`` is :math:`I_x(a, b)`, the library's
        ``reference.special.betainc`` (writing it is not part of the exercise).

    Returns
    -------
    float
        The p-value in [0, 1].
    """
    raise NotImplementedError
'''


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
    hints=(
        "The two-sided tail of a t variable with ν degrees of freedom is the upper tail of "
        "an F(1, ν) variable at t²; the F tail is an incomplete beta.",
        "Handle the degenerate inputs first (n < 2, non-finite values, s² = 0), then form "
        "F = n m²/s² and ν = n - 1.",
        "p = betainc(ν/2, 1/2, ν/(ν + F)); check it with the tutorial's example "
        "(t = -3, n = 200 gives about 3.0448e-3).",
    ),
    minutes=20,
)


# == 8. the bin index ====================================================================
BIN_SKELETON = r'''def bin_index(x: float, lo: float, hi: float, bins: int) -> int:
    r"""Equal-width bin of a numeric value between the frozen warm-up range [GPF19, §3.2].

    The range :math:`[\min, \max]` of a feature is estimated on the warm-up and frozen;
    then ([SGT-SPEC §5.6])

    .. math::

        b = \Big\lfloor B\, \frac{x - \min}{\max - \min} \Big\rfloor
        \text{ clipped to } [0, B - 1].

    Compute the position as ``B * (x - lo) / (hi - lo)`` (in that order). A degenerate
    range (``hi <= lo``) sends every value to bin 0, and so does a position that is NaN
    (for example a range wider than the largest double). Values beyond the range
    (including ±inf) are clipped.
    Tutorial: "Statistics of a leaf" (tutorials/03_stochastic_gradient_trees.md).

    Parameters
    ----------
    x : float
        The value.
    lo, hi : float
        The frozen minimum and maximum of the feature.
    bins : int
        :math:`B \ge 1`, the number of bins.

    Returns
    -------
    int
        The bin, in ``0 .. bins - 1``.
    """
    raise NotImplementedError
'''


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
    hints=(
        "Map [min, max] linearly onto [0, B] and take the integer part; then think about "
        "the values that fall outside.",
        "Three special cases: a degenerate range, a position at or beyond B (the maximum "
        "itself lands exactly on B), and a position below 0 or NaN.",
        "Test `position >= B` first, then `not position >= 0` (true for NaN too), and only "
        "then convert with int().",
    ),
    minutes=10,
)


# == 9. Welford's update of a leaf's statistics ==========================================
WELFORD_SKELETON = r'''def welford_add(cell: list[float], g: float, h: float) -> list[float]:
    r"""Add one (g, h) pair to a leaf's statistics cell, Welford's way [SGT-SPEC §4.2].

    A cell ``[n, sum_g, sum_h, m_g, m_h, c]`` holds the count, the sums
    :math:`\Sigma g, \Sigma h`, the centred sums of squares
    :math:`M_g = \Sigma (g - \bar g)^2`, :math:`M_h` and the co-moment
    :math:`C = \Sigma (g - \bar g)(h - \bar h)` [GPF19, §3.3]. One pair updates them
    without storing it (Welford, 1962; co-moment form):

    .. math::

        M_g \mathrel{+}= (g - \bar g_{\text{old}})(g - \bar g_{\text{new}}),\quad
        M_h \mathrel{+}= (h - \bar h_{\text{old}})(h - \bar h_{\text{new}}),\quad
        C \mathrel{+}= (g - \bar g_{\text{old}})(h - \bar h_{\text{new}}),

    where the means are :math:`\Sigma / n` before and after the pair is counted (an
    empty cell has means 0).
    Tutorial: "Statistics of a leaf" (tutorials/03_stochastic_gradient_trees.md).

    Parameters
    ----------
    cell : list
        ``[n, sum_g, sum_h, m_g, m_h, c]`` before the pair (do not modify it).
    g, h : float
        The gradient and Hessian of the new instance.

    Returns
    -------
    list
        The new ``[n, sum_g, sum_h, m_g, m_h, c]`` (``n`` an int).
    """
    raise NotImplementedError
'''


def welford_add(cell: list[float], g: float, h: float) -> list[float]:
    """The reference: :meth:`reference.sgt.grad_hess.GradHessStats.add` on a copy."""
    stats = _grad_hess.GradHessStats.from_list(list(cell))
    _ADD(stats, g, h)
    return [float(v) if i else v for i, v in enumerate(stats.as_list())]


def _welford_cases() -> list[Case]:
    rng = random.Random(909)
    cases = [
        Case(([0, 0.0, 0.0, 0.0, 0.0, 0.0], -1.5, 1.0), "empty cell: the first pair"),
        Case((_cell_from_pairs([(0.5, 1.0)]), 1.0, 1.0), "second pair"),
        Case((_cell_from_pairs([(2.0, 0.25)] * 3), 2.0, 0.25), "the same pair again"),
        Case((_cell_from_pairs([(1e150, 1.0), (-1e150, 1.0)]), 3e150, 1.0), "huge gradients"),
        Case((_cell_from_pairs([(1e-300, 0.0)]), -1e-300, 0.0), "tiny gradients, zero Hessian"),
    ]
    for i in range(60):
        loss = rng.choice(["squared", "logistic"])
        pairs = _random_pairs(rng, rng.randint(0, 60), loss)
        g, h = _random_pairs(rng, 1, loss)[0]
        cases.append(Case((_cell_from_pairs(pairs), g, h), f"random {loss} cell {i}"))
    return cases


def _welford_plugs() -> tuple[Plug, ...]:
    def adapt(student: Fn) -> Fn:
        def add(self: Any, g: float, h: float) -> None:
            new = student(self.as_list(), float(g), float(h))
            self.n = int(new[0])
            self.sum_g, self.sum_h, self.m_g, self.m_h, self.c = (float(v) for v in new[1:6])
        return add
    return (Plug("reference.sgt.grad_hess.GradHessStats.add", adapt),)


def _welford_mistake(mg_new_new: bool = False, c_old_old: bool = False,
                     mean_by_n_minus_1: bool = False) -> Fn:
    def wrong(cell: list[float], g: float, h: float) -> list[float]:
        n, sum_g, sum_h, m_g, m_h, c = cell
        mean_g_old, mean_h_old = _means(int(n), float(sum_g), float(sum_h))
        n = int(n) + 1
        sum_g = float(sum_g) + g
        sum_h = float(sum_h) + h
        divisor = float(n - 1) if mean_by_n_minus_1 and n > 1 else float(n)
        mean_g_new, mean_h_new = sum_g / divisor, sum_h / divisor
        if mg_new_new:
            m_g = float(m_g) + (g - mean_g_new) * (g - mean_g_new)
        else:
            m_g = float(m_g) + (g - mean_g_old) * (g - mean_g_new)
        m_h = float(m_h) + (h - mean_h_old) * (h - mean_h_new)
        if c_old_old:
            c = float(c) + (g - mean_g_old) * (h - mean_h_old)
        else:
            c = float(c) + (g - mean_g_old) * (h - mean_h_new)
        return [n, sum_g, sum_h, m_g, m_h, c]
    return wrong


WELFORD = Exercise(
    name="sgt-leaf-statistics",
    title="Welford's update of a leaf's gradient/Hessian statistics",
    family="sgt",
    tag="[GPF19, §3.3]; [SGT-SPEC §4.2]",
    anchor=LEAF_STATISTICS,
    function_name="welford_add",
    skeleton=WELFORD_SKELETON,
    reference=welford_add,
    cases=_welford_cases,
    tolerance=EXACT,
    plugs=_welford_plugs(),
    stream=REGRESSION_STREAM,
    mistakes=(
        Mistake(
            "welford-new-mean-squared",
            "M_g grows by (g - ḡ_old)(g - ḡ_new), one old and one new mean; "
            "(g - ḡ_new)² underestimates it.",
            LEAF_STATISTICS,
            _welford_mistake(mg_new_new=True),
            mutant="sgt-welford-mg",
        ),
        Mistake(
            "welford-covariance-old-means",
            "The co-moment grows by (g - ḡ_old)(h - h̄_new): with both old means it "
            "overestimates C.",
            LEAF_STATISTICS,
            _welford_mistake(c_old_old=True),
            mutant="sgt-welford-covariance",
        ),
        Mistake(
            "welford-mean-n-minus-1",
            "The new means divide the new sums by the new count n, not n - 1.",
            LEAF_STATISTICS,
            _welford_mistake(mean_by_n_minus_1=True),
        ),
    ),
    hints=(
        "Compute the old means before counting the pair, then update n and the sums, then "
        "the new means.",
        "Each centred sum grows by a product of two deviations of the new value: one from "
        "the old mean and one from the new mean (for C: g from the old, h from the new).",
        "Return a new list in the cell's order, n as an int: the count and the sums first, "
        "then each centred sum plus the docstring's product of deviations.",
    ),
    minutes=15,
)


# == 10. pseudo-Huber ====================================================================
PSEUDO_HUBER_SKELETON = r'''import math


def pseudo_huber_gradient_hessian(y: float, raw: float) -> tuple[float, float]:
    r"""Gradient and Hessian of the pseudo-Huber loss, for robust regression [SGT-SPEC §3.5].

    With the residual :math:`r = f - y`,

    .. math::

        l(y, f) = \sqrt{1 + r^2} - 1, \qquad
        g = \frac{\partial l}{\partial f}, \qquad h = \frac{\partial^2 l}{\partial f^2}:

    quadratic (:math:`r^2/2`) near the target and linear (:math:`|r| - 1`) far from it,
    so a gross outlier pulls a leaf with a gradient of at most 1 (the trees accept any
    twice-differentiable loss [GPF19, §3.1]). Write :math:`q = 1 + r^2` and use only
    ``+``, ``*``, ``/`` and ``math.sqrt`` (each correctly rounded, so the C twin gives
    the same bits): compute ``q = 1.0 + r * r`` and ``root = math.sqrt(q)``, then
    express ``g`` and ``h`` with one division each.
    Tutorial: "A second-order view of one update" (tutorials/03_stochastic_gradient_trees.md).

    Parameters
    ----------
    y : float
        The target.
    raw : float
        The raw score :math:`f(x)` (the prediction).

    Returns
    -------
    tuple of float
        ``(g, h)``.
    """
    raise NotImplementedError
'''


def pseudo_huber_gradient_hessian(y: float, raw: float) -> tuple[float, float]:
    """The reference: :meth:`reference.sgt.losses.PseudoHuber.gradient_hessian`."""
    return _PSEUDO_HUBER_GH(_losses.PseudoHuber(), y, raw)


def _pseudo_huber_cases() -> list[Case]:
    rng = random.Random(1111)
    cases = [
        Case((0.0, 0.0), "zero residual"),
        Case((0.0, 10.0), "the docstring example: a far target"),
        Case((5.0, -95.0), "an outlier: the gradient saturates near -1"),
        Case((1e-300, -1e-300), "tiny residual"),
        Case((0.0, 1e200), "huge residual: r² overflows"),
        Case((1.0, 1.0 + 1e-8), "residual 1e-8"),
    ]
    for i in range(60):
        scale = 10.0 ** rng.randint(-2, 3)
        cases.append(Case((rng.gauss(0.0, scale), rng.gauss(0.0, scale)), f"random {i}"))
    return cases


def _pseudo_huber_mistake(kind: str) -> Fn:
    def wrong(y: float, raw: float) -> tuple[float, float]:
        r = raw - y
        q = 1.0 + r * r
        root = math.sqrt(q)
        if kind == "hessian-q":
            return r / root, 1.0 / q
        if kind == "gradient-r":
            return r, 1.0 / (q * root)
        if kind == "hessian-root":
            return r / root, 1.0 / root
        return r / root, q ** -1.5          # kind == "power"
    return wrong


PSEUDO_HUBER = Exercise(
    name="sgt-pseudo-huber-gradient",
    title="Gradient and Hessian of the pseudo-Huber loss",
    family="sgt",
    tag="[GPF19, §3.1]; [SGT-SPEC §3.5]",
    anchor=SECOND_ORDER,
    function_name="pseudo_huber_gradient_hessian",
    skeleton=PSEUDO_HUBER_SKELETON,
    reference=pseudo_huber_gradient_hessian,
    cases=_pseudo_huber_cases,
    tolerance=EXACT,
    plugs=(Plug("reference.sgt.losses.PseudoHuber.gradient_hessian", _loss_method),),
    # ``SGT`` with the built-in pseudo-Huber loss: the fast model runs its C derivatives
    stream=Stream("SGT", {**SGT_PARAMS, "loss": _losses.PseudoHuber()}, _regression_data),
    mistakes=(
        Mistake(
            "pseudo-huber-hessian-q",
            "Your Hessian is 1/(1 + r²): differentiating r/√(1 + r²) once more gives "
            "(1 + r²)^(-3/2).",
            SECOND_ORDER,
            _pseudo_huber_mistake("hessian-q"),
            mutant="sgt-pseudo-huber-hessian",
        ),
        Mistake(
            "pseudo-huber-gradient-r",
            "Your gradient is the residual itself (the squared error's): the pseudo-Huber "
            "gradient r/√(1 + r²) never exceeds 1 in size.",
            SECOND_ORDER,
            _pseudo_huber_mistake("gradient-r"),
        ),
        Mistake(
            "pseudo-huber-hessian-root",
            "Your Hessian is 1/√(1 + r²): the quotient rule on r/√q gives 1/√q - r²/q^(3/2) "
            "= 1/(q√q).",
            SECOND_ORDER,
            _pseudo_huber_mistake("hessian-root"),
        ),
        Mistake(
            "pseudo-huber-power",
            "q ** -1.5 is the right Hessian in real arithmetic but pow rounds differently "
            "from 1/(q·√q), which both backends compute.",
            SECOND_ORDER,
            _pseudo_huber_mistake("power"),
        ),
    ),
    hints=(
        "Differentiate √(1 + r²) with respect to f; r = f - y, so dr/df = 1.",
        "g = r/√(1 + r²). For h, use the quotient rule on r/√q with q = 1 + r², and "
        "simplify with q - r² = 1.",
        "Compute q and its root once; g divides r by the root, h divides 1 by q times the "
        "root.",
    ),
    minutes=10,
)


# == 11. Chan's merge of two cells =======================================================
MERGE_SKELETON = r'''def merge_cells(a: list[float], b: list[float]) -> list[float]:
    r"""Merge the statistics of two cells exactly (Chan et al.) [SGT-SPEC §4.3].

    A candidate split's children are merges of bin cells ``[n, sum_g, sum_h, m_g, m_h,
    c]`` (count, sums, centred sums of squares, co-moment [GPF19, §3.3]). With the means
    :math:`\bar g = \Sigma g / n`, :math:`d_g = \bar g_B - \bar g_A`,
    :math:`d_h = \bar h_B - \bar h_A` and :math:`n = n_A + n_B`,

    .. math::

        M_g = M_{g,A} + M_{g,B} + d_g^2 \frac{n_A n_B}{n},\quad
        M_h = M_{h,A} + M_{h,B} + d_h^2 \frac{n_A n_B}{n},\quad
        C = C_A + C_B + d_g d_h \frac{n_A n_B}{n},

    and the counts and sums add. An empty side gives a copy of the other side. Compute
    the weight once as ``n_A * n_B / n`` (floats, in that order) and each term as
    ``d * d * weight`` (``d_g * d_h * weight`` for C), added left to right.
    Tutorial: "Statistics of a leaf" (tutorials/03_stochastic_gradient_trees.md).

    Parameters
    ----------
    a, b : list
        The two cells ``[n, sum_g, sum_h, m_g, m_h, c]`` (do not modify them).

    Returns
    -------
    list
        The merged cell (``n`` an int).
    """
    raise NotImplementedError
'''


def merge_cells(a: list[float], b: list[float]) -> list[float]:
    """The reference: :func:`reference.sgt.grad_hess.merge` of the two cells."""
    merged = _MERGE(_grad_hess.GradHessStats.from_list(list(a)),
                    _grad_hess.GradHessStats.from_list(list(b)))
    return merged.as_list()


def _merge_cases() -> list[Case]:
    rng = random.Random(1212)
    empty = _cell_from_pairs([])
    one = _cell_from_pairs([(0.5, 1.0)])
    cases = [
        Case((empty, empty), "two empty cells"),
        Case((empty, one), "empty left side"),
        Case((one, empty), "empty right side"),
        Case((one, _cell_from_pairs([(1.5, 1.0)])), "two single pairs"),
        Case((_cell_from_pairs([(0.5, 0.8), (1.0, 1.0), (1.5, 1.2)]),
              _cell_from_pairs([(0.5, 1.2), (1.0, 1.0), (1.5, 0.9)])),
             "the tutorial's example"),
        Case((_cell_from_pairs([(2.0, 1.0)] * 4), _cell_from_pairs([(2.0, 1.0)] * 3)),
             "equal means: nothing between the cells"),
    ]
    for i in range(60):
        loss = rng.choice(["squared", "logistic"])
        a = _cell_from_pairs(_random_pairs(rng, rng.randint(1, 40), loss))
        b = _cell_from_pairs(_random_pairs(rng, rng.randint(1, 40), loss))
        cases.append(Case((a, b), f"random {loss} cells {i}"))
    return cases


def _merge_plugs() -> tuple[Plug, ...]:
    def adapt(student: Fn) -> Fn:
        def merge(a: Any, b: Any) -> Any:
            return _grad_hess.GradHessStats.from_list(
                list(student(a.as_list(), b.as_list())))
        return merge
    return (Plug("reference.sgt.grad_hess.merge", adapt),)


def _merge_mistake(kind: str) -> Fn:
    def wrong(a: list[float], b: list[float]) -> list[float]:
        if int(a[0]) == 0:
            return list(b)
        if int(b[0]) == 0:
            return list(a)
        n = int(a[0]) + int(b[0])
        d_g = float(b[1]) / int(b[0]) - float(a[1]) / int(a[0])
        d_h = float(b[2]) / int(b[0]) - float(a[2]) / int(a[0])
        if kind == "n-plus-one":
            weight = float(a[0]) * float(b[0]) / float(n + 1)
        elif kind == "product":
            weight = float(a[0]) * float(b[0])
        else:
            weight = float(a[0]) * float(b[0]) / float(n)
        if kind == "no-between":
            weight = 0.0
        c_term = d_g * d_g * weight if kind == "covariance-dg2" else d_g * d_h * weight
        return [n, float(a[1]) + float(b[1]), float(a[2]) + float(b[2]),
                float(a[3]) + float(b[3]) + d_g * d_g * weight,
                float(a[4]) + float(b[4]) + d_h * d_h * weight,
                float(a[5]) + float(b[5]) + c_term]
    return wrong


MERGE = Exercise(
    name="sgt-merge-cells",
    title="Chan's merge of two leaf statistics cells",
    family="sgt",
    tag="[GPF19, §3.3]; [SGT-SPEC §4.3]",
    anchor=LEAF_STATISTICS,
    function_name="merge_cells",
    skeleton=MERGE_SKELETON,
    reference=merge_cells,
    cases=_merge_cases,
    tolerance=EXACT,
    plugs=_merge_plugs(),
    # merges change only the variances, so the stream uses the default, strict δ = 1e-7,
    # where the split test's variance decides whether the first splits pass
    stream=Stream("SGTRegressor", {**SGT_PARAMS, "delta": 1e-7}, _regression_data),
    mistakes=(
        Mistake(
            "merge-no-between-term",
            "You only added the centred sums: the two cells' means differ, and the spread "
            "between them adds d² n_A n_B / n.",
            LEAF_STATISTICS,
            _merge_mistake("no-between"),
        ),
        Mistake(
            "merge-weight-n-plus-one",
            "The between-cells weight is n_A n_B / n with n = n_A + n_B, not / (n + 1).",
            LEAF_STATISTICS,
            _merge_mistake("n-plus-one"),
            mutant="sgt-merge-weight",
        ),
        Mistake(
            "merge-weight-product",
            "The between-cells weight is n_A n_B / n: each pair of points across the cells "
            "counts once, divided by the merged count.",
            LEAF_STATISTICS,
            _merge_mistake("product"),
        ),
        Mistake(
            "merge-covariance-dg-squared",
            "The co-moment's between term is d_g d_h n_A n_B / n: one difference of each "
            "mean, not d_g².",
            LEAF_STATISTICS,
            _merge_mistake("covariance-dg2"),
        ),
    ),
    hints=(
        "Think of the merged centred sum as each cell's own spread plus the spread of the "
        "two cell means around the merged mean.",
        "The merged mean lies between the two means; summing n_A (ḡ_A - ḡ)² + "
        "n_B (ḡ_B - ḡ)² gives d_g² n_A n_B / n. Empty cells need no formula.",
        "Counts and sums add; each of the three centred sums adds the two cells' values "
        "plus a product of mean differences times one shared weight.",
    ),
    minutes=15,
)


EXERCISES: tuple[Exercise, ...] = (
    SQUARED_ERROR,
    LOGISTIC,
    SOFTMAX_EXERCISE,
    PSEUDO_HUBER,
    WELFORD,
    MERGE,
    NEWTON,
    MOMENTS,
    SPLIT_GAIN,
    SPLIT_TEST,
    BIN_INDEX,
)
"""The SGT exercises in course order (losses, leaf statistics, step, gain, test, bins)."""

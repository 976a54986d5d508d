"""Objectives: gradient, hessian and transfer per loss [GPF19, §4, Eq. 19-29].

A loss supplies ``gradient_hessian(y, raw) -> (g, h)``, the first and second
derivatives of the loss with respect to the raw tree score f(x), and ``transfer(raw)``,
the function σ turning a raw score into a prediction [GPF19, Eq. 1]. The two built-in
losses (:class:`SquaredError`, :class:`BinaryCrossEntropy`, :class:`PseudoHuber`) are
computed in C by the
``fast`` backend; any other object with these two methods (for example
:class:`CustomLoss`) is called from Python by both backends. The committee and
multi-instance gradients are the functions :func:`softmax_gradients` and
:func:`bag_gradients`. C twin: ``csrc/sgt/losses.c``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

__all__ = [
    "SquaredError",
    "BinaryCrossEntropy",
    "PseudoHuber",
    "CustomLoss",
    "sigmoid",
    "softmax",
    "softmax_gradients",
    "bag_gradients",
    "LOSS_SQUARED",
    "LOSS_LOGISTIC",
    "LOSS_SOFTMAX",
    "LOSS_BAG",
    "LOSS_CUSTOM",
    "LOSS_PSEUDO_HUBER",
]


LOSS_SQUARED = 0
"""Squared error, target y ([SGT-SPEC §3.1])."""
LOSS_LOGISTIC = 1
"""Binary cross-entropy with one sigmoid, target in {0, 1} ([SGT-SPEC §3.2])."""
LOSS_SOFTMAX = 2
"""Softmax committee of k-1 trees, target = class index ([SGT-SPEC §3.3])."""
LOSS_BAG = 3
"""Multi-instance bags, max over the bag with BCE, target in {0, 1} ([SGT-SPEC §3.4])."""
LOSS_CUSTOM = 4
"""A Python loss: gradients supplied by the caller
(:meth:`reference.sgt.core.SGTCore.train_gh`)."""
LOSS_PSEUDO_HUBER = 5
"""Pseudo-Huber loss with δ = 1, target y: robust regression ([SGT-SPEC §3.5])."""


def sigmoid(raw: float) -> float:
    """Logistic function 1 / (1 + e^{-f}) [GPF19, Eq. 26], evaluated without overflow."""
    if raw >= 0.0:
        return 1.0 / (1.0 + math.exp(-raw))
    e = math.exp(raw)
    return e / (1.0 + e)


class SquaredError:
    """Squared error l = (f - y)² / 2, σ = identity [GPF19, Eq. 23-25].

    Examples
    --------
    >>> SquaredError().gradient_hessian(3.0, 1.0)
    (-2.0, 1.0)
    """

    def gradient_hessian(self, y: float, raw: float) -> tuple[float, float]:
        """g = f - y, h = 1 [GPF19, Eq. 24-25]."""
        # [GPF19, Eq. 24] g = ŷ - y
        return raw - y, 1.0

    def transfer(self, raw: float) -> float:
        """Identity: the prediction is the raw score."""
        return raw

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SquaredError)

    def __hash__(self) -> int:
        return hash("SquaredError")

    def __repr__(self) -> str:
        return "SquaredError()"


class BinaryCrossEntropy:
    """Logistic loss for y in {0, 1} with one sigmoid σ(f) [GPF19, Eq. 27] ([SGT-SPEC §3.2]).

    Examples
    --------
    >>> BinaryCrossEntropy().gradient_hessian(1.0, 0.0)
    (-0.5, 0.25)
    """

    def gradient_hessian(self, y: float, raw: float) -> tuple[float, float]:
        """g = σ(f) - y, h = σ(f)(1 - σ(f)) [GPF19, Eq. 28-29 for a bag of one]."""
        p = sigmoid(raw)
        return p - y, p * (1.0 - p)

    def transfer(self, raw: float) -> float:
        """σ(f), the probability of the positive class."""
        return sigmoid(raw)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BinaryCrossEntropy)

    def __hash__(self) -> int:
        return hash("BinaryCrossEntropy")

    def __repr__(self) -> str:
        return "BinaryCrossEntropy()"


class PseudoHuber:
    """Pseudo-Huber loss l = √(1 + (f - y)²) - 1, σ = identity ([SGT-SPEC §3.5]).

    The smooth form of the Huber loss with δ = 1: quadratic, (f - y)²/2, near the target
    and linear (the absolute residual minus 1) far from it, so a gross outlier in the
    targets pulls a leaf value with a gradient of at most 1 instead of its whole residual.
    The scale δ is fixed at 1: standardise the targets (or divide them by the residual
    size at which robustness should begin) to choose it.

    With r = f - y and q = 1 + r², the derivatives are g = r / √q and h = 1 / (q √q),
    computed with the operations +, ×, ÷ and √ only, each correctly rounded, so the C
    twin (``sgt_pseudo_huber_gh``) gives the same bits.

    Examples
    --------
    >>> PseudoHuber().gradient_hessian(0.0, 0.0)
    (0.0, 1.0)
    >>> g, h = PseudoHuber().gradient_hessian(0.0, 10.0)
    >>> round(g, 4), h < 1e-3
    (0.995, True)
    """

    def gradient_hessian(self, y: float, raw: float) -> tuple[float, float]:
        """g = r / √(1 + r²), h = (1 + r²)^(-3/2) with r = f - y ([SGT-SPEC §3.5])."""
        r = raw - y
        q = 1.0 + r * r
        root = math.sqrt(q)
        return r / root, 1.0 / (q * root)

    def transfer(self, raw: float) -> float:
        """Identity: the prediction is the raw score."""
        return raw

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PseudoHuber)

    def __hash__(self) -> int:
        return hash("PseudoHuber")

    def __repr__(self) -> str:
        return "PseudoHuber()"


class CustomLoss:
    """Any twice-differentiable loss given by two Python functions of (y, raw).

    Parameters
    ----------
    gradient : callable
        ``gradient(y, raw) -> float``, ∂l/∂f.
    hessian : callable
        ``hessian(y, raw) -> float``, ∂²l/∂f².
    transfer : callable or None
        ``transfer(raw) -> float``, the prediction; identity if None.

    Examples
    --------
    >>> pseudo_huber = CustomLoss(lambda y, f: (f - y) / (1 + (f - y) ** 2) ** 0.5,
    ...                           lambda y, f: (1 + (f - y) ** 2) ** -1.5)
    >>> pseudo_huber.gradient_hessian(0.0, 0.0)
    (0.0, 1.0)
    """

    def __init__(
        self,
        gradient: Callable[[float, float], float],
        hessian: Callable[[float, float], float],
        transfer: Callable[[float], float] | None = None,
    ) -> None:
        if not callable(gradient) or not callable(hessian):
            raise ValueError("gradient and hessian must be callables of (y, raw)")
        if transfer is not None and not callable(transfer):
            raise ValueError("transfer must be None or a callable of raw")
        self.gradient = gradient
        self.hessian = hessian
        self._transfer = transfer

    def gradient_hessian(self, y: float, raw: float) -> tuple[float, float]:
        """(gradient(y, raw), hessian(y, raw)) as floats."""
        return float(self.gradient(y, raw)), float(self.hessian(y, raw))

    def transfer(self, raw: float) -> float:
        """The user's transfer function, or the identity."""
        return raw if self._transfer is None else float(self._transfer(raw))

    def __repr__(self) -> str:
        return f"CustomLoss({self.gradient!r}, {self.hessian!r}, {self._transfer!r})"


def softmax(raws: Sequence[float]) -> list[float]:
    """Class probabilities of a committee [GPF19, Eq. 19] with f_k = 0 appended.

    ``raws`` holds f_1..f_{k-1}; the last class has a hard-wired score of 0. The
    maximum score is subtracted before exponentiating, and the normaliser is summed in
    class order.
    """
    scores = list(raws) + [0.0]
    top = scores[0]
    for s in scores:
        if s > top:
            top = s
    exps = [math.exp(s - top) for s in scores]
    total = 0.0
    for e in exps:
        total += e
    return [e / total for e in exps]


def softmax_gradients(raws: Sequence[float], label: int) -> tuple[list[float], list[float]]:
    """Per-tree (g, h) of the committee [GPF19, Eq. 21-22] ([SGT-SPEC §3.3]).

    Tree c < k-1 gets g_c = p_c - [y = c] and h_c = p_c (1 - p_c), the diagonal of the
    softmax Hessian.
    """
    probs = softmax(raws)
    grads: list[float] = []
    hess: list[float] = []
    for c in range(len(raws)):
        p = probs[c]
        # [GPF19, Eq. 21] g_c = ŷ_c - y_c ; [GPF19, Eq. 22] h_c = ŷ_c (1 - ŷ_c)
        grads.append(p - (1.0 if c == label else 0.0))
        hess.append(p * (1.0 - p))
    return grads, hess


def bag_gradients(raws: Sequence[float], label: float) -> tuple[list[float], list[float]]:
    """Per-instance (g, h) of a multi-instance bag [GPF19, Eq. 26-29] ([SGT-SPEC §3.4]).

    The bag score is the max raw score; its instance (the first one on ties) gets the
    BCE derivatives at that score, every other instance gets (0, 0).
    """
    best = 0
    for i in range(1, len(raws)):
        if raws[i] > raws[best]:
            best = i
    # [GPF19, Eq. 26] ŷ = σ(max_x f(x))
    p = sigmoid(raws[best])
    grads = [0.0] * len(raws)
    hess = [0.0] * len(raws)
    # [GPF19, Eq. 28-29] only the argmax instance carries a gradient
    grads[best] = p - label
    hess[best] = p * (1.0 - p)
    return grads, hess

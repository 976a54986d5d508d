"""What an SGT model predicts during its warm-up, before bins and trees exist [SGT-SPEC §5.7].

The warm-up buffer (:class:`reference.sgt.core.SGTCore`) holds the first items while the
feature ranges are estimated. With ``warmup_prediction == "newton"`` (built-in losses)
each tree's raw score is then one Newton step of its root from raw score 0 over the
buffered items, Δ_c = -ḡ_c / (h̄_c + λ + ε) [GPF19, Eq. 13]; the trees themselves are
untouched, so the model after the warm-up does not depend on it. Oracle tests against
closed forms: ``tests/sgt/test_oracle_warmup.py``. C twin: ``csrc/sgt/core.c``.
"""

from __future__ import annotations

from reference.sgt.grad_hess import EPSILON
from reference.sgt.losses import (
    LOSS_BAG,
    LOSS_LOGISTIC,
    LOSS_PSEUDO_HUBER,
    LOSS_SQUARED,
    BinaryCrossEntropy,
    PseudoHuber,
    SquaredError,
    bag_gradients,
    softmax_gradients,
)

__all__ = ["Item", "newton_step_from_zero", "gradients_at_zero"]

Item = tuple[list[list[float]], float]
"""A buffered item: its rows (one, or a bag's) and its target."""


def gradients_at_zero(rows: list[list[float]], target: float, loss_kind: int,
                      n_trees: int) -> list[tuple[list[float], list[float]]]:
    """Per row of an item: the gradients and Hessians of every tree at raw score 0."""
    if loss_kind == LOSS_BAG:
        grads, hess = bag_gradients([0.0] * len(rows), target)
        return [([g], [h]) for g, h in zip(grads, hess, strict=True)]
    if loss_kind == LOSS_SQUARED:
        g, h = SquaredError().gradient_hessian(target, 0.0)
        return [([g], [h])]
    if loss_kind == LOSS_LOGISTIC:
        g, h = BinaryCrossEntropy().gradient_hessian(target, 0.0)
        return [([g], [h])]
    if loss_kind == LOSS_PSEUDO_HUBER:
        g, h = PseudoHuber().gradient_hessian(target, 0.0)
        return [([g], [h])]
    return [softmax_gradients([0.0] * n_trees, int(target))]


def newton_step_from_zero(buffer: list[Item], loss_kind: int, n_trees: int,
                          lam: float) -> list[float]:
    """One Newton step of every tree's root from raw score 0 over the buffered items.

    Δ_c = -ḡ_c / (h̄_c + λ + ε), the mean form of a leaf update [GPF19, Eq. 13], with
    ḡ_c, h̄_c the means over the buffered rows (each row of a bag counts once) of the
    loss gradients at raw scores 0. 0 for every tree while the buffer is empty.
    """
    g_sum = [0.0] * n_trees
    h_sum = [0.0] * n_trees
    count = 0
    for rows, target in buffer:
        for grads, hess in gradients_at_zero(rows, target, loss_kind, n_trees):
            for c in range(n_trees):
                g_sum[c] += grads[c]
                h_sum[c] += hess[c]
            count += 1
    if count == 0:
        return [0.0] * n_trees
    n = float(count)
    # [GPF19, Eq. 13] Δ = -ḡ / (h̄ + λ), per instance, from raw score 0
    return [-(g_sum[c] / n) / (h_sum[c] / n + lam + EPSILON) for c in range(n_trees)]

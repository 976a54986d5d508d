"""Oracle: every SGT gradient and Hessian equals the finite differences of its loss.

The losses are written here from their definitions [GPF19, §4]: squared error
``L = (f - y)^2 / 2``, binary cross-entropy ``L = -y log σ(f) - (1 - y) log(1 - σ(f))``
the softmax committee's cross-entropy ``L = -log softmax(f_0, ..., f_{k-2}, 0)[y]`` and the
pseudo-Huber loss ``L = sqrt(1 + (f - y)^2) - 1``.
Central differences of these losses (step 1e-4) must match the ``(g, h)`` the code
computes, in both backends, so a wrong derivative fails here even if both backends were
changed alike.
"""

from __future__ import annotations

import math
from types import ModuleType

import numpy as np
import pytest

STEP = 1e-4


def _fd(loss: object, f: float) -> tuple[float, float]:
    up, mid, down = loss(f + STEP), loss(f), loss(f - STEP)  # type: ignore[operator]
    return (up - down) / (2 * STEP), (up - 2 * mid + down) / STEP**2


def _log_sigmoid(f: float) -> float:
    return -math.log1p(math.exp(-f)) if f >= 0 else f - math.log1p(math.exp(f))


POINTS = [(-2.5, 0.0), (-0.3, 1.0), (0.0, 1.0), (0.7, 0.0), (1.9, 1.0), (3.0, -1.2)]


@pytest.mark.parametrize(("raw", "y"), POINTS)
def test_squared_error_derivatives_are_those_of_half_squared_error(backend: ModuleType,
                                                                   raw: float,
                                                                   y: float) -> None:
    g, h = backend.SquaredError().gradient_hessian(y, raw)
    fd_g, fd_h = _fd(lambda f: 0.5 * (f - y) ** 2, raw)
    assert g == pytest.approx(fd_g, rel=1e-7, abs=1e-7)
    assert h == pytest.approx(fd_h, rel=1e-4)


@pytest.mark.parametrize(("raw", "y"), [p for p in POINTS if p[1] in (0.0, 1.0)])
def test_cross_entropy_derivatives_are_those_of_the_log_loss(backend: ModuleType, raw: float,
                                                             y: float) -> None:
    g, h = backend.BinaryCrossEntropy().gradient_hessian(y, raw)

    def loss(f: float) -> float:
        return -y * _log_sigmoid(f) - (1 - y) * _log_sigmoid(-f)

    fd_g, fd_h = _fd(loss, raw)
    assert g == pytest.approx(fd_g, rel=1e-6, abs=1e-8)
    assert h == pytest.approx(fd_h, rel=1e-4, abs=1e-8)


@pytest.mark.parametrize(("raw", "y"), POINTS + [(0.0, 0.0), (25.0, -4.0), (-7.5, 30.0)])
def test_pseudo_huber_derivatives_are_those_of_the_pseudo_huber_loss(backend: ModuleType,
                                                                     raw: float,
                                                                     y: float) -> None:
    """δ = 1: g = r / sqrt(1 + r²), h = (1 + r²)^(-3/2), r = f - y ([SGT-SPEC §3.5])."""
    g, h = backend.PseudoHuber().gradient_hessian(y, raw)
    fd_g, fd_h = _fd(lambda f: math.hypot(1.0, f - y) - 1.0, raw)
    assert g == pytest.approx(fd_g, rel=1e-7, abs=1e-9)
    assert h == pytest.approx(fd_h, rel=1e-4, abs=1e-6)
    assert backend.PseudoHuber().transfer(raw) == raw


def _softmax_loss(raws: list[float], label: int) -> float:
    scores = np.array(raws + [0.0])
    top = scores.max()
    return float(-(scores[label] - top - math.log(np.exp(scores - top).sum())))


def _softmax_gh(backend: ModuleType, raws: list[float], label: int
                ) -> tuple[list[float], list[float]]:
    if backend.__name__ == "reference":
        from reference.sgt.losses import softmax_gradients

        return softmax_gradients(raws, label)
    from fast._ffi import ffi, lib

    k = len(raws)
    probs, g, h = ffi.new("double[]", k + 1), ffi.new("double[]", k), ffi.new("double[]", k)
    lib.sgt_softmax_gradients(ffi.new("double[]", raws), k, label, probs, g, h)
    return list(ffi.unpack(g, k)), list(ffi.unpack(h, k))


@pytest.mark.parametrize("label", [0, 1, 3])
def test_softmax_committee_derivatives_are_the_diagonal_of_the_cross_entropy(
        backend: ModuleType, label: int) -> None:
    """[GPF19, Eq. 21-22]: g_c = p_c - [y = c], h_c = ∂²L/∂f_c² = p_c (1 - p_c)."""
    raws = [0.4, -1.3, 2.2]            # 4 classes: 3 trees and the fixed score 0
    grads, hess = _softmax_gh(backend, raws, label)
    for c in range(len(raws)):
        def loss(f: float, c: int = c) -> float:
            moved = list(raws)
            moved[c] = f
            return _softmax_loss(moved, label)

        fd_g, fd_h = _fd(loss, raws[c])
        assert grads[c] == pytest.approx(fd_g, rel=1e-6, abs=1e-8), c
        assert hess[c] == pytest.approx(fd_h, rel=1e-4, abs=1e-7), c

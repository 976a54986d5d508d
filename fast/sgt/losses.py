"""The built-in SGT losses with their derivatives computed in C (``csrc/sgt/losses.c``).

Same classes, values and documentation as :mod:`reference.sgt.losses`; a model given
either backend's built-in loss runs it entirely in C.
"""

from __future__ import annotations

import reference.sgt.losses as _losses
from fast._ffi import ffi, lib

__all__ = ["SquaredError", "BinaryCrossEntropy", "PseudoHuber", "CustomLoss"]


class SquaredError(_losses.SquaredError):
    __doc__ = _losses.SquaredError.__doc__

    def gradient_hessian(self, y: float, raw: float) -> tuple[float, float]:
        """g = f - y, h = 1 [GPF19, Eq. 24-25] (``sgt_squared_error_gh``)."""
        g, h = ffi.new("double *"), ffi.new("double *")
        lib.sgt_squared_error_gh(float(y), float(raw), g, h)
        return float(g[0]), float(h[0])

    def transfer(self, raw: float) -> float:
        """Identity: the prediction is the raw score."""
        return raw


class BinaryCrossEntropy(_losses.BinaryCrossEntropy):
    __doc__ = _losses.BinaryCrossEntropy.__doc__

    def gradient_hessian(self, y: float, raw: float) -> tuple[float, float]:
        """g = σ(f) - y, h = σ(f)(1 - σ(f)) (``sgt_binary_cross_entropy_gh``)."""
        g, h = ffi.new("double *"), ffi.new("double *")
        lib.sgt_binary_cross_entropy_gh(float(y), float(raw), g, h)
        return float(g[0]), float(h[0])

    def transfer(self, raw: float) -> float:
        """σ(f), the probability of the positive class (``sgt_sigmoid``)."""
        return float(lib.sgt_sigmoid(raw))


class PseudoHuber(_losses.PseudoHuber):
    __doc__ = _losses.PseudoHuber.__doc__

    def gradient_hessian(self, y: float, raw: float) -> tuple[float, float]:
        """g = r / √(1 + r²), h = (1 + r²)^(-3/2), r = f - y (``sgt_pseudo_huber_gh``)."""
        g, h = ffi.new("double *"), ffi.new("double *")
        lib.sgt_pseudo_huber_gh(float(y), float(raw), g, h)
        return float(g[0]), float(h[0])

    def transfer(self, raw: float) -> float:
        """Identity: the prediction is the raw score."""
        return raw


class CustomLoss(_losses.CustomLoss):
    __doc__ = _losses.CustomLoss.__doc__

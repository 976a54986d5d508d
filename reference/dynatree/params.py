"""Hyper-parameters of the dynamic-tree models, validated once for both backends.

The defaults follow dynaTree 1.2-17 (``dynamic_trees.md`` §10.1): ``alpha = 0.95``,
``beta = 2``, ``nu0 = s20 = 0`` (the improper prior ``pi(sigma^2) ~ 1/sigma^2``), ``minp``
= 4 (constant leaf), ``2 d + 4`` (linear leaf, ``d`` original input columns) or 1
(multinomial leaf), ``nstart = minp``.

Notation
--------
``alpha, beta``  tree prior ``p_split(d) = alpha (1 + d)^-beta`` [AG13, §2.1].
``minp``         minimum number of active points in a leaf (``min_leaf``).
``nu0, s20``     inverse-gamma prior ``IG(nu0/2, nu0 s20/2)`` on the leaf variance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

LEAF_KINDS = ("constant", "linear", "class")
INTERCEPTS = ("implicit", "augmented", "none")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_real(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@dataclass(frozen=True)
class DynamicTreeParams:
    """Validated hyper-parameters shared by ``reference`` and ``fast``.

    Parameters
    ----------
    leaf : {"constant", "linear", "class"}
        Leaf model [AG13, Eq. 1]: constant mean, linear regression or multinomial.
    intercept : {"implicit", "augmented", "none"}
        Intercept treatment of the linear leaf (``dynamic_trees.md`` §3.2).
    n_particles : int
        Number of particles ``N`` (>= 1).
    alpha, beta : float
        Tree prior, ``0 <= alpha < 1`` and ``beta > 0``.
    min_leaf : int or None
        ``minp``; ``None`` means the default of the leaf model.
    nstart : int or None
        Number of points placed in the root leaf before particle learning starts;
        ``None`` means ``minp``.
    nu0, s20 : float
        Variance prior; ``nu0 >= 0``, ``s20 >= 0`` and ``s20 == 0`` when ``nu0 == 0``.
    seed : int
        Seed of the model's generator.
    """

    leaf: str = "constant"
    intercept: str = "implicit"
    n_particles: int = 1000
    alpha: float = 0.95
    beta: float = 2.0
    min_leaf: int | None = None
    nstart: int | None = None
    nu0: float = 0.0
    s20: float = 0.0
    seed: int = 0

    def validate(self) -> DynamicTreeParams:
        """Raise ``ValueError`` naming the first invalid parameter; return ``self``."""
        if self.leaf not in LEAF_KINDS:
            raise ValueError(f"leaf must be one of {LEAF_KINDS}, got {self.leaf!r}")
        if self.intercept not in INTERCEPTS:
            raise ValueError(f"intercept must be one of {INTERCEPTS}, got {self.intercept!r}")
        if self.leaf != "linear" and self.intercept != "implicit":
            raise ValueError("intercept must be 'implicit' unless leaf='linear'")
        if not _is_int(self.n_particles) or not 1 <= self.n_particles <= 10_000_000:
            raise ValueError(
                f"n_particles must be an int in [1, 10000000], got {self.n_particles!r}"
            )
        if not _is_real(self.alpha) or not 0.0 <= self.alpha < 1.0:
            raise ValueError(f"alpha must be a real number in [0, 1), got {self.alpha!r}")
        if not _is_real(self.beta) or not 0.0 < self.beta < math.inf:
            raise ValueError(f"beta must be a finite real number > 0, got {self.beta!r}")
        if self.min_leaf is not None and (
            not _is_int(self.min_leaf) or not 1 <= self.min_leaf <= 1_000_000
        ):
            raise ValueError(
                f"min_leaf must be None or an int in [1, 1000000], got {self.min_leaf!r}"
            )
        if self.nstart is not None and (
            not _is_int(self.nstart) or not 1 <= self.nstart <= 1_000_000_000
        ):
            raise ValueError(
                f"nstart must be None or an int in [1, 1000000000], got {self.nstart!r}"
            )
        if not _is_real(self.nu0) or not 0.0 <= self.nu0 < math.inf:
            raise ValueError(f"nu0 must be a finite real number >= 0, got {self.nu0!r}")
        if not _is_real(self.s20) or not 0.0 <= self.s20 < math.inf:
            raise ValueError(f"s20 must be a finite real number >= 0, got {self.s20!r}")
        if self.nu0 == 0.0 and self.s20 != 0.0:
            raise ValueError("s20 must be 0 when nu0 is 0 (improper prior 1/sigma^2)")
        if not _is_int(self.seed):
            raise ValueError(f"seed must be an int, got {self.seed!r}")
        return self

    def resolved_min_leaf(self, n_features: int) -> int:
        """``minp``: the user's ``min_leaf`` or the leaf model's default (§2, §10.1)."""
        if self.min_leaf is not None:
            return self.min_leaf
        if self.leaf == "constant":
            return 4
        if self.leaf == "linear":
            return 2 * n_features + 4
        return 1

    def resolved_nstart(self, n_features: int) -> int:
        """``nstart``: the user's value or ``minp`` (§0 item 3)."""
        if self.nstart is not None:
            return self.nstart
        return self.resolved_min_leaf(n_features)

    def n_regressors(self, n_features: int) -> int:
        """``bmax``: regressor columns of a linear leaf (``d + 1`` if augmented), else 0."""
        if self.leaf != "linear":
            return 0
        if self.intercept == "augmented":
            return n_features + 1
        return n_features

    def delta(self) -> int:
        """``delta``: 1 for the implicit intercept (constant, class, implicit linear)."""
        return 1 if self.intercept == "implicit" else 0

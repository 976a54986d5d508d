"""Hyper-parameters of the dynamic-tree models, validated once for both backends.

The defaults follow dynaTree 1.2-17 ([DT-SPEC §10.1]): ``alpha = 0.95``,
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
RETIREMENTS = ("random", "historical", "alc", "entropy")


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
        Intercept treatment of the linear leaf ([DT-SPEC §3.2]).
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
    active_size : int or None
        ``w``, size of the active pool; ``None`` keeps every point active (no retirement).
    retirement : {"random", "historical", "alc", "entropy"}
        Rule choosing the retiree when the pool is full ([DT-SPEC §0] item 5):
        ALC for regression, entropy for classification [AG13, §4].
    lam : float
        Forgetting factor ``0 < lam <= 1`` of the power prior [AG13, §5].
    rect : sequence of (low, high) pairs or None
        Bounding rectangle of the ALC integral (``None``: range of the active data, §7.3).
    approx : bool
        ALC with the active count as a proxy for the leaf area (§7.4).
    lpred_window : int or None
        How many of the latest per-step ``lpred_t`` the facade keeps (§5.4): ``None``
        keeps every step (dynaTree's ``lpred`` vector), ``k >= 0`` the last ``k``.
    slope_prior : float or None
        ``kappa``: precision of the Gaussian prior ``beta ~ N(0, sigma^2/kappa I)`` on the
        slopes of a linear leaf ([DT-SPEC §3.7]); ``None`` is dynaTree's flat prior.
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
    active_size: int | None = None
    retirement: str = "random"
    lam: float = 1.0
    rect: tuple[tuple[float, float], ...] | None = None
    approx: bool = False
    lpred_window: int | None = None
    slope_prior: float | None = None

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
        if self.slope_prior is not None:
            if not _is_real(self.slope_prior) or not 0.0 < self.slope_prior < math.inf:
                raise ValueError("slope_prior must be None or a finite real number > 0, "
                                 f"got {self.slope_prior!r}")
            if self.leaf != "linear":
                raise ValueError("slope_prior needs leaf='linear'")
        if not _is_int(self.seed):
            raise ValueError(f"seed must be an int, got {self.seed!r}")
        self._validate_retirement()
        if self.lpred_window is not None and (
            not _is_int(self.lpred_window) or not 0 <= self.lpred_window <= 1_000_000_000
        ):
            raise ValueError(
                f"lpred_window must be None or an int in [0, 1000000000], "
                f"got {self.lpred_window!r}"
            )
        return self

    def _validate_retirement(self) -> None:
        if self.active_size is not None and (
            not _is_int(self.active_size) or not 1 <= self.active_size <= 1_000_000_000
        ):
            raise ValueError(
                f"active_size must be None or an int in [1, 1000000000], "
                f"got {self.active_size!r}"
            )
        if self.retirement not in RETIREMENTS:
            raise ValueError(
                f"retirement must be one of {RETIREMENTS}, got {self.retirement!r}")
        if self.retirement == "alc" and self.leaf == "class":
            raise ValueError("retirement='alc' is for regression; use 'entropy'")
        if self.retirement == "entropy" and self.leaf != "class":
            raise ValueError("retirement='entropy' is for classification; use 'alc'")
        check_lam(self.lam)
        if self.active_size is not None and self.leaf == "linear" \
                and self.intercept == "implicit":
            raise ValueError("active_size needs intercept='augmented' or 'none' "
                             "(retirement of an implicit-intercept linear leaf, [DT-SPEC §6.1])")
        if not isinstance(self.approx, bool):
            raise ValueError(f"approx must be a bool, got {self.approx!r}")
        if self.rect is not None:
            for pair in self.rect:
                if len(pair) != 2 or not all(_is_real(v) and math.isfinite(v)
                                             for v in pair) or not pair[0] <= pair[1]:
                    raise ValueError("rect must be None or a sequence of (low, high) pairs "
                                     f"of finite reals with low <= high, got {self.rect!r}")

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

    def kappa(self) -> float:
        """``kappa`` of the slope prior (§3.7), 0.0 for the flat prior."""
        return 0.0 if self.slope_prior is None else float(self.slope_prior)

    def delta(self) -> int:
        """``delta``: 1 for the implicit intercept (constant, class, implicit linear)."""
        return 1 if self.intercept == "implicit" else 0


def check_lam(lam: object) -> float:
    """``lam`` as a float; ``ValueError`` unless ``0 < lam <= 1`` (power prior, §3.5)."""
    if not _is_real(lam) or not 0.0 < float(lam) <= 1.0:  # type: ignore[arg-type]
        raise ValueError(f"lam must be a real number in (0, 1], got {lam!r}")
    return float(lam)  # type: ignore[arg-type]


def normalise_rect(rect: object) -> tuple[tuple[float, float], ...] | None:
    """``rect`` as a tuple of float pairs (``ValueError`` if it is not a sequence of pairs)."""
    if rect is None:
        return None
    try:
        out = tuple((float(lo), float(hi)) for lo, hi in rect)  # type: ignore[attr-defined]
    except (TypeError, ValueError) as exc:
        raise ValueError("rect must be None or a sequence of (low, high) pairs of finite "
                         f"reals with low <= high, got {rect!r}") from exc
    for lo, hi in out:
        if not (math.isfinite(lo) and math.isfinite(hi) and lo <= hi):
            raise ValueError("rect must be None or a sequence of (low, high) pairs of "
                             f"finite reals with low <= high, got {rect!r}")
        if not math.isfinite(hi - lo):
            # the ALC divides by the box's widths: beyond 1.8e308 they are inf, ALC nan
            raise ValueError("rect must have widths high - low below 1.8e308 (the largest "
                             f"float), got ({lo!r}, {hi!r})")
    return out

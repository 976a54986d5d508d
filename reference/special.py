"""Special functions, written once in Python and once in C with identical operations.

``math.lgamma`` is CPython's own code and differs from the C library's ``lgamma`` in the
last bits, so both backends use the log-gamma below; the Student-t functions and the
regularised incomplete beta are built on it. Each function has exactly one algorithm,
with a fixed tolerance and iteration cap, and ``csrc/common/special.c`` repeats it operation by
operation (``special_<name>``). ``math.exp``, ``math.log``, ``math.log1p``,
``math.sqrt``, ``math.tan`` and ``math.atan`` match the C library and are used freely.

Where Python raises but C returns an IEEE special value (``math.exp`` overflow,
``math.log(0)``), the guards :func:`exp_or_inf` and :func:`log_or_neg_inf` give both
backends the C outcome.

Notation
--------
``a, b``   shape parameters of the incomplete beta, both > 0.
``df``     degrees of freedom ν > 0 of the Student-t distribution.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

LANCZOS_G = 7.0
"""g of the Lanczos approximation [Lan64] with Godfrey's nine coefficients."""

LANCZOS_COEF = (
    0.99999999999980993,
    676.5203681218851,
    -1259.1392167224028,
    771.32342877765313,
    -176.61502916214059,
    12.507343278686905,
    -0.13857109526572012,
    9.9843695780195716e-6,
    1.5056327351493116e-7,
)
"""Godfrey's coefficients c0..c8 for g = 7 (published values; relative error ~1e-15)."""

HALF_LOG_2PI = 0.91893853320467274178
"""log(2π)/2."""

BETAINC_EPS = 1e-15
"""Relative tolerance of the continued fraction in :func:`betainc`."""

BETAINC_MAXIT = 10000
"""Iteration cap of the continued fraction (converges in O(sqrt(max(a, b))) steps)."""

BETAINC_TINY = 1e-300
"""Floor that keeps Lentz's denominators away from zero."""

PPF_MAXIT = 200
"""Iteration cap of the safeguarded Newton search in :func:`student_t_ppf`."""

PPF_RTOL = 1e-15
"""Relative step size at which :func:`student_t_ppf` stops."""


def exp_or_inf(x: float) -> float:
    """``exp(x)``, returning ``inf`` on overflow as C does (Python raises).

    Examples
    --------
    >>> exp_or_inf(1000.0)
    inf
    """
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def log_or_neg_inf(x: float) -> float:
    """``log(x)``, returning ``-inf`` at 0 and NaN below 0 as C does (Python raises).

    Examples
    --------
    >>> log_or_neg_inf(0.0)
    -inf
    """
    if x == 0.0:
        return -math.inf
    if x < 0.0:
        return math.nan
    return math.log(x)


def lgamma(x: float) -> float:
    """log Γ(x) for x > 0, by the Lanczos approximation [Lan64].

    For x >= 0.5, with z = x - 1 and t = z + g + 0.5,
    ``log Γ(x) = log(2π)/2 + (z + 0.5) log t - t + log A(z)``,
    ``A(z) = c0 + Σ_{k=1..8} c_k / (z + k)`` summed for k = 1, ..., 8 in order.
    For 0 < x < 0.5 the recurrence ``log Γ(x) = log Γ(x + 1) - log x`` is used.
    Returns ``inf`` for x <= 0 (the poles and the negative axis are outside our domain)
    and NaN for NaN.

    Examples
    --------
    >>> round(lgamma(10.0), 12)      # log(9!) = log(362880)
    12.801827480081
    """
    if x != x:
        return math.nan
    if x <= 0.0:
        return math.inf
    if x == math.inf:
        return math.inf
    shift = 0.0
    if x < 0.5:
        shift = math.log(x)
        x = x + 1.0
    z = x - 1.0
    a = LANCZOS_COEF[0]
    for k in range(1, 9):
        a += LANCZOS_COEF[k] / (z + k)
    t = z + LANCZOS_G + 0.5
    return HALF_LOG_2PI + (z + 0.5) * math.log(t) - t + math.log(a) - shift


def _stirling_correction(x: float) -> float:
    """δ(x) = log Γ(x) - [(x - 1/2) log x - x + log(2π)/2] for x >= 30 [AS72, 6.1.41].

    ``δ(x) = 1/(12x) - 1/(360x³) + 1/(1260x⁵) - 1/(1680x⁷)``, truncation error below
    1/(1188 x⁹) < 5e-17 at x = 30; evaluated in Horner form in 1/x².
    """
    ix = 1.0 / x
    ix2 = ix * ix
    return ix * (1.0 / 12.0 - ix2 * (1.0 / 360.0 - ix2 * (1.0 / 1260.0 - ix2 / 1680.0)))


def log_beta(a: float, b: float) -> float:
    """log B(a, b) = log Γ(a) + log Γ(b) - log Γ(a + b), a, b > 0.

    With ``s = min(a, b)`` and ``g = max(a, b)``: when ``g < 30`` the three log-gammas
    are combined directly. Otherwise the large terms are cancelled analytically,
    ``log Γ(g) - log Γ(g+s) = -(g - 1/2) log1p(s/g) - s log(g+s) + s + δ(g) - δ(g+s)``,
    so no digits are lost to the difference of two numbers of size g log g.
    """
    s = a if a < b else b
    g = b if a < b else a
    if g < 30.0:
        return lgamma(a) + lgamma(b) - lgamma(a + b)
    gs = g + s
    corr = _stirling_correction(g) - _stirling_correction(gs)
    return lgamma(s) + (-(g - 0.5) * math.log1p(s / g) - s * math.log(gs) + s + corr)


def log_sum_exp(values: Sequence[float]) -> float:
    """log Σ_i exp(v_i), stably: ``m + log Σ_i exp(v_i - m)`` with m = max v_i.

    Terms are added in index order. An empty sequence or all ``-inf`` gives ``-inf``;
    any ``+inf`` gives ``+inf``; NaN propagates.

    Examples
    --------
    >>> round(log_sum_exp([1000.0, 1000.0]), 6)       # 1000 + log 2, no overflow
    1000.693147
    """
    m = -math.inf
    for v in values:
        if v != v:
            return math.nan
        if v > m:
            m = v
    if m == -math.inf or m == math.inf:
        return m
    s = 0.0
    for v in values:
        s += math.exp(v - m)
    return m + math.log(s)


def student_t_logpdf(x: float, df: float) -> float:
    """log density of the standard Student-t with ``df`` degrees of freedom.

    ``log t_ν(x) = -log B(ν/2, 1/2) - log(ν)/2 - (ν+1)/2 · log1p(x²/ν)``, which equals
    the textbook ``lgamma((ν+1)/2) - lgamma(ν/2) - log(νπ)/2 - ...`` but, through
    :func:`log_beta`, keeps full precision when ν is large. Location-scale forms are the
    caller's: ``student_t_logpdf((y - μ)/σ, ν) - log σ``.

    Examples
    --------
    >>> round(student_t_logpdf(0.0, 1.0), 12)     # Cauchy: -log π
    -1.144729885849
    """
    return -log_beta(0.5 * df, 0.5) - 0.5 * math.log(df) - 0.5 * (df + 1.0) * math.log1p(
        x * x / df
    )


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of I_x(a, b) by the modified Lentz method [Lentz76].

    Evaluates ``1/(1+ d1/(1+ d2/(1+ ...)))`` with
    ``d_{2m} = m(b-m)x / ((a+2m-1)(a+2m))`` and
    ``d_{2m+1} = -(a+m)(a+b+m)x / ((a+2m)(a+2m+1))``, stopping when a full step
    changes the value by a relative amount below ``BETAINC_EPS`` or after
    ``BETAINC_MAXIT`` steps.
    """
    qab = a + b
    qap = a + 1.0
    qam = a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    if abs(d) < BETAINC_TINY:
        d = BETAINC_TINY
    d = 1.0 / d
    h = d
    for m in range(1, BETAINC_MAXIT + 1):
        fm = float(m)
        m2 = 2.0 * fm
        aa = fm * (b - fm) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        if abs(d) < BETAINC_TINY:
            d = BETAINC_TINY
        c = 1.0 + aa / c
        if abs(c) < BETAINC_TINY:
            c = BETAINC_TINY
        d = 1.0 / d
        h *= d * c
        aa = -(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        if abs(d) < BETAINC_TINY:
            d = BETAINC_TINY
        c = 1.0 + aa / c
        if abs(c) < BETAINC_TINY:
            c = BETAINC_TINY
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < BETAINC_EPS:
            break
    return h


def betainc_xy(a: float, b: float, x: float, y: float) -> float:
    """I_x(a, b) given both ``x`` and ``y = 1 - x``, each to full relative precision.

    ``I_x(a, b) = x^a y^b / (a B(a, b)) · CF(a, b, x)`` with the continued fraction
    of :func:`_betacf`, used directly when ``x < (a+1)/(a+b+2)`` and through the
    symmetry ``I_x(a, b) = 1 - I_y(b, a)`` otherwise, so that it converges fast.
    Passing ``y`` separately keeps the tail accurate when ``x`` is within rounding of 1
    (the Student-t CDF needs this). ``log x`` is taken as ``log1p(-y)`` when ``y < 1/2``,
    and likewise ``log y``. Returns 0 for x <= 0, 1 for y <= 0, NaN for NaN or
    non-positive a, b.
    """
    if a != a or b != b or x != x or y != y or a <= 0.0 or b <= 0.0:
        return math.nan
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    log_x = math.log1p(-y) if y < 0.5 else math.log(x)
    log_y = math.log1p(-x) if x < 0.5 else math.log(y)
    log_front = a * log_x + b * log_y - log_beta(a, b)
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, y) / b


def betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta I_x(a, b) = B(x; a, b) / B(a, b), a, b > 0.

    :func:`betainc_xy` with ``y = 1 - x``; the front factor uses :func:`log_beta`.

    Examples
    --------
    >>> round(betainc(2.0, 3.0, 0.4), 12)     # 1 - 0.6^4 - 4·0.4·0.6^3
    0.5248
    """
    return betainc_xy(a, b, x, 1.0 - x)


def student_t_cdf(x: float, df: float) -> float:
    """CDF of the standard Student-t, T_ν(x), through the incomplete beta.

    The lower tail mass beyond ``|x|`` is ``I_w(ν/2, 1/2) / 2`` with ``w = ν/(ν+x²)``,
    ``1 - w = x²/(ν+x²)`` both passed to :func:`betainc_xy`; then
    ``T(x) = tail`` for x < 0 and ``1 - tail`` for x >= 0.

    Examples
    --------
    >>> round(student_t_cdf(1.0, 1.0), 12)      # Cauchy: 1/2 + atan(1)/π
    0.75
    """
    if x != x or df != df or df <= 0.0:
        return math.nan
    if x == math.inf:
        return 1.0
    if x == -math.inf:
        return 0.0
    x2 = x * x
    den = df + x2
    tail = 0.5 * betainc_xy(0.5 * df, 0.5, df / den, x2 / den)
    return tail if x < 0.0 else 1.0 - tail


def _normal_tail_guess(q: float) -> float:
    """Rough z with Φ(-z) = q for 0 < q <= 1/2 [AS72, 26.2.23], |error| < 4.5e-4."""
    t = math.sqrt(-2.0 * math.log(q))
    num = 2.515517 + t * (0.802853 + t * 0.010328)
    den = 1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308))
    return t - num / den


def student_t_ppf(p: float, df: float) -> float:
    """Quantile T_ν^{-1}(p) of the standard Student-t.

    By symmetry only q = min(p, 1 - p) is solved, for a negative root ``x``. The start
    is the Cornish-Fisher correction of a normal quantile,
    ``x0 = -(z + (z³ + z)/(4ν))`` (at most -1e-3); then a bracket ``[lo, hi]`` with
    ``T(lo) <= q <= T(hi)`` is found by doubling, and Newton steps
    ``x -= (T(x) - q) / t_ν(x)`` are taken, replaced by bisection whenever they leave
    the bracket or the density underflows to 0, until a step is below
    ``PPF_RTOL · |x|`` or ``PPF_MAXIT`` steps have run. Returns ±inf at p = 1, 0.

    Examples
    --------
    >>> round(student_t_ppf(0.75, 1.0), 12)     # Cauchy: tan(π/4)
    1.0
    """
    if p != p or df != df or df <= 0.0 or p < 0.0 or p > 1.0:
        return math.nan
    if p == 0.0:
        return -math.inf
    if p == 1.0:
        return math.inf
    if p == 0.5:
        return 0.0
    q = p if p < 0.5 else 1.0 - p
    z = _normal_tail_guess(q)
    x = -(z + (z * z * z + z) / (4.0 * df))
    if not x < -1e-3:
        x = -1e-3
    lo = x
    while student_t_cdf(lo, df) > q:
        lo = 2.0 * lo
    hi = x
    while student_t_cdf(hi, df) < q:
        hi = 0.5 * hi
    for _ in range(PPF_MAXIT):
        f = student_t_cdf(x, df) - q
        if f == 0.0:
            break
        if f < 0.0:
            lo = x
        else:
            hi = x
        density = math.exp(student_t_logpdf(x, df))
        x_new = x - f / density if density > 0.0 else 0.5 * (lo + hi)
        if not lo < x_new < hi:
            x_new = 0.5 * (lo + hi)
        if abs(x_new - x) <= PPF_RTOL * abs(x_new):
            x = x_new
            break
        x = x_new
    return x if p < 0.5 else -x

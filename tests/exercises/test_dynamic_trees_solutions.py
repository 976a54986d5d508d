"""Independent solutions of the dynamic-tree exercises pass the checker's two routes.

Each solution below is written from the papers and the specification [TGP11; AG13;
DT-SPEC], not by calling :mod:`reference.dynatree`, and where possible by another route
than the reference: the tree prior as a logarithm of a product, the class evidence as a
Pólya urn (a product of sequential predictive probabilities, no log-gamma), the move
probabilities through a log-sum-exp, the pooled sum of squares as the total sum of squares
of the union of active and retired points, the ALC integral in the tutorial's expanded
form with numpy. The checker must accept each (cases and stream); the first registered
mistake of each exercise must make the plugged reference model diverge from the ``fast``
model on the exercise's stream; plugging must leave the ``fast`` model untouched.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from reference.exercises import get
from reference.exercises.catalog import Stream
from reference.exercises.checker import plugged
from reference.exercises.dynamic_trees import EXERCISES
from tests.exercises._routes import (
    assert_first_mistake_is_named_and_diverges,
    assert_solution_passes,
)

# ---------------------------------------------------------------------------------------
# Independent solutions
# ---------------------------------------------------------------------------------------


def log_split_prob(depth: int, alpha: float, beta: float) -> float:
    """[AG13, §2.1]: the logarithm of alpha (1 + d)^-beta, taken of the product."""
    return math.log(alpha * (1.0 + depth) ** -beta)


def _centred_ss(n: int, sy: float, syy: float) -> float:
    return syy - sy * sy / n if n > 0 else 0.0


def constant_log_evidence(n: int, sy: float, syy: float, nu0: float, s20: float) -> float:
    """[DT-SPEC §3.1]: normal-inverse-gamma evidence with dynaTree's log(2/pi) constant."""
    prior_ss = nu0 * s20
    q = _centred_ss(n, sy, syy) + prior_ss
    df = nu0 + n - 1
    if q <= 0.0 or df <= 0.0:
        return -math.inf
    terms = [
        (1 - n) / 2 * math.log(2 / math.pi),
        -math.log(n) / 2 if n > 0 else 0.0,
        math.lgamma(df / 2) - df / 2 * math.log(q / 2),
    ]
    if nu0 > 0.0 and prior_ss > 0.0:
        terms.append(nu0 / 2 * math.log(prior_ss / 2) - math.lgamma(nu0 / 2))
    return math.fsum(terms)


def constant_predictive(n: int, sy: float, syy: float, nu0: float,
                        s20: float) -> tuple[float, float, float]:
    """[DT-SPEC §3.1]: the Student-t predictive ``t_df(ybar, sqrt(Q/df (1 + 1/n)))``."""
    location = sy / n if n > 0 else 0.0
    q = _centred_ss(n, sy, syy) + nu0 * s20
    df = nu0 + n - 1.0
    if q <= 0.0 or df <= 0.0:
        return location, math.inf, df
    inflation = 1.0 + 1.0 / n if n > 0 else 1.0
    return location, math.sqrt(q / df * inflation), df


def class_log_evidence(counts: list[int]) -> float:
    """[DT-SPEC §3.3] as a Pólya urn: the labels arrive class by class, each with its
    sequential predictive probability ``(c_k so far + 1/C) / (labels so far + 1)``."""
    a = 1.0 / len(counts)
    numerator = [math.log(j + a) for c in counts for j in range(c)]
    denominator = [math.log(i + 1.0) for i in range(sum(counts))]
    return math.fsum(numerator) - math.fsum(denominator)


def move_probabilities(l_stay: float, l_prune: float,
                       l_grow: float) -> tuple[float, float, float]:
    """[DT-SPEC §4.4]: ``p_k = exp(L_k - logsumexp(L))`` over the finite scores."""
    if not (math.isfinite(l_prune) or math.isfinite(l_grow)):
        return 1.0, 0.0, 0.0
    scores = (l_stay, l_prune, l_grow)
    finite = [s for s in scores if math.isfinite(s)]
    top = max(finite)
    lse = top + math.log(math.fsum(math.exp(s - top) for s in finite))
    p = [math.exp(s - lse) if math.isfinite(s) else 0.0 for s in scores]
    return p[0], p[1], p[2]


def residual_resample(weights: list[float], uniforms: list[float]) -> list[int]:
    """[DT-SPEC §5.2] item 4 with ``bisect``: the first ``j`` with ``u < c_j``."""
    n = len(weights)
    expected = [n * w for w in weights]
    copies = [math.floor(e) for e in expected]
    out = [i for i, k in enumerate(copies) for _ in range(k)]
    rest = n - len(out)
    if rest == 0:
        return out
    cumulative = list(itertools.accumulate((e - k) / rest for e, k in zip(expected, copies,
                                                                            strict=True)))
    cumulative[-1] = 1.0
    out.extend(bisect.bisect_right(cumulative, u) for u in uniforms[:rest])
    return out


def pooled_summary(n: int, sy: float, syy: float, nu: float, syg: float, syyg: float,
                   nu0: float, s20: float) -> tuple[float, float, float, float]:
    """[AG13, §3.1]: Q is the sum of squares of the union of active and retired points
    (plus the baseline prior's), computed from the pooled totals."""
    total = n + nu
    df = nu0 + nu + n - 1.0
    if nu == 0.0:
        q_prior = nu0 * s20 + syyg
        mean = sy / n if n > 0 else 0.0
        return mean, _centred_ss(n, sy, syy) + q_prior, q_prior, df
    mean = (sy + syg) / total
    q = (syy + syyg) - (sy + syg) ** 2 / total + nu0 * s20
    return mean, q, q - _centred_ss(n, sy, syy), df


def retire_constant(n: int, sy: float, syy: float, nu: float, syg: float, syyg: float,
                    y: float) -> tuple[int, float, float, float, float, float]:
    """[DT-SPEC §3.5]: the point's contribution moves from the active to the retired sums."""
    active = {"n": n - 1, "sy": sy - y, "syy": syy - y * y}
    if active["n"] == 0:
        active["sy"] = active["syy"] = 0.0
    return active["n"], active["sy"], active["syy"], nu + 1.0, syg + y, syyg + y**2


def absorb_retired(nu: float, syg: float, syyg: float, y: float,
                   lam: float) -> tuple[float, float, float]:
    """[AG13, §5]: power prior, every retired statistic times lam, then the retiree."""
    old = (nu, syg, syyg)
    new = (1.0, y, y**2)
    out = [lam * o + e for o, e in zip(old, new, strict=True)]
    return out[0], out[1], out[2]


def leaf_alc(q: float, df: float, n_total: float, delta: int, ginv: list[list[float]],
             xbar: list[float], z: list[float], lo: list[float], hi: list[float],
             approx: bool) -> float:
    """[AG13, §4], [DT-SPEC §7.4] in the tutorial's expanded form
    ``A [c'^2 + 2 c' sum v_i M1_i + sum v_i^2 M2_i + 2 sum_{j<i} v_i v_j M1_i M1_j]``."""
    if not (q > 0.0 and df > 2.0):
        return 0.0
    c = delta / n_total if n_total > 0.0 else 0.0
    m = len(lo)
    v = np.zeros(m)
    shift = np.zeros(m)
    h = c
    if z:
        u = np.array(z) - np.array(xbar)
        vp = np.array(ginv) @ u
        h += float(u @ vp)
        v[: len(z)] = vp
        shift[: len(z)] = xbar
    a = np.array(lo, dtype=float) - shift
    b = np.array(hi, dtype=float) - shift
    degenerate = (b - a) <= 2.220446049250313e-16
    if z:
        c_point = c + float(np.sum(v[degenerate] * b[degenerate]))
        area = float(np.prod((b - a)[~degenerate]))
    else:
        c_point = c
        area = 0.0 if degenerate.any() else float(np.prod(b - a))
    if approx:
        area = n_total
    reg = ~degenerate
    m1 = (a[reg] + b[reg]) / 2.0
    m2 = (a[reg] ** 2 + a[reg] * b[reg] + b[reg] ** 2) / 3.0
    vr = v[reg]
    square = c_point**2 + 2.0 * c_point * float(vr @ m1) + float(vr**2 @ m2)
    cross = float((vr * m1).sum() ** 2 - ((vr * m1) ** 2).sum())   # 2 sum_{j<i}
    return q * area * (square + cross) / ((df - 2.0) * (1.0 + h))


def log_leaf_prob(depth: int, alpha: float, beta: float) -> float:
    """[AG13, §2.1]: ``log1p(-p_split(d))``, the complement's logarithm without rounding
    ``1 - p``."""
    return math.log1p(-alpha / (1.0 + depth) ** beta)


def class_probability(counts: list[int], retired: list[float], nu: float, k: int) -> float:
    """[DT-SPEC §3.3]: the mean of the posterior Dirichlet(c + a + 1/C)."""
    concentration = [c + a + 1.0 / len(counts) for c, a in zip(counts, retired, strict=True)]
    return concentration[k] / (sum(counts) + nu + 1.0)


def leaf_entropy(counts: list[int], retired: list[float], nu: float) -> float:
    """[DT-SPEC §7.5]: the Shannon entropy (nats) of the predictive, with numpy."""
    c = len(counts)
    p = (np.array(counts, dtype=float) + np.array(retired) + 1.0 / c) / (sum(counts) + nu + 1.0)
    return float(-(p * np.log(p)).sum())


def absorb_retired_linear(nu: float, syyg: float, gram: list[list[float]], xty: list[float],
                          z: list[float], y: float, lam: float
                          ) -> tuple[float, float, list[list[float]], list[float]]:
    """[AG13, §5]: the power prior of a linear leaf, with numpy outer products."""
    zv = np.array(z, dtype=float)
    g = lam * np.array(gram, dtype=float).reshape(len(z), len(z)) + np.outer(zv, zv)
    b = lam * np.array(xty, dtype=float) + zv * y
    return lam * nu + 1.0, lam * syyg + y * y, g.tolist(), b.tolist()


def child_retired_share(n_child: int, n_parent: int, nu: float, syg: float,
                        syyg: float) -> tuple[float, float, float]:
    """[AG13, §3.2]: the child's fraction of the active points, times each retired sum."""
    return tuple(n_child * v / n_parent for v in (nu, syg, syyg))  # type: ignore[return-value]


def absorb_retired_class(nu: float, retired: list[float], label: int,
                         lam: float) -> tuple[float, list[float]]:
    """[AG13, §5]: discounted pseudo-counts plus the retiree's one-hot vector."""
    one_hot = [1.0 if k == label else 0.0 for k in range(len(retired))]
    return lam * nu + 1.0, [lam * a + e for a, e in zip(retired, one_hot, strict=True)]


SOLUTIONS: dict[str, Callable[..., Any]] = {
    "dt-forgetting-class": absorb_retired_class,
    "dt-retired-share": child_retired_share,
    "dt-leaf-prob": log_leaf_prob,
    "dt-class-probability": class_probability,
    "dt-leaf-entropy": leaf_entropy,
    "dt-forgetting-linear": absorb_retired_linear,
    "dt-split-prob": log_split_prob,
    "dt-constant-evidence": constant_log_evidence,
    "dt-constant-predictive": constant_predictive,
    "dt-class-evidence": class_log_evidence,
    "dt-move-probabilities": move_probabilities,
    "dt-residual-resample": residual_resample,
    "dt-retired-summary": pooled_summary,
    "dt-retire-point": retire_constant,
    "dt-forgetting": absorb_retired,
    "dt-leaf-alc": leaf_alc,
}

NAMES = [ex.name for ex in EXERCISES]


def test_every_dynamic_tree_exercise_has_an_independent_solution() -> None:
    assert sorted(SOLUTIONS) == sorted(NAMES)
    assert len(NAMES) >= 8


@pytest.mark.parametrize("name", NAMES)
def test_independent_solution_passes_the_cases_and_the_stream(name: str) -> None:
    assert_solution_passes(get(name), SOLUTIONS[name])


@pytest.mark.parametrize("name", NAMES)
def test_first_mistake_makes_the_plugged_model_diverge_from_fast(name: str) -> None:
    assert_first_mistake_is_named_and_diverges(get(name))


def _fast_snapshot(stream: Stream) -> dict[str, Any]:
    import fast

    X, y = stream.data()
    model = getattr(fast, stream.model)(**dict(stream.params))
    for row, target in zip(X, y, strict=True):
        model.learn_one(row, target)
    return model.snapshot()  # type: ignore[no-any-return]


def test_plugging_a_wrong_function_leaves_the_fast_model_unchanged() -> None:
    for exercise in EXERCISES:
        assert exercise.stream is not None
        before = _fast_snapshot(exercise.stream)
        with plugged(exercise.plugs, exercise.mistakes[0].function):
            during = _fast_snapshot(exercise.stream)
        assert during == before, exercise.name

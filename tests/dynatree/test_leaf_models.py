"""Leaf models, tree prior and resampling: hand-computed values and exact identities."""

from __future__ import annotations

import math

import pytest

from reference.dynatree import leaf_models as lm
from reference.dynatree.moves import choose_move
from reference.dynatree.particles import residual_resample
from reference.dynatree.tree import log_leaf_prob, log_split_prob
from reference.rng import Rng
from reference.special import lgamma, student_t_logpdf

CONST = lm.LeafConfig(kind=lm.CONSTANT, p=0, augmented=False, delta=1, n_classes=0,
                      nu0=0.0, s20=0.0)


def linear_cfg(p: int, intercept: str) -> lm.LeafConfig:
    return lm.LeafConfig(kind=lm.LINEAR, p=p + (intercept == "augmented"),
                         augmented=intercept == "augmented",
                         delta=1 if intercept == "implicit" else 0, n_classes=0,
                         nu0=0.0, s20=0.0)


def class_cfg(c: int) -> lm.LeafConfig:
    return lm.LeafConfig(kind=lm.CLASS, p=0, augmented=False, delta=1, n_classes=c,
                         nu0=0.0, s20=0.0)


def leaf(cfg: lm.LeafConfig, X: list[list[float]], y: list[float]) -> lm.LeafStats:
    return lm.stats_from_points(cfg, list(range(len(y))), X, y)


def test_constant_leaf_by_hand() -> None:
    """y = (1, 2, 4): n = 3, ybar = 7/3, Q = 14/3, df = 2 ([DT-SPEC §3.1], computed by hand)."""
    X = [[0.0], [0.0], [0.0]]
    st = leaf(CONST, X, [1.0, 2.0, 4.0])
    mu0, q, qp, df, dm = lm.regression_summary(st, CONST)
    assert (df, dm, qp) == (2.0, 1.0, 0.0)
    assert mu0 == pytest.approx(7.0 / 3.0, rel=1e-15)
    assert q == pytest.approx(14.0 / 3.0, rel=1e-14)
    # ell = -(3-1)/2 log(2/pi) - log(3)/2 - (2/2) log(Q/2) + lgamma(1)
    expected = -math.log(2.0 / math.pi) - 0.5 * math.log(3.0) - math.log(7.0 / 3.0)
    assert st.log_evidence == pytest.approx(expected, rel=1e-14)
    loc, scale, df2, proper = lm.regression_predictive(st, CONST, [0.0])
    assert proper and df2 == 2.0
    assert scale == pytest.approx(math.sqrt(28.0) / 3.0, rel=1e-14)  # Q (1 + 1/3) / 2
    assert loc == pytest.approx(7.0 / 3.0, rel=1e-15)


def test_tree_prior_by_hand() -> None:
    """A root split with two leaves: log 0.95 + 2 log(1 - 0.95/4) ([DT-SPEC §2])."""
    score = log_split_prob(0, 0.95, 2.0) + 2.0 * log_leaf_prob(1, 0.95, 2.0)
    assert score == pytest.approx(math.log(0.95) + 2.0 * math.log(1.0 - 0.2375), rel=1e-15)
    assert log_leaf_prob(0, 0.95, 2.0) == pytest.approx(math.log(0.05), rel=1e-14)


def test_degenerate_leaves_have_no_evidence() -> None:
    """Q <= 0 (equal responses) or df <= 0 gives ell = -inf and an improper predictive."""
    st = leaf(CONST, [[0.0]] * 3, [2.0, 2.0, 2.0])
    assert st.log_evidence == -math.inf
    assert lm.regression_density(st, CONST, [0.0], 2.0) == (0.0, False)
    single = leaf(CONST, [[0.0]], [5.0])
    assert single.log_evidence == -math.inf


@pytest.mark.parametrize("seed", range(5))
def test_constant_predictive_is_ratio_of_evidences(seed: int) -> None:
    """exp(ell(y_1..n+1) - ell(y_1..n)) = pi * p(y_n+1 | y_1..n) (Appendix A item 3).

    The factor pi per observation is dynaTree's log(2/pi) constant ([DT-SPEC §3.1]).
    """
    r = Rng(seed)
    y = [r.uniform() * 3.0 for _ in range(12)]
    X = [[0.0]] * 12
    for n in range(3, 11):
        before = leaf(CONST, X[:n], y[:n])
        after = leaf(CONST, X[:n + 1], y[:n + 1])
        dens, proper = lm.regression_density(before, CONST, [0.0], y[n])
        assert proper
        ratio = math.exp(after.log_evidence - before.log_evidence)
        assert ratio == pytest.approx(math.pi * dens, rel=1e-10)


@pytest.mark.parametrize("intercept", ["implicit", "augmented", "none"])
@pytest.mark.parametrize("seed", range(3))
def test_linear_predictive_is_ratio_of_evidences(intercept: str, seed: int) -> None:
    """Same identity for linear leaves whenever the Gram matrix is regular (§3.2)."""
    r = Rng(seed + 50)
    X = [[r.uniform(), r.uniform()] for _ in range(16)]
    y = [1.0 + 2.0 * x[0] - x[1] + 0.3 * r.uniform() for x in X]
    cfg = linear_cfg(2, intercept)
    for n in range(8, 15):
        before = leaf(cfg, X[:n], y[:n])
        after = leaf(cfg, X[:n + 1], y[:n + 1])
        assert before.bb > 0.0 and after.bb > 0.0
        dens, proper = lm.regression_density(before, cfg, X[n], y[n])
        assert proper
        ratio = math.exp(after.log_evidence - before.log_evidence)
        assert ratio == pytest.approx(math.pi * dens, rel=1e-8)


def test_implicit_and_augmented_agree() -> None:
    """|G_aug| = n |G_c|: implicit and augmented leaves have the same evidence (§3.2)."""
    r = Rng(7)
    X = [[r.uniform(), r.uniform()] for _ in range(10)]
    y = [x[0] - 2.0 * x[1] + 0.1 * r.uniform() for x in X]
    a = leaf(linear_cfg(2, "implicit"), X, y)
    b = leaf(linear_cfg(2, "augmented"), X, y)
    assert a.log_evidence == pytest.approx(b.log_evidence, rel=1e-10)
    pa = lm.regression_predictive(a, linear_cfg(2, "implicit"), [0.3, 0.6])
    pb = lm.regression_predictive(b, linear_cfg(2, "augmented"), [0.3, 0.6])
    assert pa[0] == pytest.approx(pb[0], rel=1e-10)
    assert pa[1] == pytest.approx(pb[1], rel=1e-10)


def test_collinear_column_is_dropped() -> None:
    """A column that is twice the first is dropped: the leaf is the one-column leaf (§3.2).

    With nothing to fit (all-zero regressors, no intercept) the leaf is the zero-mean leaf.
    """
    X = [[float(i), 2.0 * float(i)] for i in range(6)]
    y = [1.0, 3.0, 2.0, 5.0, 4.0, 6.0]
    for intercept in ("implicit", "augmented", "none"):
        cfg2, cfg1 = linear_cfg(2, intercept), linear_cfg(1, intercept)
        two = leaf(cfg2, X, y)
        one = leaf(cfg1, [[r[0]] for r in X], y)
        assert two.ginv[-1] == 0.0 and two.beta[-1] == 0.0  # the dropped column
        assert two.bb == pytest.approx(one.bb, rel=1e-12)
        assert two.log_evidence == pytest.approx(one.log_evidence, rel=1e-12)
        assert lm.regression_summary(two, cfg2)[4] == lm.regression_summary(one, cfg1)[4]
        for a, b in zip(lm.regression_predictive(two, cfg2, [2.5, 5.0]),
                        lm.regression_predictive(one, cfg1, [2.5]), strict=True):
            assert a == pytest.approx(b, rel=1e-12)
    none = leaf(linear_cfg(2, "none"), [[0.0, 0.0]] * 6, y)
    _, q, _, df, dm = lm.regression_summary(none, linear_cfg(2, "none"))
    assert dm == 0.0 and df == 6.0
    assert q == pytest.approx(sum(v * v for v in y), rel=1e-15)
    assert none.G == [0.0] * 4  # stored sums are never destroyed (here they are zero)


def test_class_evidence_is_product_of_predictives() -> None:
    """Dirichlet(1/C) evidence = product of sequential predictives (Appendix A item 4)."""
    cfg = class_cfg(3)
    labels = [0, 2, 2, 1, 0, 2, 2, 2]
    total = 0.0
    for n in range(len(labels)):
        before = leaf(cfg, [[0.0]] * n, [float(v) for v in labels[:n]])
        total += math.log(lm.class_probability(before, cfg, labels[n]))
        after = leaf(cfg, [[0.0]] * (n + 1), [float(v) for v in labels[:n + 1]])
        assert after.log_evidence == pytest.approx(total, rel=1e-12, abs=1e-12)
    # by hand for one point: p = (0 + 1/3) / 1
    one = leaf(cfg, [[0.0]], [1.0])
    assert one.log_evidence == pytest.approx(math.log(1.0 / 3.0), rel=1e-12)
    assert lgamma(1.0) == 0.0


class FixedUniforms:
    """A stand-in generator returning given uniforms (for hand-computed draws)."""

    def __init__(self, values: list[float]) -> None:
        self.values = list(values)

    def uniform(self) -> float:
        return self.values.pop(0)


def test_residual_resampling_by_hand() -> None:
    """w = (1/2, 1/4, 1/4), N = 3: E = (1.5, .75, .75), one copy of 0, then R = 2 draws
    from r = (.25, .375, .375) with cumulative (.25, .625, 1)."""
    rng = FixedUniforms([0.1, 0.7])
    assert residual_resample([0.5, 0.25, 0.25], rng) == [0, 0, 2]  # type: ignore[arg-type]
    assert not rng.values
    rng = FixedUniforms([0.625, 0.2499])
    assert residual_resample([0.5, 0.25, 0.25], rng) == [0, 2, 0]  # type: ignore[arg-type]
    # all integer expectations: no draw at all
    rng = FixedUniforms([])
    assert residual_resample([0.5, 0.5], rng) == [0, 1]  # type: ignore[arg-type]


def test_choose_move_draws_and_normalisation() -> None:
    """No draw when grow and prune are infeasible; log-sum-exp weights otherwise (§4.4)."""
    rng = Rng(3)
    before = rng.state
    assert choose_move(-5.0, -math.inf, -math.inf, rng) == 0
    assert rng.state == before
    # huge gaps do not force a stay (dynaTree's min-normalisation would overflow)
    assert choose_move(0.0, -math.inf, 5000.0, FixedUniforms([0.5])) == 2  # type: ignore[arg-type]
    # -inf stay with a finite grow: grow
    assert choose_move(-math.inf, -math.inf, 1.0, FixedUniforms([0.0])) == 2  # type: ignore[arg-type]
    # stay w=1, prune w=1, grow w=2 -> thresholds 1/4, 1/2
    lg = math.log(2.0)
    assert choose_move(0.0, 0.0, lg, FixedUniforms([0.2])) == 0  # type: ignore[arg-type]
    assert choose_move(0.0, 0.0, lg, FixedUniforms([0.3])) == 1  # type: ignore[arg-type]
    assert choose_move(0.0, 0.0, lg, FixedUniforms([0.6])) == 2  # type: ignore[arg-type]


def test_student_t_density_used_by_weights() -> None:
    """The weight is t_df((y - loc)/scale)/scale ([DT-SPEC §5.2])."""
    st = leaf(CONST, [[0.0]] * 4, [1.0, 2.0, 4.0, 3.0])
    loc, scale, df, _ = lm.regression_predictive(st, CONST, [0.0])
    dens, _ = lm.regression_density(st, CONST, [0.0], 0.5)
    assert dens == math.exp(student_t_logpdf((0.5 - loc) / scale, df)) / scale

"""Linear leaves on collinear designs: dropped regressors ([DT-SPEC §3.2] step 2).

A constant column, an all-zero column, a duplicated column or a full one-hot set next to the
intercept makes the Gram matrix singular. The leaf drops each regressor whose Cholesky pivot
is negligible next to the column's raw sum of squares and is the linear leaf of the kept
columns. Checked here three ways: against ``numpy.linalg`` (least squares on the kept
columns, the pseudo-inverse, the matrix rank), on whole models (no NaN, a test error within
3x the constant leaf's on Friedman-1 with the collinear columns added), and in lockstep
between the backends. A reference error in the middle of a batch leaves the model as it was
before the failing row.
"""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import reference
from _compare import assert_snapshot_equal
from reference.dynatree import leaf_models as lm
from reference.dynatree import linear_leaf

pytestmark = pytest.mark.dynatree

INTERCEPTS = ("augmented", "implicit", "none")
EXTRA = ("zero", "one", "duplicate", "one-hot")


def _friedman(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    X = rng.uniform(size=(n, 5))
    y = (10.0 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 20.0 * (X[:, 2] - 0.5) ** 2
         + 10.0 * X[:, 3] + 5.0 * X[:, 4] + rng.normal(size=n))
    return X, y


def _with(extra: str, X: np.ndarray) -> np.ndarray:
    """``X`` with the collinear column(s) of the issue's streams appended."""
    if extra == "zero":
        return np.c_[X, np.zeros(len(X))]
    if extra == "one":
        return np.c_[X, np.ones(len(X))]
    if extra == "duplicate":
        return np.c_[X, X[:, 1]]
    return np.c_[X, np.eye(3)[np.minimum((X[:, 0] * 3).astype(int), 2)]]


def _cfg(p: int, intercept: str) -> lm.LeafConfig:
    return lm.LeafConfig(kind=lm.LINEAR, p=p + (intercept == "augmented"),
                         augmented=intercept == "augmented",
                         delta=1 if intercept == "implicit" else 0, n_classes=0,
                         nu0=0.0, s20=0.0)


# ---------------------------------------------------------------------------------------
# The rule, computed by another route (numpy least squares, pseudo-inverse, rank)
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("intercept", INTERCEPTS)
@pytest.mark.parametrize("extra", EXTRA)
def test_collinear_leaf_is_the_least_squares_fit_on_independent_columns(
        intercept: str, extra: str) -> None:
    """Fitted values, ``bb``, rank, residual scale and ``h`` against numpy's routes.

    The fitted values of least squares are unique whatever the generalised inverse, so
    ``mu(x_i)`` must equal ``numpy.linalg.lstsq``'s; the degrees of freedom use the rank
    (``numpy.linalg.matrix_rank``); ``h`` at a data row equals ``z' pinv(G) z``.
    """
    rng = np.random.default_rng(3)
    X = _with(extra, rng.uniform(size=(40, 3)))
    y = 1.0 + X[:, 0] - 2.0 * X[:, 1] + 0.1 * rng.normal(size=40)
    n, d = X.shape
    cfg = _cfg(d, intercept)
    st = lm.stats_from_points(cfg, list(range(n)), X.tolist(), y.tolist())
    Z = X - X.mean(axis=0) if intercept == "implicit" else X
    if intercept == "augmented":
        Z = np.c_[np.ones(n), X]
    yc = y - y.mean() if intercept == "implicit" else y
    coef, _, rank, _ = np.linalg.lstsq(Z, yc, rcond=None)
    fitted = Z @ coef
    # singular but for a constant column or the full one-hot set without an intercept
    assert (rank < Z.shape[1]) == (intercept != "none" or extra in ("zero", "duplicate"))
    _, q, _, df, dm = lm.regression_summary(st, cfg)
    assert dm == (intercept == "implicit") + rank
    assert df == n - dm
    assert st.bb == pytest.approx(float(fitted @ fitted), rel=1e-9)
    rss = float((yc - fitted) @ (yc - fitted))
    assert q == pytest.approx(rss, rel=1e-6, abs=1e-9)
    pinv = np.linalg.pinv(Z.T @ Z)
    for i in (0, 7, 31):
        loc, scale, df_i, proper = lm.regression_predictive(st, cfg, X[i].tolist())
        assert proper and df_i == df
        shift = y.mean() if intercept == "implicit" else 0.0
        assert loc == pytest.approx(fitted[i] + shift, rel=1e-9, abs=1e-9)
        h = float(Z[i] @ pinv @ Z[i]) + (1.0 / n if intercept == "implicit" else 0.0)
        assert scale == pytest.approx(math.sqrt(q * (1.0 + h) / df), rel=1e-6)


def test_pivot_tolerance_separates_rounding_from_an_independent_column() -> None:
    """A column that differs from the first by one part in 1,000 is kept; an exact multiple,
    whose pivot is rounding noise, is dropped (the tolerance is relative to the column)."""
    rng = np.random.default_rng(0)
    x = rng.uniform(size=30)
    y = (x + 0.1 * rng.normal(size=30)).tolist()
    cfg = _cfg(2, "none")
    kept = lm.stats_from_points(cfg, list(range(30)),
                                np.c_[x, x * (1.0 + 1e-3 * rng.normal(size=30))].tolist(), y)
    dropped = lm.stats_from_points(cfg, list(range(30)), np.c_[x, 0.1 * x].tolist(), y)
    assert kept.ginv[3] > 0.0 and dropped.ginv[3] == 0.0
    assert linear_leaf.PIVOT_TOL == 1e-9


# ---------------------------------------------------------------------------------------
# Whole models: no NaN, test error near the constant leaf's, both backends alike
# ---------------------------------------------------------------------------------------

def _mse(model: Any, X: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean((model.predict(X) - y) ** 2))


@pytest.mark.parametrize("intercept", INTERCEPTS)
def test_collinear_streams_predict_within_three_times_the_constant_leaf(
        both: tuple[ModuleType, ModuleType], intercept: str) -> None:
    """The issue's streams (Friedman-1 + a collinear column, 1,000 rows, 100 particles) in
    the fast backend; the same on 150 rows in lockstep with the reference."""
    ref, fast = both
    rng = np.random.default_rng(1)
    Xtr, ytr = _friedman(1000, rng)
    Xte, yte = _friedman(400, rng)
    constant = _mse(fast.DynamicTreeRegressor(n_particles=100, seed=0).fit(Xtr, ytr),
                    Xte, yte)
    for extra in EXTRA:
        model = fast.DynamicTreeRegressor(leaf="linear", intercept=intercept,
                                          n_particles=100, seed=0)
        model.fit(_with(extra, Xtr), ytr)
        assert math.isfinite(model.log_marginal_likelihood_)
        assert np.all(np.isfinite(model.lpred_))
        mse = _mse(model, _with(extra, Xte), yte)
        assert mse < 3.0 * constant, (extra, mse, constant)
        models = [b.DynamicTreeRegressor(leaf="linear", intercept=intercept, n_particles=8,
                                         seed=2).fit(_with(extra, Xtr[:150]), ytr[:150])
                  for b in (ref, fast)]
        assert_snapshot_equal(models[0].snapshot(), models[1].snapshot())
        dists = [m.predict_dist(_with(extra, Xte[:50])) for m in models]
        for name in ("mean", "var", "q05", "q95"):
            assert np.all(np.isfinite(dists[0][name])), name
            np.testing.assert_array_equal(dists[0][name], dists[1][name])
        assert np.all(dists[0]["var"] > 0.0)


# ---------------------------------------------------------------------------------------
# A reference error mid-batch: the model as it was before the failing row
# ---------------------------------------------------------------------------------------

def test_reference_error_mid_batch_leaves_the_rows_before_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An exception raised after the PL step of row 25 has changed the trees, the data
    store and the generator: the model equals one that learned rows 0-24 only."""
    from reference.dynatree import engine as engine_module

    rng = np.random.default_rng(4)
    X, y = _friedman(40, rng)
    real = engine_module.pl_step
    calls = {"n": 0}

    def failing(*args: Any) -> Any:
        out = real(*args)
        calls["n"] += 1
        if args[1] == 25:
            raise ArithmeticError("injected after the step")
        return out

    def model() -> Any:
        return reference.DynamicTreeRegressor(leaf="linear", n_particles=6, seed=1, nstart=8)

    monkeypatch.setattr(engine_module, "pl_step", failing)
    broken = model()
    with pytest.raises(ArithmeticError, match="injected"):
        broken.partial_fit(X, y)
    monkeypatch.setattr(engine_module, "pl_step", real)
    clean = model().partial_fit(X[:25], y[:25])
    assert broken.n_seen_ == 25
    assert_snapshot_equal(broken.snapshot(), clean.snapshot())
    np.testing.assert_array_equal(broken.lpred_, clean.lpred_)
    broken.partial_fit(X[25:], y[25:])  # and it learns on as if nothing had happened
    clean.partial_fit(X[25:], y[25:])
    assert_snapshot_equal(broken.snapshot(), clean.snapshot())

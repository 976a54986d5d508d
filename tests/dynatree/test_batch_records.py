"""The C batch predictions' caches ([DT-SPEC §8.4]) against the reference, row by row.

``fast`` computes batch predictions and ALC at candidates from per-set records and
per-leaf ALC preps kept on the model, descending a forest of the particles' trees with
equal subtrees merged; the reference evaluates every row in every particle's tree from the
root. Checked here, on streams that interleave batches with learning, manual and automatic
retirement, pickling and several boxes, that every batch gives the reference's doubles:
a cache built before a change is never read after it, the ALC preps follow the box, a
restored model (whose leaves share no point set) gives the same values, and short batches
(the per-particle path) agree with long ones (the cached path) row for row.
"""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest

from conftest import REFERENCE, require_fast

CASES = {
    "constant": {},
    "linear-augmented": {"leaf": "linear", "intercept": "augmented", "active_size": 70,
                         "retirement": "alc", "lam": 0.9},
    "linear-implicit": {"leaf": "linear"},
    "linear-slope-prior": {"leaf": "linear", "intercept": "none", "slope_prior": 1.0},
    "constant-retired": {"active_size": 60, "lam": 0.8},
}


def _stream(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 3))
    y = 3.0 * X[:, 0] + np.sin(6.0 * X[:, 1]) + 0.1 * rng.normal(size=n)
    return X, y


def _same(a: Any, b: Any) -> None:
    if isinstance(a, dict):
        for key in a:
            np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    else:
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("case", sorted(CASES))
def test_regression_batches_follow_every_change(case: str) -> None:
    fast = require_fast()
    X, y = _stream(130, 1)
    Q, _ = _stream(40, 2)
    kw = dict(n_particles=12, seed=3, **CASES[case])
    ref = REFERENCE.DynamicTreeRegressor(**kw).partial_fit(X[:100], y[:100])
    cee = fast.DynamicTreeRegressor(**kw).partial_fit(X[:100], y[:100])
    boxes = [None, [(0.1, 0.9)] * 3, [(0.5, 0.5), (0.0, 1.0), (0.2, 0.7)]]

    def compare(models: tuple[Any, Any]) -> None:
        a, b = models
        _same(a.predict(Q), b.predict(Q))
        _same(a.predict_dist(Q), b.predict_dist(Q))
        for rect in boxes:
            _same(a.alc(Q, rect=rect), b.alc(Q, rect=rect))
        # a short batch takes the per-particle path: the same rows, the same doubles
        _same(a.predict(Q[:3]), b.predict(Q[:3]))
        _same(b.predict(Q[:3]), b.predict(Q)[:3])
        _same(a.alc(Q[:3], rect=boxes[1]), b.alc(Q[:3], rect=boxes[1]))

    compare((ref, cee))
    for t in range(100, 130, 10):              # learning drops the caches
        ref.partial_fit(X[t:t + 10], y[t:t + 10])
        cee.partial_fit(X[t:t + 10], y[t:t + 10])
        compare((ref, cee))
    opts = CASES[case]
    if not (opts.get("leaf") == "linear" and opts.get("intercept", "implicit") == "implicit"):
        ref.retire([0, 5])                     # so does a manual retirement
        cee.retire([0, 5])
        compare((ref, cee))
    compare((ref, pickle.loads(pickle.dumps(cee))))   # no point set shared after restore


def test_class_batches_follow_every_change() -> None:
    fast = require_fast()
    X, y = _stream(135, 4)
    labels = (y > np.median(y)).astype(int) + (y > np.quantile(y, 0.8)).astype(int)
    Q, _ = _stream(30, 5)
    kw = {"n_particles": 12, "seed": 2, "active_size": 80, "retirement": "entropy"}
    ref = REFERENCE.DynamicTreeClassifier(**kw).partial_fit(X[:90], labels[:90])
    cee = fast.DynamicTreeClassifier(**kw).partial_fit(X[:90], labels[:90])
    for t in (90, 105, 120):
        for a, b in ((ref, cee), (ref, pickle.loads(pickle.dumps(cee)))):
            _same(a.predict_proba(Q), b.predict_proba(Q))
            _same(a.predict_entropy(Q), b.predict_entropy(Q))
            _same(a.predict(Q), b.predict(Q))
            _same(a.predict_proba(Q[:2]), b.predict_proba(Q[:2]))
        ref.partial_fit(X[t:t + 15], labels[t:t + 15])
        cee.partial_fit(X[t:t + 15], labels[t:t + 15])

"""Learning gives the same numbers for every ``n_jobs`` and in both backends
([DT-SPEC §0] item 6, stream rule 2; [DET-SPEC §3]).

Under rule 2 each particle slot propagates from its own random stream, so the step's
result does not depend on the order in which the slots are propagated nor on how they
are split between threads. Checked here on randomized streams, in lockstep: the reference
(one thread) against ``fast`` with ``n_jobs`` in 1, 2, 3 and -1, learning by
``partial_fit`` in uneven batches and by ``learn_one``, for the three leaf models and for
ALC (regression) and entropy (classification) retirement: the snapshots after every
batch, the ``lpred_`` history and the generator state are bit-identical.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

from _compare import assert_snapshot_equal
from _run_size import sized

SEEDS = sized(quick=range(1), full=range(4))
N_ROWS = sized(quick=60, full=240)
JOBS = (1, 2, 3, -1)
CASES: list[tuple[str, dict[str, Any]]] = [
    ("constant", {"leaf": "constant"}),
    ("linear", {"leaf": "linear", "intercept": "augmented", "min_leaf": 4}),
    ("class", {}),
    ("alc", {"leaf": "constant", "active_size": 30, "retirement": "alc", "lam": 0.9}),
    ("entropy", {"active_size": 30, "retirement": "entropy"}),
]


def _stream(seed: int, n: int, classifier: bool) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1000 + seed)
    X = rng.uniform(size=(n, 3))
    f = 10.0 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 20.0 * (X[:, 2] - 0.5) ** 2
    y = f + rng.standard_normal(n)
    if classifier:
        return X, (f > np.median(f)).astype(int) + (X[:, 2] > 0.8).astype(int)
    return X, y


def _model(pkg: ModuleType, name: str, kw: dict[str, Any], seed: int, n_jobs: int) -> Any:
    if name in ("class", "entropy"):
        return pkg.DynamicTreeClassifier(classes=[0, 1, 2], n_particles=24, seed=seed,
                                         n_jobs=n_jobs, **kw)
    return pkg.DynamicTreeRegressor(n_particles=24, seed=seed, n_jobs=n_jobs, **kw)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", [c[0] for c in CASES])
def test_learning_is_identical_for_every_n_jobs_and_backend(
        both: tuple[ModuleType, ModuleType], name: str, seed: int) -> None:
    reference, fast = both
    kw = dict(CASES)[name]
    X, y = _stream(seed, N_ROWS, name in ("class", "entropy"))
    models = [_model(reference, name, kw, seed, 1)] + [
        _model(fast, name, kw, seed, jobs) for jobs in JOBS]
    cuts = [0, 7, 8, 40, N_ROWS - 10]
    for lo, hi in zip(cuts, cuts[1:], strict=False):
        for m in models:
            m.partial_fit(X[lo:hi], y[lo:hi])
        want = models[0].snapshot()
        for m in models[1:]:
            assert_snapshot_equal(want, m.snapshot())
    for i in range(N_ROWS - 10, N_ROWS):
        for m in models:
            m.learn_one(list(X[i]), y[i].item())
    want = models[0].snapshot()
    for m in models[1:]:
        assert_snapshot_equal(want, m.snapshot())
        assert m.lpred_ == models[0].lpred_
        assert m.rng.state == models[0].rng.state

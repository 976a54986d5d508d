"""Dynamic tree regression with particle learning: the public facade [AG13, §2; TGP11].

``DynamicTreeRegressor`` (constant or linear leaves) validates inputs and calls its engine
(:mod:`reference.dynatree.engine`); the input handling, learning loop, retirement API and
state plumbing it shares with the classifier are in :mod:`reference.dynatree.facade`. The
pieces of the mathematics: the tree prior and moves (``tree.py``, ``moves.py``), the leaf
models (``leaf_models.py``), the particle cloud (``particles.py``) and data retirement
(``retirement.py``, ``forgetting.py``, ``discard_stats.py``). ``DynamicTreeClassifier`` is in
:mod:`reference.dynatree.classifier`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from reference.batches import all_finite, as_float64
from reference.dynatree import inputs
from reference.dynatree.classifier import DynamicTreeClassifier
from reference.dynatree.engine import ArrayRowEngine, RawRowEngine, RegressionSummary
from reference.dynatree.facade import DynamicTreeFacade
from reference.dynatree.params import DynamicTreeParams, normalise_rect
from reference.estimator import locks_itself
from reference.feature_names import PLAIN_ROWS, row_by_name

__all__ = ["DynamicTreeClassifier", "DynamicTreeRegressor"]


class DynamicTreeRegressor(DynamicTreeFacade):
    """Dynamic tree regression with particle learning [AG13, §2; TGP11].

    A cloud of ``n_particles`` Bayesian regression trees, each updated by one local
    stay / grow / prune move per observation and resampled by its one-step predictive
    density. Leaves are constant (``leaf="constant"``) or linear (``leaf="linear"``, with
    an ``"implicit"``, ``"augmented"`` or no intercept).

    Feature values and targets must be finite and of magnitude at most ``1e150``
    (:data:`reference.dynatree.inputs.MAX_MAGNITUDE`: a leaf sums squares of them); other
    values raise ``ValueError`` and leave the model unchanged.

    Parameters
    ----------
    leaf : {"constant", "linear"}
        Leaf model.
    intercept : {"implicit", "augmented", "none"}
        Intercept treatment of linear leaves.
    n_particles : int
        Number of particles ``N``.
    alpha, beta : float
        Tree prior ``p_split(d) = alpha (1 + d)^-beta``.
    min_leaf : int or None
        Minimum active points per leaf (``None``: 4 constant, ``2 d + 4`` linear).
    nstart : int or None
        Points placed in the root before particle learning (``None``: ``min_leaf``).
    nu0, s20 : float
        Inverse-gamma prior on leaf variances (default: improper ``1/sigma^2``).
    seed : int
        Seed of the generator.
    active_size : int or None
        Size ``w`` of the active pool; when it is full, one point is retired into the leaf
        priors before each new point is learned (``None``: never retire) [AG13, §3].
    retirement : {"random", "historical", "alc"}
        Which point to retire: uniform, the oldest, or the one with the smallest ALC.
    lam : float
        Forgetting factor ``0 < lam <= 1`` of the automatic retirements [AG13, §5].
    rect : sequence of (low, high) pairs or None
        Bounding rectangle of ALC retirement (``None``: range of the active inputs).
        Each width ``high - low`` must be a finite float (below ``1.8e308``).
    approx : bool
        ALC with leaf counts as a proxy for leaf volumes ([DT-SPEC §7.4]).
    lpred_window : int or None, default 10000
        How many per-step log predictive densities ``lpred_`` to keep (dynaTree's
        ``lpred``, [DT-SPEC §5.4]): an int ``k >= 0`` keeps the last ``k`` (``0``: none), so
        that with an active pool memory stays flat on unbounded streams [AG13, §3]; ``None``
        keeps every step, as dynaTree does (opt-in: it grows with the stream).
        ``log_marginal_likelihood_`` sums every step either way.
    slope_prior : float or None
        Linear leaves only: ``None`` (default) is dynaTree's flat prior on the slopes
        [AG13, Eq. 1]; a float ``kappa > 0`` puts the conjugate Gaussian prior
        ``beta ~ N(0, sigma^2/kappa I)`` on them ([DT-SPEC §3.7]), which bounds how far a
        small or near-collinear leaf extrapolates (on standardised inputs ``1.0`` is a
        reasonable start).

    n_jobs : int or None, default None
        Threads of the ``fast`` backend: ``None`` or ``1`` one, ``k`` k, ``-1`` one per core.
        The batch predictions (``predict``, ``predict_dist``, ``predict_proba``, ``alc``,
        ``score``) split their rows ([DT-SPEC §8.4]); learning (``partial_fit``, ``fit``,
        ``learn_one``, automatic retirement) splits the particles of each step over
        ``min(n_jobs, n_particles // 32)`` threads ([DT-SPEC §8.5]). The results are
        identical for every value. An execution setting, not part of the model:
        ``set_params(n_jobs=...)`` keeps a fitted model, and model files do not store it.
        The ``reference`` backend computes on one thread.
    Examples
    --------
    >>> from reference import DynamicTreeRegressor
    >>> m = DynamicTreeRegressor(n_particles=20, seed=1)
    >>> for i in range(60):
    ...     x = (i * 37 % 60) / 60.0
    ...     m.learn_one([x], (1.0 if x > 0.5 else 0.0) + 0.01 * (i % 5))
    >>> round(m.predict_one([0.9]), 1)
    1.0
    """

    _params_added: dict[str, Any] = {"slope_prior": None, "n_jobs": None}
    """Parameters added after model files existed, with the value that reproduces the
    older behaviour when a file lacks them (:func:`reference.persist.from_document`)."""

    def __init__(self, *, leaf: str = "constant", intercept: str = "implicit",
                 n_particles: int = 1000, alpha: float = 0.95, beta: float = 2.0,
                 min_leaf: int | None = None, nstart: int | None = None, nu0: float = 0.0,
                 s20: float = 0.0, seed: int = 0, active_size: int | None = None,
                 retirement: str = "random", lam: float = 1.0,
                 rect: Sequence[tuple[float, float]] | None = None,
                 approx: bool = False, lpred_window: int | None = 10_000,
                 slope_prior: float | None = None, n_jobs: int | None = None) -> None:
        self.n_jobs = n_jobs
        if leaf not in ("constant", "linear"):
            raise ValueError(f"leaf must be 'constant' or 'linear', got {leaf!r}")
        self._params = DynamicTreeParams(
            leaf=leaf, intercept=intercept, n_particles=n_particles, alpha=alpha, beta=beta,
            min_leaf=min_leaf, nstart=nstart, nu0=nu0, s20=s20, seed=seed,
            active_size=active_size, retirement=retirement, lam=lam,
            rect=normalise_rect(rect), approx=approx,
            lpred_window=lpred_window, slope_prior=slope_prior).validate()
        self._reset()

    def _constructor_params(self) -> dict[str, Any]:
        """Constructor arguments as a dict."""
        p = self._params
        return {"leaf": p.leaf, "intercept": p.intercept, "n_particles": p.n_particles,
                "alpha": p.alpha, "beta": p.beta, "min_leaf": p.min_leaf,
                "nstart": p.nstart, "nu0": p.nu0, "s20": p.s20, "seed": p.seed,
                "active_size": p.active_size, "retirement": p.retirement, "lam": p.lam,
                "rect": None if p.rect is None else [list(r) for r in p.rect],
                "approx": p.approx, "lpred_window": p.lpred_window,
                "slope_prior": p.slope_prior}

    @locks_itself
    def learn_one(self, x: Any, y: Any) -> None:
        """Learn one row: resample, then propagate every particle ([DT-SPEC §5])."""
        if type(x) not in PLAIN_ROWS:  # a pandas Series: matched by name
            x = row_by_name(self, x)
        lock = self._lock
        lock.acquire()
        try:
            engine = self._engine
            if engine.raw_rows and self._d is not None:
                raw: RawRowEngine = engine  # type: ignore[assignment]
                if raw.learn_one_raw(self, x, y):
                    return
            keys = self._keys if self._d is not None else inputs.first_keys(x)
            row = inputs.row_values(x, keys, self._d)
            target = inputs.target_value(y)
            self._learn_checked([row], [target], keys, 0)
        finally:
            lock.release()

    def partial_fit(self, X: Any, y: Any) -> DynamicTreeRegressor:
        """Learn the rows of ``X`` in order (all rows are validated first); returns ``self``.

        The ``fast`` backend reads a numeric 2-D array a chunk at a time, in place if it is
        float64 and C-contiguous: the call needs little memory beyond its input (see
        ``reference.batches``).
        """
        if self._takes_array(X):
            self._checked_table(X)
            chunk_targets = self._table_targets(y, X.shape[0])
            if X.shape[0] == 0:
                raise ValueError("X must not be empty")
            self._learn_table(X, chunk_targets, 0, y)
            return self
        rows = inputs.batch_rows(X, self._keys, self._d)
        targets = [inputs.target_value(v) for v in inputs.batch_targets(y, len(rows))]
        if not rows:
            raise ValueError("X must not be empty")
        keys = self._keys
        if self._d is None:
            first = next(iter(X)) if not isinstance(X, np.ndarray) else None
            keys = inputs.first_keys(first) if isinstance(first, Mapping) else None
        self._learn_checked(rows, targets, keys, 0)
        return self

    @staticmethod
    def _table_targets(y: Any, n: int) -> Callable[[int, int], np.ndarray]:
        """The targets of a numeric table's ``n`` rows, validated as
        :func:`reference.dynatree.inputs.target_value` does, as a function of a chunk's
        ``(start, stop)`` giving them in float64 (numeric arrays: checked a chunk at a time
        and never copied whole)."""
        if not isinstance(y, (np.ndarray, list, tuple)) and hasattr(y, "__array__"):
            numbers = np.asarray(y)         # e.g. a data-frame column of numbers
            if numbers.dtype.kind in "fiu":
                y = numbers
        if not (isinstance(y, np.ndarray) and y.dtype.kind in "fiu"):
            values = [inputs.target_value(v) for v in inputs.batch_targets(y, n)]
            table = np.array(values, dtype=np.float64)
            return lambda start, stop: table[start:stop]
        column = inputs.target_column(y, n)
        if not all_finite(column):
            raise ValueError("y must not be NaN or infinite")
        if not inputs.all_bounded(column):
            raise ValueError(f"y {inputs.TOO_LARGE}")
        return lambda start, stop: as_float64(column[start:stop])

    def _summaries(self, rows: list[list[float]]) -> list[RegressionSummary]:
        if self._d is None:     # no data yet: the prior's summary ([DT-SPEC §8.1])
            return [(0.0, math.inf, -math.inf, math.inf, 0.0)] * len(rows)
        return self._engine.summaries(rows)

    @locks_itself
    def predict_one(self, x: Any) -> float:
        """Predictive mean at ``x``: particle average of leaf means ([DT-SPEC §8.1])."""
        if type(x) not in PLAIN_ROWS:  # a pandas Series: matched by name
            x = row_by_name(self, x)
        lock = self._lock
        lock.acquire()
        try:
            engine = self._engine
            if engine.raw_rows and self._d is not None:
                raw: RawRowEngine = engine  # type: ignore[assignment]
                value = raw.predict_one_raw(x, self._keys)
                if value is not None:
                    return value
            row = self._row(x)
            return self._engine.means([row])[0] if self._d is not None else 0.0
        finally:
            lock.release()

    def predict(self, X: Any) -> np.ndarray:
        """Predictive means at the rows of ``X``."""
        if self._d is not None and self._takes_array(X):
            out = np.empty(X.shape[0], dtype=float)
            engine: ArrayRowEngine = self._engine  # type: ignore[assignment]
            self._predict_table(X, 1, lambda rows, start, stop:
                                engine.means_array(rows, out[start:stop], self._n_jobs))
            return out
        rows = inputs.batch_rows(X, self._keys, self._d)
        if self._d is None:
            return np.array([o[0] for o in self._summaries(rows)], dtype=float)
        return np.array(self._engine.means(rows), dtype=float)

    def predict_dist(self, X: Any) -> dict[str, np.ndarray]:
        """Predictive ``mean``, ``var``, ``q05``, ``q95`` and ``df`` at the rows of ``X``.

        Quantiles are particle averages of per-particle Student-t quantiles, ``var`` the
        total predictive variance ([DT-SPEC §8.1]).
        """
        names = ("mean", "var", "q05", "q95", "df")
        if self._d is not None and self._takes_array(X):
            n = X.shape[0]
            columns = [np.empty(n, dtype=float) for _ in names]
            engine: ArrayRowEngine = self._engine  # type: ignore[assignment]

            def fill(rows: np.ndarray, start: int, stop: int) -> None:
                block = np.empty((stop - start, 5), dtype=float)
                engine.summaries_array(rows, block, self._n_jobs)
                for k, column in enumerate(columns):
                    column[start:stop] = block[:, k]

            self._predict_table(X, 5, fill)
            return dict(zip(names, columns, strict=True))
        rows = inputs.batch_rows(X, self._keys, self._d)
        table = np.array(self._summaries(rows), dtype=float).reshape(len(rows), 5)
        return {name: np.ascontiguousarray(table[:, k]) for k, name in enumerate(names)}

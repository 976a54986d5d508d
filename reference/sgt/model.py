"""Public SGT models with one real target per row: regression and any loss [GPF19].

Facades (:class:`reference.sgt.facade.SGTFacade`): they validate inputs and call their
engine (:class:`reference.sgt.engine.PythonSGTEngine` here, ``CSGTEngine`` in ``fast``).
The classifiers are in :mod:`reference.sgt.classifier`. Every rejected call raises before
any state changes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from reference.batches import chunk_rows, chunks
from reference.estimator import locks_itself
from reference.feature_names import PLAIN_ROWS, row_by_name
from reference.interrupt import Interruptible
from reference.sgt.atomic import atomic_first_call
from reference.sgt.classifier import SGTClassifier
from reference.sgt.core import LOSS_CUSTOM, LOSS_LOGISTIC, LOSS_SQUARED
from reference.sgt.facade import PARAM_NAMES, SGTFacade, as_list, document
from reference.sgt.losses import SquaredError
from reference.sgt.multi_instance import SGTMultiInstanceClassifier
from reference.sgt.splits import GRADIENT_BOUND

__all__ = ["SGTRegressor", "SGTClassifier", "SGTMultiInstanceClassifier", "SGT"]


class _SingleTarget(SGTFacade):
    """Models with one real target per row (regression and custom losses)."""

    _raw_is_prediction: ClassVar[bool] = True
    """True if :meth:`_transfer` is the identity (squared error): the one-row lean path
    then skips the call."""

    def _target(self, y: Any) -> float:
        try:
            value = float(y)
        except (TypeError, ValueError):
            raise ValueError(f"y must be a real number, got {y!r}") from None
        if isinstance(y, (str, bytes)) or not math.isfinite(value):
            raise ValueError(f"y must be a finite real number, got {y!r}")
        if abs(value) > GRADIENT_BOUND and self._loss_kind() == LOSS_SQUARED:
            raise ValueError(f"y must have magnitude at most {GRADIENT_BOUND:.0e} with squared "
                             f"error (the split test sums fourth powers of the gradients; "
                             f"rescale y), got {y!r}")
        return value

    @locks_itself
    def learn_one(self, x: Any, y: Any) -> None:
        """Learn one row (x, y) (test-then-train order is the caller's)."""
        if type(x) not in PLAIN_ROWS:  # a pandas Series: matched by name
            x = row_by_name(self, x)
        lock = self._lock
        lock.acquire()
        try:
            engine = self._engine
            if engine is not None and engine.raw_rows and engine.learn_one_raw(x, self._keys, y):
                self.n_seen_ += 1
                return
            self._learn_one(x, y)
        finally:
            lock.release()

    @atomic_first_call
    def _learn_one(self, x: Any, y: Any) -> None:
        target = self._target(y)
        row, keys, kinds = self._row(x)
        self._commit(len(row), keys, kinds)
        self._learn_rows([row], target)
        self.n_seen_ += 1

    @atomic_first_call
    def partial_fit(self, X: Any, y: Any) -> Any:
        """Learn the rows of X in order; the whole batch is validated first."""
        arr, kinds = self._batch(X)
        assert kinds is not None
        targets = self._targets(y, arr.shape[0])
        self._commit(arr.shape[1], None, kinds)
        self._fit_rows(arr, targets)
        return self

    @atomic_first_call
    def progressive_predict(self, X: Any, y: Any) -> np.ndarray:
        """Test-then-train over a batch: the prediction for each row made just before
        learning it (prequential evaluation); validated as :meth:`partial_fit`."""
        arr, kinds = self._batch(X)
        assert kinds is not None
        targets = self._targets(y, arr.shape[0])
        self._commit(arr.shape[1], None, kinds)
        return self._progressive_rows(arr, targets)

    def _targets(self, y: Any, n: int) -> list[float] | np.ndarray:
        """The ``n`` targets, validated: a list of floats, or (when the engine takes
        arrays) a numeric 1-D ``y`` as it is, checked chunk by chunk with the errors of
        :meth:`_target` on the first bad value."""
        if not (self._engine_class.array_batches and type(y) in (np.ndarray, np.memmap)
                and y.ndim == 1 and y.dtype.kind in "biuf" and y.dtype.itemsize <= 8):
            return [self._target(v) for v in as_list(y, n)]
        if y.shape[0] != n:
            raise ValueError(f"y has {y.shape[0]} labels for {n} rows")
        if y.dtype.kind == "f":
            # a float64 bound (a Python float would be cast to a float32 y and overflow)
            bound = np.float64(GRADIENT_BOUND if self._loss_kind() == LOSS_SQUARED else np.inf)
            for start, stop in chunks(n, chunk_rows(1), y):
                with np.errstate(invalid="ignore"):
                    good = np.abs(y[start:stop]) <= bound     # False for NaN
                if not good.all():
                    self._target(y[start + int(np.argmin(good))].item())
        column: np.ndarray = y
        return column

    def _progressive_rows(self, arr: np.ndarray, targets: Any) -> np.ndarray:
        return self._transfer_column(self._engine.progressive(arr, targets, self._count))

    def _transfer(self, raw: float) -> float:
        return raw

    def _transfer_column(self, raws: np.ndarray) -> np.ndarray:
        """The predictions of rows whose raw scores are ``raws`` (shape (n, 1))."""
        return raws[:, 0].copy()

    @locks_itself
    def predict_one(self, x: Any) -> float:
        """Prediction σ(f(x)) (0 before training)."""
        if type(x) not in PLAIN_ROWS:  # a pandas Series: matched by name
            x = row_by_name(self, x)
        lock = self._lock
        lock.acquire()
        try:
            engine = self._engine
            if engine is not None and engine.raw_rows:
                raw = engine.raw_one_raw(x, self._keys)
                if raw is not None:
                    return raw if self._raw_is_prediction else self._transfer(raw)
            return self._predict_one(x)
        finally:
            lock.release()

    def _predict_one(self, x: Any) -> float:
        return self._transfer(self._raws(self._predict_row(x))[0])

    def predict(self, X: Any) -> np.ndarray:
        """Predictions for the rows of X."""
        arr, _ = self._batch(X, first=False)
        if self._engine is None:
            return self._transfer_column(np.zeros((arr.shape[0], 1)))
        return self._transfer_column(self._engine.raws_many(arr, self._n_jobs))



@document
class SGTRegressor(_SingleTarget):
    """Stochastic gradient tree for regression with squared error [GPF19, §4.2].

    Parameters
    ----------
{common}

    Notes
    -----
    Inputs must be finite: NaN and infinite values raise ``ValueError`` (missing
    values are not supported in this version). Targets must have magnitude at most
    ``1e70`` (:data:`reference.sgt.splits.GRADIENT_BOUND`: the split test sums fourth
    powers of the gradients ``f - y``); larger ones raise ``ValueError``. The target is
    not standardised, so λ and γ act on the scale of y ([SGT-SPEC §3.1]).

    Examples
    --------
    >>> model = SGTRegressor(warmup=50, grace_period=50)
    >>> for i in range(400):
    ...     x = [(i * 37 % 100) / 100.0]
    ...     model.learn_one(x, 3.0 if x[0] > 0.5 else -3.0)
    >>> round(model.predict_one([0.9]), 2), round(model.predict_one([0.1]), 2)
    (2.73, -3.0)
    """

    def __init__(self, delta: float = 1e-7, grace_period: int = 200, lam: float = 0.1,
                 gamma: float = 1.0, bins: int = 64, warmup: int | None = None,
                 feature_ranges: Mapping[int, tuple[float, float]] | None = None,
                 nominal: Mapping[int, int] | None = None, max_depth: int | None = None,
                 warmup_trains: bool = True, test: str = "two-sided",
                 warmup_prediction: str = "newton", quantization: str = "leaf",
                 n_jobs: int | None = None) -> None:
        self.n_jobs = n_jobs
        super().__init__(delta, grace_period, lam, gamma, bins, warmup, feature_ranges,
                         nominal, max_depth, warmup_trains, test, warmup_prediction,
                         quantization)

    def _loss_kind(self) -> int:
        return LOSS_SQUARED


@document
class SGT(_SingleTarget):
    """Stochastic gradient tree for any twice-differentiable loss [GPF19, §3.1].

    Parameters
    ----------
    loss : object or None
        Has ``gradient_hessian(y, raw) -> (g, h)`` and ``transfer(raw)``;
        :class:`~reference.sgt.losses.SquaredError` if None. The built-in
        ``SquaredError``, ``BinaryCrossEntropy`` and ``PseudoHuber`` (robust
        regression) run in C in ``fast``; any other loss (e.g.
        :class:`~reference.sgt.losses.CustomLoss`) is called from Python.
{common}

    Notes
    -----
    Inputs must be finite (missing values are not supported in this version). A
    custom loss returning a non-finite g or h, or a gradient of magnitude above ``1e70``
    (:data:`reference.sgt.splits.GRADIENT_BOUND`), raises ``ValueError``; so does a
    target above ``1e70`` with the squared error.

    ``learn_one`` and ``partial_fit`` stay atomic row by row with a custom loss: whatever
    the loss raises, at any row, propagates and leaves the model as it was before that
    row. This holds for the row that ends the warm-up too, whose call replays the whole
    buffer through the loss: a failure at any replayed row undoes the replay and the
    row's own push (the buffer, the ranges and fresh trees as before the call).

    Examples
    --------
    >>> import math
    >>> from reference.sgt.losses import CustomLoss
    >>> absolute_ish = CustomLoss(lambda y, f: math.tanh(f - y), lambda y, f: 1.0)
    >>> model = SGT(absolute_ish, warmup=10, grace_period=20)
    >>> for i in range(300):
    ...     model.learn_one([i % 10], 5.0)
    >>> model.predict_one([3]) > 0.5
    True
    """

    _raw_is_prediction: ClassVar[bool] = False   # σ for the logistic loss, or loss.transfer

    def __init__(self, loss: Any = None, delta: float = 1e-7, grace_period: int = 200,
                 lam: float = 0.1, gamma: float = 1.0, bins: int = 64, warmup: int | None = None,
                 feature_ranges: Mapping[int, tuple[float, float]] | None = None,
                 nominal: Mapping[int, int] | None = None, max_depth: int | None = None,
                 warmup_trains: bool = True, test: str = "two-sided",
                 warmup_prediction: str = "newton", quantization: str = "leaf",
                 n_jobs: int | None = None) -> None:
        self.n_jobs = n_jobs
        effective = SquaredError() if loss is None else loss
        if not (callable(getattr(effective, "gradient_hessian", None))
                and callable(getattr(effective, "transfer", None))):
            raise ValueError("loss must have gradient_hessian(y, raw) and transfer(raw) methods")
        self.loss = loss  # as given (None: squared error), so get_params returns it unchanged
        self._loss = effective
        super().__init__(delta, grace_period, lam, gamma, bins, warmup, feature_ranges,
                         nominal, max_depth, warmup_trains, test, warmup_prediction,
                         quantization)

    def _param_names(self) -> tuple[str, ...]:
        return ("loss",) + PARAM_NAMES

    def _set_state(self, state: dict[str, Any]) -> None:
        super()._set_state(state)
        if "_loss" not in self.__dict__:  # pickled before ``loss`` kept the given value
            self._loss = self.loss

    def _loss_kind(self) -> int:
        # exact types only: a user subclass that overrides the derivatives is custom
        kind: int = self._engine_class.builtin_losses.get(type(self._loss), LOSS_CUSTOM)
        return kind

    def _transfer(self, raw: float) -> float:
        kind = self._loss_kind()
        if kind == LOSS_CUSTOM:
            return float(self._loss.transfer(raw))
        return float(self._engine_class.sigmoid(raw)) if kind == LOSS_LOGISTIC else raw

    def _transfer_column(self, raws: np.ndarray) -> np.ndarray:
        return np.array([self._transfer(r) for r in raws[:, 0].tolist()], dtype=np.float64)

    def _fit_rows(self, arr: np.ndarray, targets: Any) -> None:
        if self._loss_kind() != LOSS_CUSTOM:
            super()._fit_rows(arr, targets)
            return
        with Interruptible() as guard:      # Ctrl-C stops the loop between two rows
            for i in range(arr.shape[0]):
                self._learn_rows([[float(v) for v in arr[i].tolist()]], float(targets[i]))
                self.n_seen_ += 1
                guard.check()

    def _progressive_rows(self, arr: np.ndarray, targets: Any) -> np.ndarray:
        if self._loss_kind() != LOSS_CUSTOM:
            return super()._progressive_rows(arr, targets)
        out = np.empty(arr.shape[0])
        for i in range(arr.shape[0]):
            row = [float(v) for v in arr[i].tolist()]
            out[i] = self._transfer(self._raws(row)[0])
            self._learn_rows([row], float(targets[i]))
            self.n_seen_ += 1
        return out

    def _gradients(self, target: float, raw: float) -> tuple[float, float]:
        g, h = self._loss.gradient_hessian(target, raw)
        g, h = float(g), float(h)
        if not (math.isfinite(g) and math.isfinite(h)):
            raise ValueError(f"loss returned non-finite gradient/hessian ({g}, {h})")
        if abs(g) > GRADIENT_BOUND:
            raise ValueError(f"loss returned a gradient of magnitude above {GRADIENT_BOUND:.0e} "
                             f"({g}; the split test sums fourth powers of the gradients)")
        return g, h

    def _learn_rows(self, rows: list[list[float]], target: float) -> None:
        if self._loss_kind() != LOSS_CUSTOM:
            self._engine.learn(rows, target)
            return
        core = self._engine
        if not core.frozen:
            if core.warmup_push(rows, target):
                self._replay_custom(len(rows))
            return
        self._train_custom(rows[0], target)

    def _replay_custom(self, n_rows: int) -> None:
        """Train the warm-up buffer with the custom loss, atomically: if the loss (or the
        memory) fails at any item, the engine goes back to its state before the push of
        the ``n_rows`` rows that ended the warm-up (``warmup_undo``), then the error
        propagates."""
        core = self._engine
        try:
            if self.warmup_trains:
                for item_rows, item_target in core.buffered_items():
                    self._train_custom(item_rows[0], item_target)
        except BaseException:
            core.warmup_undo(n_rows)
            raise
        core.clear_buffer()

    def _train_custom(self, row: list[float], target: float) -> None:
        g, h = self._gradients(target, self._engine.raws(row)[0])
        self._engine.train_gh(row, [g], [h])

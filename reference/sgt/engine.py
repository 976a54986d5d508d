"""The SGT engine: what a public SGT model asks of its mathematics, and the Python one.

Every public SGT class (:mod:`reference.sgt.model`, :mod:`reference.sgt.classifier`) is a
facade that validates inputs, maps labels and keeps ``n_seen_``; it holds one engine in
``self._engine``, built on the first accepted row as
``type(self)._engine_class(params, kinds, loss_kind, n_trees)``. :class:`SGTEngine` lists
the methods a facade calls; :class:`PythonSGTEngine` runs them with the modules of this
package (:class:`reference.sgt.core.SGTCore`, ``losses``), and ``fast.sgt.engine.CSGTEngine``
runs them in C, bit for bit alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Protocol

import numpy as np

from reference.interrupt import Interruptible
from reference.sgt.core import LOSS_LOGISTIC, LOSS_SQUARED, SGTCore
from reference.sgt.losses import (
    LOSS_PSEUDO_HUBER,
    BinaryCrossEntropy,
    PseudoHuber,
    SquaredError,
    sigmoid,
    softmax,
)
from reference.sgt.params import SGTParams
from reference.sgt.warmup import Item

__all__ = ["SGTEngine", "PythonSGTEngine"]

Counter = Callable[[int], None]
"""Called with the number of items just learned by a batch loop (the facade adds it to
``n_seen_``), so a loop stopped by Ctrl-C or ``MemoryError`` leaves the count right."""


class SGTEngine(Protocol):
    """What an SGT facade calls; one engine per fitted model.

    Built as ``Engine(params, kinds, loss_kind, n_trees)`` (:class:`SGTParams`, the
    feature kinds, a ``LOSS_*`` constant of :mod:`reference.sgt.core`, the number of trees).
    """

    raw_rows: ClassVar[bool]
    """True if the ``*_raw`` hooks can serve plain rows; the facade then offers each one-row
    call to them first (False: the facade never calls them)."""
    builtin_losses: ClassVar[dict[type, int]]
    """Loss classes (exact types) this engine runs natively, with their ``LOSS_*`` kind."""
    array_batches: ClassVar[bool]
    """True if the batch methods take a numeric 2-D array as it is (any layout and dtype,
    converted a piece at a time) and targets as a list, a 1-D array or a
    :class:`reference.batches.LazyColumn`; the facade then checks numeric arrays chunk
    by chunk instead of copying them (:mod:`reference.batches`). False: the facade
    hands over a float64 copy and a list of targets."""
    loss_kind: int
    n_trees: int

    @property
    def frozen(self) -> bool:
        """True once the bin ranges are fixed: the warm-up is over [SGT-SPEC §5.6]."""

    @property
    def n_nodes(self) -> int:
        """Nodes over all trees."""

    @property
    def depth(self) -> int:
        """Largest depth over all trees (root = 0)."""

    def raws(self, x: Sequence[float]) -> list[float]:
        """Raw score f_c(x) of every tree c; during the warm-up the warm-up scores (§5.7)."""

    def raws_many(self, arr: np.ndarray, n_jobs: int | None = None) -> np.ndarray:
        """:meth:`raws` of every row of a validated matrix, shape (n, n_trees); ``n_jobs``
        threads where the engine can share the rows (:mod:`reference.parallel`), the same
        numbers."""

    def learn(self, rows: list[list[float]], target: float) -> None:
        """One item (a row, or a bag's rows) with a built-in loss: warm-up or one gradient
        step of every tree [GPF19, Alg. 1]."""

    def learn_many(self, arr: np.ndarray, targets: list[float], counted: Counter) -> None:
        """:meth:`learn` for each row in order (one-row items), Ctrl-C between rows."""

    def progressive(self, arr: np.ndarray, targets: list[float],
                    counted: Counter) -> np.ndarray:
        """Test-then-train: the raw scores of each row just before :meth:`learn` takes it,
        shape (n, n_trees)."""

    def learn_bags(self, arrays: list[np.ndarray], targets: list[float], epochs: int,
                   counted: Counter) -> None:
        """``epochs`` passes of :meth:`learn` over the bags (multi-instance, [GPF19, §4.3])."""

    def warmup_push(self, rows: list[list[float]], target: float) -> bool:
        """Buffer an item and widen the feature ranges; True when the warm-up just ended."""

    def take_buffer(self) -> list[Item]:
        """Remove and return the buffered warm-up items, in arrival order."""

    def buffered_items(self) -> list[Item]:
        """The buffered warm-up items, in arrival order, left in the buffer (the
        custom-loss replay reads them, then calls :meth:`clear_buffer` or
        :meth:`warmup_undo`)."""

    def clear_buffer(self) -> None:
        """Empty the warm-up buffer after a successful replay (and release what it
        reserved)."""

    def warmup_undo(self, n_rows: int) -> None:
        """Undo the :meth:`warmup_push` of ``n_rows`` rows that ended the warm-up and any
        part of the replay: the model as it was before that push."""

    def train_gh(self, x: Sequence[float], grads: Sequence[float],
                 hess: Sequence[float]) -> None:
        """Tree c learns the gradient grads[c] and Hessian hess[c] at x (custom losses)."""

    @staticmethod
    def sigmoid(raw: float) -> float:
        """σ(f) = 1 / (1 + e^{-f}) [GPF19, Eq. 26]."""

    @staticmethod
    def softmax(raws: Sequence[float]) -> list[float]:
        """Committee probabilities with f_k = 0 appended [GPF19, Eq. 19]."""

    def class_indices(self, raws: np.ndarray) -> Sequence[int]:
        """Most probable class index of each row of raw scores (first on ties): a list,
        or an integer array."""

    def probas(self, raws: np.ndarray) -> np.ndarray:
        """Class probabilities of each row of raw scores, shape (n, classes): the
        :meth:`sigmoid` pair ``[1 - p, p]`` of one tree, else the :meth:`softmax`."""

    def snapshot(self) -> dict[str, object]:
        """Plain-data state (schema of :meth:`reference.sgt.model.SGTRegressor.snapshot`)."""

    def restore(self, snap: dict[str, Any]) -> None:
        """Write a checked snapshot (:func:`reference.sgt.state_check.check_core`) into
        this new engine."""

    def learn_one_raw(self, x: Any, keys: Any, target: Any) -> bool:
        """Learn a plain row with a float target if it can (True), else False."""

    def raw_one_raw(self, x: Any, keys: Any) -> float | None:
        """First tree's raw score of a plain row, or None (general path)."""

    def label_one_raw(self, x: Any, keys: Any) -> int:
        """Most probable class index of a plain row, or -1 (general path)."""

    def proba_one_raw(self, x: Any, keys: Any) -> list[float] | None:
        """Class probabilities of a plain row, or None (general path)."""


class PythonSGTEngine(SGTCore):
    """:class:`SGTEngine` in Python: the core of :mod:`reference.sgt.core` plus the batch
    loops, one row at a time."""

    raw_rows: ClassVar[bool] = False
    array_batches: ClassVar[bool] = False
    builtin_losses: ClassVar[dict[type, int]] = {SquaredError: LOSS_SQUARED,
                                                 BinaryCrossEntropy: LOSS_LOGISTIC,
                                                 PseudoHuber: LOSS_PSEUDO_HUBER}

    def __init__(self, params: SGTParams, kinds: Sequence[int], loss_kind: int,
                 n_trees: int) -> None:
        super().__init__(params, kinds, loss_kind, n_trees)

    @classmethod
    def from_core(cls, core: SGTCore) -> PythonSGTEngine:
        """The engine over a core pickled by a version whose facades held the core itself."""
        engine = cls.__new__(cls)
        engine.__dict__.update(core.__dict__)
        return engine

    @property
    def n_trees(self) -> int:
        """Trees in the committee."""
        return len(self.trees)

    def raws_many(self, arr: np.ndarray, n_jobs: int | None = None) -> np.ndarray:
        del n_jobs                      # the reference computes on one thread
        out = np.zeros((arr.shape[0], self.n_trees))
        for i in range(arr.shape[0]):
            out[i] = self.raws(arr[i].tolist())
        return out

    def learn_many(self, arr: np.ndarray, targets: list[float], counted: Counter) -> None:
        with Interruptible() as guard:   # Ctrl-C stops the loop between two rows
            for i in range(arr.shape[0]):
                self.learn([[float(v) for v in arr[i].tolist()]], targets[i])
                counted(1)
                guard.check()

    def progressive(self, arr: np.ndarray, targets: list[float],
                    counted: Counter) -> np.ndarray:
        out = np.zeros((arr.shape[0], self.n_trees))
        for i in range(arr.shape[0]):
            row = [float(v) for v in arr[i].tolist()]
            out[i] = self.raws(row)
            self.learn([row], targets[i])
            counted(1)
        return out

    def learn_bags(self, arrays: list[np.ndarray], targets: list[float], epochs: int,
                   counted: Counter) -> None:
        for _ in range(epochs):
            for arr, target in zip(arrays, targets, strict=True):
                self.learn([[float(v) for v in r] for r in arr.tolist()], target)
                counted(1)

    @staticmethod
    def sigmoid(raw: float) -> float:
        return sigmoid(raw)

    @staticmethod
    def softmax(raws: Sequence[float]) -> list[float]:
        return softmax(raws)

    def probas(self, raws: np.ndarray) -> np.ndarray:
        rows = []
        for row in raws.tolist():
            if len(row) == 1:
                p = sigmoid(row[0])
                rows.append([1.0 - p, p])
            else:
                rows.append(softmax(row))
        return np.array(rows, dtype=np.float64).reshape(raws.shape[0], -1)

    def class_indices(self, raws: np.ndarray) -> list[int]:
        out = []
        for row in raws.tolist():
            if len(row) == 1:
                p = sigmoid(row[0])
                probs = [1.0 - p, p]
            else:
                probs = softmax(row)
            best = 0
            for c in range(1, len(probs)):
                if probs[c] > probs[best]:
                    best = c
            out.append(best)
        return out

    # the one-row hooks: never called while ``raw_rows`` is False
    def learn_one_raw(self, x: Any, keys: Any, target: Any) -> bool:
        return False

    def raw_one_raw(self, x: Any, keys: Any) -> float | None:
        return None

    def label_one_raw(self, x: Any, keys: Any) -> int:
        return -1

    def proba_one_raw(self, x: Any, keys: Any) -> list[float] | None:
        return None

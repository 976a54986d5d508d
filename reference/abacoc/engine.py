"""The ABACOC engine: what ``ABACOCClassifier`` asks of its mathematics, and the Python one.

The public class (:mod:`reference.abacoc.model`, on :class:`reference.abacoc.facade.
ABACOCFacade`) validates inputs and maps labels to class indices; it holds one engine
in ``self._engine``, built with the model as ``type(self)._engine_class(params)``.
:class:`ABACOCEngine` lists the methods the facade calls; :class:`PythonABACOCEngine`
runs them with the functions of :mod:`reference.abacoc.variants` on a
:class:`~reference.abacoc.variants.CoverState`, and ``fast.abacoc.engine.CABACOCEngine``
runs them in C, bit for bit alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Protocol

import numpy as np

from reference.abacoc.balls import Ball
from reference.abacoc.params import ABACOCParams
from reference.abacoc.variants import (
    CoverState,
    class_distribution,
    learn,
    nearest_ball,
    predict_index,
)
from reference.interrupt import Interruptible
from reference.rng import Rng

__all__ = ["ABACOCEngine", "PythonABACOCEngine"]

Prequential = tuple[list[int], int, int, int]
"""Predicted class indices, correct predictions, rows learned, largest cover size."""


class ABACOCEngine(Protocol):
    """What the ABACOC facade calls; one engine per model, built as ``Engine(params)``.

    Class indices ``k`` are the facade's (labels in order of registration); ``n_classes``
    arguments are the facade's number of registered labels.
    """

    raw_rows: ClassVar[bool]
    """True if the ``*_raw`` hooks can serve plain rows; the facade then offers each one-row
    call to them first (False: the facade never calls them)."""
    array_batches: ClassVar[bool]
    """True if the batch methods take a numeric 2-D array as it is (any layout and dtype,
    converted a piece at a time) and class indices as a list or a
    :class:`reference.batches.LazyColumn`; the facade then checks numeric arrays and
    label arrays chunk by chunk instead of copying them (:mod:`reference.batches`)."""
    params: ABACOCParams

    @property
    def n_seen(self) -> int:
        """Rows learned."""

    @property
    def n_balls(self) -> int:
        """Live balls |S|."""

    @property
    def rng(self) -> Rng:
        """The model generator (readable and settable ``state``)."""

    def set_dim(self, n_features: int) -> None:
        """Fix the input dimension D (first learned row)."""

    def rollback(self, n_features: int, n_classes: int) -> None:
        """Undo :meth:`set_dim` (``n_features`` 0) and classes beyond ``n_classes`` after a
        call that failed before learning a row."""

    def learn_rows(self, X: np.ndarray, ks: list[int], n_classes: int) -> None:
        """Learn rows in order, row t with class ks[t] [DOC15, Alg. 2-4]; Ctrl-C between
        rows (or pieces of rows)."""

    def learn_row(self, row: list[float], k: int, n_classes: int) -> None:
        """Learn one row with class k."""

    def predict_rows(self, X: np.ndarray, n_jobs: int | None = None) -> Sequence[int]:
        """Nearest ball's prediction for each row: a class index, -1 to abstain (a list,
        or an int64 array); split over ``n_jobs`` threads where the engine can
        (deterministic modes, :mod:`reference.parallel`), the same values."""

    def predict_row(self, row: list[float]) -> int:
        """:meth:`predict_rows` of one row (randomized BASE draws one uniform)."""

    def proba_rows(self, X: np.ndarray, n_classes: int,
                   n_jobs: int | None = None) -> np.ndarray:
        """Class frequencies n(k)/n of each row's nearest ball (zeros without a ball);
        split over ``n_jobs`` threads where the engine can, the same values."""

    def proba_row(self, row: list[float], n_classes: int) -> list[float]:
        """:meth:`proba_rows` of one row."""

    def prequential(self, X: np.ndarray, labels: list[int], remap: list[int], rate: float,
                    seed: int, n_classes: int) -> Prequential:
        """Online sub-sampling protocol [DOC15, Alg. 5]: predict, score, learn with
        probability ``rate`` (protocol generator ``Rng(seed)``); ``remap`` maps provisional
        label indices to class indices, -1 until the label is first learned (updated)."""

    def snapshot(self) -> dict[str, Any]:
        """Plain-data state ([ABACOC-SPEC §2])."""

    def restore(self, snap: dict[str, Any]) -> None:
        """Write a checked snapshot (:func:`reference.abacoc.state_check.check_cover`) into
        this new engine."""

    def learn_one_raw(self, x: Any, keys: Any, k: int, n_classes: int) -> bool:
        """Learn a plain row with class k if it can (True), else False."""

    def predict_one_raw(self, x: Any, keys: Any) -> int | None:
        """:meth:`predict_row` of a plain row, or None (general path)."""

    def proba_one_raw(self, x: Any, keys: Any, n_classes: int) -> list[float] | None:
        """:meth:`proba_row` of a plain row, or None (general path)."""


class PythonABACOCEngine:
    """:class:`ABACOCEngine` in Python over a :class:`CoverState`, one row at a time."""

    raw_rows: ClassVar[bool] = False
    array_batches: ClassVar[bool] = False

    def __init__(self, params: ABACOCParams) -> None:
        self.params = params
        self.cover = CoverState(params)

    @classmethod
    def from_cover(cls, cover: CoverState) -> PythonABACOCEngine:
        """The engine over a cover pickled by a version whose facades held it (``_state``)."""
        engine = cls.__new__(cls)
        engine.params = cover.params
        engine.cover = cover
        return engine

    @property
    def n_seen(self) -> int:
        return self.cover.n_seen

    @property
    def n_balls(self) -> int:
        return len(self.cover.balls)

    @property
    def rng(self) -> Rng:
        return self.cover.rng

    def set_dim(self, n_features: int) -> None:
        self.cover.n_features = n_features

    def rollback(self, n_features: int, n_classes: int) -> None:
        if n_features == 0 and not self.cover.balls:
            self.cover.n_features = 0
        if n_classes < self.cover.n_classes:
            self.cover.n_classes = n_classes

    def learn_rows(self, X: np.ndarray, ks: list[int], n_classes: int) -> None:
        rows = X.tolist()
        with Interruptible() as guard:     # Ctrl-C stops the loop between two rows
            for i in range(len(rows)):
                learn(self.cover, rows[i], ks[i])
                guard.check()

    def learn_row(self, row: list[float], k: int, n_classes: int) -> None:
        self.learn_rows(np.asarray([row], dtype=np.float64), [k], n_classes)

    def predict_rows(self, X: np.ndarray, n_jobs: int | None = None) -> list[int]:
        del n_jobs                      # the reference computes on one thread
        return [predict_index(self.cover, row) for row in X.tolist()]

    def predict_row(self, row: list[float]) -> int:
        return self.predict_rows(np.asarray([row], dtype=np.float64))[0]

    def proba_rows(self, X: np.ndarray, n_classes: int,
                   n_jobs: int | None = None) -> np.ndarray:
        del n_jobs                      # the reference computes on one thread
        out = np.zeros((X.shape[0], n_classes))
        for i, row in enumerate(X.tolist()):
            probs = class_distribution(self.cover, row)
            for k in range(len(probs)):
                out[i, k] = probs[k]
        return out

    def proba_row(self, row: list[float], n_classes: int) -> list[float]:
        return [float(v) for v in self.proba_rows(np.asarray([row], dtype=np.float64),
                                                  n_classes)[0]]

    def prequential(self, X: np.ndarray, labels: list[int], remap: list[int], rate: float,
                    seed: int, n_classes: int) -> Prequential:
        state = self.cover
        rows = X.tolist()
        protocol_rng = Rng(seed)
        preds = []
        correct = 0
        learned = 0
        max_balls = len(state.balls)
        with Interruptible() as guard:     # Ctrl-C stops the loop between two rows
            for t in range(len(rows)):
                found = nearest_ball(state, rows[t])   # one search serves predict and learn
                pred = predict_index(state, rows[t], found)
                preds.append(pred)
                k = remap[labels[t]]
                if pred >= 0 and pred == k:
                    correct += 1
                if rate < 1.0 and not protocol_rng.uniform() < rate:
                    guard.check()
                    continue
                if k < 0:
                    k = state.n_classes
                    remap[labels[t]] = k
                learn(state, rows[t], k, found)
                learned += 1
                if len(state.balls) > max_balls:
                    max_balls = len(state.balls)
                guard.check()
        return preds, correct, learned, max_balls

    def snapshot(self) -> dict[str, Any]:
        state = self.cover
        n_classes = state.n_classes
        balls = []
        for ball in state.balls:
            counts = [ball.counts[k] if k < len(ball.counts) else 0 for k in range(n_classes)]
            balls.append({
                "id": ball.id, "center": list(ball.center), "counts": counts,
                "u": ball.u, "R": ball.R, "eps": ball.eps, "m": ball.m,
            })
        return {
            "variant": self.params.variant,
            "n_features": state.n_features,
            "n_classes": n_classes,
            "n_seen": state.n_seen,
            "next_id": state.next_id,
            "phase": state.phase,
            "phase_steps": state.phase_steps,
            "phase_dim": state.phase_dim,
            "radius": state.radius,
            "init_done": int(state.init_done),
            "first_label": state.first_label,
            "balls": balls,
            "rng_state": list(state.rng.state),
        }

    def restore(self, snap: dict[str, Any]) -> None:
        state = CoverState(self.params)
        state.n_features = int(snap["n_features"])
        state.n_classes = int(snap["n_classes"])
        state.n_seen = int(snap["n_seen"])
        state.next_id = int(snap["next_id"])
        state.phase = int(snap["phase"])
        state.phase_steps = int(snap["phase_steps"])
        state.phase_dim = float(snap["phase_dim"])
        state.radius = float(snap["radius"])
        state.init_done = bool(snap["init_done"])
        state.first_label = int(snap["first_label"])
        state.rng.state = tuple(snap["rng_state"])
        for rec in snap["balls"]:
            ball = Ball(int(rec["id"]), [float(v) for v in rec["center"]], 0, float(rec["R"]))
            ball.counts = [int(v) for v in rec["counts"]]
            ball.u = int(rec["u"])
            ball.eps = float(rec["eps"])
            ball.m = int(rec["m"])
            state.balls.append(ball)
        state.index.cleared()
        if state.n_features > 0:
            state.index.maintain(state.balls, state.n_features)
        self.cover = state

    # the one-row hooks: never called while ``raw_rows`` is False
    def learn_one_raw(self, x: Any, keys: Any, k: int, n_classes: int) -> bool:
        return False

    def predict_one_raw(self, x: Any, keys: Any) -> int | None:
        return None

    def proba_one_raw(self, x: Any, keys: Any, n_classes: int) -> list[float] | None:
        return None

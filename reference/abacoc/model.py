"""``ABACOCClassifier``: the thin facade that wires the ABACOC pieces together [DOC15].

The facade (shared with ``fast`` through :class:`~reference.abacoc.inputs.BallCoverFacade`)
validates inputs and maps labels; the state lives in a
:class:`~reference.abacoc.variants.CoverState` and every update is a function of
``variants.py``, ``balls.py`` and ``search.py``.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from reference.abacoc.balls import Ball
from reference.abacoc.inputs import BallCoverFacade
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

__all__ = ["ABACOCClassifier"]


class ABACOCClassifier(BallCoverFacade):
    """Adaptive Ball Covering classifier for data streams [DOC15].

    The input space is covered by balls; each ball predicts the majority label of the
    training points it absorbed, and a point is classified by the ball with the nearest
    centre. A training point inside its nearest ball updates that ball; a point outside
    founds a new ball. The variants differ in how radii and centres adapt:

    * ``"base"``: one global radius shrinking as ``t^{-1/(2+d_i)}`` with an online
      estimate ``d_i`` of the metric dimension and phase restarts; randomized
      (Laplace-estimate) binary predictions, or majority votes (Alg. 2);
    * ``"base_adj"``: BASE with centres moving to the mean of correctly classified points
      (Alg. 3);
    * ``"auto"``: per-ball radii, initialised to the distance to the nearest ball and
      shrinking as ``R m^{-1/(2+d)}`` with the ball's mistakes ``m`` (Alg. 4);
    * ``"auto_adj"``: AUTO with moving centres (Alg. 4); with ``budget`` it is
      AUTO-ADJ-FIX, which deletes a ball drawn with probability proportional to
      ``m_i + 1`` whenever a ball is added to a full cover (Sec. VII, Eq. 1).

    Labels may be any hashable values and are registered on the fly.

    Parameters
    ----------
    variant : {"base", "base_adj", "auto", "auto_adj"}, default "auto_adj"
        The ABACOC instance.
    budget : int or None, default None
        Maximum number of balls B >= 2 (FIX rule); only for ``"auto"`` and ``"auto_adj"``.
    d : float, default 2.0
        Dimension estimate in the AUTO radius law ``eps = R m^{-1/(2+d)}``, > 0.
    C : float, default 1.0
        Covering constant of the BASE dimension check, > 0.
    mode : {"randomized", "majority"}, default "randomized"
        BASE prediction rule; the other variants always vote by majority.
    labels : tuple, default (0, 1)
        The two labels (label_0, label_1) of randomized BASE; any other label is an error.
    metric : {"euclidean", "manhattan", "minkowski"}, default "euclidean"
        The distance rho.
    p : float, default 2.0
        Minkowski exponent (>= 1), used with ``metric="minkowski"``.
    search : {"auto", "scan", "kdtree"}, default "auto"
        Nearest-ball search; ``"auto"`` switches from the exhaustive scan to the loose
        kd-tree at ``search_threshold`` balls. The answers are identical.
    search_threshold : int, default 256
        Cover size from which ``search="auto"`` uses the kd-tree.
    leaf_size : int, default 16
        Bucket size of the kd-tree leaves.
    seed : int, default 1
        Seed of the model generator (randomized BASE predictions, FIX deletions).

    Attributes
    ----------
    classes_ : list
        Labels in order of first appearance (randomized BASE: ``list(labels)``).
    n_features_in_ : int or None
        Input dimension, fixed by the first learned row.
    n_seen_ : int
        Rows learned.
    n_balls_ : int
        Number of live balls.
    balls_ : dict
        ``centers`` (n_balls x D), ``radii``, ``counts`` (n_balls x K), ``mistakes``,
        ``ids``, in slot order.

    Notes
    -----
    Random draws: one ``uniform()`` per randomized-BASE ``predict_one`` and one
    ``below(W)`` per FIX deletion; nothing else draws.
    BASE and BASE-ADJ are scale-dependent (the paper L2-normalises inputs and uses
    ``C = 1``); the AUTO family is invariant to translation, rotation and uniform scaling.

    References
    ----------
    [DOC15] R. De Rosa, F. Orabona, N. Cesa-Bianchi, "The ABACOC algorithm: a novel
    approach for nonparametric classification of data streams", ICDM 2015.

    Examples
    --------
    >>> model = ABACOCClassifier(variant="auto_adj")
    >>> for x, y in [([0.0, 0.0], "a"), ([1.0, 0.0], "b"), ([0.1, 0.0], "a")]:
    ...     _ = model.learn_one(x, y)
    >>> model.predict_one([0.9, 0.1]), model.n_balls_
    ('b', 2)
    """

    def __init__(
        self,
        *,
        variant: str = "auto_adj",
        budget: int | None = None,
        d: float = 2.0,
        C: float = 1.0,
        mode: str = "randomized",
        labels: tuple[Hashable, Hashable] = (0, 1),
        metric: str = "euclidean",
        p: float = 2.0,
        search: str = "auto",
        search_threshold: int = 256,
        leaf_size: int = 16,
        seed: int = 1,
    ) -> None:
        params = ABACOCParams(
            variant=variant, budget=budget, d=d, C=C, mode=mode, labels=labels,
            metric=metric, p=p, search=search, search_threshold=search_threshold,
            leaf_size=leaf_size, seed=seed,
        )
        self._init_facade(params)
        self._state = CoverState(params)

    # -- backend hooks ------------------------------------------------------------------
    def _set_dim(self, n_features: int) -> None:
        self._state.n_features = n_features

    def _rollback(self, n_features: int, n_classes: int) -> None:
        if n_features == 0 and not self._state.balls:
            self._state.n_features = 0
        if n_classes < self._state.n_classes:
            self._state.n_classes = n_classes

    def _learn_rows(self, X: np.ndarray, ks: list[int]) -> None:
        rows = X.tolist()
        with Interruptible() as guard:     # Ctrl-C stops the loop between two rows
            for i in range(len(rows)):
                learn(self._state, rows[i], ks[i])
                guard.check()

    def _predict_rows(self, X: np.ndarray) -> list[int]:
        return [predict_index(self._state, row) for row in X.tolist()]

    def _proba_rows(self, X: np.ndarray) -> np.ndarray:
        out = np.zeros((X.shape[0], len(self.classes_)))
        for i, row in enumerate(X.tolist()):
            probs = class_distribution(self._state, row)
            for k in range(len(probs)):
                out[i, k] = probs[k]
        return out

    def _prequential_rows(
        self, X: np.ndarray, labels: list[int], remap: list[int], rate: float, seed: int
    ) -> tuple[list[int], int, int, int]:
        state = self._state
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

    # -- state --------------------------------------------------------------------------
    def _restore(self, snap: dict[str, Any]) -> None:
        """Rebuild the cover from a checked snapshot (see ``_load_fitted``)."""
        state = CoverState(self._params)
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
        self._state = state

    # -- state --------------------------------------------------------------------------
    @property
    def rng(self) -> Rng:
        """The model generator (its ``state`` is readable and settable)."""
        return self._state.rng

    @property
    def n_seen_(self) -> int:
        """Rows learned."""
        return self._state.n_seen

    @property
    def n_balls_(self) -> int:
        """Number of live balls ``|S|``."""
        return len(self._state.balls)

    @property
    def balls_(self) -> dict[str, np.ndarray]:
        """The ball table in slot order: centers, radii, counts, mistakes and ids.

        For the BASE family every radius is the current global radius.
        """
        return _balls_table(self.snapshot())

    def snapshot(self) -> dict[str, Any]:
        """Full model state as plain data, in slot order ([ABACOC-SPEC §2])."""
        state = self._state
        n_classes = state.n_classes
        balls = []
        for ball in state.balls:
            counts = [ball.counts[k] if k < len(ball.counts) else 0 for k in range(n_classes)]
            balls.append({
                "id": ball.id, "center": list(ball.center), "counts": counts,
                "u": ball.u, "R": ball.R, "eps": ball.eps, "m": ball.m,
            })
        return {
            "variant": self._params.variant,
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


def _balls_table(snap: dict[str, Any]) -> dict[str, np.ndarray]:
    """``balls_`` from a snapshot (shared with the fast backend)."""
    balls = snap["balls"]
    n_features = snap["n_features"]
    is_auto = snap["variant"] in ("auto", "auto_adj")
    centers = np.array([b["center"] for b in balls], dtype=np.float64).reshape(len(balls), -1)
    if len(balls) == 0:
        centers = np.zeros((0, n_features))
    radii = np.array([b["eps"] if is_auto else snap["radius"] for b in balls], dtype=np.float64)
    counts = np.array([b["counts"] for b in balls], dtype=np.int64).reshape(
        len(balls), snap["n_classes"]
    )
    return {
        "centers": centers,
        "radii": radii,
        "counts": counts,
        "mistakes": np.array([b["m"] for b in balls], dtype=np.int64),
        "ids": np.array([b["id"] for b in balls], dtype=np.int64),
    }

"""``ABACOCClassifier``: the public class that wires the ABACOC pieces together [DOC15].

Written once for both backends: the facade logic (:class:`~reference.abacoc.facade.
ABACOCFacade`) validates inputs and maps labels, and the mathematics runs in
``self._engine`` (:mod:`reference.abacoc.engine`): here a
:class:`~reference.abacoc.engine.PythonABACOCEngine`, whose state is a
:class:`~reference.abacoc.variants.CoverState` updated by the functions of
``variants.py``, ``balls.py`` and ``search.py``; ``fast`` plugs in the C engine.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from reference.abacoc.engine import PythonABACOCEngine
from reference.abacoc.facade import PARAM_NAMES, ABACOCFacade
from reference.abacoc.params import ABACOCParams
from reference.rng import Rng
from reference.state import as_dict, fail

__all__ = ["ABACOCClassifier"]


class ABACOCClassifier(ABACOCFacade):
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
    budget : "auto", int or None, default "auto"
        Maximum number of balls B >= 2 (FIX rule); only for ``"auto"`` and ``"auto_adj"``.
        ``"auto"`` gives the AUTO family a budget of
        :data:`~reference.abacoc.params.DEFAULT_BUDGET` (10,000) balls and the BASE family
        none: the paper's cover grows with the stream (in 20 dimensions by about one ball
        every four rows) and each row searches all of it, so an unbounded stream would cost
        time quadratic in its length; the budget bounds the cost of a row (Performance page,
        "ABACOC in high dimension"). ``None`` is the paper's unbounded cover, as in its
        experiments; the reproductions pass it ([ABACOC-SPEC §19]).
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
        kd-tree at ``search_threshold`` balls, and back to the scan while the tree does not
        prune (its queries computing the distance to half of the balls or more, as in
        high intrinsic dimension) until the cover has doubled. The answers are identical.
    search_threshold : int, default 256
        Cover size from which ``search="auto"`` uses the kd-tree.
    leaf_size : int, default 16
        Bucket size of the kd-tree leaves.
    seed : int, default 1
        Seed of the model generator (randomized BASE predictions, FIX deletions).

    n_jobs : int or None, default None
        Threads of the batch predictions (``predict``, ``predict_proba``, ``score``) in the
        ``fast`` backend: ``None`` or ``1`` one, ``k`` k, ``-1`` one per core; the results
        (and the search statistics the model keeps for ``search="auto"``) are identical
        for every value. Randomized BASE's ``predict`` draws from the model's generator
        row after row, so it runs on one thread. An execution setting, not part of the
        model: ``set_params(n_jobs=...)`` keeps a fitted model, and model files do not
        store it. The ``reference`` backend computes on one thread.
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
        budget: int | str | None = "auto",
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
        n_jobs: int | None = None,
    ) -> None:
        self.n_jobs = n_jobs
        params = ABACOCParams(
            variant=variant, budget=budget, d=d, C=C, mode=mode, labels=labels,
            metric=metric, p=p, search=search, search_threshold=search_threshold,
            leaf_size=leaf_size, seed=seed,
        )
        self._init_facade(params)

    _engine_class: Any = PythonABACOCEngine
    """The engine built with the model (``fast`` sets ``CABACOCEngine``)."""

    @property
    def rng(self) -> Rng:
        """The model generator (its ``state`` is readable and settable)."""
        return self._engine.rng  # type: ignore[no-any-return]

    @property
    def balls_(self) -> dict[str, np.ndarray]:
        """The ball table in slot order: centers, radii, counts, mistakes and ids.

        For the BASE family every radius is the current global radius.
        """
        return _balls_table(self.snapshot())

    def snapshot(self) -> dict[str, Any]:
        """Full model state as plain data, in slot order ([ABACOC-SPEC §2]); same schema
        and values in both backends."""
        snap: dict[str, Any] = self._engine.snapshot()
        return snap

    # -- pickling: through the plain data of a model file, checked on the way back --------
    def _get_state(self) -> dict[str, Any]:
        return {
            "params": self.get_params(),
            "classes": list(self.classes_),
            "n_features_in": self.n_features_in_,
            "feature_keys": self._feature_keys,
            # the fast engine's balls as columns (state format 2), checked vectorised
            "snapshot": self._file_state()[1] if hasattr(self._engine, "snapshot_columns")
            else self.snapshot(),
        }

    def _set_state(self, state: dict[str, Any]) -> None:
        """Rebuild from a pickled state; every field is checked before an engine sees it
        (:mod:`reference.abacoc.state_check`)."""
        if "_state" in state and isinstance(state.get("_params"), ABACOCParams):
            # pickled when the reference facade held its cover itself (``_state``)
            old = PythonABACOCEngine.from_cover(state["_state"])
            keys = state.get("_feature_keys")
            state = {"params": {name: getattr(state["_params"], name) for name in PARAM_NAMES},
                     "classes": state.get("classes_"), "n_features_in": state.get("n_features_in_"),
                     "feature_keys": keys, "snapshot": old.snapshot()}
        as_dict(state, "state", ("params", "classes", "n_features_in", "feature_keys",
                                 "snapshot"))
        if not isinstance(state["params"], dict):
            raise fail("state.params", "expected the constructor arguments")
        try:
            self.__init__(**state["params"])  # type: ignore[misc]
        except (TypeError, ValueError) as exc:
            raise fail("state.params", str(exc)) from None
        keys = state["feature_keys"]
        self._load_fitted({"n_features_in": state["n_features_in"],
                           "keys": None if keys is None else list(keys),
                           "classes": state["classes"]}, state["snapshot"])

    def _check_restored(self) -> None:
        """Nothing left to check: :meth:`_set_state` checked the state before the engine
        saw it."""


def _balls_table(snap: dict[str, Any]) -> dict[str, np.ndarray]:
    """``balls_`` from a snapshot."""
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

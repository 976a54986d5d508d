"""Dynamic trees with particle learning: the public facades [AG13, §2; TGP11].

``DynamicTreeRegressor`` (constant or linear leaves) and ``DynamicTreeClassifier``
(multinomial leaves). The facade only validates inputs, maps labels and wires the
pieces: the tree prior and moves (``tree.py``, ``moves.py``), the leaf models
(``leaf_models.py``) and the particle cloud (``particles.py``). The input/label handling
in :class:`DynamicTreeBase` is shared with ``fast.dynatree``, whose engine is C.
"""

from __future__ import annotations

import dataclasses
import math
from collections import deque
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from reference.dynatree import inputs
from reference.dynatree.discard_stats import alc_active, alc_points, data_box, entropy_active
from reference.dynatree.leaf_models import (
    CLASS,
    CONSTANT,
    LINEAR,
    LeafConfig,
    LeafStats,
    add_point,
    refresh,
)
from reference.dynatree.params import DynamicTreeParams, check_lam, normalise_rect
from reference.dynatree.particles import class_summaries, pl_step, regression_summaries
from reference.dynatree.retirement import (
    choose_retiree,
    positions_in_order,
    renumber,
    retire_point,
)
from reference.dynatree.state_check import ENGINE_KEYS, check_engine
from reference.dynatree.tree import Node, height, leaves, tree_from_snapshot, tree_snapshot
from reference.estimator import ClassifierEstimatorMixin, EstimatorMixin
from reference.interrupt import Interruptible, pieces
from reference.rng import Rng
from reference.state import (
    VersionedState,
    as_dict,
    as_float,
    as_int,
    as_labels,
    as_list,
    as_rng_state,
    fail,
)

RegressionSummary = tuple[float, float, float, float, float]


def leaf_config(params: DynamicTreeParams, d: int, n_classes: int) -> LeafConfig:
    """The :class:`LeafConfig` of a model with ``d`` inputs (and ``C`` classes)."""
    kind = {"constant": CONSTANT, "linear": LINEAR, "class": CLASS}[params.leaf]
    return LeafConfig(kind=kind, p=params.n_regressors(d),
                      augmented=params.leaf == "linear" and params.intercept == "augmented",
                      delta=params.delta(), n_classes=n_classes if kind == CLASS else 0,
                      nu0=float(params.nu0), s20=float(params.s20))


class DynamicTreeBase(EstimatorMixin, VersionedState):
    """Input handling, labels and public methods shared by every dynamic-tree model.

    Subclasses provide the engine hooks ``_engine_*`` (Python here, C in ``fast``).
    """

    _params: DynamicTreeParams
    _d: int | None
    _keys: list[Hashable] | None
    n_seen_: int
    _lpred: list[float] | deque[float]
    _piece_work = 2_000
    """Particle-steps learned between two checks for Ctrl-C (a few rows in Python)."""

    def _reset(self) -> None:
        self._d = None
        self._keys = None
        self.n_seen_ = 0
        self._lpred = self._lpred_store([])

    # -- the lpred history ([DT-SPEC §5.4]) ----------------------------------------------------
    def _lpred_store(self, values: Iterable[float]) -> list[float] | deque[float]:
        """A list (``lpred_window=None``) or a ``deque(maxlen=k)`` holding ``values``."""
        window = self._params.lpred_window
        if window is None:
            return values if isinstance(values, list) else list(values)
        return deque(values, maxlen=window)

    @property
    def lpred_(self) -> list[float]:
        """Per-step log predictive densities ``lpred_t`` ([DT-SPEC §5.4]), oldest first.

        ``0.0`` for the first ``nstart`` steps. With ``lpred_window=None`` every step is
        kept and this is the model's own list (no copy); with ``lpred_window=k`` the last
        ``k`` values live in a ``deque(maxlen=k)`` (O(1) per learned row, memory bounded)
        and each read returns a new list of them (an O(k) copy: read it once per loop).
        """
        store = self._lpred
        return store if isinstance(store, list) else list(store)

    def _pack_lpred(self, state: dict[str, Any]) -> dict[str, Any]:
        """State format 1 stores the kept values as the plain list ``state["lpred_"]``."""
        store = state.pop("_lpred")
        state["lpred_"] = store if isinstance(store, list) else list(store)
        return state

    def _unpack_lpred(self, state: dict[str, Any]) -> dict[str, Any]:
        """Inverse of :meth:`_pack_lpred`; a format-1 state written before
        ``lpred_window`` existed (parameters without the field) loads as ``None``."""
        params = state["_params"]
        if "lpred_window" not in vars(params):
            params = dataclasses.replace(params)  # the field takes its default, None
            state["_params"] = params
        self._params = params
        state["_lpred"] = self._lpred_store(state.pop("lpred_", []))
        return state

    def _get_state(self) -> dict[str, Any]:
        return self._pack_lpred(dict(self.__dict__))

    def _set_state(self, state: dict[str, Any]) -> None:
        self.__dict__.update(self._unpack_lpred(state))

    # -- data-only model files and checked restores (reference.persist) -------------------
    def _fitted_state(self) -> dict[str, Any]:
        """The facade state a model file stores next to :meth:`snapshot`."""
        out: dict[str, Any] = {"n_features_in": self._d,
                               "keys": None if self._keys is None else list(self._keys),
                               "n_seen": self.n_seen_, "lpred": list(self._lpred)}
        if isinstance(self, ClassifierMixin):
            out["classes"] = list(self.classes_)
        return out

    def _check_state(self, fitted: Any, snapshot: Any) -> None:
        """Raise ``StateFormatError`` naming the field unless ``fitted`` and ``snapshot``
        are a valid state for this model's parameters
        (:mod:`reference.dynatree.state_check`)."""
        if not isinstance(self._params, DynamicTreeParams):
            raise fail("params", "expected dynamic-tree parameters")
        try:
            self._params.validate()
        except (TypeError, ValueError) as exc:
            raise fail("params", str(exc)) from None
        names: tuple[str, ...] = ("n_features_in", "keys", "n_seen", "lpred")
        if isinstance(self, ClassifierMixin):
            names += ("classes",)
        as_dict(fitted, "fitted", names)
        as_dict(snapshot, "snapshot", ("n_seen", "n_features_in") + ENGINE_KEYS)
        n_seen = as_int(fitted["n_seen"], "fitted.n_seen", 0, 2**62)
        if snapshot["n_seen"] != n_seen:
            raise fail("snapshot.n_seen", f"differs from fitted.n_seen ({n_seen})")
        lpred = as_list(fitted["lpred"], "fitted.lpred")
        window = self._params.lpred_window
        if len(lpred) > min(n_seen, window if window is not None else n_seen):
            raise fail("fitted.lpred", f"{len(lpred)} values, more than the rows learned "
                       "or the window keeps")
        for i, v in enumerate(lpred):
            value = as_float(v, f"fitted.lpred[{i}]", finite=False)
            if math.isnan(value) or value == math.inf:
                raise fail(f"fitted.lpred[{i}]", f"a log density below +inf, found {value}")
        n_classes = 0
        if isinstance(self, ClassifierMixin):
            classes = as_labels(fitted["classes"], "fitted.classes")
            if classes and len(classes) < 2:
                raise fail("fitted.classes", "a classifier has at least two classes")
            given = getattr(self, "_init_classes", None)
            if given is not None and classes != given:
                raise fail("fitted.classes", f"differ from the classes parameter {given!r}")
            n_classes = len(classes)
        d = fitted["n_features_in"]
        if d is None:
            if (n_seen, fitted["keys"], snapshot["n_features_in"], snapshot["X"],
                    snapshot["y"], snapshot["particles"]) != (0, None, 0, [], [], []):
                raise fail("snapshot", "an unfitted model holds no data and no particles")
            as_rng_state(snapshot["rng_state"], "snapshot.rng_state")
            return
        d = as_int(d, "fitted.n_features_in", 1, 2**31 - 1)
        if snapshot["n_features_in"] != d:
            raise fail("snapshot.n_features_in", f"differs from fitted.n_features_in ({d})")
        keys = fitted["keys"]
        if keys is not None and len(as_labels(keys, "fitted.keys")) != d:
            raise fail("fitted.keys", f"expected {d} feature names")
        rect = self._params.rect
        if rect is not None and len(rect) != d:
            raise fail("fitted.n_features_in", f"rect has {len(rect)} pairs for {d} features")
        if isinstance(self, ClassifierMixin) and n_classes == 0:
            raise fail("fitted.classes", "a classifier that has learned knows its classes")
        check_engine(snapshot, self._params, leaf_config(self._params, d, n_classes), d, n_seen)

    def _load_fitted(self, fitted: Any, snapshot: Any) -> None:
        """Check a model file's facade state and snapshot, then restore them into this
        new model."""
        self._check_state(fitted, snapshot)
        if isinstance(self, ClassifierMixin) and fitted["classes"]:
            self._set_classes(fitted["classes"])
        self.n_seen_ = fitted["n_seen"]
        self._lpred = self._lpred_store([float(v) for v in fitted["lpred"]])
        if fitted["n_features_in"] is None:
            self.rng.state = tuple(snapshot["rng_state"])
            return
        d = fitted["n_features_in"]
        self._engine_init(d, len(getattr(self, "classes_", [])))
        self._d = d
        self._keys = None if fitted["keys"] is None else list(fitted["keys"])
        self._engine_restore(snapshot)


    def _engine_restore(self, snap: dict[str, Any]) -> None:
        """Rebuild the engine from a checked snapshot (after ``_engine_init``)."""
        raise NotImplementedError

    # -- engine hooks ---------------------------------------------------------------------
    def _engine_init(self, d: int, n_classes: int) -> None:
        raise NotImplementedError

    def _engine_learn(self, rows: list[list[float]], targets: list[float]) -> list[float]:
        raise NotImplementedError

    def _engine_regression(self, row: list[float]) -> RegressionSummary:
        raise NotImplementedError

    def _engine_class(self, row: list[float]) -> tuple[list[float], float]:
        raise NotImplementedError

    def _engine_snapshot(self) -> dict[str, Any]:
        raise NotImplementedError

    def _engine_trees(self) -> list[tuple[int, int, int]]:
        raise NotImplementedError

    def _engine_lml(self) -> float:
        raise NotImplementedError

    def _engine_retire(self, positions: list[int], lam: float) -> None:
        raise NotImplementedError

    def _engine_discard(self) -> None:
        raise NotImplementedError

    def _engine_pool(self) -> tuple[list[list[float]], list[float]]:
        raise NotImplementedError

    def _engine_retired(self) -> list[float]:
        raise NotImplementedError

    def _engine_entropy(self) -> list[float]:
        raise NotImplementedError

    def _engine_alc_active(self, box: list[tuple[float, float]]) -> list[float]:
        raise NotImplementedError

    def _engine_alc(self, rows: list[list[float]], box: list[tuple[float, float]]
                    ) -> list[float]:
        raise NotImplementedError

    # -- common API ---------------------------------------------------------------------
    @property
    def n_features_in_(self) -> int:
        """Number of input features (fixed by the first row)."""
        if self._d is None:
            raise AttributeError("n_features_in_ is set by the first learned row")
        return self._d

    @property
    def log_marginal_likelihood_(self) -> float:
        """Running sum of ``lpred_t = log(avg_i p(y_t | x_t, T_i))`` ([DT-SPEC §5.4])."""
        return self._engine_lml() if self._d is not None else 0.0

    def _constructor_params(self) -> dict[str, Any]:
        raise NotImplementedError

    def clone(self) -> Any:
        """A new unfitted model with the same parameters."""
        return type(self)(**self._constructor_params())

    def _row(self, x: Any) -> list[float]:
        return inputs.row_values(x, self._keys, self._d)

    def _learn_checked(self, rows: list[list[float]], targets: list[float],
                       keys: list[Hashable] | None, n_classes: int) -> None:
        first = self._d is None
        if first:
            rect = self._params.rect
            if rect is not None and len(rect) != len(rows[0]):
                raise ValueError(f"rect must have one (low, high) pair per feature "
                                 f"({len(rows[0])}), got {len(rect)}")
            self._engine_init(len(rows[0]), n_classes)
            self._keys = keys
            self._d = len(rows[0])
        # Ctrl-C is honoured between pieces of ``_piece_work`` particle-steps
        # (:mod:`reference.interrupt`); every piece is accounted for before the check
        size = max(1, self._piece_work // self._params.n_particles)
        with Interruptible() as guard:
            for start, stop in pieces(len(rows), size):
                try:
                    lpreds = self._engine_learn(rows[start:stop], targets[start:stop])
                except MemoryError as exc:
                    # each row is atomic: the rows before the failing one stay learned, and
                    # the engine attaches their lpred values to the exception (fast backend)
                    done: list[float] = getattr(exc, "learned_lpreds", [])
                    if first and start == 0 and not done:  # back to the unfitted model
                        self._d = None
                        self._keys = None
                        self._engine_discard()
                    self._lpred.extend(done)
                    self.n_seen_ += len(done)
                    raise
                self._lpred.extend(lpreds)
                self.n_seen_ += stop - start
                guard.check()

    def tree_stats(self) -> dict[str, float]:
        """Particle averages of tree height (a lone root is 1), leaves, mean leaf size,
        retired mass ``sum nu`` and retired mass per leaf ([DT-SPEC §6])."""
        trees = self._engine_trees() if self._d is not None else []
        if not trees:
            return {"mean_height": 0.0, "mean_leaves": 0.0, "mean_leaf_size": 0.0,
                    "mean_retired": 0.0, "mean_leaf_retired": 0.0}
        retired = self._engine_retired()
        n = float(len(trees))
        h = 0.0
        nl = 0.0
        size = 0.0
        ret = 0.0
        leaf_ret = 0.0
        for (tree_height, n_leaves, n_points), nu in zip(trees, retired, strict=True):
            h = h + float(tree_height)
            nl = nl + float(n_leaves)
            size = size + float(n_points) / float(n_leaves)
            ret = ret + nu
            leaf_ret = leaf_ret + nu / float(n_leaves)
        return {"mean_height": h / n, "mean_leaves": nl / n, "mean_leaf_size": size / n,
                "mean_retired": ret / n, "mean_leaf_retired": leaf_ret / n}

    # -- retirement ([DT-SPEC §6]) -----------------------------------------------------------
    @property
    def active_X_(self) -> np.ndarray:
        """The active pool's inputs, one row per point, in arrival order."""
        if self._d is None:
            return np.zeros((0, 0), dtype=float)
        rows, _ = self._engine_pool()
        return np.array(rows, dtype=float).reshape(len(rows), self._d)

    def _pool_targets(self, values: list[float]) -> np.ndarray:
        return np.array(values, dtype=float)

    @property
    def active_y_(self) -> np.ndarray:
        """The active pool's targets (labels for a classifier), in arrival order."""
        if self._d is None:
            return self._pool_targets([])
        return self._pool_targets(self._engine_pool()[1])

    def retire(self, indices: Any, lam: float = 1.0) -> None:
        """Retire active points into their leaves' priors ([DT-SPEC §6.1]) [AG13, §3].

        Parameters
        ----------
        indices : int or sequence of int
            0-based positions in the active pool (arrival order, see ``active_X_``) at the
            time of the call; duplicates are ignored; at least one point must remain.
        lam : float
            Forgetting factor ``0 < lam <= 1`` applied to the retired statistics.
        """
        lam = check_lam(lam)
        if isinstance(indices, (int, np.integer)) and not isinstance(indices, bool):
            indices = [indices]
        try:
            values = list(indices)
        except TypeError as exc:
            raise ValueError(f"indices must be an int or a sequence of ints, "
                             f"got {indices!r}") from exc
        out: list[int] = []
        for v in values:
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise ValueError(f"indices must be ints, got {v!r}")
            out.append(int(v))
        if not out:
            raise ValueError("indices must not be empty")
        p = self._params
        if p.leaf == "linear" and p.intercept == "implicit":
            raise ValueError("retire needs intercept='augmented' or 'none' ([DT-SPEC §6.1])")
        n_active = 0 if self._d is None else len(self._engine_pool()[1])
        for v in out:
            if not 0 <= v < n_active:
                raise IndexError(f"index {v} out of range for an active pool of {n_active}")
        positions = positions_in_order(out, n_active)
        if len(positions) >= n_active:
            raise ValueError("retire must leave at least one active point")
        self._engine_retire(positions, lam)

    def _check_classifier_stat(self, name: str, want_class: bool) -> None:
        if (self._params.leaf == "class") != want_class:
            kind = "classification" if want_class else "regression"
            raise ValueError(f"{name} is only defined for {kind} models")

    def _box(self, rect: Any, extra: list[list[float]]) -> list[tuple[float, float]]:
        assert self._d is not None
        box = normalise_rect(rect)
        if box is None:
            box = self._params.rect
        if box is None:
            rows, _ = self._engine_pool()
            return data_box(rows + extra, self._d)
        if len(box) != self._d:
            raise ValueError(f"rect must have one (low, high) pair per feature ({self._d}), "
                             f"got {len(box)}")
        return list(box)

    def alc_active(self) -> np.ndarray:
        """ALC statistic of every active point ([DT-SPEC §7.4]) [AG13, §4.2].

        The particle average of the integrated reduction in predictive variance over the
        point's leaf rectangle (closed by ``rect`` or the range of the active inputs),
        divided by the box volume; automatic ``"alc"`` retirement removes the minimiser.
        """
        self._check_classifier_stat("alc_active", False)
        if self._d is None:
            return np.zeros(0, dtype=float)
        return np.array(self._engine_alc_active(self._box(None, [])), dtype=float)

    def alc(self, X: Any, rect: Any = None) -> np.ndarray:
        """ALC of candidate rows ``X`` ([DT-SPEC §7.1]-[DT-SPEC §7.4]): particle-averaged integrated
        variance reduction over each candidate's leaf rectangle, normalised by the box.

        ``rect``: ``(low, high)`` per feature; default the constructor's ``rect`` or the
        range of the active inputs and ``X``.
        """
        self._check_classifier_stat("alc", False)
        rows = inputs.batch_rows(X, self._keys, self._d)
        if self._d is None:
            raise ValueError("alc needs a fitted model")
        if not rows:
            return np.zeros(0, dtype=float)
        return np.array(self._engine_alc(rows, self._box(rect, rows)), dtype=float)

    def entropy_active(self) -> np.ndarray:
        """Particle-averaged leaf entropy of every active point ([DT-SPEC §7.5]) [AG13, §4.3]."""
        self._check_classifier_stat("entropy_active", True)
        if self._d is None:
            return np.zeros(0, dtype=float)
        return np.array(self._engine_entropy(), dtype=float)

    def leaf_counts(self) -> list[int]:
        """Number of leaves of every particle's tree, in particle order."""
        if self._d is None:
            return []
        return [t[1] for t in self._engine_trees()]

    def snapshot(self) -> dict[str, Any]:
        """Full state as plain data (particles' preorder nodes, data store, generator)."""
        snap: dict[str, Any] = {"n_seen": self.n_seen_,
                                "n_features_in": self._d if self._d is not None else 0}
        if self._d is None:
            snap.update({"log_marginal_likelihood": 0.0,
                         "rng_state": list(self.rng.state), "X": [], "y": [],
                         "particles": []})
            return snap
        snap.update(self._engine_snapshot())
        return snap

    @property
    def rng(self) -> Any:
        """The model's generator (``state`` readable and settable)."""
        raise NotImplementedError


class RegressorMixin(DynamicTreeBase):
    """Public regression methods on top of the engine hooks."""

    def learn_one(self, x: Any, y: Any) -> None:
        """Learn one row: resample, then propagate every particle ([DT-SPEC §5])."""
        keys = self._keys if self._d is not None else inputs.first_keys(x)
        row = inputs.row_values(x, keys, self._d)
        target = inputs.target_value(y)
        self._learn_checked([row], [target], keys, 0)

    def partial_fit(self, X: Any, y: Any) -> None:
        """Learn the rows of ``X`` in order (all rows are validated first)."""
        rows = inputs.batch_rows(X, self._keys, self._d)
        targets = [inputs.target_value(v) for v in inputs.batch_targets(y, len(rows))]
        if not rows:
            raise ValueError("X must not be empty")
        keys = self._keys
        if self._d is None:
            first = next(iter(X)) if not isinstance(X, np.ndarray) else None
            keys = inputs.first_keys(first) if isinstance(first, Mapping) else None
        self._learn_checked(rows, targets, keys, 0)

    def _summary(self, row: list[float]) -> RegressionSummary:
        if self._d is None:
            return 0.0, math.inf, -math.inf, math.inf, 0.0
        return self._engine_regression(row)

    def predict_one(self, x: Any) -> float:
        """Predictive mean at ``x``: particle average of leaf means ([DT-SPEC §8.1])."""
        return self._summary(self._row(x))[0]

    def predict(self, X: Any) -> np.ndarray:
        """Predictive means at the rows of ``X``."""
        rows = inputs.batch_rows(X, self._keys, self._d)
        return np.array([self._summary(r)[0] for r in rows], dtype=float)

    def predict_dist(self, X: Any) -> dict[str, np.ndarray]:
        """Predictive ``mean``, ``var``, ``q05``, ``q95`` and ``df`` at the rows of ``X``.

        Quantiles are particle averages of per-particle Student-t quantiles, ``var`` the
        total predictive variance ([DT-SPEC §8.1]).
        """
        rows = inputs.batch_rows(X, self._keys, self._d)
        out = [self._summary(r) for r in rows]
        names = ("mean", "var", "q05", "q95", "df")
        return {name: np.array([o[k] for o in out], dtype=float)
                for k, name in enumerate(names)}


class ClassifierMixin(ClassifierEstimatorMixin, DynamicTreeBase):
    """Public classification methods on top of the engine hooks."""

    classes_: list[Hashable]
    _index: dict[Hashable, int]

    def _set_classes(self, classes: Sequence[Hashable] | None) -> None:
        if classes is None:
            self.classes_ = []
            self._index = {}
            return
        values = list(classes)
        if len(values) < 2 or len(set(values)) != len(values):
            raise ValueError("classes must hold at least two distinct labels")
        self.classes_ = values
        self._index = {c: i for i, c in enumerate(values)}

    def _label(self, y: Any, index: Mapping[Hashable, int]) -> float:
        try:
            return float(index[y])
        except (KeyError, TypeError) as exc:
            raise ValueError(f"unknown label {y!r}; classes are {list(index)!r}") from exc

    def learn_one(self, x: Any, y: Any) -> None:
        """Learn one labelled row (the class set must be known, [DT-SPEC §0] item 4)."""
        if not self.classes_:
            raise ValueError("classes must be given to the constructor or fixed by the "
                             "first partial_fit call before learn_one")
        keys = self._keys if self._d is not None else inputs.first_keys(x)
        row = inputs.row_values(x, keys, self._d)
        target = self._label(y, self._index)
        self._learn_checked([row], [target], keys, len(self.classes_))

    def _declare_classes(self, classes: Sequence[Hashable]) -> None:
        values = list(classes)
        if not self.classes_:
            self._set_classes(values)
        elif any(c not in self._index for c in values):
            raise ValueError(f"classes {values!r} differ from classes_ {self.classes_!r}")

    def partial_fit(self, X: Any, y: Any, classes: Sequence[Hashable] | None = None) -> None:
        """Learn rows in order; a first call fixes the class set: ``classes`` if given (the
        scikit-learn convention), else the labels in order of first appearance."""
        if classes is not None:
            saved = (self.classes_, self._index)
            try:
                self._declare_classes(classes)
                self.partial_fit(X, y)
            except BaseException:
                if self.n_seen_ == 0:
                    self.classes_, self._index = saved
                raise
            return
        rows = inputs.batch_rows(X, self._keys, self._d)
        if not rows:
            raise ValueError("X must not be empty")
        labels = inputs.batch_targets(y, len(rows))
        classes = list(self.classes_)
        if not classes:
            for label in labels:
                try:
                    seen = label in classes
                except TypeError as exc:
                    raise ValueError(f"labels must be hashable, got {label!r}") from exc
                if not seen:
                    classes.append(label)
            if len(classes) < 2:
                raise ValueError("the first partial_fit call must show at least two classes")
        index = {c: i for i, c in enumerate(classes)}
        targets = [self._label(v, index) for v in labels]
        keys = self._keys
        if self._d is None:
            first = next(iter(X)) if not isinstance(X, np.ndarray) else None
            keys = inputs.first_keys(first) if isinstance(first, Mapping) else None
        if not self.classes_:
            self._set_classes(classes)
        self._learn_checked(rows, targets, keys, len(self.classes_))

    def _probs(self, row: list[float]) -> tuple[list[float], float]:
        n = len(self.classes_)
        if self._d is None:
            if n == 0:
                return [], 0.0
            return [1.0 / float(n)] * n, math.log(float(n))
        return self._engine_class(row)

    def _pool_targets(self, values: list[float]) -> np.ndarray:
        return np.array([self.classes_[int(v)] for v in values])

    def predict_proba_one(self, x: Any) -> dict[Hashable, float]:
        """Particle-averaged class probabilities at ``x`` ([DT-SPEC §8.2])."""
        probs, _ = self._probs(self._row(x))
        return {c: probs[i] for i, c in enumerate(self.classes_)}

    def predict_one(self, x: Any) -> Hashable:
        """The most probable class at ``x`` (ties: first class in ``classes_``)."""
        probs, _ = self._probs(self._row(x))
        if not probs:
            return None
        best = 0
        for k in range(1, len(probs)):
            if probs[k] > probs[best]:
                best = k
        return self.classes_[best]

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities at the rows of ``X``, columns in ``classes_`` order."""
        rows = inputs.batch_rows(X, self._keys, self._d)
        return np.array([self._probs(r)[0] for r in rows], dtype=float).reshape(
            len(rows), len(self.classes_))

    def predict(self, X: Any) -> np.ndarray:
        """Most probable classes at the rows of ``X``."""
        rows = inputs.batch_rows(X, self._keys, self._d)
        return np.array([self.predict_one(r) for r in rows])

    def predict_entropy(self, X: Any) -> np.ndarray:
        """Predictive entropy: the average of per-particle entropies ([DT-SPEC §8.2])."""
        rows = inputs.batch_rows(X, self._keys, self._d)
        return np.array([self._probs(r)[1] for r in rows], dtype=float)


class ReferenceEngine(DynamicTreeBase):
    """The Python particle cloud behind the reference facades."""

    _roots: list[Node]
    _cfg: LeafConfig
    _X: list[list[float]]
    _y: list[float]
    _rng: Rng

    def _engine_reset(self) -> None:
        self._rng = Rng(self._params.seed)
        self._roots = []
        self._X = []
        self._y = []
        self._lml = 0.0
        self._t = 0

    @property
    def rng(self) -> Rng:
        """The model's generator (``state`` readable and settable)."""
        return self._rng

    def _engine_init(self, d: int, n_classes: int) -> None:
        self._cfg = leaf_config(self._params, d, n_classes)
        self._minp = self._params.resolved_min_leaf(d)
        self._nstart = self._params.resolved_nstart(d)
        self._roots = []
        for _ in range(self._params.n_particles):
            stats = LeafStats(self._cfg)
            refresh(stats, self._cfg)
            self._roots.append(Node(0, None, [], stats))

    def _engine_learn(self, rows: list[list[float]], targets: list[float]) -> list[float]:
        out: list[float] = []
        p = self._params
        w = p.active_size
        for row, target in zip(rows, targets, strict=True):
            if w is not None and len(self._X) >= w:
                self._auto_retire()
            index = len(self._X)
            self._X.append(row)
            self._y.append(target)
            lpred = 0.0
            self._t += 1
            if self._t <= self._nstart:
                for root in self._roots:
                    root.points.append(index)
                    add_point(root.stats, self._cfg, root.points, index, self._X, self._y)
            else:
                self._roots, lpred = pl_step(self._roots, index, self._X, self._y, self._cfg,
                                             self._minp, float(p.alpha), float(p.beta),
                                             self._rng)
            self._lml = self._lml + lpred
            out.append(lpred)
        return out

    def _engine_lml(self) -> float:
        return self._lml

    def _engine_discard(self) -> None:
        self._roots = []
        self._X = []
        self._y = []
        self._lml = 0.0
        self._t = 0

    def _auto_retire(self) -> None:
        """Choose and retire one point before the PL step ([DT-SPEC §0] item 5)."""
        p = self._params
        scores: list[float] = []
        if p.retirement == "entropy":
            scores = self._engine_entropy()
        elif p.retirement == "alc":
            scores = self._engine_alc_active(self._box(None, []))
        r = choose_retiree(p.retirement, len(self._X), self._rng, scores)
        self._engine_retire([r], float(p.lam))

    def _engine_retire(self, positions: list[int], lam: float) -> None:
        for r in positions:
            self._roots = retire_point(self._roots, r, self._X, self._y, self._cfg, lam,
                                       self._minp)
            del self._X[r]
            del self._y[r]
            renumber(self._roots, r)

    def _engine_pool(self) -> tuple[list[list[float]], list[float]]:
        return [list(r) for r in self._X], list(self._y)

    def _engine_retired(self) -> list[float]:
        out = []
        for root in self._roots:
            nu = 0.0
            for leaf in leaves(root):
                nu = nu + leaf.stats.nu
            out.append(nu)
        return out

    def _engine_entropy(self) -> list[float]:
        return entropy_active(self._roots, self._cfg, len(self._X))

    def _engine_alc_active(self, box: list[tuple[float, float]]) -> list[float]:
        return alc_active(self._roots, self._cfg, self._X, box, self._params.approx, self._t)

    def _engine_alc(self, rows: list[list[float]], box: list[tuple[float, float]]
                    ) -> list[float]:
        return alc_points(self._roots, self._cfg, rows, box, self._params.approx, self._t)

    def _engine_regression(self, row: list[float]) -> RegressionSummary:
        return regression_summaries(self._roots, row, self._cfg)

    def _engine_class(self, row: list[float]) -> tuple[list[float], float]:
        return class_summaries(self._roots, row, self._cfg)

    def _engine_trees(self) -> list[tuple[int, int, int]]:
        out = []
        for root in self._roots:
            under = leaves(root)
            count = 0
            for leaf in under:
                count += len(leaf.points)
            out.append((height(root), len(under), count))
        return out

    def _engine_restore(self, snap: dict[str, Any]) -> None:
        self._X = [[float(v) for v in row] for row in snap["X"]]
        self._y = [float(v) for v in snap["y"]]
        self._lml = float(snap["log_marginal_likelihood"])
        self._rng.state = tuple(snap["rng_state"])
        self._t = self.n_seen_
        self._roots = [tree_from_snapshot(records, self._cfg) for records in snap["particles"]]

    def _engine_snapshot(self) -> dict[str, Any]:
        return {"log_marginal_likelihood": self._lml,
                "rng_state": list(self._rng.state),
                "X": [list(r) for r in self._X], "y": list(self._y),
                "particles": [tree_snapshot(r, self._cfg) for r in self._roots]}


class DynamicTreeRegressor(RegressorMixin, ReferenceEngine):
    """Dynamic tree regression with particle learning [AG13, §2; TGP11].

    A cloud of ``n_particles`` Bayesian regression trees, each updated by one local
    stay / grow / prune move per observation and resampled by its one-step predictive
    density. Leaves are constant (``leaf="constant"``) or linear (``leaf="linear"``, with
    an ``"implicit"``, ``"augmented"`` or no intercept).

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
    approx : bool
        ALC with leaf counts as a proxy for leaf volumes ([DT-SPEC §7.4]).
    lpred_window : int or None, default 10000
        How many per-step log predictive densities ``lpred_`` to keep (dynaTree's
        ``lpred``, [DT-SPEC §5.4]): an int ``k >= 0`` keeps the last ``k`` (``0``: none), so
        that with an active pool memory stays flat on unbounded streams [AG13, §3]; ``None``
        keeps every step, as dynaTree does (opt-in: it grows with the stream).
        ``log_marginal_likelihood_`` sums every step either way.

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

    def __init__(self, *, leaf: str = "constant", intercept: str = "implicit",
                 n_particles: int = 1000, alpha: float = 0.95, beta: float = 2.0,
                 min_leaf: int | None = None, nstart: int | None = None, nu0: float = 0.0,
                 s20: float = 0.0, seed: int = 0, active_size: int | None = None,
                 retirement: str = "random", lam: float = 1.0,
                 rect: Sequence[tuple[float, float]] | None = None,
                 approx: bool = False, lpred_window: int | None = 10_000) -> None:
        if leaf not in ("constant", "linear"):
            raise ValueError(f"leaf must be 'constant' or 'linear', got {leaf!r}")
        self._params = DynamicTreeParams(
            leaf=leaf, intercept=intercept, n_particles=n_particles, alpha=alpha, beta=beta,
            min_leaf=min_leaf, nstart=nstart, nu0=nu0, s20=s20, seed=seed,
            active_size=active_size, retirement=retirement, lam=lam,
            rect=normalise_rect(rect), approx=approx,
            lpred_window=lpred_window).validate()
        self._reset()
        self._engine_reset()

    def _constructor_params(self) -> dict[str, Any]:
        """Constructor arguments as a dict."""
        p = self._params
        return {"leaf": p.leaf, "intercept": p.intercept, "n_particles": p.n_particles,
                "alpha": p.alpha, "beta": p.beta, "min_leaf": p.min_leaf,
                "nstart": p.nstart, "nu0": p.nu0, "s20": p.s20, "seed": p.seed,
                "active_size": p.active_size, "retirement": p.retirement, "lam": p.lam,
                "rect": None if p.rect is None else [list(r) for r in p.rect],
                "approx": p.approx, "lpred_window": p.lpred_window}


class DynamicTreeClassifier(ClassifierMixin, ReferenceEngine):
    """Dynamic tree classification with multinomial leaves and particle learning [AG13].

    Leaves carry a Dirichlet(1/C, ..., 1/C) prior on the class probabilities ([DT-SPEC §3.3]).
    The class set is given by ``classes`` or fixed by the first ``partial_fit`` call.

    Parameters
    ----------
    classes : sequence of hashable or None
        The labels, in the order of ``classes_``.
    n_particles : int
        Number of particles ``N``.
    alpha, beta : float
        Tree prior ``p_split(d) = alpha (1 + d)^-beta``.
    min_leaf : int or None
        Minimum active points per leaf (``None``: 1).
    nstart : int or None
        Points placed in the root before particle learning (``None``: ``min_leaf``).
    seed : int
        Seed of the generator.
    active_size : int or None
        Size ``w`` of the active pool; when it is full, one point is retired into the leaf
        priors before each new point is learned (``None``: never retire) [AG13, §3].
    retirement : {"random", "historical", "entropy"}
        Which point to retire: uniform, the oldest, or the one of smallest entropy.
    lam : float
        Forgetting factor ``0 < lam <= 1`` of the automatic retirements [AG13, §5].
    lpred_window : int or None, default 10000
        How many per-step log predictive densities ``lpred_`` to keep (dynaTree's
        ``lpred``, [DT-SPEC §5.4]): an int ``k >= 0`` keeps the last ``k`` (``0``: none), so
        that with an active pool memory stays flat on unbounded streams [AG13, §3]; ``None``
        keeps every step, as dynaTree does (opt-in: it grows with the stream).
        ``log_marginal_likelihood_`` sums every step either way.

    Examples
    --------
    >>> from reference import DynamicTreeClassifier
    >>> m = DynamicTreeClassifier(classes=["a", "b"], n_particles=20, seed=1)
    >>> for i in range(40):
    ...     x = i / 40.0
    ...     m.learn_one([x], "b" if x > 0.5 else "a")
    >>> m.predict_one([0.9])
    'b'
    """

    def __init__(self, *, classes: Sequence[Hashable] | None = None, n_particles: int = 1000,
                 alpha: float = 0.95, beta: float = 2.0, min_leaf: int | None = None,
                 nstart: int | None = None, seed: int = 0, active_size: int | None = None,
                 retirement: str = "random", lam: float = 1.0,
                 lpred_window: int | None = 10_000) -> None:
        self._params = DynamicTreeParams(
            leaf="class", n_particles=n_particles, alpha=alpha, beta=beta,
            min_leaf=min_leaf, nstart=nstart, seed=seed, active_size=active_size,
            retirement=retirement, lam=lam, lpred_window=lpred_window).validate()
        self._set_classes(classes)
        self._init_classes = None if classes is None else list(classes)
        self._reset()
        self._engine_reset()

    def _constructor_params(self) -> dict[str, Any]:
        """Constructor arguments as a dict."""
        p = self._params
        return {"classes": self._init_classes, "n_particles": p.n_particles,
                "alpha": p.alpha, "beta": p.beta, "min_leaf": p.min_leaf,
                "nstart": p.nstart, "seed": p.seed, "active_size": p.active_size,
                "retirement": p.retirement, "lam": p.lam,
                "lpred_window": p.lpred_window}

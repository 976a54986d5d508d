"""The dynamic-tree facade shared by the regressor and the classifier [AG13, §2; TGP11].

A facade validates inputs, maps labels and keeps the public state: ``n_seen_``, the
``lpred_`` history, the feature names, the state of pickles, snapshots and model files.
Its mathematics runs in ``self._engine``, an instance of the class attribute
``_engine_class`` (:mod:`reference.dynatree.engine`): the Python engine here, the C engine
in ``fast.dynatree``, whose public classes only set ``_engine_class``.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections import deque
from collections.abc import Callable, Hashable, Iterable
from typing import Any

import numpy as np

from reference.batches import (
    all_finite,
    as_float64,
    chunk_rows,
    chunks,
    is_numeric_table,
    release,
)
from reference.dynatree import inputs
from reference.dynatree.columns import RECORDS_TAG, columns_to_records, records_to_columns
from reference.dynatree.discard_stats import data_box
from reference.dynatree.engine import (
    ArrayRowEngine,
    DynamicTreeEngine,
    PythonDynamicTreeEngine,
)
from reference.dynatree.params import DynamicTreeParams, check_lam, normalise_rect
from reference.dynatree.particles import STREAM_RULE, StreamRuleWarning
from reference.dynatree.retirement import positions_in_order
from reference.dynatree.state_check import check_model_state
from reference.estimator import EstimatorMixin
from reference.interrupt import Interruptible, pieces
from reference.state import VersionedState


def finite_alc(scores: np.ndarray, name: str) -> np.ndarray:
    """``scores`` if every ALC score is finite, else ``FloatingPointError`` naming the first
    row whose integrated variance overflowed and the remedy (rescale, or a smaller
    ``rect``)."""
    bad = np.flatnonzero(~np.isfinite(scores))
    if bad.size:
        raise FloatingPointError(
            f"{name}: the ALC score of row {int(bad[0])} overflowed the float range "
            f"({scores[bad[0]]}): it integrates a predictive variance (the squared target "
            f"scale) over a box whose volume is the product of its widths; rescale the "
            f"inputs and targets (e.g. StandardScaler) or pass a smaller rect")
    return scores


def _continue_stream_rule(rule: Any, what: str) -> None:
    """Accept a state written under random-stream rule ``rule`` ([DT-SPEC §0] item 6): the
    current rule silently; rule 1 (driftwood 0.1, states without the field) with a
    :class:`StreamRuleWarning`, since it continues under the current rule; anything else
    is a ``StateFormatError``."""
    from reference.state import StateFormatError

    if type(rule) is int and rule == STREAM_RULE:
        return
    if type(rule) is int and rule == 1:
        warnings.warn(
            f"{what} written by driftwood 0.1 (random-stream rule 1: one generator for the "
            f"whole particle-learning step) is restored exactly, but continues under rule "
            f"{STREAM_RULE} (one random stream per particle slot): the rows it learns from "
            f"now on differ from what driftwood 0.1 would have computed from this state, "
            f"with the same distribution", StreamRuleWarning, stacklevel=4)
        return
    raise StateFormatError(f"field stream_rule: {rule!r} is not a random-stream rule this "
                           f"driftwood continues (1 or {STREAM_RULE})")


class DynamicTreeFacade(EstimatorMixin, VersionedState):
    """Input handling, the learning loop and the public methods shared by every
    dynamic-tree model; the mathematics is the engine's (``self._engine``)."""

    _engine_class: type[DynamicTreeEngine] = PythonDynamicTreeEngine
    """The engine implementation (``fast`` subclasses set the C one)."""
    _engine: DynamicTreeEngine
    _params: DynamicTreeParams
    _d: int | None
    _keys: list[Hashable] | None
    n_seen_: int
    _lpred: list[float] | deque[float]

    def _reset(self) -> None:
        """The unfitted facade state and a new unfitted engine (after ``_params`` is set)."""
        self._d = None
        self._keys = None
        self.n_seen_ = 0
        self._lpred = self._lpred_store([])
        self._engine = self._engine_class(self._params)

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

    # -- pickles (state format 1, reference.state) ----------------------------------------
    def _get_state(self) -> dict[str, Any]:
        """The facade's attributes plus the engine's entries (the keys of
        ``_engine_class.pickle_keys``, the same as before engines were separate objects)."""
        state = {k: v for k, v in self.__dict__.items() if k != "_engine"}
        state.update(self._engine.to_pickle(self._snapshot_columns))
        state["_stream_rule"] = STREAM_RULE
        return self._pack_lpred(state)

    def _set_state(self, state: dict[str, Any]) -> None:
        _continue_stream_rule(state.pop("_stream_rule", 1), f"a pickled {type(self).__name__}")
        state = self._unpack_lpred(state)
        engine_class = type(self)._engine_class
        entries = {k: state.pop(k) for k in engine_class.pickle_keys if k in state}
        self.__dict__.update(state)
        self._engine = engine_class.from_pickle(self, entries)

    def _check_restored(self) -> None:
        """The model-file checks on an unpickled state, unless the engine made them while
        restoring (the C engine checks before anything reaches C)."""
        if not self._engine.restores_checked:
            super()._check_restored()

    # -- data-only model files and checked restores (reference.persist) -------------------
    def _fitted_state(self) -> dict[str, Any]:
        """The facade state a model file stores next to :meth:`snapshot`."""
        out: dict[str, Any] = {"n_features_in": self._d,
                               "keys": None if self._keys is None else list(self._keys),
                               "n_seen": self.n_seen_, "lpred": list(self._lpred),
                               "stream_rule": STREAM_RULE}
        return out

    _file_arrays = {"fitted": ("lpred",), "snapshot": ("X", "y")}
    """The arrays of a model file of format 2 this model reads as arrays, not lists
    (besides the particles' columns)."""

    def _check_state(self, fitted: Any, snapshot: Any) -> Any:
        """Raise ``StateFormatError`` naming the field unless ``fitted`` and ``snapshot``
        are a valid state for this model's parameters
        (:func:`reference.dynatree.state_check.check_model_state`); a snapshot whose
        particles are columns (:mod:`reference.dynatree.columns`) is checked on its arrays
        (the tree walk by the engine's ``check_trees`` when it has one: C in ``fast``)
        and the checked columns are returned."""
        return check_model_state(self._params, fitted, snapshot,
                                 self._estimator_type == "classifier",
                                 getattr(self, "_init_classes", None),
                                 getattr(type(self)._engine_class, "check_trees", None))

    def _snapshot_columns(self) -> dict[str, Any]:
        """:meth:`snapshot` with ``X`` and ``y`` as arrays and the particles as columns
        (:mod:`reference.dynatree.columns`): what model files of format 2, pickles and
        copies of the fast models hold. An unfitted model's snapshot is plain data."""
        if self._d is None:
            return self.snapshot()
        snap: dict[str, Any] = {"n_seen": self.n_seen_, "n_features_in": self._d}
        columns = getattr(self._engine, "snapshot_columns", None)
        if columns is not None:
            snap.update(columns())
            return snap
        engine = self._engine.snapshot()
        snap.update(engine)
        snap["X"] = np.array(engine["X"], dtype=np.float64).reshape(len(engine["y"]), self._d)
        snap["y"] = np.array(engine["y"], dtype=np.float64)
        snap["particles"] = {RECORDS_TAG: records_to_columns(
            engine["particles"], self._estimator_type == "classifier")}
        return snap

    def _file_state(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The facade state and snapshot a model file of format 2 stores: the snapshot
        as columns (:meth:`_snapshot_columns`) and ``lpred`` as an array."""
        fitted = self._fitted_state()
        fitted["lpred"] = np.array(fitted["lpred"], dtype=np.float64)
        return fitted, self._snapshot_columns()

    def _restore_classes(self, fitted: dict[str, Any]) -> int:
        """Set the classes of a checked ``fitted`` state; their number (a regressor has
        none: 0)."""
        return 0

    def _load_fitted(self, fitted: Any, snapshot: Any) -> None:
        """Check a model file's facade state and snapshot, then restore them into this
        new model."""
        cols = self._check_state(fitted, snapshot)
        _continue_stream_rule(fitted.get("stream_rule", 1), f"a {type(self).__name__} file")
        n_classes = self._restore_classes(fitted)
        self.n_seen_ = fitted["n_seen"]
        lpred = fitted["lpred"]
        self._lpred = self._lpred_store(lpred.tolist() if isinstance(lpred, np.ndarray)
                                        else [float(v) for v in lpred])
        if fitted["n_features_in"] is None:
            self.rng.state = tuple(snapshot["rng_state"])
            return
        d = fitted["n_features_in"]
        self._engine.start(d, n_classes)
        self._d = d
        self._keys = None if fitted["keys"] is None else list(fitted["keys"])
        self._restore_engine(snapshot, cols)

    def _restore_engine(self, snapshot: dict[str, Any], cols: Any) -> None:
        """Load a checked snapshot into the started engine: the checked columns ``cols``
        of a columns snapshot (not None) straight into an engine that takes them, else as
        records."""
        if cols is None:
            self._engine.restore(snapshot, self.n_seen_)
            return
        restore_columns = getattr(self._engine, "restore_columns", None)
        if restore_columns is not None:
            restore_columns(snapshot, cols, self.n_seen_)
            return
        records = columns_to_records(cols, self._estimator_type == "classifier")
        self._engine.restore({**snapshot, "X": cols["X"].tolist(), "y": cols["y"].tolist(),
                              "particles": records}, self.n_seen_)


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
        return self._engine.lml() if self._d is not None else 0.0

    def clone(self) -> Any:
        """A new unfitted model with the same parameters."""
        return type(self)(**self._constructor_params())

    def _row(self, x: Any) -> list[float]:
        return inputs.row_values(x, self._keys, self._d)

    def _learn_checked(self, rows: list[list[float]], targets: list[float],
                       keys: list[Hashable] | None, n_classes: int) -> None:
        engine = self._engine
        self._learn_pieces(len(rows), len(rows[0]), keys, n_classes,
                           max(1, engine.piece_work // self._params.n_particles),
                           lambda start, stop: engine.learn(rows[start:stop],
                                                            targets[start:stop]))

    def _learn_pieces(self, n: int, d: int, keys: list[Hashable] | None, n_classes: int,
                      size: int, learn: Callable[[int, int], list[float]]) -> None:
        """Learn ``n`` validated rows of width ``d``, ``learn(start, stop)`` learning the
        rows ``start:stop`` (at most ``size``) and returning their ``lpred_t``; the first
        rows ever learned start the engine."""
        first = self._d is None
        if first:
            rect = self._params.rect
            if rect is not None and len(rect) != d:
                raise ValueError(f"rect must have one (low, high) pair per feature "
                                 f"({d}), got {len(rect)}")
            self._engine.start(d, n_classes)
            self._keys = keys
            self._d = d
        set_jobs = getattr(self._engine, "set_jobs", None)
        if set_jobs is not None:   # the C engine propagates on n_jobs threads
            set_jobs(self.n_jobs)
        # Ctrl-C is honoured between pieces of ``piece_work`` particle-steps
        # (:mod:`reference.interrupt`); every piece is accounted for before the check
        with Interruptible() as guard:
            for start, stop in pieces(n, size):
                try:
                    lpreds = learn(start, stop)
                except Exception as exc:
                    # each row is atomic: the rows before the failing one stay learned, and
                    # the engine attaches their lpred values to the exception (the fast
                    # backend's undo log on MemoryError; the reference on any exception)
                    done: list[float] = getattr(exc, "learned_lpreds", [])
                    if first and start == 0 and not done:  # back to the unfitted model
                        self._d = None
                        self._keys = None
                        self._engine.discard()
                    self._lpred.extend(done)
                    self.n_seen_ += len(done)
                    raise
                self._lpred.extend(lpreds)
                self.n_seen_ += stop - start
                guard.check()

    # -- numeric arrays handed to an array engine a chunk at a time (fast backend) --------
    def _takes_array(self, X: Any) -> bool:
        """True if ``X`` goes to the engine as float64 chunks (:mod:`reference.batches`)
        instead of lists: a numeric table and an engine with ``array_batches``."""
        return self._engine.array_batches and is_numeric_table(X)

    def _checked_table(self, X: np.ndarray) -> None:
        """The checks :func:`reference.dynatree.inputs.batch_rows` makes on a numeric
        table, a chunk at a time (same exceptions, same order)."""
        if self._d is not None and X.shape[1] != self._d:
            raise ValueError(f"x must have {self._d} features, got {X.shape[1]}")
        if not all_finite(X):
            raise ValueError("x must not contain NaN or infinite values")
        if not inputs.all_bounded(X):
            raise ValueError(f"x values {inputs.TOO_LARGE}")

    def _learn_table(self, X: np.ndarray, targets: Callable[[int, int], np.ndarray],
                     n_classes: int, y: Any) -> None:
        """Learn a validated numeric table, ``targets(start, stop)`` giving the float64
        targets of rows ``start:stop`` (read from ``y``); each piece is one chunk handed to
        the engine."""
        engine: ArrayRowEngine = self._engine  # type: ignore[assignment]
        d = X.shape[1]
        size = chunk_rows(d, engine.piece_work // self._params.n_particles)

        def learn(start: int, stop: int) -> list[float]:
            lpreds = engine.learn_array(as_float64(X[start:stop]), targets(start, stop))
            release(X, start, stop)
            if isinstance(y, np.ndarray) and y.ndim == 1:
                release(y, start, stop)
            return lpreds

        self._learn_pieces(X.shape[0], d, self._keys, n_classes, size, learn)

    def _predict_table(self, X: np.ndarray, width: int,
                       fill: Callable[[np.ndarray, int, int], None]) -> None:
        """Validate a numeric table and call ``fill(rows, start, stop)`` for each chunk
        (``rows`` its float64 form), ``width`` output values per row bounding the chunk."""
        self._checked_table(X)
        for start, stop in chunks(X.shape[0], chunk_rows(max(X.shape[1], width)), X):
            fill(as_float64(X[start:stop]), start, stop)

    def tree_stats(self) -> dict[str, float]:
        """Particle averages of tree height (a lone root is 1), leaves, mean leaf size,
        retired mass ``sum nu`` and retired mass per leaf ([DT-SPEC §6])."""
        trees = self._engine.trees() if self._d is not None else []
        if not trees:
            return {"mean_height": 0.0, "mean_leaves": 0.0, "mean_leaf_size": 0.0,
                    "mean_retired": 0.0, "mean_leaf_retired": 0.0}
        retired = self._engine.retired()
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
        rows, _ = self._engine.pool()
        return np.array(rows, dtype=float).reshape(len(rows), self._d)

    def _pool_targets(self, values: list[float]) -> np.ndarray:
        return np.array(values, dtype=float)

    @property
    def active_y_(self) -> np.ndarray:
        """The active pool's targets (labels for a classifier), in arrival order."""
        if self._d is None:
            return self._pool_targets([])
        return self._pool_targets(self._engine.pool()[1])

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
        n_active = 0 if self._d is None else len(self._engine.pool()[1])
        for v in out:
            if not 0 <= v < n_active:
                raise IndexError(f"index {v} out of range for an active pool of {n_active}")
        positions = positions_in_order(out, n_active)
        if len(positions) >= n_active:
            raise ValueError("retire must leave at least one active point")
        self._engine.retire(positions, lam)

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
            rows, _ = self._engine.pool()
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
        Raises ``FloatingPointError`` if a score overflows, as :meth:`alc` does.
        """
        self._check_classifier_stat("alc_active", False)
        if self._d is None:
            return np.zeros(0, dtype=float)
        return finite_alc(np.array(self._engine.alc_active(self._box(None, [])), dtype=float),
                          "alc_active")

    def alc(self, X: Any, rect: Any = None) -> np.ndarray:
        """ALC of candidate rows ``X`` ([DT-SPEC §7.1]-[DT-SPEC §7.4]): particle-averaged integrated
        variance reduction over each candidate's leaf rectangle, normalised by the box.

        ``rect``: ``(low, high)`` per feature; default the constructor's ``rect`` or the
        range of the active inputs and ``X``.

        Raises ``FloatingPointError`` if a score overflows the float range (``inf`` or
        NaN): the score is a predictive variance (squared target scale) integrated over
        the leaf rectangle, so targets and features near ``1e100`` in three dimensions
        already pass ``1.8e308``. The message names the first such row; rescale the
        inputs and targets (e.g. ``StandardScaler``) or pass a smaller ``rect``. The model
        is unchanged (ALC only reads it).
        """
        self._check_classifier_stat("alc", False)
        if self._d is not None and self._takes_array(X):
            return finite_alc(self._alc_table(X, rect), "alc")
        rows = inputs.batch_rows(X, self._keys, self._d)
        if self._d is None:
            raise ValueError("alc needs a fitted model")
        if not rows:
            return np.zeros(0, dtype=float)
        return finite_alc(np.array(self._engine.alc(rows, self._box(rect, rows)), dtype=float),
                          "alc")

    def _alc_table(self, X: np.ndarray, rect: Any) -> np.ndarray:
        """:meth:`alc` of a numeric table, handed to the engine a chunk at a time."""
        self._checked_table(X)
        n, d = X.shape
        out = np.zeros(n, dtype=float)
        if n == 0:
            return out
        box = self._table_box(rect, X)
        engine: ArrayRowEngine = self._engine  # type: ignore[assignment]
        size = chunk_rows(d, engine.piece_work // self._params.n_particles)
        with Interruptible() as guard:          # Ctrl-C between chunks of rows
            for start, stop in chunks(n, size, X):
                engine.alc_array(as_float64(X[start:stop]), box, out[start:stop],
                                 self._n_jobs)
                guard.check()
        return out

    def _table_box(self, rect: Any, X: np.ndarray) -> list[tuple[float, float]]:
        """:meth:`_box` with the rows of a numeric table as the extra rows: the same
        ``(low, high)`` pairs as ``data_box`` (the first minimum and maximum in row
        order, pool rows first), a chunk at a time."""
        assert self._d is not None
        d = self._d
        if normalise_rect(rect) is not None or self._params.rect is not None:
            return self._box(rect, [])
        pool, _ = self._engine.pool()
        box = data_box(pool, d) if pool else None
        cols = np.arange(d)
        for start, stop in chunks(X.shape[0], chunk_rows(d), X):
            rows = as_float64(X[start:stop])
            lows = rows[np.argmin(rows, axis=0), cols].tolist()
            highs = rows[np.argmax(rows, axis=0), cols].tolist()
            if box is None:
                box = list(zip(lows, highs, strict=True))
                continue
            box = [(lo if not new_lo < lo else new_lo, hi if not new_hi > hi else new_hi)
                   for (lo, hi), new_lo, new_hi in zip(box, lows, highs, strict=True)]
        assert box is not None
        return box

    def entropy_active(self) -> np.ndarray:
        """Particle-averaged leaf entropy of every active point ([DT-SPEC §7.5]) [AG13, §4.3]."""
        self._check_classifier_stat("entropy_active", True)
        if self._d is None:
            return np.zeros(0, dtype=float)
        return np.array(self._engine.entropy_active(), dtype=float)

    def leaf_counts(self) -> list[int]:
        """Number of leaves of every particle's tree, in particle order."""
        if self._d is None:
            return []
        return [t[1] for t in self._engine.trees()]

    def snapshot(self) -> dict[str, Any]:
        """Full state as plain data (particles' preorder nodes, data store, generator)."""
        snap: dict[str, Any] = {"n_seen": self.n_seen_,
                                "n_features_in": self._d if self._d is not None else 0}
        if self._d is None:
            snap.update({"log_marginal_likelihood": 0.0,
                         "rng_state": list(self.rng.state), "X": [], "y": [],
                         "particles": []})
            return snap
        snap.update(self._engine.snapshot())
        return snap

    @property
    def rng(self) -> Any:
        """The model's generator (``state`` readable and settable)."""
        return self._engine.rng


"""The facade logic shared by every public SGT model [GPF19].

:class:`SGTFacade` validates inputs (shared with ``fast`` through
:mod:`reference.sgt.params`), keeps the fitted facade state (width, feature kinds and
names, ``n_seen_``) and its model-file and pickle plumbing, and holds the mathematics in
``self._engine`` (:mod:`reference.sgt.engine`). The public classes are in
:mod:`reference.sgt.model` and :mod:`reference.sgt.classifier`. Every rejected call raises
before any state changes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np

from reference.batches import array_input
from reference.estimator import EstimatorMixin
from reference.sgt.columns import core_to_columns, core_to_nodes
from reference.sgt.core import LOSS_BAG, LOSS_LOGISTIC, LOSS_SOFTMAX, SGTCore
from reference.sgt.engine import PythonSGTEngine
from reference.sgt.params import (
    SGTParams,
    check_array,
    check_feature_config,
    check_matrix,
    check_row,
)
from reference.sgt.state_check import check_core
from reference.state import (
    StateFormatError,
    VersionedState,
    as_counter,
    as_dict,
    as_int,
    as_labels,
    check_attributes,
    engine_state_now,
    fail,
)

__all__ = ["SGTFacade", "PARAM_NAMES", "document", "as_list"]

PARAM_NAMES = ("delta", "grace_period", "lam", "gamma", "bins", "warmup", "feature_ranges",
               "nominal", "max_depth", "warmup_trains", "test", "warmup_prediction",
               "quantization")
"""The constructor arguments every SGT model shares, in signature order."""

_COMMON_DOC = """    delta : float, default 1e-7
        Significance level δ of the two-sided t-test (apply iff p < δ and the
        penalised mean loss change is negative) [GPF19, §3.3].
    grace_period : int, default 200
        A split attempt runs when a leaf's count since its last reset is a multiple of this.
    lam : float, default 0.1
        λ, per-instance L2 shrinkage of the Newton step Δ = -ḡ/(h̄ + λ) [GPF19, Eq. 13].
    gamma : float, default 1.0
        γ, penalty per child leaf, divided by the leaf count [GPF19, Eq. 5].
    bins : int, default 64
        Equal-width bins per numeric feature [GPF19, §3.2].
    warmup : int or None, default None
        Rows buffered to estimate the bin ranges, then replayed as training data. None:
        1000 (the paper's [GPF19, §5]) with ``quantization="global"``, ``grace_period``
        with ``"leaf"`` (the replay then ends with the root's first split attempt).
    feature_ranges : dict or None
        ``{index: (low, high)}``: known ranges of numeric features (skip estimation).
    nominal : dict or None
        ``{index: n_categories}``: nominal features (values are integers in
        ``[0, n_categories)``), split multiway, at most once per path.
    max_depth : int or None
        Optional depth limit (root = 0); a leaf at the limit only updates its value.
    warmup_trains : bool, default True
        If False, warm-up rows are discarded (the authors' Java behaviour).
    test : {"two-sided", "one-sided"}, default "two-sided"
        Two-sided t-test p-value with the sign check (the authors' rule) or the
        one-sided p = P(T_{n-1} <= t).
    warmup_prediction : {"newton", "zero"}, default "newton"
        What the model predicts before the bin ranges are fixed, while there is no tree
        yet ([SGT-SPEC §5.7]). ``"newton"``: each tree's raw score is one Newton step of
        its root from 0 over the buffered rows, Δ = -ḡ/(h̄ + λ) [GPF19, Eq. 13] (for
        squared error the shrunk mean of the targets seen, for classification the
        smoothed class frequencies). ``"zero"``: raw score 0, as the authors' MOA
        wrapper (prediction 0, or equal class probabilities). A custom loss always
        predicts raw score 0 during the warm-up.
    quantization : {"leaf", "global"}, default "leaf"
        Where the bin ranges come from ([SGT-SPEC §5.8]). ``"leaf"``: the root starts
        from the warm-up's ranges, a leaf re-bins each feature to the range of the values
        that reached it whenever its statistics are emptied (a value update), and a split
        gives its children the parent's observed ranges, cut at the split point, so the
        bins follow the data in each region and through drift. ``"global"``: one range per
        feature, estimated on the warm-up and frozen, as in the paper [GPF19, §3.2]; with
        the default ``warmup`` this is the paper's setting (1000 warm-up rows).
    n_jobs : int or None, default None
        Threads of the batch predictions (``predict``, ``predict_proba``, ``score``) in the
        ``fast`` backend once the warm-up is over: ``None`` or ``1`` one, ``k`` k, ``-1``
        one per core; the results are identical for every value. An execution setting,
        not part of the model: ``set_params(n_jobs=...)`` keeps a fitted model, and model
        files do not store it. The ``reference`` backend computes on one thread, and so
        does ``SGTMultiInstanceClassifier``, which predicts bag by bag."""



def document(cls: Any) -> Any:
    """Insert the shared parameter descriptions into a class docstring."""
    cls.__doc__ = cls.__doc__.replace("{common}", _COMMON_DOC)
    return cls


def as_list(y: Any, n: int) -> list[Any]:
    """The targets or labels ``y`` as a list of ``n`` values."""
    values = list(y.tolist()) if isinstance(y, np.ndarray) else list(y)
    if len(values) != n:
        raise ValueError(f"y has {len(values)} labels for {n} rows")
    return values


class SGTFacade(EstimatorMixin, VersionedState):
    """Shared facade logic; subclasses fix the loss and the target mapping."""

    _engine_class: Any = PythonSGTEngine
    """The engine built on the first accepted row (``fast`` sets ``CSGTEngine``)."""
    _labelled = False
    """True for the classifiers (their facade state holds ``classes``)."""
    _params_added: dict[str, Any] = {"warmup_prediction": "zero", "quantization": "global",
                                     "n_jobs": None}
    """Parameters added after model files existed, with the value that reproduces the
    older behaviour when a file lacks them (:func:`reference.persist.from_document`)."""

    def __init__(self, delta: float, grace_period: int, lam: float, gamma: float, bins: int,
                 warmup: int | None, feature_ranges: Mapping[int, tuple[float, float]] | None,
                 nominal: Mapping[int, int] | None, max_depth: int | None,
                 warmup_trains: bool, test: str, warmup_prediction: str,
                 quantization: str) -> None:
        self.delta = delta
        self.grace_period = grace_period
        self.lam = lam
        self.gamma = gamma
        self.bins = bins
        self.warmup = warmup
        self.feature_ranges = (dict(feature_ranges) if isinstance(feature_ranges, Mapping)
                               else feature_ranges)
        self.nominal = dict(nominal) if isinstance(nominal, Mapping) else nominal
        self.max_depth = max_depth
        self.warmup_trains = warmup_trains
        self.test = test
        self.warmup_prediction = warmup_prediction
        self.quantization = quantization
        self._params = SGTParams(delta, grace_period, lam, gamma, bins, warmup,
                                 self.feature_ranges, self.nominal, max_depth, warmup_trains,
                                 test, warmup_prediction, quantization)
        self._params.validate()
        self._engine: Any = None
        self._kinds: list[int] | None = None
        self._keys: tuple[Any, ...] | None = None
        self.n_features_in_: int | None = None
        self.n_seen_ = 0

    def _get_state(self) -> dict[str, Any]:
        return engine_state_now(super()._get_state())

    def _set_state(self, state: dict[str, Any]) -> None:
        if "_core" in state:
            # pickled when the facades held the core itself (``_core``): it is the engine
            state = dict(state)
            held: Any = state.pop("_core")
            if isinstance(held, SGTCore) and not isinstance(held, PythonSGTEngine):
                held = PythonSGTEngine.from_core(held)
            state["_engine"] = held
        if "warmup_prediction" not in state:
            # pickled before ``warmup_prediction`` existed: keep that version's behaviour
            state = dict(state)
            state["warmup_prediction"] = "zero"
            if isinstance(state.get("_params"), SGTParams):
                state["_params"] = dataclasses.replace(state["_params"],
                                                       warmup_prediction="zero")
            core: Any = state.get("_engine")
            old = getattr(core, "params", None)
            if isinstance(old, SGTParams) and "warmup_prediction" not in vars(old):
                core.params = dataclasses.replace(old, warmup_prediction="zero")
        if "quantization" not in state:
            # pickled before ``quantization`` existed: the global bins it was saved with
            state = dict(state)
            state["quantization"] = "global"
        super()._set_state(state)

    # -- parameters -------------------------------------------------------------------
    def _constructor_params(self) -> dict[str, Any]:
        """Constructor arguments as a dict."""
        return {name: getattr(self, name) for name in self._param_names()}

    def _param_names(self) -> tuple[str, ...]:
        return PARAM_NAMES

    def clone(self) -> Any:
        """A new, unfitted model with the same parameters."""
        return type(self)(**self.get_params())

    # -- input handling ---------------------------------------------------------------
    def _row(self, x: Any) -> tuple[list[float], tuple[Any, ...] | None, list[int]]:
        """Validate a row; on the first row also derive the feature kinds (no commit)."""
        if self._kinds is None:
            row, keys = check_row(x, None, None, None)
            kinds = check_feature_config(self._params, len(row))
            check_row(row, len(row), None, kinds)
            return row, keys, kinds
        row, keys = check_row(x, self.n_features_in_, self._keys, self._kinds)
        return row, keys, self._kinds

    def _matrix(self, X: Any) -> tuple[np.ndarray, list[int]]:
        if self._kinds is None:
            arr = check_matrix(X, None, None)
            kinds = check_feature_config(self._params, arr.shape[1])
            check_matrix(arr, arr.shape[1], kinds)
            return arr, kinds
        return check_matrix(X, self.n_features_in_, self._kinds), self._kinds

    def _batch(self, X: Any, first: bool = True) -> tuple[np.ndarray, list[int] | None]:
        """A validated batch and the feature kinds (None before the first row when
        ``first`` is False). An engine that takes arrays (``array_batches``) gets a
        numeric array as it is, checked chunk by chunk without a copy
        (:mod:`reference.batches`); anything else is the float64 copy of
        :func:`check_matrix`. Same checks, order and messages either way."""
        arr = array_input(X) if self._engine_class.array_batches else None
        if arr is None:
            if first:
                return self._matrix(X)
            return check_matrix(X, self.n_features_in_, self._kinds), self._kinds
        if self._kinds is None and first:
            check_array(arr, None, None)
            kinds = check_feature_config(self._params, arr.shape[1])
            check_array(arr, arr.shape[1], kinds, finite=False)
            return arr, kinds
        check_array(arr, self.n_features_in_, self._kinds)
        return arr, self._kinds

    def _commit(self, n_features: int, keys: tuple[Any, ...] | None, kinds: list[int]) -> None:
        """Create the engine on the first accepted row."""
        if self._engine is None:
            self._engine = self._engine_class(self._params, kinds, self._loss_kind(),
                                              self._n_trees())
            self._kinds = kinds
            self._keys = keys
            self.n_features_in_ = n_features

    def _loss_kind(self) -> int:
        raise NotImplementedError

    def _n_trees(self) -> int:
        return 1

    def _raws(self, row: list[float]) -> list[float]:
        if self._engine is None:
            return [0.0] * self._n_trees()
        return list(self._engine.raws(row))

    def _predict_row(self, x: Any) -> list[float]:
        row, _, _ = self._row(x)
        return row

    def _count(self, n: int) -> None:
        """Add ``n`` learned items to ``n_seen_`` (called by the engines' batch loops)."""
        self.n_seen_ += n

    def _fit_rows(self, arr: np.ndarray, targets: Any) -> None:
        """Learn validated rows in order (the C engine runs this loop in C). Ctrl-C
        stops the loop between two rows or pieces of rows (:mod:`reference.interrupt`)."""
        self._engine.learn_many(arr, targets, self._count)

    def _learn_rows(self, rows: list[list[float]], target: float) -> None:
        self._engine.learn(rows, target)

    def _fixed_classes(self) -> list[Hashable] | None:
        """The class list fixed before any data (None: a model without labels, or the
        first call fixes them)."""
        return None

    def _restore_classes(self, classes: list[Hashable] | None) -> None:
        """Register the classes of a model file (the classifiers; the others have none)."""

    # -- data-only model files (reference.persist) ------------------------------------
    def _fitted_state(self) -> dict[str, Any]:
        """The facade state a model file stores next to the core snapshot."""
        out: dict[str, Any] = {
            "n_features_in": self.n_features_in_,
            "keys": None if self._keys is None else list(self._keys),
            "kinds": None if self._kinds is None else list(self._kinds),
            "n_seen": self.n_seen_,
        }
        return out

    def _check_state(self, fitted: Any, snapshot: Any) -> None:
        """Raise ``StateFormatError`` naming the field unless the facade state ``fitted``
        and the snapshot fit this model's parameters (:mod:`reference.sgt.state_check`)."""
        names: tuple[str, ...] = ("n_features_in", "keys", "kinds", "n_seen")
        if self._labelled:
            names += ("classes",)
        as_dict(fitted, "fitted", names)
        as_dict(snapshot, "snapshot", ("n_seen", "n_features", "core"))
        n_seen = as_counter(fitted["n_seen"], "fitted.n_seen")
        if snapshot["n_seen"] != n_seen:
            raise fail("snapshot.n_seen", f"differs from fitted.n_seen ({n_seen})")
        classes = fitted.get("classes")
        if classes is not None:
            as_labels(classes, "fitted.classes")
            if len(classes) < 2:
                raise fail("fitted.classes", "a classifier has at least two classes")
            given = self._fixed_classes()
            if given is not None and list(given) != classes:
                raise fail("fitted.classes", f"differ from the classes parameter {given!r}")
        core = snapshot["core"]
        if core is None:
            if (n_seen, fitted["n_features_in"], fitted["keys"], fitted["kinds"],
                    snapshot["n_features"]) != (0, None, None, None, 0):
                raise fail("snapshot.core", "a model without a core has seen nothing")
            return
        d = as_int(fitted["n_features_in"], "fitted.n_features_in", 1, 2**31 - 1)
        if snapshot["n_features"] != d:
            raise fail("snapshot.n_features", f"differs from fitted.n_features_in ({d})")
        try:
            kinds = check_feature_config(self._params, d)
        except ValueError as exc:
            raise fail("fitted.n_features_in", str(exc)) from None
        if fitted["kinds"] != kinds:
            raise fail("fitted.kinds", f"the parameters give the feature kinds {kinds}")
        keys = fitted["keys"]
        if keys is not None and len(as_labels(keys, "fitted.keys")) != d:
            raise fail("fitted.keys", f"expected {d} feature names")
        n_classes = 0
        if self._labelled:
            if classes is None:
                raise fail("fitted.classes", "a classifier that has learned knows its classes")
            n_classes = len(classes)
        loss_kind = self._loss_kind() if n_classes == 0 else (
            LOSS_BAG if self._loss_kind() == LOSS_BAG
            else LOSS_LOGISTIC if n_classes == 2 else LOSS_SOFTMAX)
        n_trees = n_classes - 1 if loss_kind == LOSS_SOFTMAX else 1
        check_core(core, self._params, kinds, loss_kind, n_trees, n_classes)

    def _load_fitted(self, fitted: Any, snapshot: Any) -> None:
        """Check a model file's facade state and core snapshot, then restore them into
        this new model."""
        self._check_state(fitted, snapshot)
        if self._labelled:
            self._restore_classes(fitted["classes"])
        core = snapshot["core"]
        if core is None:
            return
        keys = fitted["keys"]
        self._commit(fitted["n_features_in"], None if keys is None else tuple(keys),
                     fitted["kinds"])
        if not getattr(self._engine, "restores_columns", False):
            kinds = fitted["kinds"]
            core = core_to_nodes(core, len(kinds),
                                 1 + sum(k if k else int(self._params.bins) for k in kinds),
                                 self._params.quantization == "leaf")
        self._engine.restore(core)
        self.n_seen_ = fitted["n_seen"]

    def _check_restored(self) -> None:
        """After unpickling or copying: the checks of a model file on the restored state,
        read as columns when the engine offers them (the fast one: vectorised), after
        the attributes were compared with those of a new model
        (:func:`reference.state.check_attributes`)."""
        check_attributes(self, type(self)(**self._constructor_params()))
        if getattr(self._engine, "snapshot_columns", None) is None:
            super()._check_restored()
            return
        try:
            fitted, snapshot = self._file_state()
        except StateFormatError:
            raise
        except Exception as exc:
            raise StateFormatError(f"cannot restore {type(self).__name__}: the pickled state "
                                   f"is inconsistent ({type(exc).__name__}: {exc})") from None
        self._check_state(fitted, snapshot)

    def _file_state(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The facade state and snapshot a model file of format 2 stores: every tree's
        nodes as columns (:mod:`reference.sgt.columns`)."""
        fitted = self._fitted_state()
        if self._engine is None:
            return fitted, self.snapshot()
        columns = getattr(self._engine, "snapshot_columns", None)
        if columns is not None:
            core = columns()
        else:
            core = core_to_columns(self._engine.snapshot(), int(self.n_features_in_ or 0),
                                   self._params.quantization == "leaf")
        return fitted, {"n_seen": self.n_seen_, "n_features": self.n_features_in_ or 0,
                        "core": core}

    # -- public state -----------------------------------------------------------------
    @property
    def n_nodes_(self) -> int:
        """Number of nodes over all trees (1 per tree before learning)."""
        return self._n_trees() if self._engine is None else int(self._engine.n_nodes)

    @property
    def depth_(self) -> int:
        """Largest depth over all trees (root = 0)."""
        return 0 if self._engine is None else int(self._engine.depth)

    def snapshot(self) -> dict[str, Any]:
        """Full state as plain data (same schema in both backends).

        ``{"n_seen", "n_features", "core"}``; ``core`` is None before the first row,
        else ``{"warm_rows", "frozen", "lo", "hi", "seen", "buffer", "trees"}`` where
        each tree holds its counters and its nodes in creation order (node 0 is the
        root, children are contiguous from ``first_child``); a leaf lists its cells as
        ``[n, Σg, Σh, M_g, M_h, C]`` in layout order (total, then each feature's bins
        or categories) and its mask of nominal features used on the path.
        """
        core = None if self._engine is None else self._engine.snapshot()
        return {"n_seen": self.n_seen_, "n_features": self.n_features_in_ or 0, "core": core}

"""The dynamic-tree engine: the interface the facades call, and its Python implementation.

A facade (:mod:`reference.dynatree.model`) validates inputs, maps labels and keeps the
public state (``n_seen_``, ``lpred_``, feature names); everything that is mathematics
runs in its engine, ``self._engine``, an instance of the facade's ``_engine_class``:

- :class:`DynamicTreeEngine` is the interface, one line per method;
- :class:`PythonDynamicTreeEngine` implements it with the readable modules of this
  package (the specification);
- ``fast.dynatree.engine.CDynamicTreeEngine`` implements it in C, bit for bit the same.

Section tags such as ``[DT-SPEC §5]`` cite ``docs/spec/dynamic_trees.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Protocol

import numpy as np

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
from reference.dynatree.new_class import grow_leaves, shrink_leaves
from reference.dynatree.params import DynamicTreeParams
from reference.dynatree.particles import (
    class_summaries,
    pl_step,
    regression_mean,
    regression_summaries,
)
from reference.dynatree.retirement import choose_retiree, renumber, retire_point
from reference.dynatree.tree import Node, height, leaves, tree_from_snapshot, tree_snapshot
from reference.rng import Rng

__all__ = ["ArrayRowEngine", "DynamicTreeEngine", "PythonDynamicTreeEngine", "RawRowEngine",
           "RegressionSummary", "leaf_config"]

RegressionSummary = tuple[float, float, float, float, float]
"""Particle-averaged ``(mean, var, q05, q95, df)`` at one row ([DT-SPEC §8.1])."""

Box = list[tuple[float, float]]
"""A ``(low, high)`` pair per feature: the rectangle ALC integrates over ([DT-SPEC §7.4])."""


def leaf_config(params: DynamicTreeParams, d: int, n_classes: int) -> LeafConfig:
    """The :class:`LeafConfig` of a model with ``d`` inputs (and ``C`` classes)."""
    kind = {"constant": CONSTANT, "linear": LINEAR, "class": CLASS}[params.leaf]
    return LeafConfig(kind=kind, p=params.n_regressors(d),
                      augmented=params.leaf == "linear" and params.intercept == "augmented",
                      delta=params.delta(), n_classes=n_classes if kind == CLASS else 0,
                      nu0=float(params.nu0), s20=float(params.s20), kappa=params.kappa())


class DynamicTreeEngine(Protocol):
    """What a dynamic-tree facade needs from its engine (one particle cloud + data store).

    An engine is built unfitted from the parameters (only its generator exists) and
    :meth:`start` fixes the width when the first row arrives. Positions are 0-based
    indices into the active pool in arrival order. A method that raises
    ``MemoryError`` leaves the engine as it was before the row (or call) that failed.
    """

    raw_rows: ClassVar[bool]
    """True if the engine offers the lean one-row hooks (``*_raw``) below."""
    array_batches: ClassVar[bool]
    """True if the engine takes batches as float64 arrays (:class:`ArrayRowEngine`)."""
    piece_work: ClassVar[int]
    """Particle-steps per :meth:`learn` call in ``partial_fit`` (Ctrl-C is checked between)."""
    restores_checked: ClassVar[bool]
    """True if :meth:`from_pickle` checks the state itself (no check after unpickling)."""
    pickle_keys: ClassVar[tuple[str, ...]]
    """The keys of the engine's entries in a pickled (format 1) state."""

    def __init__(self, params: DynamicTreeParams) -> None:
        """An unfitted engine: no particles, its generator seeded with ``params.seed``."""

    @property
    def rng(self) -> Any:
        """The model's generator (``state`` readable and settable)."""

    def start(self, d: int, n_classes: int) -> None:
        """``n_particles`` lone roots for ``d`` inputs (and ``C`` classes) [DT-SPEC §5]."""

    def learn(self, rows: list[list[float]], targets: list[float]) -> list[float]:
        """One particle-learning step per row, retiring first when the pool is full; the
        rows' ``lpred_t`` ([DT-SPEC §5], [DT-SPEC §5.4], [DT-SPEC §6])."""

    def discard(self) -> None:
        """Drop every particle and row: back to the unfitted engine (generator kept)."""

    def lml(self) -> float:
        """The running sum of ``lpred_t`` ([DT-SPEC §5.4])."""

    def summaries(self, rows: list[list[float]]) -> list[RegressionSummary]:
        """Particle-averaged predictive summary at each row ([DT-SPEC §8.1])."""

    def means(self, rows: list[list[float]]) -> list[float]:
        """The summary's ``mean`` at each row, bit for bit, without its quantiles."""

    def classify_rows(self, rows: list[list[float]]) -> tuple[list[list[float]], list[float]]:
        """Particle-averaged class probabilities and entropy at each row ([DT-SPEC §8.2])."""

    def trees(self) -> list[tuple[int, int, int]]:
        """Per particle: tree height (a lone root is 1), leaves, active points."""

    def retired(self) -> list[float]:
        """Per particle: the retired mass ``sum nu`` of its leaves ([DT-SPEC §6])."""

    def add_class(self) -> None:
        """Append a class to every leaf in place ([DT-SPEC §12.2]); a ``MemoryError``
        leaves the engine as it was."""

    def drop_class(self) -> None:
        """Undo :meth:`add_class` (the last class has no count in any leaf)."""

    def retire(self, positions: list[int], lam: float) -> None:
        """Retire the points at (ascending) ``positions``, forgetting ``lam`` ([DT-SPEC §6.1])."""

    def pool(self) -> tuple[list[list[float]], list[float]]:
        """Copies of the active pool's rows and targets (class indices), arrival order."""

    def entropy_active(self) -> list[float]:
        """Particle-averaged leaf entropy of every active point ([DT-SPEC §7.5])."""

    def alc_active(self, box: Box) -> list[float]:
        """ALC of every active point over ``box`` ([DT-SPEC §7.4])."""

    def alc(self, rows: list[list[float]], box: Box) -> list[float]:
        """ALC of candidate ``rows`` over ``box`` ([DT-SPEC §7.1]-[DT-SPEC §7.4])."""

    def snapshot(self) -> dict[str, Any]:
        """The engine part of a snapshot: ``state_check.ENGINE_KEYS`` as plain data."""

    def restore(self, snap: dict[str, Any], n_seen: int) -> None:
        """Load a checked snapshot into a started engine that has seen ``n_seen`` rows."""

    def to_pickle(self, snapshot: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """The engine's entries of a pickled state (``snapshot``: the model's full one)."""

    @classmethod
    def from_pickle(cls, model: Any, entries: dict[str, Any]) -> DynamicTreeEngine:
        """The engine of ``model`` (whose facade attributes are restored) from its entries."""



class RawRowEngine(DynamicTreeEngine, Protocol):
    """The optional lean one-row hooks of an engine whose ``raw_rows`` is True (the C
    engine, see ``fast._rows``): the facade offers them the row as given, before any
    conversion, with its feature names ``keys``, and takes its general path when they
    decline. ``model`` is the fitted facade (a learned row is counted in its ``n_seen_``
    and ``_lpred`` even if Ctrl-C arrives during the call)."""

    def learn_one_raw(self, model: Any, x: Any, target: Any) -> bool:
        """Learn row ``x`` with a float (or exact int) ``target``; False: not handled."""

    def predict_one_raw(self, x: Any, keys: Any) -> float | None:
        """The predictive mean at ``x`` ([DT-SPEC §8.1]), or None: not handled."""

    def predict_proba_raw(self, x: Any, keys: Any) -> list[float] | None:
        """The class probabilities at ``x`` ([DT-SPEC §8.2]), or None: not handled."""

    def predict_label_raw(self, x: Any, keys: Any) -> int:
        """Index of the first class of largest probability at ``x``, or -1: not handled."""


class ArrayRowEngine(DynamicTreeEngine, Protocol):
    """The optional array methods of an engine whose ``array_batches`` is True (the C
    engine): the facade hands a numeric batch over one chunk at a time
    (:mod:`reference.batches`), each chunk a float64 C-contiguous ``(n, d)`` array of
    values it has already validated, and the engine reads it in place. Each method gives
    the values of its list twin above, bit for bit; ``out`` arrays are filled in place."""

    def learn_array(self, X: np.ndarray, targets: np.ndarray) -> list[float]:
        """:meth:`learn` of the rows of ``X`` and the float64 ``targets``."""

    def means_array(self, X: np.ndarray, out: np.ndarray, n_jobs: int | None = None) -> None:
        """:meth:`means` of the rows of ``X``, written to ``out`` (``n`` values), split by
        rows over ``n_jobs`` threads (:mod:`reference.parallel`)."""

    def summaries_array(self, X: np.ndarray, out: np.ndarray,
                        n_jobs: int | None = None) -> None:
        """:meth:`summaries` of the rows of ``X``, written to ``out`` (``(n, 5)``)."""

    def classify_array(self, X: np.ndarray, probs: np.ndarray, entropy: np.ndarray,
                       n_jobs: int | None = None) -> None:
        """:meth:`classify_rows` of the rows of ``X``, written to ``probs`` (``(n, C)``)
        and ``entropy`` (``n`` values)."""

    def alc_array(self, X: np.ndarray, box: Box, out: np.ndarray,
                  n_jobs: int | None = None) -> None:
        """:meth:`alc` of the rows of ``X`` over ``box``, written to ``out``."""


class PythonDynamicTreeEngine:
    """:class:`DynamicTreeEngine` in pure Python: a list of trees (``Node``) and the data
    store ``X``, ``y``, updated by the modules of this package."""

    raw_rows: ClassVar[bool] = False
    array_batches: ClassVar[bool] = False
    piece_work: ClassVar[int] = 2_000
    restores_checked: ClassVar[bool] = False
    pickle_keys: ClassVar[tuple[str, ...]] = (
        "_rng", "_roots", "_X", "_y", "_lml", "_t", "_cfg", "_minp", "_nstart")
    """The attributes a reference model kept in its own dict before engines existed; a
    pickle stores them under the same names, so older pickles load unchanged."""

    _cfg: LeafConfig
    _minp: int
    _nstart: int

    def __init__(self, params: DynamicTreeParams) -> None:
        self._params = params
        self._rng = Rng(params.seed)
        self._roots: list[Node] = []
        self._X: list[list[float]] = []
        self._y: list[float] = []
        self._lml = 0.0
        self._t = 0

    @property
    def rng(self) -> Rng:
        return self._rng

    def start(self, d: int, n_classes: int) -> None:
        self._cfg = leaf_config(self._params, d, n_classes)
        self._minp = self._params.resolved_min_leaf(d)
        self._nstart = self._params.resolved_nstart(d)
        self._roots = []
        for _ in range(self._params.n_particles):
            stats = LeafStats(self._cfg)
            refresh(stats, self._cfg)
            self._roots.append(Node(0, None, [], stats))

    def learn(self, rows: list[list[float]], targets: list[float]) -> list[float]:
        """Learn ``rows`` one at a time; return their ``lpred_t``.

        Each row is atomic: if one raises (whatever the exception), the engine is put
        back as it was before that row (the snapshot taken on entry, then the rows
        before it learned again, which gives the same state: the steps are
        deterministic) and their ``lpred_t`` are attached to the exception as
        ``learned_lpreds``, as the fast backend's undo log does.
        """
        before = self.snapshot()
        t0 = self._t
        out: list[float] = []
        try:
            self._learn_rows(rows, targets, out)
        except Exception as exc:
            done = len(out)
            self.restore(before, t0)
            redone: list[float] = []
            self._learn_rows(rows[:done], targets[:done], redone)
            exc.learned_lpreds = redone  # type: ignore[attr-defined]
            raise
        return out

    def _learn_rows(self, rows: list[list[float]], targets: list[float],
                    out: list[float]) -> None:
        """Learn ``rows`` in order, appending each ``lpred_t`` to ``out`` once learned."""
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

    def _auto_retire(self) -> None:
        """Choose and retire one point before the PL step ([DT-SPEC §0] item 5)."""
        p = self._params
        scores: list[float] = []
        if p.retirement == "entropy":
            scores = self.entropy_active()
        elif p.retirement == "alc":
            scores = self.alc_active(self._data_box())
        r = choose_retiree(p.retirement, len(self._X), self._rng, scores)
        self.retire([r], float(p.lam))

    def _data_box(self) -> Box:
        """The constructor's ``rect``, else the range of the active inputs."""
        if self._params.rect is not None:
            return list(self._params.rect)
        return data_box(self._X, len(self._X[0]))

    def discard(self) -> None:
        self._roots = []
        self._X = []
        self._y = []
        self._lml = 0.0
        self._t = 0

    def lml(self) -> float:
        return self._lml

    def summaries(self, rows: list[list[float]]) -> list[RegressionSummary]:
        return [regression_summaries(self._roots, row, self._cfg) for row in rows]

    def means(self, rows: list[list[float]]) -> list[float]:
        return [regression_mean(self._roots, row, self._cfg) for row in rows]

    def classify_rows(self, rows: list[list[float]]) -> tuple[list[list[float]], list[float]]:
        out = [class_summaries(self._roots, row, self._cfg) for row in rows]
        return [probs for probs, _ in out], [entropy for _, entropy in out]

    def trees(self) -> list[tuple[int, int, int]]:
        out = []
        for root in self._roots:
            under = leaves(root)
            count = 0
            for leaf in under:
                count += len(leaf.points)
            out.append((height(root), len(under), count))
        return out

    def retired(self) -> list[float]:
        out = []
        for root in self._roots:
            nu = 0.0
            for leaf in leaves(root):
                nu = nu + leaf.stats.nu
            out.append(nu)
        return out

    def add_class(self) -> None:
        self._cfg = grow_leaves(self._roots, self._cfg)

    def drop_class(self) -> None:
        self._cfg = shrink_leaves(self._roots, self._cfg)

    def retire(self, positions: list[int], lam: float) -> None:
        for r in positions:
            self._roots = retire_point(self._roots, r, self._X, self._y, self._cfg, lam,
                                       self._minp)
            del self._X[r]
            del self._y[r]
            renumber(self._roots, r)

    def pool(self) -> tuple[list[list[float]], list[float]]:
        return [list(r) for r in self._X], list(self._y)

    def entropy_active(self) -> list[float]:
        return entropy_active(self._roots, self._cfg, len(self._X))

    def alc_active(self, box: Box) -> list[float]:
        return alc_active(self._roots, self._cfg, self._X, box, self._params.approx, self._t)

    def alc(self, rows: list[list[float]], box: Box) -> list[float]:
        return alc_points(self._roots, self._cfg, rows, box, self._params.approx, self._t)

    def snapshot(self) -> dict[str, Any]:
        return {"log_marginal_likelihood": self._lml,
                "rng_state": list(self._rng.state),
                "X": [list(r) for r in self._X], "y": list(self._y),
                "particles": [tree_snapshot(r, self._cfg) for r in self._roots]}

    def restore(self, snap: dict[str, Any], n_seen: int) -> None:
        self._X = [[float(v) for v in row] for row in snap["X"]]
        self._y = [float(v) for v in snap["y"]]
        self._lml = float(snap["log_marginal_likelihood"])
        self._rng.state = tuple(snap["rng_state"])
        self._t = n_seen
        self._roots = [tree_from_snapshot(records, self._cfg) for records in snap["particles"]]

    def to_pickle(self, snapshot: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        return {k: v for k, v in vars(self).items() if k != "_params"}

    @classmethod
    def from_pickle(cls, model: Any, entries: dict[str, Any]) -> PythonDynamicTreeEngine:
        engine = cls.__new__(cls)
        engine._params = model._params
        vars(engine).update(entries)
        d = model.__dict__.get("_d")
        if isinstance(d, int) and not isinstance(d, bool) and d >= 1:
            # what the parameters determine is derived from them, not read: the state
            # check sees the parameters, and these must agree with what it checked
            params = model._params
            classes = model.__dict__.get("classes_")
            n_classes = len(classes) if isinstance(classes, list) else 0
            try:
                engine._cfg = leaf_config(params, d, n_classes)
                engine._minp = params.resolved_min_leaf(d)
                engine._nstart = params.resolved_nstart(d)
            except (AttributeError, KeyError, TypeError, ValueError):
                pass  # invalid parameters: the state check refuses them next
            engine._t = model.__dict__.get("n_seen_")
        return engine

"""``fast`` dynamic trees: the facades of ``reference.dynatree`` on a C engine.

Input validation, label mapping and the public methods are the backend-agnostic code of
:mod:`reference.dynatree.model` (``RegressorMixin``, ``ClassifierMixin``); all model
math runs in C (``csrc/dynatree/*.c``), including the whole ``partial_fit`` loop.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from fast._ffi import check, ffi, lib, raise_status
from fast._rows import INT_EXACT, ST_ENOMEM, c_row, locks_itself
from fast.rng import Rng
from reference.dynatree.leaf_models import CLASS, CONSTANT, LeafConfig
from reference.dynatree.model import (
    ClassifierMixin,
    DynamicTreeBase,
    RegressionSummary,
    RegressorMixin,
    leaf_config,
)
from reference.dynatree.params import RETIREMENTS, DynamicTreeParams, normalise_rect
from reference.interrupt import Interruptible, pieces
from reference.rng import MASK
from reference.state import StateFormatError


def _block_to_list(block: Sequence[float], cfg: LeafConfig) -> list[float | int]:
    """A C stats block in the snapshot order of ``LeafStats.as_list``."""
    # C layout: n, nu, sy, syy, syg, syyg, bb, logdet, ell, then vectors (csrc/dynatree/dynatree.h)
    nu, sy, syy, syg, syyg, bb, logdet = (block[1], block[2], block[3], block[4], block[5],
                                          block[6], block[7])
    vec = list(block[9:])
    if cfg.kind == CONSTANT:
        return [nu, sy, syy, syg, syyg]
    if cfg.kind == CLASS:
        c = cfg.n_classes
        return [nu, *[int(v) for v in vec[:c]], *vec[c:2 * c]]
    return [nu, sy, syy, syyg, *vec, bb, logdet]


def _list_to_block(values: Sequence[Any], n: int, ell: float, cfg: LeafConfig) -> list[float]:
    """Inverse of :func:`_block_to_list` (for unpickling)."""
    if cfg.kind == CONSTANT:
        nu, sy, syy, syg, syyg = values
        return [float(n), nu, sy, syy, syg, syyg, 0.0, 0.0, ell]
    if cfg.kind == CLASS:
        return [float(n), values[0], 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, ell,
                *[float(v) for v in values[1:]]]
    nu, sy, syy, syyg = values[0], values[1], values[2], values[3]
    bb, logdet = values[-2], values[-1]
    return [float(n), nu, sy, syy, 0.0, syyg, bb, logdet, ell, *values[4:-2]]


class _RowBuffers:
    """The C output buffers of the one-row calls; pickled and copied as fresh buffers."""

    __slots__ = ("size", "out", "entropy")

    def __init__(self, size: int) -> None:
        self.size = size
        self.out = ffi.new("double[]", size)
        self.entropy = ffi.new("double *")

    def __reduce__(self) -> tuple[type, tuple[int]]:
        return (_RowBuffers, (self.size,))


class FastEngine(DynamicTreeBase):
    _piece_work = 100_000
    """Particle-steps per call into C in ``partial_fit`` (about 0.1-0.5 s; Ctrl-C is
    checked between calls)."""

    """The C particle cloud behind the ``fast`` facades."""

    _h: Any
    _cfg: LeafConfig

    def _engine_reset(self) -> None:
        self._h = None
        self._pending_rng = Rng(self._params.seed)

    @property
    def rng(self) -> Any:
        """The model's generator (``state`` readable and settable)."""
        if self._h is None:
            return self._pending_rng
        return Rng._wrap(lib.dt_model_rng(self._h))

    def _engine_init(self, d: int, n_classes: int) -> None:
        p = self._params
        cfg = leaf_config(p, d, n_classes)
        out = ffi.new("dt_model **")
        check(lib.dt_model_new(cfg.kind, cfg.p, int(cfg.augmented), cfg.delta, cfg.n_classes,
                               cfg.nu0, cfg.s20, d, p.resolved_min_leaf(d),
                               p.resolved_nstart(d), p.n_particles, float(p.alpha),
                               float(p.beta), p.seed & MASK, out), "dt_model_new")
        h = ffi.gc(out[0], lib.dt_model_free)
        rect = ffi.NULL
        if p.rect is not None:
            rect = ffi.new("double[]", [v for pair in p.rect for v in pair])
        check(lib.dt_model_set_retirement(h, p.active_size or 0,
                                          RETIREMENTS.index(p.retirement), float(p.lam),
                                          int(p.approx), rect), "retirement")
        self._h = h
        self._cfg = cfg
        self._buffers = _RowBuffers(max(5, cfg.n_classes))
        state = self._pending_rng.state
        wrapped = Rng._wrap(lib.dt_model_rng(self._h))
        wrapped.state = state

    def _engine_learn(self, rows: list[list[float]], targets: list[float]) -> list[float]:
        n = len(rows)
        flat = ffi.new("double[]", [v for row in rows for v in row])
        ys = ffi.new("double[]", targets)
        out = ffi.new("double[]", n)
        before = int(self._h.store.n_total)
        try:
            check(lib.dt_model_learn(self._h, flat, ys, n, out), "dt_model_learn")
        except MemoryError as exc:
            # the C loop learned the rows before the failing one (each row is atomic)
            exc.learned_lpreds = [  # type: ignore[attr-defined]
                out[i] for i in range(int(self._h.store.n_total) - before)]
            raise
        return [out[i] for i in range(n)]

    def _learn_row(self, row: list[Any] | tuple[Any, ...], target: Any) -> bool:
        """The lean ``learn_one`` (:mod:`fast._rows`): True if the row was learned, False
        for the general path; ``MemoryError`` with the model unchanged. If Ctrl-C arrives
        during the C call, the row (learned or not, as C tells) is accounted for first."""
        h = self._h
        out = self._buffers.out
        before = h.store.n_total
        try:
            rc = lib.dt_model_learn_row(h, row, len(row), target, out)
        finally:
            if h.store.n_total != before:
                self.n_seen_ += 1
                self._lpred.append(out[0])
        if rc == ST_ENOMEM:
            raise_status(rc, "dt_model_learn")
        return not rc

    def _engine_lml(self) -> float:
        return float(self._h.lml)

    def _engine_discard(self) -> None:
        self._h = None

    def _engine_retire(self, positions: list[int], lam: float) -> None:
        check(lib.dt_model_retire(self._h, ffi.new("int32_t[]", positions), len(positions),
                                  lam), "retire")

    def _engine_pool(self) -> tuple[list[list[float]], list[float]]:
        h = self._h
        n = int(h.store.n)
        d = int(h.par.d)
        xs = ffi.unpack(h.store.X, n * d) if n else []
        return [xs[i * d:(i + 1) * d] for i in range(n)], (ffi.unpack(h.store.y, n) if n else [])

    def _engine_retired(self) -> list[float]:
        n = self._params.n_particles
        out = ffi.new("double[]", n)
        check(lib.dt_model_retired(self._h, out), "retired")
        return [float(v) for v in ffi.unpack(out, n)]

    def _engine_alc_active(self, box: list[tuple[float, float]]) -> list[float]:
        n = int(self._h.store.n)
        out = ffi.new("double[]", max(n, 1))
        flat = ffi.new("double[]", [v for pair in box for v in pair])
        check(lib.dt_model_alc_active(self._h, flat, out), "alc_active")
        return [float(v) for v in ffi.unpack(out, n)]

    def _engine_alc(self, rows: list[list[float]], box: list[tuple[float, float]]
                    ) -> list[float]:
        flat = ffi.new("double[]", [v for pair in box for v in pair])
        values: list[float] = []
        size = max(1, self._piece_work // self._params.n_particles)
        with Interruptible() as guard:          # Ctrl-C between pieces of rows
            for start, stop in pieces(len(rows), size):
                n = stop - start
                out = ffi.new("double[]", max(n, 1))
                xs = ffi.new("double[]", [v for row in rows[start:stop] for v in row])
                check(lib.dt_model_alc(self._h, xs, n, flat, out), "alc")
                values += [float(v) for v in ffi.unpack(out, n)]
                guard.check()
        return values

    def _engine_entropy(self) -> list[float]:
        n = int(self._h.store.n)
        out = ffi.new("double[]", max(n, 1))
        check(lib.dt_model_entropy_active(self._h, out), "entropy_active")
        return [float(v) for v in ffi.unpack(out, n)]

    def _engine_regression(self, row: list[float]) -> RegressionSummary:
        out = ffi.new("double[5]")
        check(lib.dt_model_regression(self._h, ffi.new("double[]", row), out), "predict")
        return out[0], out[1], out[2], out[3], out[4]

    def _engine_class(self, row: list[float]) -> tuple[list[float], float]:
        c = self._cfg.n_classes
        probs = ffi.new("double[]", c)
        ent = ffi.new("double *")
        check(lib.dt_model_class(self._h, ffi.new("double[]", row), probs, ent), "predict")
        return [probs[k] for k in range(c)], ent[0]

    def _engine_trees(self) -> list[tuple[int, int, int]]:
        n = self._params.n_particles
        out = ffi.new("int32_t[]", 3 * n)
        check(lib.dt_model_trees(self._h, out), "trees")
        return [(out[3 * i], out[3 * i + 1], out[3 * i + 2]) for i in range(n)]

    def _export_particle(self, i: int) -> list[list[object]]:
        sw = int(self._h.cfg.sw)
        nn = ffi.new("int32_t *")
        npts = ffi.new("int32_t *")
        check(lib.dt_model_particle_size(self._h, i, nn, npts), "export")
        n_nodes = nn[0]
        ints = ffi.new("int32_t[]", 3 * n_nodes)
        dbls = ffi.new("double[]", n_nodes * (sw + 1))
        pts = ffi.new("int32_t[]", max(npts[0], 1))
        check(lib.dt_model_export_particle(self._h, i, ints, dbls, pts), "export")
        out: list[list[object]] = []
        off = 0
        buf = ffi.unpack(dbls, n_nodes * (sw + 1))
        for a in range(n_nodes):
            depth, var, cnt = ints[3 * a], ints[3 * a + 1], ints[3 * a + 2]
            if var >= 0:
                out.append([depth, var, buf[a * (sw + 1)]])
            else:
                block = buf[a * (sw + 1) + 1:(a + 1) * (sw + 1)]
                out.append([depth, -1, ffi.unpack(pts + off, cnt) if cnt else [],
                            _block_to_list(block, self._cfg), block[8]])
                off += cnt
        return out

    def _engine_snapshot(self) -> dict[str, Any]:
        h = self._h
        n = int(h.store.n)
        d = int(h.par.d)
        xs = ffi.unpack(h.store.X, n * d) if n else []
        return {"log_marginal_likelihood": float(h.lml),
                "rng_state": list(self.rng.state),
                "X": [xs[i * d:(i + 1) * d] for i in range(n)],
                "y": ffi.unpack(h.store.y, n) if n else [],
                "particles": [self._export_particle(i)
                              for i in range(self._params.n_particles)]}

    # -- pickling and copying: export the state, rebuild the C model from it ----------------
    def _get_state(self) -> dict[str, Any]:
        state = {k: v for k, v in self.__dict__.items() if k not in ("_h", "_pending_rng")}
        state["_snap"] = self.snapshot()
        state["_rng_state"] = self.rng.state
        return self._pack_lpred(state)

    def _set_state(self, state: dict[str, Any]) -> None:
        state = self._unpack_lpred(state)
        snap = state.pop("_snap")
        rng_state = state.pop("_rng_state")
        self.__dict__.update(state)
        self._h = None
        self._pending_rng = Rng(0)
        if not isinstance(snap, dict) or not isinstance(self.__dict__.get("_d"), (int, type(None))):
            raise StateFormatError(f"cannot restore {type(self).__name__}: the pickled state "
                                   "is inconsistent")
        # every field is checked before anything reaches C (reference.dynatree.state_check)
        self._check_state(self._fitted_state(), snap)
        self._pending_rng.state = tuple(rng_state) if self._d is not None \
            else tuple(snap["rng_state"])
        if self._d is None:
            return
        self._engine_init(self._d, len(getattr(self, "classes_", [])))
        self._engine_restore(snap)

    def _check_restored(self) -> None:
        """Nothing left to check: :meth:`_set_state` checked the state before C saw it."""

    def _engine_restore(self, snap: dict[str, Any]) -> None:
        sizes: list[int] = []
        ints: list[int] = []
        dbls: list[float] = []
        pts: list[int] = []
        for tree in snap["particles"]:
            sizes.append(len(tree))
            for rec in tree:
                if rec[1] >= 0:
                    ints += [rec[0], rec[1], 0]
                    dbls += [rec[2]] + [0.0] * self._h.cfg.sw
                else:
                    points = rec[2]
                    ints += [rec[0], -1, len(points)]
                    dbls += [0.0] + _list_to_block(rec[3], len(points), rec[4], self._cfg)
                    pts += points
        n = len(snap["y"])
        check(lib.dt_model_import(
            self._h, ffi.new("double[]", [float(v) for row in snap["X"] for v in row]),
            ffi.new("double[]", [float(v) for v in snap["y"]]), n,
            float(snap["log_marginal_likelihood"]),
            ffi.new("int32_t[]", sizes), ffi.new("int32_t[]", ints),
            ffi.new("double[]", [float(v) for v in dbls]), ffi.new("int32_t[]", pts)), "import")
        Rng._wrap(lib.dt_model_rng(self._h)).state = tuple(snap["rng_state"])
        self._h.store.n_total = self.n_seen_

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        import pickle

        return pickle.loads(pickle.dumps(self))


class DynamicTreeRegressor(RegressorMixin, FastEngine):
    """Dynamic tree regression with particle learning [AG13, §2; TGP11].

    The C engine behind the API of ``reference.DynamicTreeRegressor`` (same results,
    step by step).

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

    @locks_itself
    def learn_one(self, x: Any, y: Any) -> None:
        lock = self._lock
        lock.acquire()
        try:
            if self._d is not None:
                row = c_row(x, self._keys)
                kind = type(y)
                if row is not None and (kind is float or (kind is int
                                                          and -INT_EXACT <= y <= INT_EXACT)):
                    if self._learn_row(row, y):
                        return
            super().learn_one(x, y)
        finally:
            lock.release()

    learn_one.__doc__ = RegressorMixin.learn_one.__doc__

    @locks_itself
    def predict_one(self, x: Any) -> float:
        lock = self._lock
        lock.acquire()
        try:
            if self._d is not None:
                row = c_row(x, self._keys)
                out = self._buffers.out
                if row is not None and not lib.dt_model_regression_row(self._h, row, len(row),
                                                                        out):
                    value: float = out[0]
                    return value
            return super().predict_one(x)
        finally:
            lock.release()

    predict_one.__doc__ = RegressorMixin.predict_one.__doc__

    def _constructor_params(self) -> dict[str, Any]:
        """Constructor arguments as a dict."""
        p = self._params
        return {"leaf": p.leaf, "intercept": p.intercept, "n_particles": p.n_particles,
                "alpha": p.alpha, "beta": p.beta, "min_leaf": p.min_leaf,
                "nstart": p.nstart, "nu0": p.nu0, "s20": p.s20, "seed": p.seed,
                "active_size": p.active_size, "retirement": p.retirement, "lam": p.lam,
                "rect": None if p.rect is None else [list(r) for r in p.rect],
                "approx": p.approx, "lpred_window": p.lpred_window}


class DynamicTreeClassifier(ClassifierMixin, FastEngine):
    """Dynamic tree classification with multinomial leaves and particle learning [AG13].

    The C engine behind the API of ``reference.DynamicTreeClassifier`` (same results,
    step by step).

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

    @locks_itself
    def learn_one(self, x: Any, y: Any) -> None:
        lock = self._lock
        lock.acquire()
        try:
            if self._d is not None:
                row = c_row(x, self._keys)
                try:
                    index = self._index[y]
                except (KeyError, TypeError):
                    row = None
                if row is not None and self._learn_row(row, float(index)):
                    return
            super().learn_one(x, y)
        finally:
            lock.release()

    learn_one.__doc__ = ClassifierMixin.learn_one.__doc__

    def _probs_row(self, x: Any) -> list[float] | None:
        """Class probabilities at ``x`` by the lean path, None for the general path."""
        if self._d is None:
            return None
        row = c_row(x, self._keys)
        buffers = self._buffers
        out = buffers.out
        if row is None or lib.dt_model_class_row(self._h, row, len(row), out, buffers.entropy):
            return None
        probs: list[float] = ffi.unpack(out, len(self.classes_))
        return probs

    @locks_itself
    def predict_one(self, x: Any) -> Hashable:
        lock = self._lock
        lock.acquire()
        try:
            probs = self._probs_row(x)
            if probs is None:
                return super().predict_one(x)
            best = 0
            for k in range(1, len(probs)):
                if probs[k] > probs[best]:
                    best = k
            return self.classes_[best]
        finally:
            lock.release()

    predict_one.__doc__ = ClassifierMixin.predict_one.__doc__

    @locks_itself
    def predict_proba_one(self, x: Any) -> dict[Hashable, float]:
        lock = self._lock
        lock.acquire()
        try:
            probs = self._probs_row(x)
            if probs is None:
                return super().predict_proba_one(x)
            return dict(zip(self.classes_, probs, strict=True))
        finally:
            lock.release()

    predict_proba_one.__doc__ = ClassifierMixin.predict_proba_one.__doc__

    def _constructor_params(self) -> dict[str, Any]:
        """Constructor arguments as a dict."""
        p = self._params
        return {"classes": self._init_classes, "n_particles": p.n_particles,
                "alpha": p.alpha, "beta": p.beta, "min_leaf": p.min_leaf,
                "nstart": p.nstart, "seed": p.seed, "active_size": p.active_size,
                "retirement": p.retirement, "lam": p.lam,
                "lpred_window": p.lpred_window}

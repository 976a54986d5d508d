"""The C dynamic-tree engine: :class:`reference.dynatree.engine.DynamicTreeEngine` over cffi.

All model mathematics runs in C (``csrc/dynatree/*.c``), including the whole ``partial_fit``
loop and automatic retirement; this module converts between Python lists and C arrays,
and between the C statistics blocks and the snapshot records of the reference. It also
offers the lean one-row hooks (``*_raw``, see :mod:`fast._rows`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, ClassVar

import numpy as np

from fast._ffi import check, ffi, lib, raise_status, view_doubles
from fast._rows import INT_EXACT, ST_ENOMEM, RowBuffer, address, plain_row
from fast.rng import Rng
from reference.dynatree.columns import RECORDS_TAG, is_columns
from reference.dynatree.engine import Box, RegressionSummary, leaf_config
from reference.dynatree.leaf_models import CLASS, CONSTANT, LeafConfig
from reference.dynatree.params import RETIREMENTS, DynamicTreeParams
from reference.interrupt import Interruptible, pieces
from reference.parallel import MAX_THREADS, effective_jobs, row_chunks, run_chunks
from reference.rng import MASK
from reference.state import StateFormatError, as_rng_state

__all__ = ["CDynamicTreeEngine"]

CHUNK_WORK = 2_000_000
"""Particle-rows per C call of a batch split over threads (about 10-30 ms with 1,000
particles), so that Ctrl-C waits for short calls only (:mod:`reference.parallel`)."""


def _class_capacity(sw: int) -> int:
    """Class slots of a class leaf's C block of ``sw`` doubles: counts at 9, retired
    counts at ``9 + capacity`` (``csrc/dynatree/new_class.c`` doubles the capacity when a
    class joins a full block; the slots past ``C`` are zero)."""
    return (sw - 9) // 2


def _block_to_list(block: Sequence[float], cfg: LeafConfig) -> list[float | int]:
    """A C stats block in the snapshot order of ``LeafStats.as_list``."""
    # C layout: n, nu, sy, syy, syg, syyg, bb, logdet, ell, then vectors (csrc/dynatree/dynatree.h)
    nu, sy, syy, syg, syyg, bb, logdet = (block[1], block[2], block[3], block[4], block[5],
                                          block[6], block[7])
    vec = list(block[9:])
    if cfg.kind == CONSTANT:
        return [nu, sy, syy, syg, syyg]
    if cfg.kind == CLASS:
        c, cap = cfg.n_classes, _class_capacity(len(block))
        return [nu, *[int(v) for v in vec[:c]], *vec[cap:cap + c]]
    return [nu, sy, syy, syyg, *vec, bb, logdet]


def _list_to_block(values: Sequence[Any], n: int, ell: float, cfg: LeafConfig,
                   sw: int) -> list[float]:
    """Inverse of :func:`_block_to_list` for a block of ``sw`` doubles (for unpickling)."""
    if cfg.kind == CONSTANT:
        nu, sy, syy, syg, syyg = values
        return [float(n), nu, sy, syy, syg, syyg, 0.0, 0.0, ell]
    if cfg.kind == CLASS:
        c = cfg.n_classes
        gap = [0.0] * (_class_capacity(sw) - c)
        return [float(n), values[0], 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, ell,
                *[float(v) for v in values[1:1 + c]], *gap,
                *[float(v) for v in values[1 + c:]], *gap]
    nu, sy, syy, syyg = values[0], values[1], values[2], values[3]
    bb, logdet = values[-2], values[-1]
    return [float(n), nu, sy, syy, 0.0, syyg, bb, logdet, ell, *values[4:-2]]


def _stats_columns(cfg: LeafConfig, sw: int) -> np.ndarray:
    """Where each entry of ``LeafStats.as_list`` sits in a C stats block: the gather of
    :func:`_block_to_list`, as indices (``columns[j]`` is entry ``j``'s block index)."""
    if cfg.kind == CONSTANT:
        return np.array([1, 2, 3, 4, 5])
    if cfg.kind == CLASS:
        c, cap = cfg.n_classes, _class_capacity(sw)
        return np.array([1, *range(9, 9 + c), *range(9 + cap, 9 + cap + c)])
    return np.array([1, 2, 3, 5, *range(9, sw), 6, 7])


def _flat(rows: list[list[float]]) -> Any:
    """The rows (each of the model's width) as one row-major C array."""
    return ffi.new("double[]", [v for r in rows for v in r])


class _RowBuffers:
    """The C buffers of the one-row calls: the input row (:func:`fast._rows.plain_row`,
    ``width`` values) and the outputs; pickled and copied as fresh buffers."""

    __slots__ = ("size", "width", "out", "label", "pack", "row")

    def __init__(self, size: int, width: int = 1) -> None:
        self.size = size
        self.width = width
        self.out = ffi.new("double[]", size)
        self.label = ffi.new("int32_t *")
        self.pack, self.row = plain_row(width)

    def __reduce__(self) -> tuple[type, tuple[int, int]]:
        return (_RowBuffers, (self.size, self.width))


def learning_threads(n_jobs: int | None) -> int:
    """Threads of a learning step for ``n_jobs`` ([DT-SPEC §8.5]): ``effective_jobs``,
    at most :data:`reference.parallel.MAX_THREADS` (the C pool, like the pool of the
    predictions, never starts more; the step then also uses at most ``N // 32``)."""
    return min(effective_jobs(n_jobs), MAX_THREADS)


class CDynamicTreeEngine:
    """The particle cloud of a ``fast`` dynamic tree: a ``dt_model`` handle, ``self._m``
    (None until :meth:`start`; before that the generator waits in ``_pending_rng``)."""

    raw_rows: ClassVar[bool] = True
    array_batches: ClassVar[bool] = True
    piece_work: ClassVar[int] = 100_000
    """Particle-steps per call into C in ``partial_fit`` (about 0.1-0.5 s)."""
    restores_checked: ClassVar[bool] = True
    pickle_keys: ClassVar[tuple[str, ...]] = ("_snap", "_rng_state", "_h", "_pending_rng",
                                              "_cfg", "_buffers")
    """A pickle holds the model's snapshot ``_snap`` and generator state ``_rng_state``;
    older pickles may also carry ``_cfg`` and ``_buffers``, which are rebuilt, not read."""

    _cfg: LeafConfig
    _buffers: _RowBuffers

    def __init__(self, params: DynamicTreeParams) -> None:
        self._params = params
        self._m: Any = None
        self._pending_rng = Rng(params.seed)

    @property
    def rng(self) -> Any:
        if self._m is None:
            return self._pending_rng
        return Rng._wrap(lib.dt_model_rng(self._m))

    def start(self, d: int, n_classes: int) -> None:
        p = self._params
        cfg = leaf_config(p, d, n_classes)
        out = ffi.new("dt_model **")
        check(lib.dt_model_new(cfg.kind, cfg.p, int(cfg.augmented), cfg.delta, cfg.n_classes,
                               cfg.nu0, cfg.s20, d, p.resolved_min_leaf(d),
                               p.resolved_nstart(d), p.n_particles, float(p.alpha),
                               float(p.beta), p.seed & MASK, out), "dt_model_new")
        m = ffi.gc(out[0], lib.dt_model_free)
        check(lib.dt_model_set_slope_prior(m, cfg.kappa), "slope prior")
        rect = ffi.NULL
        if p.rect is not None:
            rect = ffi.new("double[]", [v for pair in p.rect for v in pair])
        check(lib.dt_model_set_retirement(m, p.active_size or 0,
                                          RETIREMENTS.index(p.retirement), float(p.lam),
                                          int(p.approx), rect), "retirement")
        self._m = m
        self._cfg = cfg
        self._buffers = _RowBuffers(max(5, cfg.n_classes), d)
        self._bind_lean_calls()
        Rng._wrap(lib.dt_model_rng(self._m)).state = self._pending_rng.state

    def set_jobs(self, n_jobs: int | None) -> None:
        """Propagate the particles of each learning step on ``n_jobs`` threads
        (:func:`reference.parallel.effective_jobs`; [DT-SPEC §0] item 6: the same numbers
        for any value)."""
        if self._m is not None:
            check(lib.dt_model_set_threads(self._m, learning_threads(n_jobs)),
                  "dt_model_set_threads")

    def learn(self, rows: list[list[float]], targets: list[float]) -> list[float]:
        # validated floats: the arrays hold the same doubles
        return self.learn_array(np.array(rows, dtype=np.float64).reshape(len(rows), -1),
                                np.array(targets, dtype=np.float64))

    def learn_array(self, X: np.ndarray, targets: np.ndarray) -> list[float]:
        n = X.shape[0]
        out = np.empty(n, dtype=np.float64)
        before = int(self._m.store.n_total)
        try:
            check(lib.dt_model_learn(self._m, view_doubles(X), view_doubles(targets), n,
                                     view_doubles(out)), "dt_model_learn")
        except MemoryError as exc:
            # the C loop learned the rows before the failing one (each row is atomic)
            exc.learned_lpreds = (  # type: ignore[attr-defined]
                out[:int(self._m.store.n_total) - before].tolist())
            raise
        return out.tolist()

    def _split_rows(self, n: int, n_jobs: int | None,
                    call: Callable[[int, int], int], what: str, prepare: bool = True) -> bool:
        """Run ``call(start, stop)`` (a ``dt_model_*_rows`` call returning its status) on
        contiguous chunks of ``n`` rows over ``n_jobs`` threads, after building the
        per-set records on this thread (``prepare``, [DT-SPEC §8.4]); False (nothing run)
        for one thread or one row."""
        jobs = effective_jobs(n_jobs)
        if jobs == 1 or n < 2:
            return False
        if prepare:
            check(lib.dt_model_predict_prepare(self._m), what)
        size = max(1, CHUNK_WORK // self._params.n_particles)

        def rows(a: int, b: int) -> None:
            check(call(a, b), what)

        run_chunks([functools.partial(rows, a, b) for a, b in row_chunks(n, jobs, size)], jobs)
        return True

    def means_array(self, X: np.ndarray, out: np.ndarray, n_jobs: int | None = None) -> None:
        m = self._m
        if not self._split_rows(X.shape[0], n_jobs, lambda a, b: lib.dt_model_means_rows(
                m, view_doubles(X[a:b]), b - a, view_doubles(out[a:b])), "predict"):
            check(lib.dt_model_means(m, view_doubles(X), X.shape[0], view_doubles(out)),
                  "predict")

    def summaries_array(self, X: np.ndarray, out: np.ndarray,
                        n_jobs: int | None = None) -> None:
        m = self._m
        if not self._split_rows(X.shape[0], n_jobs, lambda a, b: lib.dt_model_summaries_rows(
                m, view_doubles(X[a:b]), b - a, view_doubles(out[a:b])), "predict"):
            check(lib.dt_model_summaries(m, view_doubles(X), X.shape[0], view_doubles(out)),
                  "predict")

    def classify_array(self, X: np.ndarray, probs: np.ndarray, entropy: np.ndarray,
                       n_jobs: int | None = None) -> None:
        m = self._m
        if not self._split_rows(X.shape[0], n_jobs, lambda a, b: lib.dt_model_classes_rows(
                m, view_doubles(X[a:b]), b - a, view_doubles(probs[a:b]),
                view_doubles(entropy[a:b])), "predict"):
            check(lib.dt_model_classes(m, view_doubles(X), X.shape[0], view_doubles(probs),
                                       view_doubles(entropy)), "predict")

    def alc_array(self, X: np.ndarray, box: Box, out: np.ndarray,
                  n_jobs: int | None = None) -> None:
        m = self._m
        flat = ffi.new("double[]", [v for pair in box for v in pair])
        if effective_jobs(n_jobs) > 1 and X.shape[0] > 1:
            check(lib.dt_model_alc_prepare(m, flat), "alc")
            if self._split_rows(X.shape[0], n_jobs, lambda a, b: lib.dt_model_alc_rows(
                    m, view_doubles(X[a:b]), b - a, flat, view_doubles(out[a:b])), "alc",
                    prepare=False):
                return
        check(lib.dt_model_alc(m, view_doubles(X), X.shape[0], flat, view_doubles(out)), "alc")

    def discard(self) -> None:
        self._m = None
        for name in ("learn_one_raw", "predict_one_raw", "predict_proba_raw",
                     "predict_label_raw"):
            self.__dict__.pop(name, None)       # the closures hold the discarded C model

    def lml(self) -> float:
        return float(self._m.lml)

    def summaries(self, rows: list[list[float]]) -> list[RegressionSummary]:
        n = len(rows)
        out = ffi.new("double[]", 5 * n)
        check(lib.dt_model_summaries(self._m, _flat(rows), n, out), "predict")
        flat = ffi.unpack(out, 5 * n)
        return [tuple(flat[5 * r:5 * r + 5]) for r in range(n)]

    def means(self, rows: list[list[float]]) -> list[float]:
        n = len(rows)
        out = ffi.new("double[]", n)
        check(lib.dt_model_means(self._m, _flat(rows), n, out), "predict")
        return ffi.unpack(out, n)  # type: ignore[no-any-return]

    def classify_rows(self, rows: list[list[float]]) -> tuple[list[list[float]], list[float]]:
        n, c = len(rows), self._cfg.n_classes
        probs = ffi.new("double[]", c * n)
        ent = ffi.new("double[]", n)
        check(lib.dt_model_classes(self._m, _flat(rows), n, probs, ent), "predict")
        flat = ffi.unpack(probs, c * n)
        return [flat[c * r:c * r + c] for r in range(n)], ffi.unpack(ent, n)

    def trees(self) -> list[tuple[int, int, int]]:
        n = self._params.n_particles
        out = ffi.new("int32_t[]", 3 * n)
        check(lib.dt_model_trees(self._m, out), "trees")
        return [(out[3 * i], out[3 * i + 1], out[3 * i + 2]) for i in range(n)]

    def retired(self) -> list[float]:
        n = self._params.n_particles
        out = ffi.new("double[]", n)
        check(lib.dt_model_retired(self._m, out), "retired")
        return [float(v) for v in ffi.unpack(out, n)]

    def retire(self, positions: list[int], lam: float) -> None:
        check(lib.dt_model_retire(self._m, ffi.new("int32_t[]", positions), len(positions),
                                  lam), "retire")

    def pool(self) -> tuple[list[list[float]], list[float]]:
        n = int(self._m.store.n)
        d = int(self._m.par.d)
        xs = ffi.unpack(self._m.store.X, n * d) if n else []
        ys = ffi.unpack(self._m.store.y, n) if n else []
        return [xs[i * d:(i + 1) * d] for i in range(n)], ys

    def entropy_active(self) -> list[float]:
        n = int(self._m.store.n)
        out = ffi.new("double[]", max(n, 1))
        check(lib.dt_model_entropy_active(self._m, out), "entropy_active")
        return [float(v) for v in ffi.unpack(out, n)]

    def alc_active(self, box: Box) -> list[float]:
        n = int(self._m.store.n)
        out = ffi.new("double[]", max(n, 1))
        flat = ffi.new("double[]", [v for pair in box for v in pair])
        check(lib.dt_model_alc_active(self._m, flat, out), "alc_active")
        return [float(v) for v in ffi.unpack(out, n)]

    def alc(self, rows: list[list[float]], box: Box) -> list[float]:
        flat = ffi.new("double[]", [v for pair in box for v in pair])
        values: list[float] = []
        size = max(1, self.piece_work // self._params.n_particles)
        with Interruptible() as guard:          # Ctrl-C between pieces of rows
            for start, stop in pieces(len(rows), size):
                n = stop - start
                out = ffi.new("double[]", max(n, 1))
                xs = ffi.new("double[]", [v for row in rows[start:stop] for v in row])
                check(lib.dt_model_alc(self._m, xs, n, flat, out), "alc")
                values += [float(v) for v in ffi.unpack(out, n)]
                guard.check()
        return values

    # -- snapshots: the C trees exported as, and imported from, the reference records ------
    def _export_particle(self, i: int) -> list[list[object]]:
        sw = int(self._m.cfg.sw)
        nn = ffi.new("int32_t *")
        npts = ffi.new("int32_t *")
        check(lib.dt_model_particle_size(self._m, i, nn, npts), "export")
        n_nodes = nn[0]
        ints = ffi.new("int32_t[]", 3 * n_nodes)
        dbls = ffi.new("double[]", n_nodes * (sw + 1))
        pts = ffi.new("int32_t[]", max(npts[0], 1))
        check(lib.dt_model_export_particle(self._m, i, ints, dbls, pts), "export")
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

    def snapshot(self) -> dict[str, Any]:
        rows, targets = self.pool()
        return {"log_marginal_likelihood": float(self._m.lml),
                "rng_state": list(self.rng.state), "X": rows, "y": targets,
                "particles": [self._export_particle(i)
                              for i in range(self._params.n_particles)]}

    def restore(self, snap: dict[str, Any], n_seen: int) -> None:
        sw = int(self._m.cfg.sw)
        sizes: list[int] = []
        ints: list[int] = []
        dbls: list[float] = []
        pts: list[int] = []
        for tree in snap["particles"]:
            sizes.append(len(tree))
            for rec in tree:
                if rec[1] >= 0:
                    ints += [rec[0], rec[1], 0]
                    dbls += [rec[2]] + [0.0] * sw
                else:
                    points = rec[2]
                    ints += [rec[0], -1, len(points)]
                    dbls += [0.0] + _list_to_block(rec[3], len(points), rec[4], self._cfg, sw)
                    pts += points
        n = len(snap["y"])
        check(lib.dt_model_import(
            self._m, ffi.new("double[]", [float(v) for row in snap["X"] for v in row]),
            ffi.new("double[]", [float(v) for v in snap["y"]]), n,
            float(snap["log_marginal_likelihood"]),
            ffi.new("int32_t[]", sizes), ffi.new("int32_t[]", ints),
            ffi.new("double[]", [float(v) for v in dbls]), ffi.new("int32_t[]", pts)), "import")
        Rng._wrap(lib.dt_model_rng(self._m)).state = tuple(snap["rng_state"])
        self._m.store.n_total = n_seen

    # -- columns: the C trees as flat arrays (reference.dynatree.columns) ------------------
    def snapshot_columns(self) -> dict[str, Any]:
        """The engine part of a snapshot with ``X``, ``y`` as arrays and the particles as
        columns, exported particle by particle into one set of arrays (no Python object
        per number)."""
        n_part, sw = self._params.n_particles, int(self._m.cfg.sw)
        n, d = int(self._m.store.n), int(self._m.par.d)
        sizes = np.empty(n_part, dtype=np.int32)
        nn = ffi.new("int32_t *")
        npts = ffi.new("int32_t *")
        for i in range(n_part):
            check(lib.dt_model_particle_size(self._m, i, nn, npts), "export")
            sizes[i] = nn[0]
        total = int(sizes.sum(dtype=np.int64))
        ints = np.empty((total, 3), dtype=np.int32)
        dbls = np.empty((total, sw + 1), dtype=np.float64)
        pts = np.empty(max(n * n_part, 1), dtype=np.int32)
        ints_c = ffi.from_buffer("int32_t[]", ints)
        dbls_c = ffi.from_buffer("double[]", dbls)
        pts_c = ffi.from_buffer("int32_t[]", pts)
        node = 0
        for i in range(n_part):
            check(lib.dt_model_export_particle(self._m, i, ints_c + 3 * node,
                                               dbls_c + (sw + 1) * node, pts_c + n * i),
                  "export")
            node += int(sizes[i])
        leaf = ints[:, 1] < 0
        blocks = dbls[leaf, 1:]
        X = np.frombuffer(ffi.buffer(self._m.store.X, 8 * n * d), dtype=np.float64) \
            if n else np.zeros(0)
        y = np.frombuffer(ffi.buffer(self._m.store.y, 8 * n), dtype=np.float64) \
            if n else np.zeros(0)
        cols = {"sizes": sizes, "depth": ints[:, 0].copy(), "var": ints[:, 1].copy(),
                "value": np.where(leaf, 0.0, dbls[:, 0]), "npoints": ints[leaf, 2],
                "points": pts[:n * n_part], "stats": blocks[:, _stats_columns(self._cfg, sw)],
                "ell": blocks[:, 8].copy()}
        return {"log_marginal_likelihood": float(self._m.lml),
                "rng_state": list(self.rng.state), "X": X.reshape(n, d).copy(),
                "y": y.copy(), "particles": {RECORDS_TAG: cols}}

    def restore_columns(self, snap: dict[str, Any], cols: dict[str, np.ndarray],
                        n_seen: int) -> None:
        """:meth:`restore` from checked columns
        (:func:`reference.dynatree.state_check.check_engine_columns`): the same C
        records as the list form gives, built with numpy."""
        sw = int(self._m.cfg.sw)
        var = cols["var"]
        leaf = var < 0
        ints = np.zeros((len(var), 3), dtype=np.int32)
        ints[:, 0] = cols["depth"]
        ints[:, 1] = var
        ints[leaf, 2] = cols["npoints"]
        dbls = np.zeros((len(var), sw + 1), dtype=np.float64)
        dbls[~leaf, 0] = cols["value"][~leaf]
        blocks = np.zeros((len(cols["npoints"]), sw), dtype=np.float64)
        blocks[:, 0] = cols["npoints"]
        blocks[:, _stats_columns(self._cfg, sw)] = cols["stats"]
        blocks[:, 8] = cols["ell"]
        dbls[leaf, 1:] = blocks
        X, y = cols["X"], cols["y"]
        points = cols["points"] if len(cols["points"]) else np.zeros(1, dtype=np.int32)
        check(lib.dt_model_import(
            self._m, ffi.from_buffer("double[]", X if X.size else np.zeros(1)),
            ffi.from_buffer("double[]", y if y.size else np.zeros(1)), len(y),
            float(snap["log_marginal_likelihood"]),
            ffi.from_buffer("int32_t[]", cols["sizes"]), ffi.from_buffer("int32_t[]", ints),
            ffi.from_buffer("double[]", dbls), ffi.from_buffer("int32_t[]", points)),
            "import")
        Rng._wrap(lib.dt_model_rng(self._m)).state = tuple(snap["rng_state"])
        self._m.store.n_total = n_seen

    @staticmethod
    def check_trees(cols: dict[str, np.ndarray], X: np.ndarray, y: np.ndarray,
                    n_classes: int, sums: bool) -> Any:
        """:func:`reference.dynatree.state_check.check_trees` in one pass in C
        (``dt_check_trees``, ``csrc/dynatree/state_check.c``; the sums of the targets
        taken in order, leaf by leaf)."""
        n, d = X.shape
        n_leaves = len(cols["npoints"])
        keep = {name: cols[name] if len(cols[name]) else np.zeros(1, dtype=cols[name].dtype)
                for name in ("sizes", "depth", "var", "npoints", "points", "value")}
        keep["X"] = X if n else np.zeros(1)
        keep["y"] = y if n else np.zeros(1)
        totals = np.zeros((n_leaves, 3)) if sums else None
        counts = np.zeros((n_leaves, n_classes)) if n_classes else None
        scratch = np.empty(2 * max(n, 1), dtype=np.int32)
        stack = np.empty(3 * (int(cols["sizes"].max(initial=0)) + 2), dtype=np.int64)
        where = np.zeros(3, dtype=np.int64)
        args = ffi.new("dt_check_trees_args *")
        args.n_particles = len(cols["sizes"])
        args.n_nodes = len(cols["depth"])
        args.n_leaves = n_leaves
        args.n_points = len(cols["points"])
        args.n = n
        args.d = d
        args.n_classes = n_classes
        for name in ("sizes", "depth", "var", "npoints", "points"):
            setattr(args, name, ffi.from_buffer("int32_t[]", keep[name]))
        for name in ("value", "X", "y"):
            setattr(args, name, ffi.from_buffer("double[]", keep[name]))
        args.sums = ffi.NULL if totals is None or not n_leaves else \
            ffi.from_buffer("double[]", totals)
        args.counts = ffi.NULL if counts is None or not n_leaves else \
            ffi.from_buffer("double[]", counts)
        scratch_c = ffi.from_buffer("int32_t[]", scratch)
        args.idx = scratch_c
        args.tmp = scratch_c + max(n, 1)
        rc = lib.dt_check_trees(args, ffi.from_buffer("int64_t[]", stack),
                                ffi.from_buffer("int64_t[]", where))
        del keep
        if rc != lib.ST_OK:
            return int(where[0]), int(where[1]), int(where[2]), None, None
        return -1, 0, 0, totals, counts

    # -- pickles: the model's snapshot, checked, then rebuilt in a new C model -------------
    def to_pickle(self, snapshot: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """The model's snapshot as columns (``snapshot`` is the facade's
        ``_snapshot_columns``) and the generator state."""
        return {"_snap": snapshot(), "_rng_state": self.rng.state}

    @classmethod
    def from_pickle(cls, model: Any, entries: dict[str, Any]) -> CDynamicTreeEngine:
        missing = [k for k in ("_snap", "_rng_state") if k not in entries]
        if missing:
            raise StateFormatError(f"cannot restore {type(model).__name__}: the pickled "
                                   f"state lacks {missing} (a pickle of this backend holds "
                                   f"them; a pickle restores only in the backend that "
                                   f"wrote it)")
        snap = entries["_snap"]
        rng_state = entries["_rng_state"]
        if model.__dict__.get("_d") is not None:
            as_rng_state(list(rng_state) if isinstance(rng_state, tuple) else rng_state,
                         "state._rng_state")
        engine = cls.__new__(cls)   # the parameters are not checked yet
        engine._params = model._params
        engine._m = None
        engine._pending_rng = Rng(0)
        if not isinstance(snap, dict) or not isinstance(model.__dict__.get("_d"),
                                                        (int, type(None))):
            raise StateFormatError(f"cannot restore {type(model).__name__}: the pickled "
                                   "state is inconsistent")
        # every field is checked before anything reaches C (reference.dynatree.state_check);
        # a snapshot of columns (pickles since format 2 of model files) on its arrays
        cols = model._check_state(model._fitted_state(), snap)
        d = model._d
        engine._pending_rng.state = tuple(rng_state) if d is not None \
            else tuple(snap["rng_state"])
        if d is not None:
            engine.start(d, len(getattr(model, "classes_", [])))
            if cols is not None and is_columns(snap["particles"]):
                engine.restore_columns(snap, cols, model.n_seen_)
            else:
                engine.restore(snap, model.n_seen_)
        return engine

    # -- the lean one-row hooks (fast._rows) ------------------------------------------------
    # A closure over this model's C handle and buffers (learn) and the bound calls of a
    # row buffer (predictions) replace these methods on the instance (_bind_lean_calls, in
    # start()). Until then they refuse every row (the general path runs).
    def learn_one_raw(self, model: Any, x: Any, target: Any) -> bool:
        """Learn a plain row with a float (or exact int) target in one C call
        (``dt_model_learn_row``); False: the general path."""
        return False

    def predict_one_raw(self, x: Any, keys: Any) -> float | None:
        """Predictive mean of a plain row (``dt_model_mean_row``), or None."""
        return None

    def predict_proba_raw(self, x: Any, keys: Any) -> list[float] | None:
        """Class probabilities of a plain row (``dt_model_label_row``), or None."""
        return None

    def predict_label_raw(self, x: Any, keys: Any) -> int:
        """First class of largest probability of a plain row (``dt_model_label_row``), or
        -1."""
        return -1

    def _bind_lean_calls(self) -> None:
        self._install_lean_calls(self._lean_calls(self._buffers, self._cfg.n_classes))

    def _lean_calls(self, buffers: _RowBuffers, n_classes: int) -> tuple[Any, ...]:
        """The lean one-row calls over this model's C handle and ``buffers``, for a model
        of ``n_classes`` classes (built, not installed: :meth:`_install_lean_calls`)."""
        m = self._m
        pack, row, width, out = buffers.pack, buffers.row, buffers.width, buffers.out
        n_total = ffi.addressof(m[0].store, "n_total")   # rows ever learned, read in place
        learn_row = lib.dt_model_learn_row
        # predictions: calls bound to a row buffer (fast._rows), the GIL released around
        # the C work (milliseconds with many particles)
        predictions = RowBuffer(width, np.ndarray)
        predictions.bind(
            (m, buffers), "", handle=address(m), score=address(lib.dt_model_mean_row),
            label=address(lib.dt_model_label_row), out=address(out), probs=address(out),
            label_out=address(buffers.label), n_probs=n_classes, release_gil=1)

        set_threads = lib.dt_model_set_threads
        jobs_set: list[Any] = [None]   # the n_jobs the C model was last given

        def learn_one_raw(model: Any, x: Any, target: Any) -> bool:
            if model._n_jobs != jobs_set[0]:
                set_threads(m, learning_threads(model._n_jobs))
                jobs_set[0] = model._n_jobs
            kind = type(target)
            if kind is not float and (kind is not int or not -INT_EXACT <= target <= INT_EXACT):
                return False
            if not pack(x, model._keys):
                return False
            before = n_total[0]
            try:
                rc = learn_row(m, row, width, target, out)
            finally:
                # a learned row is counted even if Ctrl-C arrives during the call
                if n_total[0] != before:
                    model.n_seen_ += 1
                    model._lpred.append(out[0])
            if rc == ST_ENOMEM:
                raise_status(rc, "dt_model_learn")
            return not rc

        return learn_one_raw, predictions.score, predictions.proba, predictions.label

    def _install_lean_calls(self, calls: tuple[Any, ...]) -> None:
        self.learn_one_raw = calls[0]  # type: ignore[method-assign]
        self.predict_one_raw = calls[1]  # type: ignore[method-assign]
        self.predict_proba_raw = calls[2]  # type: ignore[method-assign]
        self.predict_label_raw = calls[3]  # type: ignore[method-assign]

    # -- a new class in place ([DT-SPEC §12.2], reference.dynatree.new_class) -------------
    def add_class(self) -> None:
        """Class C joins every leaf (``dt_model_add_class``). The row buffers (C
        probabilities) double when full; everything that allocates happens before the C
        call, which itself changes nothing on ``MemoryError``."""
        c = self._cfg.n_classes + 1
        buffers = self._buffers
        if c > buffers.size:
            buffers = _RowBuffers(max(2 * buffers.size, c), buffers.width)
        calls = self._lean_calls(buffers, c)
        cfg = replace(self._cfg, n_classes=c)
        check(lib.dt_model_add_class(self._m), "add_class")
        self._cfg, self._buffers = cfg, buffers
        self._install_lean_calls(calls)

    def drop_class(self) -> None:
        """Undo :meth:`add_class` (``dt_model_drop_class``; the buffers are kept)."""
        c = self._cfg.n_classes - 1
        calls = self._lean_calls(self._buffers, c)
        cfg = replace(self._cfg, n_classes=c)
        check(lib.dt_model_drop_class(self._m),
              "drop_class (the last class has data: it cannot be dropped)")
        self._cfg = cfg
        self._install_lean_calls(calls)

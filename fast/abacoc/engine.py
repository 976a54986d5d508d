"""The ABACOC engine in C: :class:`CABACOCEngine` owns one ``ab_model *`` (``csrc/abacoc/model.c``).

It implements :class:`reference.abacoc.engine.ABACOCEngine` for the facade of
:mod:`reference.abacoc.model`; ``fast.abacoc`` only plugs it in. The learning, prediction
and evaluation loops run in C (``ab_model_partial_fit``, ``ab_model_predict``,
``ab_model_prequential``), in pieces of rows so that Ctrl-C is honoured between them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from fast._ffi import check, ffi, lib, piece_doubles, raise_status, view_doubles
from fast._rows import ST_ENOMEM, plain_row
from fast.rng import Rng
from reference.abacoc.columns import BALLS_TAG, column_arrays, is_columns
from reference.abacoc.engine import Prequential
from reference.abacoc.params import ABACOCParams
from reference.batches import chunk_rows, chunks
from reference.interrupt import Interruptible
from reference.parallel import effective_jobs, row_chunks, run_chunks
from reference.rng import MASK

__all__ = ["CABACOCEngine", "PIECE_ROWS"]

PIECE_ROWS = 20_000
"""Rows per call into C in the long loops (Ctrl-C is checked between calls)."""

_VARIANT_CODES = {"base": 0, "base_adj": 1, "auto": 2, "auto_adj": 3}
_SEARCH_CODES = {"auto": 0, "scan": 1, "kdtree": 2}


class _ModelRng(Rng):
    """An ``Rng`` view on the generator inside a C model; keeps the model alive."""

    __slots__ = ("_owner",)
    _owner: Any


def _i64(values: Any) -> Any:
    """A private C-contiguous int64 copy (the C reads it with the GIL released)."""
    return np.array(values, dtype=np.int64, order="C", copy=True)


CHUNK_ROWS = 5_000
"""Rows per C call when a piece is split over threads (:mod:`reference.parallel`)."""


def _spans(X: np.ndarray) -> Any:
    """The pieces of rows of ``X`` handed to C one call at a time."""
    return chunks(X.shape[0], chunk_rows(X.shape[1], PIECE_ROWS), X)


class CABACOCEngine:
    """:class:`reference.abacoc.engine.ABACOCEngine` over one ``ab_model *``, bit for bit
    the twin of :class:`reference.abacoc.engine.PythonABACOCEngine`."""

    raw_rows: ClassVar[bool] = True
    array_batches: ClassVar[bool] = True

    def __init__(self, params: ABACOCParams) -> None:
        self.params = params
        out = ffi.new("ab_model **")
        check(lib.ab_model_new(
            _VARIANT_CODES[params.variant], int(params.randomized), params.metric_code,
            float(params.p), float(params.d), float(params.C), int(params.ball_budget or 0),
            _SEARCH_CODES[params.search], int(params.search_threshold),
            int(params.leaf_size), int(params.seed) & MASK, out,
        ), "ab_model_new")
        self._h = ffi.gc(out[0], lib.ab_model_free)
        self._xbuf: Any = None                   # double[d] reused by the one-row calls
        self._kbuf = ffi.new("int64_t[1]")
        self._pbuf = ffi.new("double[]", 4)      # class frequencies of predict_proba_one

    def __getstate__(self) -> Any:
        raise TypeError("the C engine is pickled through its model's snapshot")

    @property
    def n_seen(self) -> int:
        return int(self._h.n_seen)

    @property
    def n_balls(self) -> int:
        return int(self._h.balls.n_balls)

    @property
    def rng(self) -> Rng:
        view = _ModelRng._wrap(ffi.addressof(self._h[0], "rng"))
        assert isinstance(view, _ModelRng)
        view._owner = self
        return view

    def set_dim(self, n_features: int) -> None:
        check(lib.ab_model_set_dim(self._h, n_features), "ab_model_set_dim")
        self._bind_lean_calls(n_features)

    def rollback(self, n_features: int, n_classes: int) -> None:
        check(lib.ab_model_rollback(self._h, n_features, n_classes), "ab_model_rollback")
        self._bind_lean_calls(n_features)

    def _sync_classes(self, n_classes: int) -> None:
        while self._h.n_classes < n_classes:
            check(lib.ab_model_add_class(self._h), "ab_model_add_class")

    def learn_rows(self, X: np.ndarray, ks: Any, n_classes: int) -> None:
        self._sync_classes(n_classes)
        with Interruptible() as guard:
            for start, stop in _spans(X):
                check(
                    lib.ab_model_partial_fit(
                        self._h, piece_doubles(X, start, stop),
                        ffi.from_buffer("int64_t[]", _i64(ks[start:stop])), stop - start,
                    ),
                    "ab_model_partial_fit",
                )
                guard.check()

    def _row_buffer(self, row: list[float]) -> Any:
        buf = self._xbuf
        if buf is None or len(buf) != len(row):
            buf = self._xbuf = ffi.new("double[]", len(row))
        buf[0:len(row)] = row
        return buf

    def learn_row(self, row: list[float], k: int, n_classes: int) -> None:
        h = self._h
        if h.n_classes < n_classes:
            self._sync_classes(n_classes)
        kbuf = self._kbuf
        kbuf[0] = k
        rc = lib.ab_model_partial_fit(h, self._row_buffer(row), kbuf, 1)
        if rc:
            check(rc, "ab_model_partial_fit")

    def predict_row(self, row: list[float]) -> int:
        kbuf = self._kbuf
        rc = lib.ab_model_predict(self._h, self._row_buffer(row), 1, kbuf)
        if rc:
            check(rc, "ab_model_predict")
        return int(kbuf[0])

    def proba_row(self, row: list[float], n_classes: int) -> list[float]:
        n = int(self._h.n_classes)
        if n == 0:
            return []
        out = ffi.new("double[]", n)      # zeroed, as the array version
        rc = lib.ab_model_predict_proba(self._h, self._row_buffer(row), 1, out)
        if rc:
            check(rc, "ab_model_predict_proba")
        return ffi.unpack(out, n)  # type: ignore[no-any-return]

    def _split(self, X: np.ndarray, jobs: int,
               call: Callable[[Any, int, int, Any], int], what: str) -> None:
        """``call(rows, n, work, start)`` on contiguous chunks of each piece of ``X`` over
        ``jobs`` threads (read-only C calls, :mod:`reference.parallel`), then the search
        work they counted added to the model once (sums: the same totals as one thread)."""
        works: list[np.ndarray] = []

        def chunk(a: int, b: int) -> None:
            work = np.zeros(2, dtype=np.int64)
            works.append(work)
            check(call(piece_doubles(X, a, b), b - a, ffi.from_buffer("int64_t[]", work), a),
                  what)

        try:
            with Interruptible() as guard:
                for start, stop in _spans(X):
                    run_chunks([functools.partial(chunk, start + a, start + b)
                                for a, b in row_chunks(stop - start, jobs, CHUNK_ROWS)], jobs)
                    guard.check()
        finally:
            total = np.sum(works, axis=0, dtype=np.int64) if works else np.zeros(2, np.int64)
            check(lib.ab_model_add_search_work(self._h, ffi.from_buffer("int64_t[]", total)),
                  what)

    def predict_rows(self, X: np.ndarray, n_jobs: int | None = None) -> np.ndarray:
        out = np.empty(X.shape[0], dtype=np.int64)
        jobs = effective_jobs(n_jobs)
        if jobs > 1 and X.shape[0] > 1 and not self._h.par.randomized:
            h = self._h
            self._split(X, jobs, lambda rows, n, work, a: lib.ab_model_predict_rows(
                h, rows, n, ffi.from_buffer("int64_t[]", out[a:a + n]), work),
                "ab_model_predict")
            return out
        with Interruptible() as guard:
            for start, stop in _spans(X):
                check(
                    lib.ab_model_predict(
                        self._h, piece_doubles(X, start, stop), stop - start,
                        ffi.from_buffer("int64_t[]", out[start:stop]),
                    ),
                    "ab_model_predict",
                )
                guard.check()
        return out

    def proba_rows(self, X: np.ndarray, n_classes: int,
                   n_jobs: int | None = None) -> np.ndarray:
        n = int(self._h.n_classes)
        out = np.zeros((X.shape[0], n))
        if n == 0:
            return out
        jobs = effective_jobs(n_jobs)
        if jobs > 1 and X.shape[0] > 1:
            h = self._h
            self._split(X, jobs, lambda rows, m, work, a: lib.ab_model_predict_proba_rows(
                h, rows, m, view_doubles(out[a:a + m]), work), "ab_model_predict_proba")
            return out
        with Interruptible() as guard:
            for start, stop in _spans(X):
                check(
                    lib.ab_model_predict_proba(
                        self._h, piece_doubles(X, start, stop), stop - start,
                        view_doubles(out[start:stop]),
                    ),
                    "ab_model_predict_proba",
                )
                guard.check()
        return out

    def prequential(self, X: np.ndarray, labels: Any, remap: list[int], rate: float,
                    seed: int, n_classes: int) -> Prequential:
        self._sync_classes(n_classes)
        rarr = _i64(remap) if remap else np.zeros(1, dtype=np.int64)
        preds = np.empty(X.shape[0], dtype=np.int64)
        stats = np.zeros(3, dtype=np.int64)
        protocol_rng = ffi.new("rng_state *")
        lib.rng_seed(protocol_rng, seed & MASK)
        correct = learned = 0
        max_balls = int(self._h.balls.n_balls)
        try:
            with Interruptible() as guard:  # Ctrl-C between pieces of rows
                for start, stop in _spans(X):
                    check(
                        lib.ab_model_prequential(
                            self._h, piece_doubles(X, start, stop),
                            ffi.from_buffer("int64_t[]", _i64(labels[start:stop])),
                            stop - start,
                            rate, protocol_rng, ffi.from_buffer("int64_t[]", rarr),
                            ffi.from_buffer("int64_t[]", preds[start:stop]),
                            ffi.from_buffer("int64_t[]", stats),
                        ),
                        "ab_model_prequential",
                    )
                    correct += int(stats[0])
                    learned += int(stats[1])
                    max_balls = max(max_balls, int(stats[2]))
                    guard.check()
        finally:
            remap[:] = rarr[:len(remap)].tolist()   # labels registered so far
        return preds.tolist(), correct, learned, max_balls

    def nearest_slots(self, X: np.ndarray, use_tree: bool) -> list[int]:
        """Testing aid: nearest slots by the scan or by a freshly built loose kd-tree."""
        arr = np.array(X, dtype=np.float64, order="C", copy=True)
        out = np.empty(arr.shape[0], dtype=np.int64)
        check(
            lib.ab_model_nearest(
                self._h, view_doubles(arr), arr.shape[0], int(use_tree),
                ffi.from_buffer("int64_t[]", out),
            ),
            "ab_model_nearest",
        )
        return [int(k) for k in out]

    # -- the one-row hooks (fast._rows) --------------------------------------------------
    # Closures over the C handle and a row buffer of the model's width, made by
    # _bind_lean_calls once the width is known: no attribute lookup per call. Until then
    # they refuse every row (the facade only calls them once n_features_in_ is set).
    def learn_one_raw(self, x: Any, keys: Any, k: int, n_classes: int) -> bool:
        """One C call for a plain row (``ab_model_learn_row``) once the classes are in C;
        False: the general path."""
        return False

    def predict_one_raw(self, x: Any, keys: Any) -> int | None:
        """Class index (-1: abstain) of a plain row (``ab_model_predict_row``), or None."""
        return None

    def proba_one_raw(self, x: Any, keys: Any, n_classes: int) -> list[float] | None:
        """Class frequencies of a plain row (``ab_model_proba_row``), or None."""
        return None

    def _bind_lean_calls(self, width: int) -> None:
        for name in ("learn_one_raw", "predict_one_raw", "proba_one_raw"):
            self.__dict__.pop(name, None)       # back to the methods above
        if width < 1:
            return
        h, kbuf = self._h, self._kbuf
        pack, row = plain_row(width)
        classes_in_c = ffi.addressof(h[0], "n_classes")
        learn_row, predict_row, proba_row = (lib.ab_model_learn_row, lib.ab_model_predict_row,
                                             lib.ab_model_proba_row)
        pbuf = [self._pbuf]
        unpack = ffi.unpack

        def learn_one_raw(x: Any, keys: Any, k: int, n_classes: int) -> bool:
            if classes_in_c[0] != n_classes or not pack(x, keys):
                return False
            rc = learn_row(h, row, width, k)
            if rc == ST_ENOMEM:
                raise_status(rc, "ab_model_partial_fit")
            return not rc

        def predict_one_raw(x: Any, keys: Any) -> int | None:
            if not pack(x, keys) or predict_row(h, row, width, kbuf):
                return None
            k: int = kbuf[0]
            return k

        def proba_one_raw(x: Any, keys: Any, n_classes: int) -> list[float] | None:
            n = classes_in_c[0]
            if not 0 < n == n_classes:
                return None
            out = pbuf[0]
            if len(out) < n:
                out = pbuf[0] = ffi.new("double[]", 2 * n)
            if not pack(x, keys) or proba_row(h, row, width, out):
                return None
            return unpack(out, n)  # type: ignore[no-any-return]

        self.learn_one_raw = learn_one_raw  # type: ignore[method-assign]
        self.predict_one_raw = predict_one_raw  # type: ignore[method-assign]
        self.proba_one_raw = proba_one_raw  # type: ignore[method-assign]

    # -- state ---------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        h = self._h
        n_features = int(h.n_features)
        n_classes = int(h.n_classes)
        n = int(h.balls.n_balls)
        stride = int(h.class_cap)
        balls = []
        if n > 0:
            ids = ffi.unpack(h.balls.id, n)
            centers = ffi.unpack(h.balls.center, n * n_features)
            counts = ffi.unpack(h.balls.counts, n * stride)
            us = ffi.unpack(h.balls.u, n)
            radii0 = ffi.unpack(h.balls.R, n)
            radii = ffi.unpack(h.balls.eps, n)
            mistakes = ffi.unpack(h.balls.m, n)
            for s in range(n):
                balls.append({
                    "id": int(ids[s]),
                    "center": [float(v) for v in centers[s * n_features:(s + 1) * n_features]],
                    "counts": [int(v) for v in counts[s * stride:s * stride + n_classes]],
                    "u": int(us[s]), "R": float(radii0[s]), "eps": float(radii[s]),
                    "m": int(mistakes[s]),
                })
        snap = self.snapshot_without_balls()
        snap["balls"] = balls
        return snap

    def snapshot_without_balls(self) -> dict[str, Any]:
        h = self._h
        return {
            "variant": self.params.variant,
            "n_features": int(h.n_features),
            "n_classes": int(h.n_classes),
            "n_seen": int(h.n_seen),
            "next_id": int(h.balls.next_id),
            "phase": int(h.vs.phase),
            "phase_steps": int(h.vs.phase_steps),
            "phase_dim": float(h.vs.phase_dim),
            "radius": float(h.vs.radius),
            "init_done": int(h.vs.init_done),
            "first_label": int(h.vs.first_label),
            "balls": [],
            "rng_state": [int(h.rng.s[i]) for i in range(4)],
        }

    # -- columns (reference.abacoc.columns): the balls as arrays, read and written with numpy
    restores_columns = True
    """:meth:`restore` takes a snapshot whose balls are columns."""

    def snapshot_columns(self) -> dict[str, Any]:
        """:meth:`snapshot` with the balls as tagged columns (no Python object per
        number)."""
        h = self._h
        n, d, c = int(h.balls.n_balls), int(h.n_features), int(h.n_classes)
        stride = int(h.class_cap)
        snap = self.snapshot_without_balls()

        def read(ptr: Any, count: int, dtype: str) -> np.ndarray:
            if count == 0:
                return np.zeros(0, dtype=dtype)
            return np.frombuffer(ffi.buffer(ptr, 8 * count), dtype=dtype).copy()

        cols = {"id": read(h.balls.id, n, "<i8"), "u": read(h.balls.u, n, "<i8"),
                "m": read(h.balls.m, n, "<i8"), "R": read(h.balls.R, n, "<f8"),
                "eps": read(h.balls.eps, n, "<f8"),
                "center": read(h.balls.center, n * d, "<f8").reshape(n, d),
                "counts": np.ascontiguousarray(
                    read(h.balls.counts, n * stride, "<i8").reshape(n, stride)[:, :c])}
        snap["balls"] = {BALLS_TAG: cols}
        return snap

    def _restore_ball_columns(self, cols: dict[str, np.ndarray], d: int) -> None:
        """The balls of checked columns into the reserved C arrays."""
        h = self._h
        n, stride = len(cols["id"]), int(h.class_cap)
        if n == 0:
            return
        counts = np.zeros((n, stride), dtype=np.int64)
        counts[:, :cols["counts"].shape[1]] = cols["counts"]
        for name, arr in (("id", cols["id"]), ("u", cols["u"]), ("m", cols["m"]),
                          ("R", cols["R"]), ("eps", cols["eps"]),
                          ("center", cols["center"]), ("counts", counts)):
            flat = np.ascontiguousarray(arr)
            ffi.memmove(getattr(h.balls, name), ffi.from_buffer("char[]", flat), flat.nbytes)

    def restore(self, snap: dict[str, Any]) -> None:
        h = self._h
        if snap["n_features"]:
            self.set_dim(snap["n_features"])
        while h.n_classes < snap["n_classes"]:
            check(lib.ab_model_add_class(h), "ab_model_add_class")
        balls = snap["balls"]
        n_features = int(snap["n_features"])
        stride = int(h.class_cap)
        if is_columns(balls):
            cols = column_arrays(balls, "snapshot.balls", n_features, int(snap["n_classes"]))
            balls = range(len(cols["id"]))
            check(lib.ab_model_reserve(h, len(balls)), "ab_model_reserve")
            self._restore_ball_columns(cols, n_features)
        else:
            check(lib.ab_model_reserve(h, len(balls)), "ab_model_reserve")
        for s, ball in enumerate(balls if not isinstance(balls, range) else ()):
            h.balls.id[s] = ball["id"]
            for j in range(n_features):
                h.balls.center[s * n_features + j] = ball["center"][j]
            for k in range(stride):
                h.balls.counts[s * stride + k] = ball["counts"][k] if k < len(ball["counts"]) else 0
            h.balls.u[s] = ball["u"]
            h.balls.R[s] = ball["R"]
            h.balls.eps[s] = ball["eps"]
            h.balls.m[s] = ball["m"]
        h.balls.n_balls = len(balls)
        h.n_seen = snap["n_seen"]
        h.balls.next_id = snap["next_id"]
        h.vs.phase = snap["phase"]
        h.vs.phase_steps = snap["phase_steps"]
        h.vs.phase_dim = snap["phase_dim"]
        h.vs.radius = snap["radius"]
        h.vs.init_done = snap["init_done"]
        h.vs.first_label = snap["first_label"]
        for i in range(4):
            h.rng.s[i] = snap["rng_state"][i]
        check(lib.ab_model_restored(h), "ab_model_restored")

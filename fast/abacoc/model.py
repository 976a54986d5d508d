"""``fast.ABACOCClassifier``: the C twin of :class:`reference.ABACOCClassifier`.

Same facade (``reference.abacoc.inputs.BallCoverFacade``: validation, labels, public
methods), one C handle (``ab_model`` of ``csrc/abacoc/model.c``) holding the whole state; the
learning, prediction and evaluation loops run in C (``ab_model_partial_fit``,
``ab_model_predict``, ``ab_model_prequential``). Pickling and ``copy.deepcopy`` go
through :meth:`snapshot` and a restore that writes the snapshot back into C.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from fast._ffi import check, ffi, lib, raise_status
from fast._rows import ST_ENOMEM, c_row, locks_itself
from fast.rng import Rng
from reference.abacoc.inputs import BallCoverFacade
from reference.abacoc.model import _balls_table
from reference.abacoc.params import ABACOCParams
from reference.interrupt import Interruptible, pieces
from reference.rng import MASK
from reference.state import as_dict, fail

__all__ = ["ABACOCClassifier"]

_VARIANT_CODES = {"base": 0, "base_adj": 1, "auto": 2, "auto_adj": 3}
_SEARCH_CODES = {"auto": 0, "scan": 1, "kdtree": 2}


class _ModelRng(Rng):
    """An ``Rng`` view on the generator inside a C model; keeps the model alive."""

    __slots__ = ("_owner",)
    _owner: Any


def _i64(values: Any) -> Any:
    return np.ascontiguousarray(np.asarray(values, dtype=np.int64))


class ABACOCClassifier(BallCoverFacade):
    """Adaptive Ball Covering classifier for data streams [DOC15].

    The C backend of the same model as :class:`reference.ABACOCClassifier` (see its
    documentation for the variants and parameters), with bit-identical predictions, ball
    tables and generator state for the same stream, parameters and seed.

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
        The two labels (label_0, label_1) of randomized BASE.
    metric : {"euclidean", "manhattan", "minkowski"}, default "euclidean"
        The distance rho.
    p : float, default 2.0
        Minkowski exponent (>= 1), used with ``metric="minkowski"``.
    search : {"auto", "scan", "kdtree"}, default "auto"
        Nearest-ball search (identical answers, different speed).
    search_threshold : int, default 256
        Cover size from which ``search="auto"`` uses the loose kd-tree.
    leaf_size : int, default 16
        Bucket size of the kd-tree leaves.
    seed : int, default 1
        Seed of the model generator.

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
        self._h = self._new_handle()
        self._xbuf: Any = None                   # double[d] reused by the one-row calls
        self._kbuf = ffi.new("int64_t[1]")
        self._pbuf = ffi.new("double[]", 4)      # class frequencies of predict_proba_one

    def _new_handle(self) -> Any:
        p = self._params
        out = ffi.new("ab_model **")
        check(lib.ab_model_new(
            _VARIANT_CODES[p.variant], int(p.randomized), p.metric_code, float(p.p),
            float(p.d), float(p.C), int(p.budget or 0), _SEARCH_CODES[p.search],
            int(p.search_threshold), int(p.leaf_size), int(p.seed) & MASK, out,
        ), "ab_model_new")
        return ffi.gc(out[0], lib.ab_model_free)

    # -- backend hooks ------------------------------------------------------------------
    def _set_dim(self, n_features: int) -> None:
        check(lib.ab_model_set_dim(self._h, n_features), "ab_model_set_dim")

    def _rollback(self, n_features: int, n_classes: int) -> None:
        check(lib.ab_model_rollback(self._h, n_features, n_classes), "ab_model_rollback")

    def _sync_classes(self) -> None:
        while self._h.n_classes < len(self.classes_):
            check(lib.ab_model_add_class(self._h), "ab_model_add_class")

    _piece_rows = 20_000
    """Rows per call into C in ``partial_fit`` (Ctrl-C is checked between calls)."""

    def _learn_rows(self, X: np.ndarray, ks: list[int]) -> None:
        self._sync_classes()
        karr = _i64(ks)
        with Interruptible() as guard:
            for start, stop in pieces(X.shape[0], self._piece_rows):
                check(
                    lib.ab_model_partial_fit(
                        self._h, ffi.from_buffer("double[]", X[start:stop]),
                        ffi.from_buffer("int64_t[]", karr[start:stop]), stop - start,
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

    def _learn_row(self, row: list[float], k: int) -> None:
        h = self._h
        if h.n_classes < len(self.classes_):
            self._sync_classes()
        kbuf = self._kbuf
        kbuf[0] = k
        rc = lib.ab_model_partial_fit(h, self._row_buffer(row), kbuf, 1)
        if rc:
            check(rc, "ab_model_partial_fit")

    def _predict_row(self, row: list[float]) -> int:
        kbuf = self._kbuf
        rc = lib.ab_model_predict(self._h, self._row_buffer(row), 1, kbuf)
        if rc:
            check(rc, "ab_model_predict")
        return int(kbuf[0])

    def _proba_row(self, row: list[float]) -> list[float]:
        n_classes = int(self._h.n_classes)
        if n_classes == 0:
            return []
        out = ffi.new("double[]", n_classes)      # zeroed, as the array version
        rc = lib.ab_model_predict_proba(self._h, self._row_buffer(row), 1, out)
        if rc:
            check(rc, "ab_model_predict_proba")
        return ffi.unpack(out, n_classes)  # type: ignore[no-any-return]

    def _predict_rows(self, X: np.ndarray) -> list[int]:
        out = np.empty(X.shape[0], dtype=np.int64)
        with Interruptible() as guard:
            for start, stop in pieces(X.shape[0], self._piece_rows):
                check(
                    lib.ab_model_predict(
                        self._h, ffi.from_buffer("double[]", X[start:stop]), stop - start,
                        ffi.from_buffer("int64_t[]", out[start:stop]),
                    ),
                    "ab_model_predict",
                )
                guard.check()
        return list(out.tolist())

    def _proba_rows(self, X: np.ndarray) -> np.ndarray:
        n_classes = int(self._h.n_classes)
        out = np.zeros((X.shape[0], n_classes))
        if n_classes == 0:
            return out
        with Interruptible() as guard:
            for start, stop in pieces(X.shape[0], self._piece_rows):
                check(
                    lib.ab_model_predict_proba(
                        self._h, ffi.from_buffer("double[]", X[start:stop]), stop - start,
                        ffi.from_buffer("double[]", out[start:stop]),
                    ),
                    "ab_model_predict_proba",
                )
                guard.check()
        return out

    def _prequential_rows(
        self, X: np.ndarray, labels: list[int], remap: list[int], rate: float, seed: int
    ) -> tuple[list[int], int, int, int]:
        self._sync_classes()
        larr = _i64(labels)
        rarr = _i64(remap) if remap else np.zeros(1, dtype=np.int64)
        preds = np.empty(X.shape[0], dtype=np.int64)
        stats = np.zeros(3, dtype=np.int64)
        protocol_rng = ffi.new("rng_state *")
        lib.rng_seed(protocol_rng, seed & MASK)
        correct = learned = 0
        max_balls = int(self._h.balls.n_balls)
        try:
            with Interruptible() as guard:  # Ctrl-C between pieces of rows
                for start, stop in pieces(X.shape[0], self._piece_rows):
                    check(
                        lib.ab_model_prequential(
                            self._h, ffi.from_buffer("double[]", X[start:stop]),
                            ffi.from_buffer("int64_t[]", larr[start:stop]), stop - start,
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

    def _nearest_slots(self, X: np.ndarray, use_tree: bool) -> list[int]:
        """Testing aid: nearest slots by the scan or by a freshly built loose kd-tree."""
        arr = np.ascontiguousarray(np.asarray(X, dtype=np.float64))
        out = np.empty(arr.shape[0], dtype=np.int64)
        check(
            lib.ab_model_nearest(
                self._h, ffi.from_buffer("double[]", arr), arr.shape[0], int(use_tree),
                ffi.from_buffer("int64_t[]", out),
            ),
            "ab_model_nearest",
        )
        return [int(k) for k in out]

    # -- the lean one-row calls (fast._rows) ---------------------------------------------
    @locks_itself
    def learn_one(self, x: Any, y: Hashable) -> Any:
        lock = self._lock
        lock.acquire()
        try:
            if self.n_features_in_ is not None:
                row = c_row(x, self._feature_keys)
                try:
                    k = self._class_index[y]
                except (KeyError, TypeError):
                    row = None
                h = self._h
                if row is not None and h.n_classes == len(self.classes_):
                    rc = lib.ab_model_learn_row(h, row, len(row), k)
                    if not rc:
                        return self
                    if rc == ST_ENOMEM:
                        raise_status(rc, "ab_model_partial_fit")
            return super().learn_one(x, y)
        finally:
            lock.release()

    learn_one.__doc__ = BallCoverFacade.learn_one.__doc__

    @locks_itself
    def predict_one(self, x: Any) -> Any:
        lock = self._lock
        lock.acquire()
        try:
            if self.n_features_in_ is not None:
                row = c_row(x, self._feature_keys)
                kbuf = self._kbuf
                if row is not None and not lib.ab_model_predict_row(self._h, row, len(row),
                                                                     kbuf):
                    k = kbuf[0]
                    return None if k < 0 else self.classes_[k]
            return super().predict_one(x)
        finally:
            lock.release()

    predict_one.__doc__ = BallCoverFacade.predict_one.__doc__

    @locks_itself
    def predict_proba_one(self, x: Any) -> dict[Any, float]:
        lock = self._lock
        lock.acquire()
        try:
            n_classes = self._h.n_classes
            if self.n_features_in_ is not None and 0 < n_classes == len(self.classes_):
                row = c_row(x, self._feature_keys)
                out = self._pbuf
                if len(out) < n_classes:
                    out = self._pbuf = ffi.new("double[]", 2 * n_classes)
                if row is not None and not lib.ab_model_proba_row(self._h, row, len(row), out):
                    probs = ffi.unpack(out, n_classes)
                    for p in probs:
                        if p > 0.0:
                            return dict(zip(self.classes_, probs, strict=True))
                    return {}
            return super().predict_proba_one(x)
        finally:
            lock.release()

    predict_proba_one.__doc__ = BallCoverFacade.predict_proba_one.__doc__

    # -- state --------------------------------------------------------------------------
    @property
    def rng(self) -> Rng:
        """The model generator (its ``state`` is readable and settable)."""
        view = _ModelRng._wrap(ffi.addressof(self._h[0], "rng"))
        assert isinstance(view, _ModelRng)
        view._owner = self
        return view

    @property
    def n_seen_(self) -> int:
        """Rows learned."""
        return int(self._h.n_seen)

    @property
    def n_balls_(self) -> int:
        """Number of live balls ``|S|``."""
        return int(self._h.balls.n_balls)

    @property
    def balls_(self) -> dict[str, np.ndarray]:
        """The ball table in slot order: centers, radii, counts, mistakes and ids."""
        return _balls_table(self.snapshot())

    def snapshot(self) -> dict[str, Any]:
        """Full model state as plain data, same schema and values as the reference."""
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
        return {
            "variant": self._params.variant,
            "n_features": n_features,
            "n_classes": n_classes,
            "n_seen": int(h.n_seen),
            "next_id": int(h.balls.next_id),
            "phase": int(h.vs.phase),
            "phase_steps": int(h.vs.phase_steps),
            "phase_dim": float(h.vs.phase_dim),
            "radius": float(h.vs.radius),
            "init_done": int(h.vs.init_done),
            "first_label": int(h.vs.first_label),
            "balls": balls,
            "rng_state": [int(h.rng.s[i]) for i in range(4)],
        }

    def _restore(self, snap: dict[str, Any]) -> None:
        """Write a snapshot back into a fresh C handle (used by unpickling)."""
        h = self._h
        if snap["n_features"]:
            check(lib.ab_model_set_dim(h, snap["n_features"]), "ab_model_set_dim")
        while h.n_classes < snap["n_classes"]:
            check(lib.ab_model_add_class(h), "ab_model_add_class")
        balls = snap["balls"]
        check(lib.ab_model_reserve(h, len(balls)), "ab_model_reserve")
        n_features = int(snap["n_features"])
        stride = int(h.class_cap)
        for s, ball in enumerate(balls):
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

    def _get_state(self) -> dict[str, Any]:
        return {
            "params": self.get_params(),
            "classes": list(self.classes_),
            "n_features_in": self.n_features_in_,
            "feature_keys": self._feature_keys,
            "snapshot": self.snapshot(),
        }

    def _set_state(self, state: dict[str, Any]) -> None:
        """Rebuild from a pickled state; every field is checked before C sees it
        (:mod:`reference.abacoc.state_check`)."""
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
        """Nothing left to check: :meth:`_set_state` checked the state before C saw it."""

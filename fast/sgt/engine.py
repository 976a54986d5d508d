"""The SGT engine in C: :class:`CSGTEngine` owns one ``sgt_model *`` (``csrc/sgt/*.c``).

It implements :class:`reference.sgt.engine.SGTEngine` for the facades of
:mod:`reference.sgt.model`; ``fast.sgt`` only plugs it in. Built-in losses run entirely
in C, including the batch loops; a custom Python loss computes (g, h) in the facade and
hands them to the C trees (:meth:`CSGTEngine.train_gh`).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

import reference.sgt.losses as _losses
from fast._ffi import check, ffi, lib, piece_doubles, status_message, view_doubles
from fast._rows import ST_ENOMEM, RowBuffer, address
from fast.sgt.losses import BinaryCrossEntropy, PseudoHuber, SquaredError
from reference.batches import chunk_rows, chunks
from reference.interrupt import Interruptible
from reference.parallel import effective_jobs, row_chunks, run_chunks
from reference.sgt.columns import NODES_TAG, is_columns
from reference.sgt.core import LOSS_CUSTOM, LOSS_LOGISTIC, LOSS_SOFTMAX, LOSS_SQUARED
from reference.sgt.engine import Counter
from reference.sgt.params import SGTParams, check_feature_config
from reference.sgt.state_check import check_core
from reference.state import as_dict, as_int, as_list, fail

__all__ = ["CSGTEngine", "PIECE_ROWS"]

PIECE_ROWS = 50_000
"""Rows per call into C in the long loops (Ctrl-C is checked between calls)."""
CHUNK_ROWS = 20_000
"""Rows per C call when a piece is split over threads (:mod:`reference.parallel`)."""

_CELL = np.dtype([("n", "<i8"), ("sum_g", "<f8"), ("sum_h", "<f8"), ("m_g", "<f8"),
                  ("m_h", "<f8"), ("c", "<f8")])


def _targets(targets: Any, start: int, stop: int) -> np.ndarray:
    """Targets ``start:stop`` (a list, an array or a ``LazyColumn``) as a private
    C-contiguous float64 copy (:func:`reference.batches.as_float64`)."""
    return np.array(targets[start:stop], dtype=np.float64, order="C", copy=True)


class CSGTEngine:
    """:class:`reference.sgt.engine.SGTEngine` over one ``sgt_model *`` (``csrc/sgt/core.c``),
    bit for bit the twin of :class:`reference.sgt.engine.PythonSGTEngine`."""

    raw_rows: ClassVar[bool] = True
    array_batches: ClassVar[bool] = True
    builtin_losses: ClassVar[dict[type, int]] = {
        _losses.SquaredError: LOSS_SQUARED, SquaredError: LOSS_SQUARED,
        _losses.BinaryCrossEntropy: LOSS_LOGISTIC, BinaryCrossEntropy: LOSS_LOGISTIC,
        _losses.PseudoHuber: _losses.LOSS_PSEUDO_HUBER, PseudoHuber: _losses.LOSS_PSEUDO_HUBER,
    }

    def __init__(self, params: SGTParams, kinds: Sequence[int], loss_kind: int,
                 n_trees: int) -> None:
        self.params = params
        self.kinds = list(kinds)
        self.loss_kind = loss_kind
        self.n_trees = n_trees
        self._build()

    def _build(self) -> None:
        p = self.params
        d = len(self.kinds)
        cp = ffi.new("sgt_params *")
        cp.delta = float(p.delta)
        cp.lam = float(p.lam)
        cp.gamma = float(p.gamma)
        cp.grace_period = int(p.grace_period)
        cp.bins = int(p.bins)
        cp.warmup = p.warmup_rows
        cp.max_depth = -1 if p.max_depth is None else int(p.max_depth)
        cp.warmup_trains = 1 if p.warmup_trains else 0
        cp.one_sided = 1 if p.test == "one-sided" else 0
        cp.warmup_newton = 1 if p.warmup_prediction == "newton" else 0
        cp.per_leaf = 1 if p.quantization == "leaf" else 0
        lo = ffi.new("double[]", d)
        hi = ffi.new("double[]", d)
        fixed = ffi.new("uint8_t[]", d)
        for key, (low, high) in (p.feature_ranges or {}).items():
            lo[int(key)], hi[int(key)], fixed[int(key)] = float(low), float(high), 1
        out = ffi.new("sgt_model **")
        check(lib.sgt_model_new(cp, d, ffi.new("int32_t[]", self.kinds), lo, hi, fixed,
                                self.loss_kind, self.n_trees, out), "sgt_model_new")
        self._m = ffi.gc(out[0], lib.sgt_model_free)
        self._d = d
        self._raw_out = ffi.new("double[]", self.n_trees)
        self._x_buf = ffi.new("double[]", d)    # reused by the one-row calls
        self.n_classes = 2 if self.n_trees == 1 else self.n_trees + 1
        self._probs = ffi.new("double[]", self.n_classes)  # for the classifiers' one-row calls
        self._label = ffi.new("int32_t[1]")
        self._bind_lean_calls()

    def _row_buffer(self, x: Sequence[float]) -> Any:
        """``x`` (d floats) copied into the reusable C row buffer."""
        buf = self._x_buf
        buf[0:self._d] = x
        return buf

    def _spans(self, arr: np.ndarray, *sources: Any) -> Any:
        """The pieces of rows handed to C one call at a time (at most :data:`PIECE_ROWS`,
        and 4 MiB of float64 rows, :func:`reference.batches.chunk_rows`)."""
        return chunks(arr.shape[0], chunk_rows(self._d, PIECE_ROWS), arr, *sources)

    # -- the SGTEngine interface ---------------------------------------------------------
    @property
    def frozen(self) -> bool:
        """True once the bin ranges are fixed."""
        return bool(self._m.q.frozen)

    def raws(self, x: Sequence[float]) -> list[float]:
        """Raw score of every tree."""
        out = self._raw_out
        rc = lib.sgt_model_raws(self._m, self._row_buffer(x), out)
        if rc:
            check(rc, "sgt_model_raws")
        return ffi.unpack(out, self.n_trees)  # type: ignore[no-any-return]

    def _reads_only(self) -> bool:
        """True if ``sgt_model_raws_many`` only reads the model: always, except while the
        warm-up predicts its Newton step (which caches the buffer's gradient sums)."""
        m = self._m
        return not (not m.q.frozen and m.p.warmup_newton and m.loss_kind != lib.SGT_LOSS_CUSTOM)

    def raws_many(self, arr: np.ndarray, n_jobs: int | None = None) -> np.ndarray:
        """Raw scores of every row of a validated matrix, shape (n, n_trees); with
        ``n_jobs`` threads, each piece is split by rows over them (the same numbers,
        :mod:`reference.parallel`)."""
        out = np.empty((arr.shape[0], self.n_trees))
        jobs = effective_jobs(n_jobs) if self._reads_only() else 1
        m = self._m

        def rows(a: int, b: int) -> None:
            check(lib.sgt_model_raws_many(m, piece_doubles(arr, a, b), b - a,
                                          view_doubles(out[a:b])), "sgt_model_raws_many")

        with Interruptible() as guard:         # Ctrl-C between pieces of rows
            for start, stop in self._spans(arr):
                if jobs == 1:
                    rows(start, stop)
                else:
                    run_chunks([functools.partial(rows, start + a, start + b)
                                for a, b in row_chunks(stop - start, jobs, CHUNK_ROWS)], jobs)
                guard.check()
        return out

    def warmup_push(self, rows: list[list[float]], target: float) -> bool:
        """Buffer one item and widen the ranges; True when the warm-up just ended."""
        ended = ffi.new("int32_t *")
        flat = [v for row in rows for v in row]
        # the replay (a Python loop) reserves item by item in train_gh; if it fails,
        # warmup_undo puts the model back (sgt_model_warmup_undo)
        check(lib.sgt_model_warmup_push(self._m, ffi.new("double[]", flat), len(rows),
                                        float(target), ended), "sgt_model_warmup_push")
        return bool(ended[0])

    def _buffer_items(self) -> list[tuple[list[list[float]], float]]:
        m, d = self._m, self._d
        items = []
        offset = 0
        for i in range(m.warm.buf_items):
            n_rows = m.warm.buf_len[i]
            flat = ffi.unpack(m.warm.buf_x + offset * d, n_rows * d)
            rows = [list(flat[r * d:(r + 1) * d]) for r in range(n_rows)]
            items.append((rows, float(m.warm.buf_target[i])))
            offset += n_rows
        return items

    def take_buffer(self) -> list[tuple[list[list[float]], float]]:
        """Remove and return the buffered warm-up items."""
        items = self._buffer_items()
        lib.sgt_model_clear_buffer(self._m)
        return items

    def buffered_items(self) -> list[tuple[list[list[float]], float]]:
        """The buffered warm-up items, left in the buffer."""
        return self._buffer_items()

    def clear_buffer(self) -> None:
        """Empty the buffer after a successful replay and free the spare leaves beyond one
        split's worth (``sgt_model_release``)."""
        lib.sgt_model_clear_buffer(self._m)
        lib.sgt_model_release(self._m)

    def warmup_undo(self, n_rows: int) -> None:
        """Undo the push that ended the warm-up and any part of the replay
        (``sgt_model_warmup_undo``: allocation-free, so it cannot fail)."""
        lib.sgt_model_warmup_undo(self._m, n_rows)

    def learn(self, rows: list[list[float]], target: float) -> None:
        """Learn one item with a built-in loss (warm-up handled in C)."""
        if len(rows) == 1:
            buf = self._row_buffer(rows[0])
        else:
            buf = ffi.new("double[]", [v for row in rows for v in row])
        rc = lib.sgt_model_learn(self._m, buf, len(rows), float(target))
        if rc:
            check(rc, "sgt_model_learn")

    def train_gh(self, x: Sequence[float], grads: Sequence[float],
                 hess: Sequence[float]) -> None:
        """Tree c learns (grads[c], hess[c]) at x."""
        check(lib.sgt_model_train_gh(self._m, self._row_buffer(x),
                                     ffi.new("double[]", list(grads)),
                                     ffi.new("double[]", list(hess))), "sgt_model_train_gh")

    def learn_many(self, arr: np.ndarray, targets: Any, counted: Counter) -> None:
        """The partial_fit loop in C, in pieces of rows (Ctrl-C between pieces); ``arr``
        any numeric 2-D array, ``targets`` a list, an array or a ``LazyColumn``, each
        converted a piece at a time (``array_batches``)."""
        with Interruptible() as guard:
            for start, stop in self._spans(arr, targets):
                t = _targets(targets, start, stop)
                try:
                    check(lib.sgt_model_learn_many(self._m, piece_doubles(arr, start, stop),
                                                   stop - start, view_doubles(t)),
                          "sgt_model_learn_many")
                except MemoryError:
                    counted(self.done)          # the rows before the failing one
                    raise
                counted(stop - start)
                guard.check()

    def progressive(self, arr: np.ndarray, targets: Any, counted: Counter) -> np.ndarray:
        """Test-then-train loop in C, in pieces of rows; raw scores before each row
        (inputs as :meth:`learn_many`)."""
        out = np.empty((arr.shape[0], self.n_trees))
        with Interruptible() as guard:
            for start, stop in self._spans(arr, targets):
                t = _targets(targets, start, stop)
                try:
                    check(lib.sgt_model_progressive_many(
                        self._m, piece_doubles(arr, start, stop), stop - start, view_doubles(t),
                        view_doubles(out[start:stop])), "sgt_model_progressive_many")
                except MemoryError:
                    counted(self.done)
                    raise
                counted(stop - start)
                guard.check()
        return out

    def learn_bags(self, arrays: list[np.ndarray], targets: list[float], epochs: int,
                   counted: Counter) -> None:
        """The multi-instance partial_fit loop (all epochs) in C."""
        flat = np.ascontiguousarray(np.vstack(arrays), dtype=np.float64)
        sizes = ffi.new("int32_t[]", [a.shape[0] for a in arrays])
        t = np.asarray(targets, dtype=np.float64)
        try:
            check(lib.sgt_model_learn_bags(self._m, view_doubles(flat), sizes, len(arrays),
                                           view_doubles(t), epochs), "sgt_model_learn_bags")
        except MemoryError:
            counted(self.done)                  # the bag steps before the failing one
            raise
        counted(len(arrays) * epochs)

    @staticmethod
    def sigmoid(raw: float) -> float:
        """σ(f) (``sgt_sigmoid``)."""
        return float(lib.sgt_sigmoid(raw))

    @staticmethod
    def softmax(raws: Sequence[float]) -> list[float]:
        """Committee probabilities (``sgt_softmax``)."""
        probs = ffi.new("double[]", len(raws) + 1)
        lib.sgt_softmax(ffi.new("double[]", list(raws)), len(raws), probs)
        return list(ffi.unpack(probs, len(raws) + 1))

    def class_indices(self, raws: np.ndarray) -> np.ndarray:
        """Most probable class of each row of raw scores (``sgt_predict_labels``), int32."""
        n = raws.shape[0]
        out = np.empty(n, dtype=np.int32)
        probs = ffi.new("double[]", self.n_classes)
        lib.sgt_predict_labels(view_doubles(np.ascontiguousarray(raws)), n, self.n_trees,
                               probs, ffi.from_buffer("int32_t[]", out))
        return out

    def probas(self, raws: np.ndarray) -> np.ndarray:
        """Class probabilities of each row of raw scores, shape (n, classes)
        (``sgt_predict_probas``)."""
        out = np.empty((raws.shape[0], self.n_classes))
        lib.sgt_predict_probas(view_doubles(np.ascontiguousarray(raws)), raws.shape[0],
                               self.n_trees, view_doubles(out))
        return out

    # -- the one-row hooks (fast._rows) --------------------------------------------------
    # The bound calls of a row buffer replace these methods on the instance
    # (_bind_lean_calls, when the C model is built).
    def learn_one_raw(self, x: Any, keys: Any, target: Any) -> bool:
        """One C call for a plain row and a float (or exact int) target with a built-in
        loss (``sgt_model_learn_row``); False: the general path."""
        return False

    def raw_one_raw(self, x: Any, keys: Any) -> float | None:
        """First tree's raw score of a plain row (``sgt_model_raws_row``), or None."""
        return None

    def label_one_raw(self, x: Any, keys: Any) -> int:
        """Most probable class of a plain row (``sgt_model_proba_row``), or -1."""
        return -1

    def proba_one_raw(self, x: Any, keys: Any) -> list[float] | None:
        """Class probabilities of a plain row (``sgt_model_proba_row``), or None."""
        return None

    def add_tree(self) -> None:
        """A class joins the committee in place (``sgt_model_add_tree``; the reference's
        :meth:`reference.sgt.core.SGTCore.add_tree`): the C arrays grow by doubling, and so
        do the one-row buffers here."""
        check(lib.sgt_model_add_tree(self._m), "sgt_model_add_tree")
        self._resized(self.n_trees + 1)

    def drop_tree(self) -> None:
        """Undo :meth:`add_tree`."""
        check(lib.sgt_model_drop_tree(self._m), "sgt_model_drop_tree")
        self._resized(self.n_trees - 1)

    def _resized(self, n_trees: int) -> None:
        self.n_trees = n_trees
        self.n_classes = n_trees + 1
        if len(self._probs) < self.n_classes:        # capacity doubling
            self._raw_out = ffi.new("double[]", 2 * n_trees)
            self._probs = ffi.new("double[]", 2 * self.n_classes)
        self._bind_lean_calls()

    def _bind_lean_calls(self) -> None:
        """Bind the C one-row calls to a row buffer (:mod:`fast._rows`): each hook is then
        one call of the buffer, which packs the row and calls the library."""
        rows = RowBuffer(self._d, np.ndarray)
        rows.bind(
            (self._m, self._raw_out, self._probs, self._label),    # kept alive by rows
            status_message(ST_ENOMEM, "sgt_model_learn"),
            handle=address(self._m),
            learn=address(lib.sgt_model_learn_row) if self.loss_kind != LOSS_CUSTOM else 0,
            score=address(lib.sgt_model_raws_row), label=address(lib.sgt_model_proba_row),
            out=address(self._raw_out), probs=address(self._probs),
            label_out=address(self._label), n_probs=self.n_classes, enomem=ST_ENOMEM)
        self.learn_one_raw = rows.learn  # type: ignore[method-assign,assignment]
        self.raw_one_raw = rows.score  # type: ignore[method-assign,assignment]
        self.label_one_raw = rows.label  # type: ignore[method-assign,assignment]
        self.proba_one_raw = rows.proba  # type: ignore[method-assign,assignment]

    @property
    def done(self) -> int:
        """Items learned by the last loop in C (after a MemoryError: those before the
        failing item, each item being atomic)."""
        return int(self._m.done)

    @property
    def n_nodes(self) -> int:
        """Nodes over all trees."""
        return sum(int(self._m.trees[c].n_nodes) for c in range(self.n_trees))

    @property
    def depth(self) -> int:
        """Largest depth over all trees."""
        return max(int(self._m.trees[c].depth) for c in range(self.n_trees))

    # -- state -------------------------------------------------------------------------
    def _tree_snapshot(self, c: int) -> dict[str, object]:
        t = self._m.trees[c]
        n_cells, d = int(self._m.q.n_cells), self._d
        nodes: list[dict[str, object]] = []
        for i in range(t.n_nodes):
            node = t.nodes[i]
            leaf = node.feature < 0
            cells: list[list[Any]] = []
            used: list[int] = []
            if leaf:
                raw = np.frombuffer(ffi.buffer(node.cells, n_cells * _CELL.itemsize), dtype=_CELL)
                cells = [list(row) for row in raw.tolist()]
                used = [int(v) for v in ffi.unpack(node.used, d)]
            nodes.append({
                "feature": int(node.feature),
                "threshold": int(node.threshold),
                "first_child": int(node.first_child),
                "n_children": int(node.n_children),
                "depth": int(node.depth),
                "value": float(node.value),
                "used": used,
                "cells": cells,
            })
            if self._m.q.per_leaf:
                nodes[-1]["range"] = [float(v) for v in ffi.unpack(node.range, 4 * d)]
        return {"n_splits": int(t.n_splits), "n_updates": int(t.n_updates),
                "depth": int(t.depth), "nodes": nodes}

    def snapshot(self) -> dict[str, object]:
        """Plain-data state, same schema as ``SGTCore.snapshot``."""
        q, d = self._m.q, self._d
        return {
            "warm_rows": int(self._m.warm.warm_rows),
            "frozen": int(q.frozen),
            "lo": [float(v) for v in ffi.unpack(q.lo, d)],
            "hi": [float(v) for v in ffi.unpack(q.hi, d)],
            "seen": [int(v) for v in ffi.unpack(q.seen, d)],
            "buffer": [{"rows": rows, "target": target} for rows, target in self._buffer_items()],
            "trees": [self._tree_snapshot(c) for c in range(self.n_trees)],
        }

    # -- columns (reference.sgt.columns): the C trees as flat arrays ----------------------
    restores_columns = True
    """:meth:`restore` takes trees whose nodes are columns."""

    def _tree_columns(self, c: int) -> dict[str, object]:
        """Tree ``c`` with its nodes as tagged columns, read from C with numpy."""
        t = self._m.trees[c]
        n_cells, d, n = int(self._m.q.n_cells), self._d, int(t.n_nodes)
        per_leaf = bool(self._m.q.per_leaf)
        rows: list[tuple[int, int, int, int, int]] = []
        values: list[float] = []
        leaves: list[int] = []
        for i in range(n):
            node = t.nodes[i]
            rows.append((node.feature, node.threshold, node.first_child, node.n_children,
                         node.depth))
            values.append(node.value)
            if node.feature < 0:
                leaves.append(i)
        ints = np.array(rows, dtype=np.int64).reshape(n, 5).T
        value = np.array(values, dtype=np.float64)
        ranges = np.frombuffer(b"".join(ffi.buffer(t.nodes[i].range, 8 * 4 * d)
                                        for i in range(n)),
                               dtype=np.float64).reshape(n, 4 * d) if per_leaf else None
        # a cell is one int64 count and five doubles (_CELL): the leaves' cells as raw
        # bytes, then read as both
        size = n_cells * _CELL.itemsize
        raw = b"".join(ffi.buffer(t.nodes[i].cells, size) for i in leaves)
        used_raw = b"".join(ffi.buffer(t.nodes[i].used, d) for i in leaves)
        words = (len(leaves), n_cells, 6)
        cols: dict[str, np.ndarray] = {
            "feature": ints[0], "threshold": ints[1], "first_child": ints[2],
            "n_children": ints[3], "depth": ints[4], "value": value,
            "used": np.frombuffer(used_raw, dtype=np.uint8).reshape(len(leaves), d).astype(
                np.int64),
            "counts": np.frombuffer(raw, dtype="<i8").reshape(words)[:, :, 0].copy(),
            "sums": np.frombuffer(raw, dtype="<f8").reshape(words)[:, :, 1:].reshape(
                len(leaves), 5 * n_cells)}
        if ranges is not None:
            cols["range"] = ranges
        return {"n_splits": int(t.n_splits), "n_updates": int(t.n_updates),
                "depth": int(t.depth), "nodes": {NODES_TAG: cols}}

    def snapshot_columns(self) -> dict[str, object]:
        """:meth:`snapshot` with every tree's nodes as columns (no Python object per
        cell)."""
        snap = self.snapshot_without_trees()
        snap["trees"] = [self._tree_columns(c) for c in range(self.n_trees)]
        return snap

    def snapshot_without_trees(self) -> dict[str, object]:
        q, d = self._m.q, self._d
        return {
            "warm_rows": int(self._m.warm.warm_rows),
            "frozen": int(q.frozen),
            "lo": [float(v) for v in ffi.unpack(q.lo, d)],
            "hi": [float(v) for v in ffi.unpack(q.hi, d)],
            "seen": [int(v) for v in ffi.unpack(q.seen, d)],
            "buffer": [{"rows": rows, "target": target} for rows, target in self._buffer_items()],
        }

    def _restore_tree_columns(self, c: int, tree: dict[str, Any]) -> None:
        """:meth:`_restore_tree` from checked columns."""
        t = self._m.trees[c]
        cols = tree["nodes"][NODES_TAG]
        feature = cols["feature"]
        n = len(feature)
        is_leaf = np.ascontiguousarray(feature < 0, dtype=np.uint8)
        check(lib.sgt_tree_restore(ffi.addressof(t), ffi.addressof(self._m.q), n,
                                   ffi.from_buffer("uint8_t[]", is_leaf)), "sgt_tree_restore")
        t.n_splits, t.n_updates, t.depth = tree["n_splits"], tree["n_updates"], tree["depth"]
        n_cells = int(self._m.q.n_cells)
        n_leaves = int(is_leaf.sum())
        cells = np.empty((n_leaves, n_cells, 6), dtype="<f8")   # the bytes of _CELL rows
        cells[:, :, 1:] = cols["sums"].reshape(n_leaves, n_cells, 5)
        cells.view("<i8")[:, :, 0] = cols["counts"]
        cells_c = ffi.from_buffer("char[]", cells)
        size = n_cells * _CELL.itemsize
        ints = [cols[k].tolist() for k in ("feature", "threshold", "first_child",
                                           "n_children", "depth")]
        value = cols["value"].tolist()
        used = np.ascontiguousarray(cols["used"], dtype=np.uint8)
        used_c = ffi.from_buffer("uint8_t[]", used) if used.size else None
        ranges = cols.get("range")
        ranges_c = None if ranges is None or not ranges.size else ffi.from_buffer(
            "double[]", np.ascontiguousarray(ranges))
        width = 4 * self._d
        row = 0
        for i in range(n):
            node = t.nodes[i]
            node.feature, node.threshold = ints[0][i], ints[1][i]
            node.first_child, node.n_children = ints[2][i], ints[3][i]
            node.depth, node.value = ints[4][i], value[i]
            if ranges_c is not None:
                ffi.memmove(node.range, ranges_c + i * width, 8 * width)
            if ints[0][i] < 0:
                ffi.memmove(node.cells, cells_c + row * size, size)
                if used_c is not None:
                    ffi.memmove(node.used, used_c + row * self._d, self._d)
                row += 1

    def __getstate__(self) -> dict[str, Any]:
        return {"params": self.params, "kinds": self.kinds, "loss_kind": self.loss_kind,
                "n_trees": self.n_trees, "snapshot": self.snapshot_columns()}

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Rebuild the C core from a pickled state, every field checked first
        (:mod:`reference.sgt.state_check`): a bad state raises ``StateFormatError``."""
        as_dict(state, "core state", ("params", "kinds", "loss_kind", "n_trees", "snapshot"))
        params, kinds = state["params"], state["kinds"]
        if not isinstance(params, SGTParams):
            raise fail("core state.params", "expected SGT parameters")
        if "warmup_prediction" not in vars(params):
            # pickled before ``warmup_prediction`` existed: keep that version's behaviour
            params = dataclasses.replace(params, warmup_prediction="zero")
        try:
            params.validate()
            expected = check_feature_config(params, len(as_list(kinds, "core state.kinds")))
        except ValueError as exc:
            raise fail("core state.params", str(exc)) from None
        if kinds != expected:
            raise fail("core state.kinds", f"the parameters give the feature kinds {expected}")
        loss_kind = as_int(state["loss_kind"], "core state.loss_kind", LOSS_SQUARED,
                           _losses.LOSS_PSEUDO_HUBER)
        n_trees = as_int(state["n_trees"], "core state.n_trees", 1, 2**31 - 1)
        if (n_trees > 1) != (loss_kind == LOSS_SOFTMAX):
            raise fail("core state.n_trees", "only the softmax committee has several trees")
        check_core(state["snapshot"], params, kinds, loss_kind, n_trees,
                   n_trees + 1 if loss_kind == LOSS_SOFTMAX else 2, "core state.snapshot")
        self.params, self.kinds, self.loss_kind, self.n_trees = params, kinds, loss_kind, n_trees
        self._build()
        self.restore(state["snapshot"])

    def restore(self, snap: dict[str, Any]) -> None:
        """Write a core snapshot into this new core (``snap`` checked by
        :func:`reference.sgt.state_check.check_core`)."""
        m, q, d = self._m, self._m.q, self._d
        m.warm.warm_rows = snap["warm_rows"]
        q.frozen = snap["frozen"]
        for a in range(d):
            q.lo[a], q.hi[a], q.seen[a] = snap["lo"][a], snap["hi"][a], snap["seen"][a]
        for item in snap["buffer"]:
            flat = [v for row in item["rows"] for v in row]
            check(lib.sgt_model_buffer_restore(m, ffi.new("double[]", flat), len(item["rows"]),
                                               item["target"]), "sgt_model_buffer_restore")
        for c, tree in enumerate(snap["trees"]):
            self._restore_tree(c, tree)

    def _restore_tree(self, c: int, tree: dict[str, Any]) -> None:
        if is_columns(tree["nodes"]):
            self._restore_tree_columns(c, tree)
            return
        t = self._m.trees[c]
        nodes = tree["nodes"]
        is_leaf = ffi.new("uint8_t[]", [1 if nd["feature"] < 0 else 0 for nd in nodes])
        check(lib.sgt_tree_restore(ffi.addressof(t), ffi.addressof(self._m.q), len(nodes),
                                   is_leaf), "sgt_tree_restore")
        t.n_splits, t.n_updates, t.depth = tree["n_splits"], tree["n_updates"], tree["depth"]
        for i, nd in enumerate(nodes):
            node = t.nodes[i]
            node.feature, node.threshold = nd["feature"], nd["threshold"]
            node.first_child, node.n_children = nd["first_child"], nd["n_children"]
            node.depth, node.value = nd["depth"], nd["value"]
            if self._m.q.per_leaf:
                node.range[0:4 * self._d] = nd["range"]
            if nd["feature"] < 0:
                cells = np.array([tuple(cell) for cell in nd["cells"]], dtype=_CELL)
                ffi.memmove(node.cells, cells.tobytes(), cells.nbytes)
                for a, flag in enumerate(nd["used"]):
                    node.used[a] = flag

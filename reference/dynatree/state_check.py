"""Checks of a restored dynamic-tree state before anything is built from it (both backends).

A state comes from a pickle or a data-only model file (:mod:`reference.persist`). The
engine part of :meth:`~reference.dynatree.facade.DynamicTreeFacade.snapshot` is walked
against the model's parameters and leaf configuration, and the first bad field raises
:class:`~reference.state.StateFormatError`. The invariants, each one the C engine relies on
or one the mathematics of the model implies (docs/guarantees.md, "Invariants the C relies
on"):

- the data store holds ``n`` rows of ``d`` finite inputs and finite targets, each of
  magnitude at most ``MAX_MAGNITUDE`` = 1e150 (the bound learning enforces) (class
  indices below ``C`` for a classifier), at most ``active_size`` of them and at most the
  ``n_seen`` rows learned; ``n_seen`` is a counter of at most
  :data:`~reference.state.COUNTER_MAX`;
- every particle's records are a complete binary tree in preorder (left before right),
  depths the parents' plus one, split variables below ``d``, finite split values of
  magnitude at most ``MAX_MAGNITUDE`` (they lie among the inputs);
- **no splits before ``nstart`` rows**: the first ``nstart`` rows go to the root of every
  particle (the C engine appends them to the root node), so while ``n_seen <= nstart``
  every particle is a single leaf; a file whose ``nstart`` or ``min_leaf`` (which
  ``nstart`` defaults to) was raised after fitting is refused;
- **no splits under** ``alpha = 0``: a split then has prior probability 0 (its log is
  ``-inf`` in C and an error in Python);
- **leaf sizes**: in a tree with splits every leaf holds ``n + nu >= min_leaf`` points
  (a grow keeps ``min_leaf`` points in each child, a prune merges at least
  ``2 min_leaf``, retirement collapses a leaf that falls below); a lone root may hold
  fewer;
- each leaf's points are exactly the store rows that the splits above it route to it,
  in arrival (store) order, so every active point lies in one leaf of every particle
  (retirement finds it there);
- a leaf's statistics have the length of its leaf model; the retired mass ``nu`` and the
  retired class masses are finite, ``>= 0`` and at most ``n_seen`` (``lam``-discounted
  counts of retired points); class counts
  are counters equal to the counts of the leaf's labels; the sums (``S_y``, ``S_yy``,
  ``G``, ``b``, ``bb``, ...) may be infinite or NaN, because inputs and targets near the
  largest double overflow them in genuine models (``inf``, then ``inf - inf``), and both
  backends compute alike with them; the sums of a constant leaf match its points'
  targets (to rounding) in models without an active pool;
- the leaf log evidence and ``log_marginal_likelihood`` are below ``+inf`` and not NaN
  (``-inf`` is a legal log evidence);
- the generator state is a valid xoshiro256** state.

Linear-leaf matrices are checked for shape, finiteness and a positive semi-definite
``G^-1`` (the predictive scale needs it) only: their values depend on the order of
rank-one updates and on retired information, so they cannot be recomputed from the
points.

The same invariants are checked on the columns form of the particles
(:mod:`reference.dynatree.columns`, model files of format 2 and pickles) by
:func:`check_engine_columns`: the tree walk (preorder, depths, split variables and
values, the routing of every row to its leaf) by :func:`check_trees`, or its C twin
``dt_check_trees`` (``csrc/dynatree/state_check.c``) in the fast backend, and every
per-leaf check at once, vectorised over all leaves of all particles with numpy. The
columns are accepted exactly when their records are (``tests/common/test_columns.py``
checks it on the structural fuzzing cases), with one caveat: the constant leaves' sums are
compared with a relative tolerance of ``1e-6`` to sums taken in another order (one pass
over all points instead of ``numpy.sum`` per leaf), so sums within a few units in the
last place of that tolerance may be judged differently.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from reference.dynatree.columns import column_arrays, is_columns
from reference.dynatree.engine import leaf_config
from reference.dynatree.inputs import MAX_MAGNITUDE
from reference.dynatree.leaf_models import CLASS, CONSTANT, LeafConfig
from reference.dynatree.params import DynamicTreeParams
from reference.state import (
    COUNTER_MAX,
    as_counter,
    as_dict,
    as_float,
    as_int,
    as_labels,
    as_list,
    as_rng_state,
    fail,
)

__all__ = ["check_engine", "check_engine_columns", "check_model_state", "check_trees",
           "stats_length", "CHECK_MESSAGES"]

ENGINE_KEYS = ("log_marginal_likelihood", "rng_state", "X", "y", "particles")


MAGNITUDE_RULE = (f"stored inputs and targets have magnitude at most {MAX_MAGNITUDE:.0e}, "
                  f"the bound learning enforces")
SPLIT_RULE = (f"a split value lies among the inputs, so its magnitude is at most "
              f"{MAX_MAGNITUDE:.0e}")
MASS_RULE = ("a retired mass (nu, a retired class mass) counts retired points, each "
             "lam-discounted, so it is at most n_seen")


def stats_length(cfg: LeafConfig) -> int:
    """Length of ``LeafStats.as_list`` for this leaf model."""
    if cfg.kind == CONSTANT:
        return 5
    if cfg.kind == CLASS:
        return 1 + 2 * cfg.n_classes
    p = cfg.p
    return 6 + 4 * p + 3 * p * p


def _not_nan(value: Any, where: str) -> float:
    out = as_float(value, where, finite=False)
    if math.isnan(out) or out == math.inf:
        raise fail(where, f"expected a number below +inf, found {out}")
    return out


def _not_psd(ginv: np.ndarray) -> np.ndarray:
    """Per ``p x p`` matrix (the last two axes) of ``ginv``: True unless its lowest
    eigenvalue is at least ``-1e-9`` times its largest entry. The symmetric part is taken
    as halves summed, not the sum halved (entries near the largest double would overflow
    to inf and the eigenvalues to NaN), and the test is written so that a NaN fails it."""
    lowest = np.linalg.eigvalsh(0.5 * ginv + 0.5 * np.swapaxes(ginv, -1, -2))[..., 0]
    ok: np.ndarray = lowest >= -1e-9 * np.abs(ginv).max(axis=(-2, -1))
    return ~ok


def _check_leaf(rec: list[Any], at: str, cfg: LeafConfig, ys: np.ndarray,
                routed: np.ndarray, minp: int, split: bool, retiring: bool,
                most: float) -> None:
    points = as_list(rec[2], f"{at}[2]")
    for j, index in enumerate(points):
        as_int(index, f"{at}[2][{j}]", 0, len(ys) - 1)
    if points != routed.tolist():
        raise fail(f"{at}[2]", "a leaf holds exactly the points its splits route to it "
                   f"({len(routed)} points), each once, in arrival order")
    stats = as_list(rec[3], f"{at}[3]", stats_length(cfg))
    for j, value in enumerate(stats):
        if cfg.kind == CLASS and 1 <= j <= cfg.n_classes:
            as_counter(value, f"{at}[3][{j}]")
        elif j == 0 or cfg.kind == CLASS:
            # nu and the retired class masses: lam-discounted counts of retired points
            if as_float(value, f"{at}[3][{j}]", lo=0.0) > most:
                raise fail(f"{at}[3][{j}]", f"{MASS_RULE}, found {value!r}")
        else:  # extreme but legal inputs overflow the sums (inf, then inf - inf = NaN)
            as_float(value, f"{at}[3][{j}]", finite=False)
    if split and not float(len(points)) + float(stats[0]) >= float(minp):
        raise fail(f"{at}[2]", f"a leaf of a tree with splits holds n + nu >= min_leaf = "
                   f"{minp} points (grow and prune keep min_leaf active points in a leaf, "
                   f"retirement collapses one that falls below), found n = {len(points)}, "
                   f"nu = {stats[0]}")
    _not_nan(rec[4], f"{at}[4]")
    mine = ys[np.asarray(points, dtype=np.int64)] if points else ys[:0]
    if cfg.kind == CLASS:
        counts = np.bincount(mine.astype(np.int64), minlength=cfg.n_classes).tolist()
        if stats[1:1 + cfg.n_classes] != counts:
            raise fail(f"{at}[3]", f"class counts {stats[1:1 + cfg.n_classes]} differ from "
                       f"the leaf's labels {counts}")
    elif cfg.kind != CONSTANT:
        # the predictive scale needs a positive semi-definite G^-1 ([DT-SPEC §3.2])
        p = cfg.p
        at_ginv = 4 + p + 2 * p * p + 2 * p
        # G^-1, beta and log|G^-1| come out of a Cholesky factorisation that falls back
        # to zeros when it fails, so they are finite even when the sums overflowed; the
        # quadratic form bb = beta' G beta is not (it overflows with the sums)
        for j in range(at_ginv, len(stats)):
            if j != at_ginv + p * p + p:
                as_float(stats[j], f"{at}[3][{j}]")
        ginv = np.array(stats[at_ginv:at_ginv + p * p], dtype=np.float64).reshape(p, p)
        if p and bool(_not_psd(ginv)):
            raise fail(f"{at}[3]", "the leaf's G^-1 is not positive semi-definite")
    if cfg.kind == CONSTANT and not retiring:
        # retirement subtracts a retiree from the sums (cancellation), so they are checked
        # only in models without an active pool; extreme but legal targets overflow these
        # sums to inf, in the state as here; an inf on either side compares as no
        # mismatch (the comparison is then NaN)
        with np.errstate(over="ignore", invalid="ignore"):
            checks = [(j, float(np.sum(v)), float(np.sum(np.abs(v))) + 1.0)
                      for j, v in ((1, mine), (2, mine * mine))]
        for j, total, scale in checks:
            if abs(float(stats[j]) - total) > 1e-6 * scale:
                raise fail(f"{at}[3][{j}]", f"{stats[j]} differs from the sum over the "
                           f"leaf's points, {total}")


def _check_particle(records: Any, where: str, d: int, cfg: LeafConfig, X: np.ndarray,
                    ys: np.ndarray, minp: int, grown: bool, retiring: bool,
                    alpha: float, most: float) -> None:
    records = as_list(records, where)
    split = False
    pending = [(0, np.arange(len(ys), dtype=np.int64))]
    pos = 0
    while pending:
        depth, routed = pending.pop()
        if pos >= len(records):
            raise fail(where, f"the preorder records end at {pos} with open children")
        at = f"{where}[{pos}]"
        rec = records[pos]
        pos += 1
        as_list(rec, at)
        if len(rec) not in (3, 5):
            raise fail(at, "a record is [depth, var, value] or [depth, -1, points, stats, ell]")
        if as_int(rec[0], f"{at}[0]", 0) != depth:
            raise fail(f"{at}[0]", f"expected depth {depth} in preorder, found {rec[0]}")
        var = as_int(rec[1], f"{at}[1]", -1, d - 1)
        if var >= 0:
            if pos == 1 and not grown:
                raise fail(where, "the first nstart rows go to the root of every particle: "
                           "a tree has splits only after more rows than nstart were learned")
            if pos == 1 and not alpha > 0.0:
                raise fail(where, "with alpha = 0 a split has prior probability 0: the "
                           "trees have no splits")
            split = True
            if len(rec) != 3:
                raise fail(at, "an internal node's record is [depth, var, value]")
            value = as_float(rec[2], f"{at}[2]")
            if abs(value) > MAX_MAGNITUDE:
                raise fail(f"{at}[2]", f"{SPLIT_RULE}, found {value!r}")
            left = X[routed, var] <= value
            pending.append((depth + 1, routed[~left]))
            pending.append((depth + 1, routed[left]))
            continue
        if len(rec) != 5:
            raise fail(at, "a leaf's record is [depth, -1, points, stats, ell]")
        _check_leaf(rec, at, cfg, ys, routed, minp, split, retiring, most)
    if pos != len(records):
        raise fail(where, f"{len(records) - pos} records after the end of the tree")


def check_engine(snap: Any, params: DynamicTreeParams, cfg: LeafConfig, d: int,
                 n_seen: int) -> None:
    """Raise :class:`~reference.state.StateFormatError` unless the engine fields of a
    fitted snapshot ``snap`` are a valid state for these parameters, leaf configuration,
    width ``d`` and ``n_seen`` learned rows."""
    _not_nan(snap["log_marginal_likelihood"], "snapshot.log_marginal_likelihood")
    as_rng_state(snap["rng_state"], "snapshot.rng_state")
    rows = as_list(snap["X"], "snapshot.X")
    n = len(rows)
    if n > n_seen:
        raise fail("snapshot.X", f"{n} stored rows, more than the {n_seen} learned")
    if params.active_size is not None and n > int(params.active_size):
        raise fail("snapshot.X", f"{n} stored rows, more than active_size")
    for i, row in enumerate(rows):
        for a, v in enumerate(as_list(row, f"snapshot.X[{i}]", d)):
            if abs(as_float(v, f"snapshot.X[{i}][{a}]")) > MAX_MAGNITUDE:
                raise fail(f"snapshot.X[{i}][{a}]", f"{MAGNITUDE_RULE}, found {v!r}")
    targets = as_list(snap["y"], "snapshot.y", n)
    for i, v in enumerate(targets):
        value = as_float(v, f"snapshot.y[{i}]")
        if abs(value) > MAX_MAGNITUDE:
            raise fail(f"snapshot.y[{i}]", f"{MAGNITUDE_RULE}, found {v!r}")
        if cfg.kind == CLASS and not (value == int(value) and 0 <= value < cfg.n_classes):
            raise fail(f"snapshot.y[{i}]", f"a class index is in 0..{cfg.n_classes - 1}")
    X = np.array(rows, dtype=np.float64).reshape(n, d)
    ys = np.array(targets, dtype=np.float64)
    particles = as_list(snap["particles"], "snapshot.particles", int(params.n_particles))
    minp = params.resolved_min_leaf(d)
    grown = n_seen > params.resolved_nstart(d)
    for i, records in enumerate(particles):
        _check_particle(records, f"snapshot.particles[{i}]", d, cfg, X, ys, minp, grown,
                        params.active_size is not None, float(params.alpha), float(n_seen))


def check_model_state(params: Any, fitted: Any, snapshot: Any, classifier: bool,
                      given_classes: list[Any] | None,
                      trees: TreeCheck | None = None) -> dict[str, np.ndarray] | None:
    """Raise ``StateFormatError`` naming the field unless the facade state ``fitted`` and
    the ``snapshot`` are a valid state of a model with parameters ``params`` (a classifier
    if ``classifier``, built with the classes ``given_classes`` if not None). A snapshot
    whose particles are columns is checked by :func:`check_engine_columns` (the tree walk
    by ``trees``, default :func:`check_trees`), which returns the checked columns."""
    if not isinstance(params, DynamicTreeParams):
        raise fail("params", "expected dynamic-tree parameters")
    try:
        params.validate()
    except (TypeError, ValueError) as exc:
        raise fail("params", str(exc)) from None
    names: tuple[str, ...] = ("n_features_in", "keys", "n_seen", "lpred")
    if classifier:
        names += ("classes",)
    if isinstance(fitted, dict) and "stream_rule" in fitted:
        names += ("stream_rule",)  # absent in files of driftwood 0.1: rule 1
        as_int(fitted["stream_rule"], "fitted.stream_rule", 1, 2)
    as_dict(fitted, "fitted", names)
    as_dict(snapshot, "snapshot", ("n_seen", "n_features_in") + ENGINE_KEYS)
    n_seen = as_counter(fitted["n_seen"], "fitted.n_seen")
    if snapshot["n_seen"] != n_seen:
        raise fail("snapshot.n_seen", f"differs from fitted.n_seen ({n_seen})")
    lpred = fitted["lpred"]
    if not isinstance(lpred, np.ndarray):
        lpred = as_list(lpred, "fitted.lpred")
    elif lpred.ndim != 1 or lpred.dtype != np.float64:
        raise fail("fitted.lpred", "expected a list of numbers")
    window = params.lpred_window
    if len(lpred) > min(n_seen, window if window is not None else n_seen):
        raise fail("fitted.lpred", f"{len(lpred)} values, more than the rows learned "
                   "or the window keeps")
    if isinstance(lpred, np.ndarray):
        bad = np.flatnonzero(np.isnan(lpred) | (lpred == math.inf))
        if bad.size:
            raise fail(f"fitted.lpred[{bad[0]}]", f"a log density below +inf, found "
                       f"{lpred[bad[0]]}")
    for i, v in enumerate(lpred if not isinstance(lpred, np.ndarray) else ()):
        value = as_float(v, f"fitted.lpred[{i}]", finite=False)
        if math.isnan(value) or value == math.inf:
            raise fail(f"fitted.lpred[{i}]", f"a log density below +inf, found {value}")
    n_classes = 0
    if classifier:
        classes = as_labels(fitted["classes"], "fitted.classes")
        if classes and len(classes) < 2:
            raise fail("fitted.classes", "a classifier has at least two classes")
        if given_classes is not None and classes != given_classes:
            raise fail("fitted.classes",
                       f"differ from the classes parameter {given_classes!r}")
        n_classes = len(classes)
    d = fitted["n_features_in"]
    columns = is_columns(snapshot["particles"])
    if d is None:
        if columns or any(isinstance(snapshot[k], np.ndarray) for k in ("X", "y")):
            raise fail("snapshot", "an unfitted model holds no data and no particles")
        if (n_seen, fitted["keys"], snapshot["n_features_in"], snapshot["X"],
                snapshot["y"], snapshot["particles"]) != (0, None, 0, [], [], []):
            raise fail("snapshot", "an unfitted model holds no data and no particles")
        as_rng_state(snapshot["rng_state"], "snapshot.rng_state")
        return None
    d = as_int(d, "fitted.n_features_in", 1, 2**31 - 1)
    if snapshot["n_features_in"] != d:
        raise fail("snapshot.n_features_in", f"differs from fitted.n_features_in ({d})")
    keys = fitted["keys"]
    if keys is not None and len(as_labels(keys, "fitted.keys")) != d:
        raise fail("fitted.keys", f"expected {d} feature names")
    rect = params.rect
    if rect is not None and len(rect) != d:
        raise fail("fitted.n_features_in", f"rect has {len(rect)} pairs for {d} features")
    if classifier and n_classes == 0:
        raise fail("fitted.classes", "a classifier that has learned knows its classes")
    cfg = leaf_config(params, d, n_classes)
    if columns:
        return check_engine_columns(snapshot, params, cfg, d, n_seen, trees or check_trees)
    check_engine(snapshot, params, cfg, d, n_seen)
    return None


# -- the columns form (reference.dynatree.columns) ---------------------------------------
TreeResult = tuple[int, int, int, np.ndarray | None, np.ndarray | None]
TreeCheck = Callable[[dict[str, np.ndarray], np.ndarray, np.ndarray, int, bool], TreeResult]
"""``trees(cols, X, y, n_classes, sums)``: the tree walk of every particle. Returns
``(-1, 0, 0, totals, counts)`` if it passes, else ``(particle, record, code, None, None)``
with a code of :data:`CHECK_MESSAGES`; ``totals`` (if ``sums``) holds each leaf's sums of
``y``, ``|y|`` and ``y^2`` (one row per leaf), ``counts`` (if ``n_classes``) each leaf's
class counts."""

CHECK_MESSAGES = {
    1: "the preorder records end with open children",
    2: "a record's depth differs from its place in preorder (root 0, a child one deeper)",
    3: "a split variable outside -1 .. d - 1",
    4: "a split value that is not finite",
    5: "a point index outside the stored rows",
    6: "a leaf holds exactly the points its splits route to it, each once, in arrival order",
    7: "records after the end of the tree",
    8: "more leaves or points than the columns hold",
}
"""The problems the tree walk finds (the ``DT_CHECK_*`` codes of ``dynatree.h``)."""


def check_trees(cols: dict[str, np.ndarray], X: np.ndarray, y: np.ndarray, n_classes: int,
                sums: bool) -> TreeResult:
    """The tree walk of :func:`check_engine_columns` (the twin of ``dt_check_trees``):
    each particle's records a complete binary tree in preorder with the expected depths,
    split variables in ``-1 .. d - 1`` and finite split values, and each leaf holding
    exactly the rows routed to it, in store order; with each leaf's target sums (taken as
    ``_check_leaf`` takes them) or class counts."""
    n, d = X.shape
    n_leaves = len(cols["npoints"])
    totals = np.zeros((n_leaves, 3)) if sums else None
    counts = np.zeros((n_leaves, n_classes)) if n_classes else None
    first = leaf = pt = 0
    depth, var, value = cols["depth"], cols["var"], cols["value"]
    npoints, points = cols["npoints"], cols["points"]
    for i, size in enumerate(cols["sizes"].tolist()):
        if size < 0 or first + size > len(depth):
            return i, 0, 8, None, None
        pending = [(0, np.arange(n, dtype=np.int32))]
        k = 0
        while pending:
            want, routed = pending.pop()
            if k >= size:
                return i, k, 1, None, None
            a = first + k
            if depth[a] != want:
                return i, k, 2, None, None
            if not -1 <= var[a] < d:
                return i, k, 3, None, None
            k += 1
            if var[a] >= 0:
                if not math.isfinite(value[a]):
                    return i, k - 1, 4, None, None
                left = X[routed, var[a]] <= value[a]
                pending.append((want + 1, routed[~left]))
                pending.append((want + 1, routed[left]))
                continue
            if leaf >= n_leaves or npoints[leaf] < 0 or pt + npoints[leaf] > len(points):
                return i, k - 1, 8, None, None
            mine = points[pt:pt + npoints[leaf]]
            if ((mine < 0) | (mine >= n)).any():
                return i, k - 1, 5, None, None
            if not np.array_equal(mine, routed):
                return i, k - 1, 6, None, None
            ys = y[mine]
            if totals is not None:
                with np.errstate(over="ignore", invalid="ignore"):
                    totals[leaf] = (np.sum(ys), np.sum(np.abs(ys)), np.sum(ys * ys))
            if counts is not None:
                counts[leaf] = np.bincount(ys.astype(np.int64), minlength=n_classes)
            pt += int(npoints[leaf])
            leaf += 1
        if k != size:
            return i, k, 7, None, None
        first += size
    return -1, 0, 0, totals, counts


def _check_store(snap: dict[str, Any], params: DynamicTreeParams, cfg: LeafConfig, d: int,
                 n_seen: int) -> tuple[np.ndarray, np.ndarray]:
    """The data store of a columns snapshot: ``X`` (n x d) and ``y`` as checked arrays."""
    X, y = snap["X"], snap["y"]
    if isinstance(X, list) and not X:
        X = np.zeros((0, d))
    if isinstance(y, list) and not y:
        y = np.zeros(0)
    if not isinstance(X, np.ndarray) or X.dtype != np.float64 or X.ndim != 2 or \
            X.shape[1] != d:
        raise fail("snapshot.X", f"expected an array of rows of {d} numbers")
    n = X.shape[0]
    if n > n_seen:
        raise fail("snapshot.X", f"{n} stored rows, more than the {n_seen} learned")
    if params.active_size is not None and n > int(params.active_size):
        raise fail("snapshot.X", f"{n} stored rows, more than active_size")
    if n >= 2**31:
        raise fail("snapshot.X", "more rows than 32-bit indices reach")
    if not np.isfinite(X).all():
        raise fail("snapshot.X", "expected finite numbers")
    if X.size and float(np.abs(X).max()) > MAX_MAGNITUDE:
        raise fail("snapshot.X", MAGNITUDE_RULE)
    if not isinstance(y, np.ndarray) or y.dtype != np.float64 or y.shape != (n,):
        raise fail("snapshot.y", f"expected {n} numbers")
    if not np.isfinite(y).all():
        raise fail("snapshot.y", "expected finite numbers")
    if y.size and float(np.abs(y).max()) > MAX_MAGNITUDE:
        raise fail("snapshot.y", MAGNITUDE_RULE)
    if cfg.kind == CLASS and ((y != np.floor(y)) | (y < 0) | (y >= cfg.n_classes)).any():
        raise fail("snapshot.y", f"a class index is in 0..{cfg.n_classes - 1}")
    return np.require(X, requirements=("C", "A")), np.require(y, requirements=("C", "A"))


def _check_leaf_columns(cols: dict[str, np.ndarray], cfg: LeafConfig,
                        totals: np.ndarray | None, found: np.ndarray | None,
                        minp: int, split_leaf: np.ndarray, most: float) -> None:
    """Every check of ``_check_leaf`` but the points', on all leaves at once."""
    stats, ell, npoints = cols["stats"], cols["ell"], cols["npoints"]
    where = "snapshot.particles.stats"
    if stats.shape[1] != stats_length(cfg):
        raise fail(where, f"expected {stats_length(cfg)} statistics per leaf")
    c = cfg.n_classes if cfg.kind == CLASS else 0
    masses = [0] + (list(range(1 + c, 1 + 2 * c)) if c else [])
    block = stats[:, masses]
    if not (np.isfinite(block) & (block >= 0.0)).all():
        raise fail(where, "the retired masses are finite numbers >= 0")
    if block.size and float(block.max()) > most:
        raise fail(where, MASS_RULE)
    if c:
        counts = stats[:, 1:1 + c]
        if not ((counts == np.floor(counts)) & (counts >= 0) & (counts <= COUNTER_MAX)).all():
            raise fail(where, f"class counts are integers in 0..{COUNTER_MAX}")
    with np.errstate(invalid="ignore"):
        small = split_leaf & ~(npoints.astype(np.float64) + stats[:, 0] >= float(minp))
    if small.any():
        raise fail(where, f"a leaf of a tree with splits holds n + nu >= min_leaf = {minp} "
                   f"points (grow and prune keep min_leaf active points in a leaf, "
                   f"retirement collapses one that falls below)")
    if (np.isnan(ell) | (ell == math.inf)).any():
        raise fail("snapshot.particles.ell", "expected numbers below +inf")
    if c:
        if found is None or not np.array_equal(found, stats[:, 1:1 + c]):
            raise fail(where, "class counts differ from the leaves' labels")
    elif cfg.kind != CONSTANT:
        p = cfg.p
        at_ginv = 4 + p + 2 * p * p + 2 * p
        tail = np.delete(stats[:, at_ginv:], p * p + p, axis=1)
        if not np.isfinite(tail).all():
            raise fail(where, "G^-1, beta and log|G^-1| are finite")
        if p and len(npoints):
            ginv = stats[:, at_ginv:at_ginv + p * p].reshape(-1, p, p)
            if _not_psd(ginv).any():
                raise fail(where, "a leaf's G^-1 is not positive semi-definite")
    if totals is not None:
        with np.errstate(over="ignore", invalid="ignore"):
            # the scale of y^2 is the sum of |y^2| = y^2
            for j, total, scale in ((1, totals[:, 0], totals[:, 1] + 1.0),
                                    (2, totals[:, 2], totals[:, 2] + 1.0)):
                if (np.abs(stats[:, j] - total) > 1e-6 * scale).any():
                    raise fail(where, f"statistic {j} differs from the sum over the "
                               f"leaf's points")


def check_engine_columns(snap: Any, params: DynamicTreeParams, cfg: LeafConfig, d: int,
                         n_seen: int, trees: TreeCheck) -> dict[str, np.ndarray]:
    """:func:`check_engine` on a snapshot whose ``X`` and ``y`` are arrays and whose
    particles are columns; returns the checked columns (int32 and float64, contiguous)
    with the store as ``"X"`` and ``"y"``."""
    _not_nan(snap["log_marginal_likelihood"], "snapshot.log_marginal_likelihood")
    as_rng_state(snap["rng_state"], "snapshot.rng_state")
    X, ys = _check_store(snap, params, cfg, d, n_seen)
    cols = column_arrays(snap["particles"], "snapshot.particles")
    sizes = cols["sizes"]
    if sizes.shape[0] != int(params.n_particles):
        raise fail("snapshot.particles", f"expected {params.n_particles} particles")
    roots = np.concatenate(([0], np.cumsum(sizes[:-1], dtype=np.int64)))
    split_roots = (sizes > 0) & (cols["var"][np.minimum(roots, max(len(cols["var"]) - 1, 0))]
                                 >= 0) if len(cols["var"]) else np.zeros(len(sizes), bool)
    if split_roots.any():
        i = int(np.flatnonzero(split_roots)[0])
        if not n_seen > params.resolved_nstart(d):
            raise fail(f"snapshot.particles[{i}]", "the first nstart rows go to the root of "
                       "every particle: a tree has splits only after more rows than nstart "
                       "were learned")
        if not float(params.alpha) > 0.0:
            raise fail(f"snapshot.particles[{i}]", "with alpha = 0 a split has prior "
                       "probability 0: the trees have no splits")
    sums = cfg.kind == CONSTANT and params.active_size is None
    n_classes = cfg.n_classes if cfg.kind == CLASS else 0
    i, k, code, totals, found = trees(cols, X, ys, n_classes, sums)
    if code:
        raise fail(f"snapshot.particles[{i}][{k}]", CHECK_MESSAGES[code])
    splits = cols["value"][cols["var"] >= 0]
    if splits.size and float(np.abs(splits).max()) > MAX_MAGNITUDE:
        raise fail("snapshot.particles.value", SPLIT_RULE)
    leaves_per = np.add.reduceat(cols["var"] == -1, roots) if len(cols["var"]) else \
        np.zeros(len(sizes), np.int64)
    split_leaf = np.repeat(split_roots, leaves_per)
    _check_leaf_columns(cols, cfg, totals, found, params.resolved_min_leaf(d), split_leaf,
                        float(n_seen))
    return {**cols, "X": X, "y": ys}

"""Checks of a restored dynamic-tree state before anything is built from it (both backends).

A state comes from a pickle or a data-only model file (:mod:`reference.persist`). The
engine part of :meth:`~reference.dynatree.facade.DynamicTreeFacade.snapshot` is walked
against the model's parameters and leaf configuration, and the first bad field raises
:class:`~reference.state.StateFormatError`. The invariants, each one the C engine relies on
or one the mathematics of the model implies (docs/guarantees.md, "Invariants the C relies
on"):

- the data store holds ``n`` rows of ``d`` finite inputs and finite targets (class
  indices below ``C`` for a classifier), at most ``active_size`` of them and at most the
  ``n_seen`` rows learned; ``n_seen`` is a counter of at most
  :data:`~reference.state.COUNTER_MAX`;
- every particle's records are a complete binary tree in preorder (left before right),
  depths the parents' plus one, split variables below ``d``, finite split values;
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
  retired class masses are finite and ``>= 0`` (``lam``-discounted counts); class counts
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
points. No C twin: the check runs in Python before a state reaches C.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from reference.dynatree.engine import leaf_config
from reference.dynatree.leaf_models import CLASS, CONSTANT, LeafConfig
from reference.dynatree.params import DynamicTreeParams
from reference.state import (
    as_counter,
    as_dict,
    as_float,
    as_int,
    as_labels,
    as_list,
    as_rng_state,
    fail,
)

__all__ = ["check_engine", "check_model_state", "stats_length"]

ENGINE_KEYS = ("log_marginal_likelihood", "rng_state", "X", "y", "particles")


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


def _check_leaf(rec: list[Any], at: str, cfg: LeafConfig, ys: np.ndarray,
                routed: np.ndarray, minp: int, split: bool, retiring: bool) -> None:
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
            as_float(value, f"{at}[3][{j}]", lo=0.0)
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
        lowest = float(np.linalg.eigvalsh(0.5 * (ginv + ginv.T))[0]) if p else 0.0
        if lowest < -1e-9 * (float(np.max(np.abs(ginv))) if p else 0.0):
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
                    alpha: float) -> None:
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
            left = X[routed, var] <= value
            pending.append((depth + 1, routed[~left]))
            pending.append((depth + 1, routed[left]))
            continue
        if len(rec) != 5:
            raise fail(at, "a leaf's record is [depth, -1, points, stats, ell]")
        _check_leaf(rec, at, cfg, ys, routed, minp, split, retiring)
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
            as_float(v, f"snapshot.X[{i}][{a}]")
    targets = as_list(snap["y"], "snapshot.y", n)
    for i, v in enumerate(targets):
        value = as_float(v, f"snapshot.y[{i}]")
        if cfg.kind == CLASS and not (value == int(value) and 0 <= value < cfg.n_classes):
            raise fail(f"snapshot.y[{i}]", f"a class index is in 0..{cfg.n_classes - 1}")
    X = np.array(rows, dtype=np.float64).reshape(n, d)
    ys = np.array(targets, dtype=np.float64)
    particles = as_list(snap["particles"], "snapshot.particles", int(params.n_particles))
    minp = params.resolved_min_leaf(d)
    grown = n_seen > params.resolved_nstart(d)
    for i, records in enumerate(particles):
        _check_particle(records, f"snapshot.particles[{i}]", d, cfg, X, ys, minp, grown,
                        params.active_size is not None, float(params.alpha))


def check_model_state(params: Any, fitted: Any, snapshot: Any, classifier: bool,
                      given_classes: list[Any] | None) -> None:
    """Raise ``StateFormatError`` naming the field unless the facade state ``fitted`` and
    the ``snapshot`` are a valid state of a model with parameters ``params`` (a classifier
    if ``classifier``, built with the classes ``given_classes`` if not None)."""
    if not isinstance(params, DynamicTreeParams):
        raise fail("params", "expected dynamic-tree parameters")
    try:
        params.validate()
    except (TypeError, ValueError) as exc:
        raise fail("params", str(exc)) from None
    names: tuple[str, ...] = ("n_features_in", "keys", "n_seen", "lpred")
    if classifier:
        names += ("classes",)
    as_dict(fitted, "fitted", names)
    as_dict(snapshot, "snapshot", ("n_seen", "n_features_in") + ENGINE_KEYS)
    n_seen = as_counter(fitted["n_seen"], "fitted.n_seen")
    if snapshot["n_seen"] != n_seen:
        raise fail("snapshot.n_seen", f"differs from fitted.n_seen ({n_seen})")
    lpred = as_list(fitted["lpred"], "fitted.lpred")
    window = params.lpred_window
    if len(lpred) > min(n_seen, window if window is not None else n_seen):
        raise fail("fitted.lpred", f"{len(lpred)} values, more than the rows learned "
                   "or the window keeps")
    for i, v in enumerate(lpred):
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
    rect = params.rect
    if rect is not None and len(rect) != d:
        raise fail("fitted.n_features_in", f"rect has {len(rect)} pairs for {d} features")
    if classifier and n_classes == 0:
        raise fail("fitted.classes", "a classifier that has learned knows its classes")
    check_engine(snapshot, params, leaf_config(params, d, n_classes), d, n_seen)

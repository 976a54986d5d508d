"""Checks of a restored ABACOC state before anything is built from it (both backends).

A state comes from a pickle or a data-only model file (:mod:`reference.persist`).
:func:`check_cover` walks the plain-data snapshot (schema of
:meth:`reference.abacoc.model.ABACOCClassifier.snapshot`) against the parameters and the
facade's classes and width, and raises :class:`~reference.state.StateFormatError` naming
the first bad field. What it guarantees:

- the variant is the parameters' variant; width and class count match the facade (the
  randomized BASE mode keeps its two declared labels);
- every ball has a centre of ``D`` coordinates, one count per class (non-negative
  integers, at least the founding point in all), a centre-update counter ``u >= 1``,
  radii ``R`` and ``eps`` that are not negative and a mistake count ``m >= 0``
  (coordinates and radii may be non-finite: inputs near the largest double overflow
  them in genuine models); ids are
  distinct and below ``next_id``; no more balls than ``budget``, and none before the
  width is known;
- the BASE phase state (``phase >= 1``, ``phase_steps >= 0``, finite ``phase_dim``,
  positive finite ``radius``) is in range; the AUTO initialisation state is one the
  InitProcedure reaches (one ball and its first label, or none, before it ends; at least
  two balls after); the generator state is valid;
- every counter (rows seen, ``next_id``, ``phase``, ``phase_steps``, class counts and
  their sum, ``u``, ``m``) is at most :data:`~reference.state.COUNTER_MAX` (2**53): the C
  ``int64_t`` counters cannot overflow, and class frequencies ``n_s(k) / n_s`` (a
  correctly rounded integer division in Python, a division of two doubles in C) are the
  same numbers because both counts convert to ``double`` exactly;
- non-finite centre coordinates and radii are accepted because genuine models reach
  them (a centre update ``c + (x - c)/u`` overflows for inputs near the largest double,
  and ``inf - inf`` then gives NaN); the searches and updates treat them alike in both
  backends (``tests/common/test_structural_fuzz.py`` plants them).

No C twin: the check runs in Python before a state reaches C.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from reference.abacoc.columns import column_arrays, is_columns
from reference.abacoc.params import ABACOCParams
from reference.state import (
    COUNTER_MAX,
    as_counter,
    as_dict,
    as_float,
    as_int,
    as_list,
    as_rng_state,
    fail,
)

__all__ = ["check_cover", "SNAPSHOT_KEYS"]

SNAPSHOT_KEYS = ("variant", "n_features", "n_classes", "n_seen", "next_id", "phase",
                 "phase_steps", "phase_dim", "radius", "init_done", "first_label", "balls",
                 "rng_state")
BALL_KEYS = ("id", "center", "counts", "u", "R", "eps", "m")


def check_cover(snap: Any, params: ABACOCParams, n_features: int, n_classes: int) -> None:
    """Raise :class:`~reference.state.StateFormatError` unless ``snap`` is a valid cover
    for these parameters, ``n_features`` inputs (0: not fixed yet) and ``n_classes``."""
    as_dict(snap, "snapshot", SNAPSHOT_KEYS)
    if snap["variant"] != params.variant:
        raise fail("snapshot.variant", f"{snap['variant']!r} differs from the parameters' "
                   f"{params.variant!r}")
    if as_int(snap["n_features"], "snapshot.n_features", 0, 2**31 - 1) != n_features:
        raise fail("snapshot.n_features", f"differs from the model's width {n_features}")
    if as_int(snap["n_classes"], "snapshot.n_classes", 0, 2**31 - 1) != n_classes:
        raise fail("snapshot.n_classes", f"differs from the {n_classes} known classes")
    as_counter(snap["n_seen"], "snapshot.n_seen")
    next_id = as_counter(snap["next_id"], "snapshot.next_id")
    as_counter(snap["phase"], "snapshot.phase", 1)
    as_counter(snap["phase_steps"], "snapshot.phase_steps")
    as_float(snap["phase_dim"], "snapshot.phase_dim")
    if not as_float(snap["radius"], "snapshot.radius") > 0.0:
        raise fail("snapshot.radius", "must be positive")
    init_done = as_int(snap["init_done"], "snapshot.init_done", 0, 1)
    first_label = as_int(snap["first_label"], "snapshot.first_label", -1, n_classes - 1)
    as_rng_state(snap["rng_state"], "snapshot.rng_state")
    cols = None
    if is_columns(snap["balls"]):
        cols = column_arrays(snap["balls"], "snapshot.balls", n_features, n_classes)
        balls: Any = range(len(cols["id"]))     # its length: the checks below use no more
    else:
        balls = as_list(snap["balls"], "snapshot.balls")
    if params.variant in ("auto", "auto_adj"):
        # InitProcedure [DOC15, Alg. 4]: ball 1 and its label, then ball 2 ends it
        if init_done and (len(balls) < 2 or first_label < 0):
            raise fail("snapshot.init_done", "an initialised AUTO cover has at least two "
                       "balls and a first label")
        if not init_done and (len(balls) > 1 or (len(balls) == 1) != (first_label >= 0)):
            raise fail("snapshot.init_done", "before initialisation an AUTO cover has one "
                       "ball (with its first label) or none")
    elif init_done or first_label != -1:
        raise fail("snapshot.init_done", "the BASE family has no AUTO initialisation state")
    if balls and n_features == 0:
        raise fail("snapshot.balls", "no ball exists before the width is fixed")
    budget = params.ball_budget
    if budget is not None and len(balls) > budget:
        raise fail("snapshot.balls", f"{len(balls)} balls, more than the budget {budget}")
    if cols is not None:
        _check_ball_columns(cols, next_id)
        return
    ids = set()
    for s, ball in enumerate(balls):
        at = f"snapshot.balls[{s}]"
        as_dict(ball, at, BALL_KEYS)
        ball_id = as_int(ball["id"], f"{at}.id", 0, next_id - 1)
        if ball_id in ids:
            raise fail(f"{at}.id", f"id {ball_id} is used twice")
        ids.add(ball_id)
        # extreme but legal inputs (near the largest double) overflow centres and radii,
        # so non-finite coordinates and radii are data here
        for j, v in enumerate(as_list(ball["center"], f"{at}.center", n_features)):
            as_float(v, f"{at}.center[{j}]", finite=False)
        counts = as_list(ball["counts"], f"{at}.counts", n_classes)
        for k, v in enumerate(counts):
            as_counter(v, f"{at}.counts[{k}]")
        if not 1 <= sum(counts) <= COUNTER_MAX:
            raise fail(f"{at}.counts", "a ball holds at least its founding point and at most "
                       "COUNTER_MAX (2**53) points")
        as_counter(ball["u"], f"{at}.u", 1)
        for key in ("R", "eps"):
            if as_float(ball[key], f"{at}.{key}", finite=False) < 0.0:
                raise fail(f"{at}.{key}", "a radius is not negative")
        as_counter(ball["m"], f"{at}.m")


def _check_ball_columns(cols: dict[str, np.ndarray], next_id: int) -> None:
    """The per-ball checks of :func:`check_cover` on columns, all balls at once (centres
    and radii may be any number but a negative radius, as in the list form)."""
    where = "snapshot.balls"
    ids = cols["id"]
    if ids.size and (int(ids.min()) < 0 or int(ids.max()) > next_id - 1):
        raise fail(f"{where}.id", f"ids are in 0..{next_id - 1}")
    if np.unique(ids).size != ids.size:
        raise fail(f"{where}.id", "an id is used twice")
    counts = cols["counts"]
    if counts.size and (int(counts.min()) < 0 or int(counts.max()) > COUNTER_MAX):
        raise fail(f"{where}.counts", f"counts are in 0..{COUNTER_MAX}")
    # each count <= 2**53, so a row of fewer than 1024 sums exactly in int64
    totals = counts.sum(axis=1) if counts.shape[1] < 1024 else np.array(
        [sum(row) for row in counts.tolist()], dtype=object)
    if ((totals < 1) | (totals > COUNTER_MAX)).any():
        raise fail(f"{where}.counts", "a ball holds at least its founding point and at most "
                   "COUNTER_MAX (2**53) points")
    for key, lo in (("u", 1), ("m", 0)):
        values = cols[key]
        if values.size and (int(values.min()) < lo or int(values.max()) > COUNTER_MAX):
            raise fail(f"{where}.{key}", f"counters are in {lo}..{COUNTER_MAX}")
    for key in ("R", "eps"):
        if (cols[key] < 0.0).any():
            raise fail(f"{where}.{key}", "a radius is not negative")

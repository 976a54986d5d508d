"""Structural fuzzing of saved models: the mutations and the worker that runs them.

A *case* is a saved model (a document of :func:`reference.persist.to_document`) changed in
its structure rather than in one value: parameters changed after fitting, trees grown,
collapsed or re-shaped, points moved between leaves, particles, trees or balls duplicated
or dropped, counters set to their limits, non-finite statistics, classes changed. Cases
are numbered per family (``dynatree``, ``sgt``, ``abacoc``); case ``i`` is a function of
``(family, i)`` alone, so two processes build the same case.

Run as a script, this module is the worker: ``python _structural_fuzz.py FAMILY FIRST
COUNT BACKEND [FORMAT]`` runs cases ``FIRST .. FIRST + COUNT - 1`` in ``BACKEND`` and
prints, per case, a line ``start i`` and then ``done i <outcome>``: the load (refused: the
exception class and message), then predictions, ``learn_one``, ``partial_fit``, ``save`` and a
reload, every result (or exception class and message) digested into one hash. The test
(``test_structural_fuzz.py``) runs a worker per backend in a subprocess, so a crash, a
sanitizer report or a hang is caught and pinned to the case that was running.

``FORMAT`` is ``1`` (default: the case's document loaded as a model file of format 1
holds it) or ``2``: the same document written as a model file of format 2
(:func:`to_format2`, the dynamic trees' particles, the SGT trees' nodes and the ABACOC
balls as columns, every long list of numbers as an array) and loaded from the file; a
document that format 2 cannot hold exactly (a record of the wrong shape or type, which
only format 1 can express) gives the outcome ``unrepresentable``.
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import importlib.util
import json
import math
import os
import random
import sys
import tempfile
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# the packages as installed (a checkout's editable install, or a wheel); the source tree
# only where they are not installed, so a wheel is not shadowed by the sdist's copies
for path in (HERE, ROOT) if importlib.util.find_spec("reference") is None else (HERE,):
    if path not in sys.path:
        sys.path.insert(0, path)

import numpy as np  # noqa: E402
from _hardening_models import SPECS, Spec, prediction_calls, stream  # noqa: E402

from reference.abacoc.columns import BALLS_TAG, balls_to_columns  # noqa: E402
from reference.abacoc.columns import NotColumns as ABACOCNotColumns  # noqa: E402
from reference.container import ArrayTable, write_container  # noqa: E402
from reference.dynatree.columns import (  # noqa: E402
    RECORDS_TAG,
    NotColumns,
    records_to_columns,
)
from reference.persist import FILE_VERSION, from_document, load_into, pack, to_document  # noqa: E402
from reference.sgt.columns import NODES_TAG, nodes_to_columns  # noqa: E402
from reference.sgt.columns import NotColumns as SGTNotColumns  # noqa: E402
from reference.state import StateFormatError  # noqa: E402

FAMILIES = ("dynatree", "sgt", "abacoc")
LIMITS = [2**63 - 1, 2**63, 2**62, 2**53 + 1, 2**53, 2**53 - 1, 2**31, 0, 1]
NON_FINITE = [math.nan, math.inf, -math.inf]


def family_specs(family: str) -> list[Spec]:
    """The model configurations of a family (custom losses cannot be saved)."""
    if family == "dynatree":
        return [s for s in SPECS if s.dt]
    prefix = {"sgt": "SGT", "abacoc": "ABACOC"}[family]
    return [s for s in SPECS if s.cls.startswith(prefix) and not s.custom_loss]


_BASES: dict[str, list[dict[str, Any]]] = {}


def base_documents(spec: Spec) -> list[dict[str, Any]]:
    """Saved documents of the spec (reference backend): unfitted, early and fitted."""
    if spec.id not in _BASES:
        import reference

        docs = []
        for n in (0, 7, 30, 70):
            model = spec.make(reference)
            for x, y in stream(spec, n, seed=3):
                model.learn_one(x, y)
            docs.append(json.loads(json.dumps(to_document(model))))
        _BASES[spec.id] = docs
    return _BASES[spec.id]


# -- shared helpers ---------------------------------------------------------------------
def _leaf_values(doc: Any, out: list[tuple[Any, Any]]) -> None:
    """Every (container, key) holding a number, anywhere in ``doc``."""
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) \
        else []
    for key, value in items:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out.append((doc, key))
        elif isinstance(value, (dict, list)):
            _leaf_values(value, out)


def _set_counter_pair(doc: dict[str, Any], value: int) -> None:
    doc["fitted"]["n_seen"] = value
    doc["snapshot"]["n_seen"] = value


def _non_finite(rnd: random.Random, doc: dict[str, Any], section: str) -> None:
    """One number of ``doc[section]`` (a float statistic where possible) made non-finite."""
    spots: list[tuple[Any, Any]] = []
    _leaf_values(doc[section], spots)
    floats = [s for s in spots if isinstance(s[0][s[1]], float)]
    pool = floats or spots
    if pool:
        holder, key = rnd.choice(pool)
        holder[key] = rnd.choice(NON_FINITE)


def _set_param(rnd: random.Random, doc: dict[str, Any], choices: dict[str, list[Any]]) -> None:
    name = rnd.choice(sorted(n for n in choices if n in doc["params"]))
    doc["params"][name] = copy.deepcopy(rnd.choice(choices[name]))


# -- dynamic trees ------------------------------------------------------------------------
DT_PARAMS: dict[str, list[Any]] = {
    "min_leaf": [1, 2, 3, 5, 8, 100, None], "nstart": [1, 2, 5, 7, 8, 31, 100, 10**9, None],
    "n_particles": [1, 9, 11, 20], "active_size": [None, 1, 5, 12, 29, 1000],
    "lam": [0.5, 1.0], "alpha": [0.0, 0.5, 0.99], "beta": [0.5, 4.0],
    "retirement": ["random", "historical", "alc", "entropy"], "lpred_window": [None, 0, 3],
    "leaf": ["constant", "linear", "class"], "intercept": ["implicit", "augmented", "none"],
    "nu0": [0.0, 1.0], "s20": [0.0, 1.0], "approx": [True, False],
}


def _dt_leaves(records: list[Any]) -> list[int]:
    return [i for i, r in enumerate(records) if isinstance(r, list) and len(r) == 5]


def _dt_subtree_end(records: list[Any], start: int) -> int:
    """One past the last record of the subtree starting at ``start`` (preorder)."""
    open_children = 1
    pos = start
    while open_children and pos < len(records):
        open_children += 1 if records[pos][1] >= 0 else -1
        pos += 1
    return pos


def _dt_leaf_stats(doc: dict[str, Any], points: list[int], like: list[Any]) -> list[Any]:
    """Statistics of a new leaf holding ``points`` (sums recomputed for the constant and
    class leaves, the template's otherwise)."""
    snap = doc["snapshot"]
    stats = copy.deepcopy(like)
    ys = [snap["y"][i] for i in points if 0 <= i < len(snap["y"])]
    if len(stats) == 5:
        stats[:3] = [0.0, float(sum(ys)), float(sum(v * v for v in ys))]
    elif "classes" in doc["fitted"]:
        c = (len(stats) - 1) // 2
        stats[0] = 0.0
        stats[1:1 + c] = [sum(1 for v in ys if int(v) == k) for k in range(c)]
    return stats


def _dt_grow(rnd: random.Random, doc: dict[str, Any], tree: list[Any]) -> None:
    """A leaf split at the median of one column of its points: two children that hold
    the points the split routes to them (recomputed sums), depths one deeper."""
    leaves = _dt_leaves(tree)
    if not leaves:
        return
    at = rnd.choice(leaves)
    depth, _, points, stats, ell = tree[at]
    X = doc["snapshot"]["X"]
    d = len(X[0]) if X else 1
    var = rnd.randrange(d)
    points = [i for i in points if 0 <= i < len(X)]
    values = sorted(X[i][var] for i in points) if points else [0.0]
    value = values[len(values) // 2] if rnd.random() < 0.7 else rnd.choice([-1e308, 1e308, 0.0])
    left = [i for i in points if X[i][var] <= value]
    right = [i for i in points if not X[i][var] <= value]
    tree[at:at + 1] = [[depth, var, value],
                       [depth + 1, -1, left, _dt_leaf_stats(doc, left, stats), ell],
                       [depth + 1, -1, right, _dt_leaf_stats(doc, right, stats), ell]]


def _dt_prune(rnd: random.Random, doc: dict[str, Any], tree: list[Any]) -> None:
    """An internal node and its subtree replaced by one leaf holding all their points."""
    internal = [i for i, r in enumerate(tree) if isinstance(r, list) and len(r) == 3]
    if not internal:
        return
    at = rnd.choice(internal)
    end = _dt_subtree_end(tree, at)
    below = [tree[i] for i in _dt_leaves(tree) if at <= i < end]
    points = sorted(i for r in below for i in r[2])
    tree[at:end] = [[tree[at][0], -1, points, _dt_leaf_stats(doc, points, below[0][3]),
                     below[0][4]]]


def _dt_move_point(rnd: random.Random, tree: list[Any]) -> None:
    leaves = [i for i in _dt_leaves(tree) if tree[i][2]]
    if len(_dt_leaves(tree)) < 2 or not leaves:
        return
    src = rnd.choice(leaves)
    dst = rnd.choice([i for i in _dt_leaves(tree) if i != src])
    point = tree[src][2].pop(rnd.randrange(len(tree[src][2])))
    tree[dst][2] = sorted(tree[dst][2] + [point])


def mutate_dynatree(rnd: random.Random, doc: dict[str, Any]) -> None:
    snap = doc["snapshot"]
    parts = snap["particles"]
    kind = rnd.randrange(10)
    if kind == 0:
        _set_param(rnd, doc, DT_PARAMS)
    elif kind in (1, 2) and parts:
        for _ in range(rnd.randint(1, 3)):
            _dt_grow(rnd, doc, rnd.choice(parts))
        if rnd.random() < 0.5:
            _set_param(rnd, doc, DT_PARAMS)
    elif kind == 3 and parts:
        _dt_prune(rnd, doc, rnd.choice(parts))
    elif kind == 4 and parts:
        _dt_move_point(rnd, rnd.choice(parts))
    elif kind == 5 and parts:
        action = rnd.randrange(4)
        i = rnd.randrange(len(parts))
        if action == 0:
            parts[rnd.randrange(len(parts))] = copy.deepcopy(parts[i])   # a resampled copy
        elif action == 1:
            del parts[i]
        elif action == 2:
            parts.append(copy.deepcopy(parts[i]))
        else:
            rnd.shuffle(parts)
        if rnd.random() < 0.5:
            doc["params"]["n_particles"] = len(parts)
    elif kind == 6:
        _set_counter_pair(doc, rnd.choice(LIMITS + [len(snap["y"]) + 1]))
    elif kind == 7:
        _non_finite(rnd, doc, "snapshot")
    elif kind == 8 and "classes" in doc["fitted"]:
        classes = doc["fitted"]["classes"]
        new = classes[:-1] if rnd.random() < 0.5 else classes + ["z"]
        doc["fitted"]["classes"] = new
        if rnd.random() < 0.5:
            doc["params"]["classes"] = copy.deepcopy(new)
    elif snap["y"]:
        # the store re-shaped: a row dropped or duplicated, or a target changed
        i = rnd.randrange(len(snap["y"]))
        action = rnd.randrange(3)
        if action == 0:
            del snap["X"][i]
            del snap["y"][i]
        elif action == 1:
            snap["X"].append(list(snap["X"][i]))
            snap["y"].append(snap["y"][i])
        else:
            snap["y"][i] = snap["y"][i] + 1


# -- stochastic gradient trees -----------------------------------------------------------
SGT_PARAMS: dict[str, list[Any]] = {
    "max_depth": [None, 0, 1, 2], "bins": [2, 3, 8, 64, 65], "warmup": [1, 5, 10, 11, 1000],
    "grace_period": [1, 5, 100], "delta": [0.3, 1e-7], "gamma": [0.0, 1.0],
    "lam": [0.0, 0.1], "warmup_trains": [True, False],
    "feature_ranges": [None, {"__items__": [[0, {"__tuple__": [-1.0, 1.0]}]]}],
    "nominal": [None, {"__items__": [[1, 3]]}], "test": ["two-sided", "one-sided"],
    "warmup_prediction": ["newton", "zero"],
}


def _sgt_split(rnd: random.Random, tree: dict[str, Any], bins: int) -> None:
    """A leaf turned into a numeric split: its cells go to one new child, empty cells
    (or a copy) to the other, appended at the end of the arena."""
    nodes = tree["nodes"]
    leaves = [i for i, n in enumerate(nodes) if n["feature"] < 0]
    if not leaves:
        return
    at = rnd.choice(leaves)
    leaf = nodes[at]
    d = len(leaf["used"])
    feature = rnd.randrange(max(d, 1))
    first = len(nodes)
    for side in range(2):
        child = copy.deepcopy(leaf)
        child["depth"] = leaf["depth"] + 1
        if side and rnd.random() < 0.7:
            child["cells"] = [[0, 0.0, 0.0, 0.0, 0.0, 0.0] for _ in leaf["cells"]]
        nodes.append(child)
    leaf.update(feature=feature, threshold=rnd.randrange(bins), first_child=first,
                n_children=2, used=[], cells=[])
    tree["n_splits"] += 1
    tree["depth"] = max(tree["depth"], leaf["depth"] + 1)


def mutate_sgt(rnd: random.Random, doc: dict[str, Any]) -> None:
    core = doc["snapshot"]["core"]
    kind = rnd.randrange(8)
    if kind == 0 or core is None:
        _set_param(rnd, doc, SGT_PARAMS)
        return
    trees = core["trees"]
    tree = rnd.choice(trees) if trees else None
    if kind in (1, 2) and tree is not None:
        for _ in range(rnd.randint(1, 3)):
            _sgt_split(rnd, tree, int(doc["params"].get("bins", 64)))
        if rnd.random() < 0.4:
            _set_param(rnd, doc, SGT_PARAMS)
    elif kind == 3 and tree is not None:
        # re-shaped: children moved, a split collapsed, cells moved between leaves
        nodes = tree["nodes"]
        internal = [n for n in nodes if n["feature"] >= 0]
        leaves = [n for n in nodes if n["feature"] < 0]
        action = rnd.randrange(3)
        if action == 0 and internal:
            node = rnd.choice(internal)
            node["first_child"] = rnd.randrange(len(nodes))
        elif action == 1 and internal:
            node = rnd.choice(internal)
            node.update(feature=-1, threshold=-1, first_child=-1, n_children=0,
                        used=copy.deepcopy(leaves[0]["used"]),
                        cells=copy.deepcopy(leaves[0]["cells"]))
            tree["n_splits"] -= 1
        elif len(leaves) >= 2:
            a, b = rnd.sample(leaves, 2)
            a["cells"], b["cells"] = b["cells"], a["cells"]
            c = rnd.randrange(len(a["cells"]))
            a["cells"][c][0] += 1
            a["cells"][0][0] += 1
    elif kind == 4 and trees:
        i = rnd.randrange(len(trees))
        action = rnd.randrange(3)
        if action == 0:
            trees[rnd.randrange(len(trees))] = copy.deepcopy(trees[i])
        elif action == 1:
            del trees[i]
        else:
            trees.append(copy.deepcopy(trees[i]))
    elif kind == 5:
        # counters at their limits (a leaf's cells kept adding up)
        value = rnd.choice(LIMITS)
        spot = rnd.randrange(4)
        if spot == 0:
            _set_counter_pair(doc, value)
        elif spot == 1 and tree is not None:
            tree["n_updates"] = value
        elif spot == 2:
            core["warm_rows"] = value
        elif tree is not None:
            leaf = rnd.choice([n for n in tree["nodes"] if n["feature"] < 0] or [None])
            if leaf is not None:
                cells = leaf["cells"]
                extra = value - cells[0][0]
                cells[0][0] = value
                starts = [c for c in range(1, len(cells)) if cells[c][0] > 0]
                for c in starts[:len(leaf["used"])]:
                    cells[c][0] += extra
    elif kind == 6:
        _non_finite(rnd, doc, "snapshot")
    else:
        classes = doc["fitted"].get("classes")
        if classes is not None:
            doc["fitted"]["classes"] = classes[:-1] if rnd.random() < 0.5 else classes + ["z"]
        else:
            _set_param(rnd, doc, SGT_PARAMS)


# -- ABACOC ---------------------------------------------------------------------------------
AB_PARAMS: dict[str, list[Any]] = {
    "variant": ["base", "auto", "auto_adj"], "budget": [None, 2, 3, 4, 1000],
    "mode": ["majority", "randomized"], "C": [0.5, 1.0], "d": [1.0, 3.0],
    "search": ["auto", "brute", "kdtree"], "search_threshold": [1, 2, 256], "leaf_size": [1, 2, 16],
    "metric": ["euclidean", "manhattan"], "p": [1.0, 2.0],
}


def mutate_abacoc(rnd: random.Random, doc: dict[str, Any]) -> None:
    snap = doc["snapshot"]
    balls = snap["balls"]
    kind = rnd.randrange(8)
    if kind == 0:
        _set_param(rnd, doc, AB_PARAMS)
    elif kind in (1, 2) and balls:
        i = rnd.randrange(len(balls))
        action = rnd.randrange(4)
        if action == 0:   # a copy with a fresh id: a valid cover with two equal balls
            ball = copy.deepcopy(balls[i])
            ball["id"] = snap["next_id"]
            snap["next_id"] += 1
            balls.insert(rnd.randrange(len(balls) + 1), ball)
        elif action == 1:
            balls.append(copy.deepcopy(balls[i]))
        elif action == 2:
            del balls[i]
        else:
            rnd.shuffle(balls)
            balls[0]["center"] = list(rnd.choice(balls)["center"])
    elif kind == 3:
        value = rnd.choice(LIMITS)
        spot = rnd.choice(["n_seen", "next_id", "phase", "phase_steps", "counts", "u", "m"])
        if spot in snap:
            snap[spot] = value
        elif balls:
            ball = rnd.choice(balls)
            if spot == "counts":
                k = rnd.randrange(len(ball["counts"]))
                ball["counts"][k] = value
            else:
                ball[spot] = value
    elif kind in (4, 5) and balls:
        ball = rnd.choice(balls)
        spot = rnd.choice(["center", "R", "eps"])
        value = rnd.choice(NON_FINITE + [1e308, -1e308])
        if spot == "center":
            ball["center"][rnd.randrange(len(ball["center"]))] = value
        else:
            ball[spot] = abs(value) if rnd.random() < 0.7 else value
    elif kind == 6:
        classes = doc["fitted"]["classes"]
        doc["fitted"]["classes"] = classes[:-1] if rnd.random() < 0.5 else classes + ["z"]
        if rnd.random() < 0.5:
            snap["n_classes"] = len(doc["fitted"]["classes"])
            for ball in balls:
                ball["counts"] = (ball["counts"] + [0])[:len(doc["fitted"]["classes"])]
    else:
        _non_finite(rnd, doc, "snapshot")


MUTATORS = {"dynatree": mutate_dynatree, "sgt": mutate_sgt, "abacoc": mutate_abacoc}


def case(family: str, index: int) -> tuple[Spec, dict[str, Any]]:
    """Case ``index`` of ``family``: its spec and its mutated document."""
    specs = family_specs(family)
    spec = specs[index % len(specs)]
    rnd = random.Random(f"structure-{family}-{index}")
    doc = copy.deepcopy(rnd.choice(base_documents(spec)))
    for _ in range(1 + (rnd.random() < 0.3)):
        try:
            MUTATORS[family](rnd, doc)
        except (LookupError, TypeError, ValueError, AttributeError):
            pass  # a second change that does not apply to what the first left
    return spec, doc


# -- the worker ------------------------------------------------------------------------------
def _jsonable(value: Any) -> Any:
    """Results as JSON-able data; floats by ``repr`` (bit for bit, NaN and inf too)."""
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, dict):
        return [[_jsonable(k), _jsonable(v)] for k, v in value.items()]
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "tolist"):
        return _jsonable(value.tolist())
    if isinstance(value, (int, str, bool)) or value is None:
        return value
    return repr(value)


def _attempt(results: list[Any], call: Any) -> Any:
    """Run ``call()``; record its result, or the class and message of its exception."""
    try:
        out = call()
    except (ValueError, TypeError, IndexError, KeyError, OverflowError,
            ZeroDivisionError, MemoryError) as exc:
        results.append(["raised", type(exc).__name__, str(exc)])
        return None
    results.append(["ok", _jsonable(out)])
    return out


def _floats(value: Any, shape: tuple[int, ...]) -> np.ndarray:
    """A list (of lists) of numbers as a float64 array of ``shape``; NotColumns if it is
    not one (format 2 cannot hold it)."""
    if not isinstance(value, list) or any(s < 0 or s > 2**24 for s in shape) or \
            len(value) != shape[0]:
        raise NotColumns("not a list of numbers")
    flat = [v for row in value for v in row] if len(shape) == 2 and all(
        isinstance(r, list) for r in value) else value
    if (len(shape) == 2 and not all(
            isinstance(r, list) and len(r) == shape[1] for r in value)) or not all(
            type(v) in (int, float) and abs(v) < 2**1000 for v in flat):
        raise NotColumns("not a list of numbers")
    return np.array(flat, dtype=np.float64).reshape(shape)


def _format2_version(found: Any) -> Any:
    """The header's ``version`` for a document whose ``version`` is ``found``: format 1's
    number (1, as an int, or 1.0, which both formats' checks take for their number) becomes
    format 2's in the same type; anything else stays as mutated, so that both formats
    judge the same value. ``True == 1`` in Python, but a bool is no version (both formats
    refuse it): it must not be converted into a valid one."""
    if type(found) is int and found == 1:
        return FILE_VERSION
    if type(found) is float and found == 1.0:
        return float(FILE_VERSION)
    return found


def to_format2(doc: dict[str, Any]) -> bytes:
    """The bytes of a model file of format 2 holding ``doc`` (a document of format 1), as
    ``save`` writes a model: a fitted dynamic tree's rows, targets, ``lpred`` and
    particles as arrays and columns, an SGT's tree nodes as columns; NotColumns (either
    family's) if format 2 cannot hold it exactly."""
    if not isinstance(doc, dict) or not isinstance(doc.get("class"), str) or not all(
            isinstance(doc.get(k), dict) for k in ("params", "fitted", "snapshot")):
        raise NotColumns("a document with its sections")
    fitted, snapshot = copy.deepcopy(doc["fitted"]), copy.deepcopy(doc["snapshot"])
    if doc["class"].startswith("DynamicTree") and isinstance(fitted, dict) and \
            isinstance(snapshot, dict) and type(fitted.get("n_features_in")) is int:
        d = fitted["n_features_in"]
        y = snapshot.get("y")
        n = len(y) if isinstance(y, list) else -1
        fitted["lpred"] = _floats(fitted.get("lpred"), (len(fitted.get("lpred") or []),))
        snapshot["X"] = _floats(snapshot.get("X"), (n, d))
        snapshot["y"] = _floats(y, (n,))
        particles = snapshot.get("particles")
        if not isinstance(particles, list):
            raise NotColumns("particles are a list")
        snapshot["particles"] = {RECORDS_TAG: records_to_columns(
            particles, doc["class"] == "DynamicTreeClassifier")}
    core = snapshot.get("core") if isinstance(snapshot, dict) else None
    if doc["class"].startswith("SGT") and isinstance(core, dict) and isinstance(
            core.get("trees"), list) and type(fitted.get("n_features_in")) is int:
        per_leaf = doc["params"].get("quantization") == "leaf"
        trees = []
        for tree in core["trees"]:
            if not isinstance(tree, dict) or "nodes" not in tree:
                raise NotColumns("a tree holds nodes")
            trees.append({**tree, "nodes": {NODES_TAG: nodes_to_columns(
                tree["nodes"], fitted["n_features_in"], per_leaf)}})
        core["trees"] = trees
    if doc["class"].startswith("ABACOC") and isinstance(snapshot, dict):
        d, c = snapshot.get("n_features"), snapshot.get("n_classes")
        if type(d) is not int or type(c) is not int or not 0 <= d < 2**20 or \
                not 0 <= c < 2**20:
            raise ABACOCNotColumns("widths")
        snapshot["balls"] = {BALLS_TAG: balls_to_columns(snapshot.get("balls"), d, c)}
    table = ArrayTable()
    header = {k: v for k, v in doc.items() if k not in ("fitted", "snapshot")}
    header.update(version=_format2_version(doc.get("version")),
                  fitted=pack(fitted, table),
                  snapshot=pack(snapshot, table))
    return write_container(header, table)


FORMAT2_UNREPRESENTABLE = (NotColumns, SGTNotColumns, ABACOCNotColumns, TypeError)
"""What :func:`to_format2` raises for a document format 2 cannot hold exactly (a
family's ``NotColumns``, or a value the container has no type for)."""


def run_case(family: str, index: int, backend: str, tmp: str, fmt: int = 1) -> str:
    """The outcome of one case in one backend, read from format ``fmt``, as a short
    string."""
    spec, doc = case(family, index)
    try:
        if fmt == 2:
            try:
                data = to_format2(doc)
            except FORMAT2_UNREPRESENTABLE:
                return "unrepresentable"
            case_path = os.path.join(tmp, f"case-{index}-v2.dwm")
            with open(case_path, "wb") as out:
                out.write(data)
            model = load_into(case_path, backend)
        else:
            model = from_document(doc, backend)
    except StateFormatError as exc:
        return "refused " + hashlib.sha256(str(exc).encode()).hexdigest()[:16] + " " + \
            str(exc)[:120].replace("\n", " ")
    except Exception as exc:  # not a StateFormatError: a failure of the checks
        return f"load-error {type(exc).__name__}: {str(exc)[:200]!r}"
    results: list[Any] = [["loaded"]]
    probe = stream(spec, 4, seed=11 + index % 5)
    for x, _ in probe[:2]:
        for call in prediction_calls(spec):
            _attempt(results, lambda c=call, r=x: c(model, r))
    for x, y in probe[:2]:
        _attempt(results, lambda r=x, t=y: model.learn_one(r, t))
    if spec.kind != "mil":
        rows = [x for x, _ in probe[2:]]
        targets = [y for _, y in probe[2:]]
        _attempt(results, lambda: model.partial_fit(rows, targets))
    else:
        for x, y in probe[2:]:
            _attempt(results, lambda r=x, t=y: model.learn_one(r, t))
    for x, _ in probe[:1]:
        for call in prediction_calls(spec):
            _attempt(results, lambda c=call, r=x: c(model, r))
    _attempt(results, model.snapshot)
    path = os.path.join(tmp, f"case-{index}.dwm")
    if _attempt(results, lambda: model.save(path)) is None and results[-1][0] == "ok":
        loader = importlib.import_module(backend)
        again = _attempt(results, lambda: loader.load(path))
        if again is not None:
            _attempt(results, again.snapshot)
            x, y = probe[0]
            _attempt(results, lambda: again.learn_one(x, y))
            _attempt(results, again.snapshot)
    text = json.dumps(results, sort_keys=True)
    return "ok " + hashlib.sha256(text.encode()).hexdigest()[:32]


def main(argv: list[str]) -> int:
    family, first, count, backend = argv[0], int(argv[1]), int(argv[2]), argv[3]
    fmt = int(argv[4]) if len(argv) > 4 else 1
    importlib.import_module(backend)
    with tempfile.TemporaryDirectory() as tmp:
        for index in range(first, first + count):
            print(f"start {index}", flush=True)
            print(f"done {index} {run_case(family, index, backend, tmp, fmt)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

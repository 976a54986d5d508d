"""Dynamic-tree rules pinned from both sides, in both backends (issue 47 item 8).

Lockstep cannot see a rule changed alike in the Python and the C. Each test here states a
tolerance, bound or cap of the dynamic trees and checks it at the limit and one step past
it (or against a quantity computed by another route), on states built by hand or on models
whose every particle is the root leaf (``nstart`` beyond the stream), so no test depends
on the particles' random draws:

- the linear leaf's pivot tolerance is relative to the column's *raw* sum of squares
  ``G_jj + n xbar_j^2`` ([DT-SPEC §3.2] step 2), not to the centred ``G_jj``;
- a loaded linear leaf's ``G^-1`` is positive semi-definite within ``1e-9`` times *its
  own* largest entry (the column check of format 2 judges each leaf, not all leaves);
- a loaded constant leaf's sums ``sum y`` and ``sum y^2`` match its points within ``1e-6``
  times ``sum |y| + 1`` (resp. ``sum y^2 + 1``), in format 1 and format 2;
- the one-row calls accept values of magnitude exactly ``MAX_MAGNITUDE = 1e150`` and refuse
  the next double (docs/guarantees.md: "magnitude at most 1e150").

The slope prior's predictive on a leaf with ``b = 0`` is checked against the data-space
oracle in ``test_oracle_slope_prior.py``; the ABACOC probe count in
``tests/abacoc/test_search_probe_count.py``; the loader's depth cap in
``tests/common/test_loader_depth_cap.py``.
"""

from __future__ import annotations

import copy
import math
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from _structural_fuzz import to_format2

from _compare import assert_snapshot_equal
from reference.dynatree.inputs import MAX_MAGNITUDE
from reference.persist import from_document, load_into, to_document
from reference.state import StateFormatError

pytestmark = pytest.mark.dynatree

BACKENDS = ("reference", "fast")


def _load(doc: dict[str, Any], backend: str, fmt: int, tmp_path: Path) -> Any:
    """The model of ``doc`` loaded into ``backend`` from a file of format ``fmt``."""
    if fmt == 1:
        return from_document(copy.deepcopy(doc), backend)
    path = tmp_path / f"case-{backend}.dwm"
    path.write_bytes(to_format2(doc))
    return load_into(path, backend)


def _verdicts(doc: dict[str, Any], fmt: int, tmp_path: Path, need: str) -> list[str]:
    """``"ok"`` or the refusal's message, per backend; a refusal must name ``need``."""
    out = []
    for backend in BACKENDS:
        try:
            _load(doc, backend, fmt, tmp_path)
            out.append("ok")
        except StateFormatError as exc:
            assert need in str(exc), str(exc)
            out.append("refused")
    return out


# ---------------------------------------------------------------------------------------
# [DT-SPEC §3.2] step 2: the pivot tolerance is relative to the raw sum of squares
# ---------------------------------------------------------------------------------------

def _spread_for(ratio: float) -> float:
    """``u`` such that ``x = (1 - u, 1, 1 + u)`` has centred / raw sum of squares ``ratio``:
    centred ``2 u^2``, raw ``2 u^2 + 3``."""
    centred = 3.0 * ratio / (1.0 - ratio)
    return math.sqrt(centred / 2.0)


@pytest.mark.parametrize("ratio", [0.9e-9, 1.1e-9, 1e-6, 1e-12])
def test_pivot_tolerance_is_relative_to_the_raw_sum_of_squares(backend: ModuleType,
                                                               ratio: float) -> None:
    """One regressor near 1 with a tiny spread, implicit intercept: the centred ``G`` is
    ``2 u^2``, the raw sum of squares ``2 u^2 + 3``. The regressor is kept iff the ratio,
    computed here exactly from the stored doubles (fractions), exceeds ``1e-9``; with
    the centred sum as the scale it would always be kept. Kept, the leaf is the
    least-squares line (``numpy.polyfit``) with ``nu0 + n - 2`` degrees of freedom;
    dropped, the constant leaf (the mean, ``nu0 + n - 1``)."""
    u = _spread_for(ratio)
    x = np.array([1.0 - u, 1.0, 1.0 + u])
    y = 2.0 + 5.0 * (x - 1.0) / u          # the line is clear at any spread
    exact = [Fraction(v) for v in x]
    mean = sum(exact, Fraction(0)) / 3
    centred = sum(((v - mean) ** 2 for v in exact), Fraction(0))
    raw = sum((v * v for v in exact), Fraction(0))
    kept = centred > Fraction(1, 10**9) * raw
    assert kept == (ratio > 1e-9)           # the spreads land on the side they aim at
    nu0 = 3.0
    model = backend.DynamicTreeRegressor(leaf="linear", intercept="implicit", n_particles=1,
                                         nstart=10_000, nu0=nu0, s20=0.2)
    model.partial_fit(x[:, None], y)
    probes = np.array([[1.0 - 3.0 * u], [1.0 + 2.0 * u]])
    dist = model.predict_dist(probes)
    assert np.all(dist["df"] == nu0 + 3 - 1 - int(kept))
    if kept:
        slope, icpt = np.polyfit(x, y, 1)
        np.testing.assert_allclose(dist["mean"], slope * probes[:, 0] + icpt, rtol=1e-6)
    else:
        np.testing.assert_allclose(dist["mean"], [y.mean(), y.mean()], rtol=1e-12)


# ---------------------------------------------------------------------------------------
# Loaded states: G^-1 semi-definite per leaf; constant leaves' sums within 1e-6
# ---------------------------------------------------------------------------------------

def _linear_doc() -> dict[str, Any]:
    """Two particles, each the root leaf of a 2-regressor linear leaf."""
    import reference

    model = reference.DynamicTreeRegressor(leaf="linear", intercept="none", n_particles=2,
                                           nstart=10_000)
    model.partial_fit([[0.1, 0.3], [0.5, 0.2], [0.9, 0.7], [0.4, 0.8]], [1.0, 2.0, 4.0, 3.0])
    return to_document(model)


def _set_ginv(doc: dict[str, Any], particle: int, ginv: list[float]) -> None:
    stats = doc["snapshot"]["particles"][particle][0][3]
    p = 2
    at = 4 + p + 2 * p * p + 2 * p
    assert len(stats) == at + p * p + p + 2
    stats[at:at + p * p] = ginv


@pytest.mark.parametrize("fmt", [1, 2])
def test_g_inverse_tolerance_is_taken_per_leaf(fmt: int, tmp_path: Path) -> None:
    """Leaf 1's ``G^-1 = diag(1, -t)`` (eigenvalues exactly 1 and ``-t``) beside leaf 0's
    ``diag(1e6, 1e6)``: accepted at ``t = 1e-9`` (= 1e-9 times its own largest entry),
    refused at the next double, in both backends and formats. Measured against the
    largest entry over all leaves (1e6) the tolerance would be 1e-3 and both would load."""
    for t, verdict in ((1e-9, "ok"), (float(np.nextafter(1e-9, 1.0)), "refused")):
        doc = _linear_doc()
        _set_ginv(doc, 0, [1e6, 0.0, 0.0, 1e6])
        _set_ginv(doc, 1, [1.0, 0.0, 0.0, -t])
        assert _verdicts(doc, fmt, tmp_path, "positive semi-definite") == [verdict] * 2


@pytest.mark.parametrize("fmt", [1, 2])
def test_g_inverse_tolerance_scales_with_the_leaf(fmt: int, tmp_path: Path) -> None:
    """The same boundary for a leaf whose entries are 1e6: ``-1e-3`` passes, the next
    double does not (the tolerance is relative, not an absolute 1e-9)."""
    for t, verdict in ((1e-3, "ok"), (float(np.nextafter(1e-3, 1.0)), "refused")):
        doc = _linear_doc()
        _set_ginv(doc, 1, [1e6, 0.0, 0.0, -t])
        assert _verdicts(doc, fmt, tmp_path, "positive semi-definite") == [verdict] * 2


def _constant_doc() -> tuple[dict[str, Any], list[float]]:
    """One particle, the root constant leaf of targets whose sums are exact doubles."""
    import reference

    y = [1.0, -2.0, 3.0, 4.0]
    model = reference.DynamicTreeRegressor(n_particles=1, nstart=10_000)
    model.partial_fit([[0.1], [0.5], [0.9], [0.4]], y)
    return to_document(model), y


def _edge(total: float, scale: float) -> float:
    """The largest double ``v >= total`` with ``|v - total| <= 1e-6 * scale`` (walked
    from ``total + 1e-6 * scale`` a double at a time)."""
    v = total + 1e-6 * scale
    while abs(v - total) > 1e-6 * scale:
        v = float(np.nextafter(v, -math.inf))
    while abs(float(np.nextafter(v, math.inf)) - total) <= 1e-6 * scale:
        v = float(np.nextafter(v, math.inf))
    return v


@pytest.mark.parametrize("fmt", [1, 2])
@pytest.mark.parametrize("which", [1, 2])
def test_constant_leaf_sums_tolerance_is_one_in_a_million(fmt: int, which: int,
                                                          tmp_path: Path) -> None:
    """``sum y = 6`` (scale ``sum |y| + 1 = 11``) and ``sum y^2 = 30`` (scale 31): a
    stored sum ``1e-6`` times the scale away loads, the next double is refused, in both
    backends and formats; the loaded model keeps the stored sum."""
    doc, y = _constant_doc()
    stats = doc["snapshot"]["particles"][0][0][3]
    total = math.fsum(y) if which == 1 else math.fsum(v * v for v in y)
    scale = (math.fsum(abs(v) for v in y) if which == 1 else total) + 1.0
    assert stats[which] == total and (total, scale) in ((6.0, 11.0), (30.0, 31.0))
    edge = _edge(total, scale)
    assert 0.999e-6 * scale < edge - total <= 1e-6 * scale
    for value, verdict in ((edge, "ok"), (float(np.nextafter(edge, math.inf)), "refused")):
        case = copy.deepcopy(doc)
        case["snapshot"]["particles"][0][0][3][which] = value
        assert _verdicts(case, fmt, tmp_path, "differs from the sum") == [verdict] * 2
        if verdict == "ok":
            for backend in BACKENDS:
                loaded = _load(case, backend, fmt, tmp_path).snapshot()
                assert loaded["particles"][0][0][3][which] == value
    # and the same distance below the sum
    case = copy.deepcopy(doc)
    case["snapshot"]["particles"][0][0][3][which] = 2.0 * total - edge
    assert _verdicts(case, fmt, tmp_path, "differs from the sum") == ["ok"] * 2


# ---------------------------------------------------------------------------------------
# The one-row calls: magnitude at most 1e150 (docs/guarantees.md)
# ---------------------------------------------------------------------------------------

PAST = float(np.nextafter(MAX_MAGNITUDE, math.inf))


def _row_model(pkg: ModuleType, classifier: bool = False) -> Any:
    if classifier:
        model = pkg.DynamicTreeClassifier(n_particles=4, seed=0)
        model.partial_fit([[0.1, 0.2], [0.4, 0.3], [0.8, 0.9]], [0, 1, 0])
        return model
    model = pkg.DynamicTreeRegressor(n_particles=4, seed=0)
    model.partial_fit([[0.1, 0.2], [0.4, 0.3], [0.8, 0.9]], [1.0, 2.0, 3.0])
    return model


def test_magnitude_bound_constant_and_its_next_double() -> None:
    assert MAX_MAGNITUDE == 1e150 and PAST > 1e150
    assert float(np.nextafter(PAST, 0.0)) == 1e150


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_one_row_learning_accepts_the_bound_and_refuses_the_next_double(
        both: tuple[ModuleType, ModuleType], sign: float) -> None:
    """``learn_one`` with a feature value or a target of magnitude exactly 1e150 learns
    (the stored row holds it, predictions stay finite); the next double is refused with
    the bound's ValueError and the model unchanged; both backends alike."""
    snaps = []
    for pkg in both:
        for x, target in (([sign * MAX_MAGNITUDE, 0.5], 1.0), ([0.5, 0.5], sign * 1e150)):
            model = _row_model(pkg)
            model.learn_one(x, target)
            snap = model.snapshot()
            assert snap["X"][-1] == x and snap["y"][-1] == target
            assert math.isfinite(model.predict_one([0.5, 0.5]))
            snaps.append(snap)
        for x, target in (([sign * PAST, 0.5], 1.0), ([0.5, 0.5], sign * PAST)):
            model = _row_model(pkg)
            before = model.snapshot()
            with pytest.raises(ValueError, match="1e\\+150"):
                model.learn_one(x, target)
            assert_snapshot_equal(before, model.snapshot())
        clf = _row_model(pkg, classifier=True)
        clf.learn_one([sign * MAX_MAGNITUDE, 0.5], 1)
        assert clf.snapshot()["X"][-1] == [sign * MAX_MAGNITUDE, 0.5]
        before = clf.snapshot()
        with pytest.raises(ValueError, match="1e\\+150"):
            clf.learn_one([sign * PAST, 0.5], 1)
        assert_snapshot_equal(before, clf.snapshot())
    for a, b in zip(snaps[:2], snaps[2:], strict=True):
        assert_snapshot_equal(a, b)


@pytest.mark.parametrize("classifier", [False, True])
def test_one_row_predictions_accept_the_bound_and_refuse_the_next_double(
        both: tuple[ModuleType, ModuleType], classifier: bool) -> None:
    """``predict_one`` (and ``predict_proba_one`` of the classifier) at a feature value of
    exactly ±1e150 answers, alike in both backends; at the next double it raises the
    bound's ValueError."""
    answers = []
    for pkg in both:
        model = _row_model(pkg, classifier)
        calls = [model.predict_one]
        if classifier:
            calls.append(model.predict_proba_one)
        for call in calls:
            for sign in (1.0, -1.0):
                answers.append(call([sign * MAX_MAGNITUDE, 0.5]))
                with pytest.raises(ValueError, match="1e\\+150"):
                    call([sign * PAST, 0.5])
    half = len(answers) // 2
    assert answers[:half] == answers[half:]


@pytest.mark.parametrize("where", ["feature", "target"])
def test_batches_accept_the_bound_and_refuse_the_next_double(
        both: tuple[ModuleType, ModuleType], where: str) -> None:
    """The batch paths (a list batch, a float64 array batch): a feature value or target of
    exactly 1e150 learns, the next double is refused with the model unchanged.
    ``test_magnitude_bounds.py`` checks values at the bound and ``1.0000001e150``; this
    pins the double just past it."""
    for pkg in both:
        for value, ok in ((MAX_MAGNITUDE, True), (PAST, False)):
            rows = [[0.5, 0.5], [0.3, 0.7]]
            targets = [1.0, 2.0]
            if where == "feature":
                rows[1][0] = value
            else:
                targets[1] = value
            for batch in ((rows, targets), (np.array(rows), np.array(targets))):
                model = _row_model(pkg)
                before = model.snapshot()
                if ok:
                    model.partial_fit(*batch)
                    assert model.n_seen_ == 5
                    continue
                with pytest.raises(ValueError, match="1e\\+150"):
                    model.partial_fit(*batch)
                assert_snapshot_equal(before, model.snapshot())


# ---------------------------------------------------------------------------------------
# Loaded states: splits only after more than nstart rows; no more stored rows than learned
# ---------------------------------------------------------------------------------------

def _grown_doc() -> dict[str, Any]:
    """A model past ``nstart`` on a step function: some particle has split its root
    (checked; 120 rows of a clear step make a split all but certain whatever the draws)."""
    import reference

    rng = np.random.default_rng(5)
    X = rng.uniform(size=(120, 1))
    model = reference.DynamicTreeRegressor(n_particles=10, seed=2)
    model.partial_fit(X, np.where(X[:, 0] > 0.5, 5.0, 0.0) + 0.1 * rng.normal(size=120))
    doc = to_document(model)
    assert any(particle[0][1] >= 0 for particle in doc["snapshot"]["particles"]), \
        "no particle split its root"
    return doc


@pytest.mark.parametrize("fmt", [1, 2])
def test_splits_are_allowed_only_after_more_rows_than_nstart(fmt: int,
                                                             tmp_path: Path) -> None:
    """``nstart = n_seen - 1``: the trees may have split, the state loads; ``nstart =
    n_seen``: every row went to the root, a split is refused, in both backends."""
    base = _grown_doc()
    n_seen = base["fitted"]["n_seen"]
    for nstart, verdict in ((n_seen - 1, "ok"), (n_seen, "refused")):
        doc = copy.deepcopy(base)
        doc["params"]["nstart"] = nstart
        assert _verdicts(doc, fmt, tmp_path, "nstart") == [verdict] * 2


@pytest.mark.parametrize("fmt", [1, 2])
def test_a_state_stores_at_most_the_rows_it_learned(fmt: int, tmp_path: Path) -> None:
    """Three stored rows: ``n_seen = 3`` loads, ``n_seen = 2`` (``lpred`` cut to match) is
    refused for the rows, in both backends."""
    doc, _ = _constant_doc()
    doc["snapshot"]["X"] = doc["snapshot"]["X"][:3]
    doc["snapshot"]["y"] = doc["snapshot"]["y"][:3]
    doc["snapshot"]["particles"][0][0][2] = [0, 1, 2]
    stats = doc["snapshot"]["particles"][0][0][3]
    stats[1], stats[2] = 2.0, 14.0          # the sums of 1, -2, 3 and of their squares
    for n_seen, verdict in ((3, "ok"), (2, "refused")):
        case = copy.deepcopy(doc)
        case["fitted"]["n_seen"] = case["snapshot"]["n_seen"] = n_seen
        case["fitted"]["lpred"] = case["fitted"]["lpred"][:n_seen]
        assert _verdicts(case, fmt, tmp_path, "learned") == [verdict] * 2


# ---------------------------------------------------------------------------------------
# Speed-only switches: both sides give the same doubles
# ---------------------------------------------------------------------------------------

RECT = [(0.0, 1.0), (0.0, 1.0)]


@pytest.mark.parametrize("n_rows", [15, 16])
def test_alc_gives_the_same_doubles_on_either_side_of_the_per_leaf_switch(
        both: tuple[ModuleType, ModuleType], n_rows: int) -> None:
    """``dt_model_alc`` scores fewer than 16 rows point by point and 16 or more with the
    per-leaf preparations (speed only; once built for a ``rect`` they also serve later
    calls): at 15 rows the first route, at 16 the second, and each gives the reference's
    scores bit for bit, equal to the scores of the same rows one call at a time (over a
    fixed ``rect`` a row's score does not depend on the batch). The switch itself cannot
    be pinned by a result: moving it changes no number."""
    rng = np.random.default_rng(8)
    X = rng.uniform(size=(40, 2))
    y = np.sin(4.0 * X[:, 0]) + 0.1 * rng.normal(size=40)
    probes = rng.uniform(size=(n_rows, 2))
    scores = []
    for pkg in both:
        model = pkg.DynamicTreeRegressor(n_particles=6, seed=1)
        model.partial_fit(X, y)
        batch = np.asarray(model.alc(probes, rect=RECT))
        one = np.concatenate([np.asarray(model.alc(probes[i:i + 1], rect=RECT))
                              for i in range(n_rows)])
        np.testing.assert_array_equal(batch, one)
        scores.append(batch)
    np.testing.assert_array_equal(scores[0], scores[1])


@pytest.mark.parametrize("fmt", [1, 2])
def test_a_leaf_of_a_grown_tree_holds_at_least_min_leaf_points(fmt: int,
                                                               tmp_path: Path) -> None:
    """``min_leaf`` set to the fewest points a leaf of a split tree holds (counted here from
    the records): the state loads; one more, and that leaf is refused, in both backends
    (``nstart`` kept below ``n_seen`` so the splits themselves are legal)."""
    base = _grown_doc()
    fewest = min(len(record[2]) for particle in base["snapshot"]["particles"]
                 if particle[0][1] >= 0 for record in particle if record[1] < 0)
    for min_leaf, verdict in ((fewest, "ok"), (fewest + 1, "refused")):
        doc = copy.deepcopy(base)
        doc["params"]["min_leaf"] = min_leaf
        doc["params"]["nstart"] = min(doc["fitted"]["n_seen"] - 1, 1_000_000)
        assert _verdicts(doc, fmt, tmp_path, "min_leaf") == [verdict] * 2

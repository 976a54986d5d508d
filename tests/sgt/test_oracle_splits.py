"""Oracle: SGT's split scores, binning and transfer functions, computed from the raw points.

A leaf scores a candidate update by the loss change ``L_i = g_i Δ + h_i Δ²/2`` that each
of its instances would see [GPF19, Eq. 7, Eq. 18]. The code never stores the instances: it
keeps Welford cells and derives the moments of ``L`` from them. Here the instances are
kept and the same quantities are computed directly with numpy:

- the mean and variance (``ddof=1``) of ``L`` over a cell [GPF19, Eq. 18];
- the pooled mean and variance over the children of a split, each child with its own
  Newton step ``Δ_j = -ḡ_j/(h̄_j + λ)`` ([SGT-SPEC §7.3]), and a Chan merge of two cells
  against the cell of all their pairs ([SGT-SPEC §4.3]);
- the best numeric split by brute force over every threshold (children recomputed from
  the points, score ``mean + γ·2/n``, [GPF19, Eq. 5]) and a nominal split's penalty
  ``γ·K/n``;
- the equal-width bin of a value against ``numpy.searchsorted`` on ``linspace`` edges
  ([GPF19, §3.2]);
- the transfer functions against scipy: the logistic ``expit`` [GPF19, Eq. 26] and the
  committee's softmax with the last score fixed at 0 [GPF19, Eq. 19].

Both backends' kernels are checked where the C exposes them (cells, pooling, merge,
penalty, binning, transfer); the candidate search runs on the Python kernels.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from reference.sgt import grad_hess as gh
from reference.sgt import losses, quantizer, splits

scipy_special = pytest.importorskip("scipy.special")

LAM = 0.3


def _points(seed: int, n: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.column_stack([rng.normal(0.4, 1.3, size=n), rng.uniform(0.1, 1.5, size=n)])


def _py_cell(pairs: np.ndarray) -> gh.GradHessStats:
    cell = gh.GradHessStats()
    for g, h in pairs.tolist():
        cell.add(g, h)
    return cell


def _loss_changes(pairs: np.ndarray, delta: float) -> np.ndarray:
    return pairs[:, 0] * delta + 0.5 * pairs[:, 1] * delta * delta


def _newton(pairs: np.ndarray) -> float:
    return float(-pairs[:, 0].mean() / (pairs[:, 1].mean() + LAM))


@pytest.fixture(params=["python", "c"])
def kernels(request: pytest.FixtureRequest) -> str:
    if request.param == "c":
        request.getfixturevalue("lib")
    return str(request.param)


def _moments(kind: str, pairs: np.ndarray, delta: float) -> tuple[float, float]:
    if kind == "python":
        return gh.loss_change_moments(_py_cell(pairs), delta)
    from fast._ffi import ffi, lib

    cell = ffi.new("sgt_stats *")
    for g, h in pairs.tolist():
        lib.sgt_stats_add(cell, g, h)
    mean, var = ffi.new("double *"), ffi.new("double *")
    lib.sgt_loss_change_moments(cell, delta, mean, var)
    return mean[0], var[0]


@pytest.mark.parametrize("delta", [-1.7, 0.35, 2.5])
def test_loss_change_moments_are_the_sample_moments_of_the_loss_change(kernels: str,
                                                                       delta: float) -> None:
    pairs = _points(1, 40)
    changes = _loss_changes(pairs, delta)
    mean, variance = _moments(kernels, pairs, delta)
    assert mean == pytest.approx(changes.mean(), rel=1e-12)
    assert variance == pytest.approx(changes.var(ddof=1), rel=1e-9)


def _pool(kind: str, children: Sequence[np.ndarray]) -> tuple[list[float], float, float]:
    if kind == "python":
        return splits.pool_children([_py_cell(c) for c in children], LAM)
    from fast._ffi import ffi, lib

    k = len(children)
    cells = ffi.new("sgt_stats[]", k)
    for j, pairs in enumerate(children):
        for g, h in pairs.tolist():
            lib.sgt_stats_add(cells + j, g, h)
    deltas, m_mean, m_var = (ffi.new("double[]", k) for _ in range(3))
    mean, var = ffi.new("double *"), ffi.new("double *")
    lib.sgt_pool_children(cells, k, LAM, deltas, m_mean, m_var, mean, var)
    return list(ffi.unpack(deltas, k)), mean[0], var[0]


def test_pooled_moments_are_those_of_every_childs_loss_changes(kernels: str) -> None:
    pts = _points(2, 60)
    children = [pts[:7], pts[7:7], pts[7:31], pts[31:]]       # one child empty
    deltas, mean, variance = _pool(kernels, children)
    changes = np.concatenate([_loss_changes(c, _newton(c)) for c in children if len(c)])
    for got, child in zip(deltas, children, strict=True):
        assert got == pytest.approx(_newton(child) if len(child) else 0.0, rel=1e-12, abs=0.0)
    assert mean == pytest.approx(changes.mean(), rel=1e-12)
    assert variance == pytest.approx(changes.var(ddof=1), rel=1e-9)


def test_merged_cell_equals_the_cell_of_all_pairs(kernels: str) -> None:
    a, b = _points(3, 9), _points(4, 23)
    both = np.vstack([a, b])
    if kernels == "python":
        out = gh.merge(_py_cell(a), _py_cell(b))
        got = (out.mean_g(), out.var_g(), out.var_h(), out.cov_gh())
    else:
        from fast._ffi import ffi, lib

        ca, cb, co = ffi.new("sgt_stats *"), ffi.new("sgt_stats *"), ffi.new("sgt_stats *")
        for cell, pairs in ((ca, a), (cb, b)):
            for g, h in pairs.tolist():
                lib.sgt_stats_add(cell, g, h)
        lib.sgt_merge(ca, cb, co)
        got = (lib.sgt_stats_mean_g(co), lib.sgt_stats_var_g(co), lib.sgt_stats_var_h(co),
               lib.sgt_stats_cov_gh(co))
    cov = np.cov(both[:, 0], both[:, 1], ddof=1)
    np.testing.assert_allclose(got, (both[:, 0].mean(), cov[0, 0], cov[1, 1], cov[0, 1]),
                               rtol=1e-10)


def test_split_penalty_is_gamma_times_children_over_leaf_count(kernels: str) -> None:
    if kernels == "python":
        penalty: Callable[[float, int, int], float] = splits.penalty
    else:
        from fast._ffi import lib

        penalty = lib.sgt_penalty
    for gamma, children, n in ((1.0, 2, 200), (0.25, 5, 37), (3.0, 3, 1)):
        assert penalty(gamma, children, n) == pytest.approx(gamma * children / n, rel=1e-15)


def _binned(seed: int, n: int, bins: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, bins, size=n)
    codes[codes == 3] = 2                      # an empty bin inside the range
    pairs = _points(seed + 10, n)
    pairs[:, 0] += 0.8 * (codes > bins // 2)   # a real signal at the middle
    return codes, pairs


@pytest.mark.parametrize("gamma", [0.0, 1.0])
def test_best_numeric_split_is_the_brute_force_minimum_over_thresholds(gamma: float) -> None:
    bins, n = 8, 300
    codes, pairs = _binned(5, n, bins)
    cells = [_py_cell(pairs[codes == b]) for b in range(bins)]
    got = splits.numeric_candidate(cells, 0, LAM, gamma, n)
    best: tuple[float, int, list[float], float] | None = None
    for k in range(bins - 1):
        if k > 0 and not (codes == k).any():
            continue                           # same children as threshold k - 1
        left, right = pairs[codes <= k], pairs[codes > k]
        changes = np.concatenate([_loss_changes(c, _newton(c)) for c in (left, right)
                                  if len(c)])
        score = float(changes.mean()) + gamma * 2.0 / n
        if best is None or score < best[0]:
            best = (score, k, [_newton(left), _newton(right)], float(changes.var(ddof=1)))
    assert best is not None
    assert got.threshold == best[1]
    assert got.mean == pytest.approx(best[0], rel=1e-10)
    np.testing.assert_allclose(got.deltas, best[2], rtol=1e-12)
    assert got.variance == pytest.approx(best[3], rel=1e-9)


def test_nominal_split_pays_gamma_per_child() -> None:
    codes, pairs = _binned(6, 120, 4)
    cells = [_py_cell(pairs[codes == b]) for b in range(4)]
    got = splits.nominal_candidate(cells, 2, LAM, 0.5, 120)
    changes = np.concatenate([_loss_changes(pairs[codes == b], _newton(pairs[codes == b]))
                              for b in range(4) if (codes == b).any()])
    assert got.mean == pytest.approx(float(changes.mean()) + 0.5 * 4 / 120, rel=1e-10)


def _bin(kind: str) -> Callable[[float, float, float, int], int]:
    if kind == "python":
        return quantizer.bin_index
    from fast._ffi import lib

    return lib.sgt_bin_index  # type: ignore[no-any-return]


@pytest.mark.parametrize(("lo", "hi", "bins"), [(0.0, 1.0, 64), (-3.0, 5.0, 7), (2.0, 2.5, 2)])
def test_bin_is_the_equal_width_interval_holding_the_value(kernels: str, lo: float, hi: float,
                                                           bins: int) -> None:
    bin_index = _bin(kernels)
    rng = np.random.default_rng(7)
    values = np.concatenate([rng.uniform(lo - 0.2 * (hi - lo), hi + 0.2 * (hi - lo), 500),
                             [lo, hi]])
    edges = np.linspace(lo, hi, bins + 1)
    expected = np.clip(np.searchsorted(edges, values, side="right") - 1, 0, bins - 1)
    for v, e in zip(values.tolist(), expected.tolist(), strict=True):
        if np.isclose(v, edges[1:-1], rtol=0.0, atol=1e-9 * (hi - lo)).any():
            continue                                   # rounding may go either way
        assert bin_index(v, lo, hi, bins) == e, v


def _transfer(kind: str) -> tuple[Callable[[float], float], Callable[[list[float]], Any]]:
    if kind == "python":
        return losses.sigmoid, losses.softmax
    from fast._ffi import ffi, lib

    def softmax(raws: list[float]) -> list[float]:
        probs = ffi.new("double[]", len(raws) + 1)
        lib.sgt_softmax(ffi.new("double[]", raws), len(raws), probs)
        return list(ffi.unpack(probs, len(raws) + 1))

    return lib.sgt_sigmoid, softmax


def test_transfer_functions_are_the_logistic_and_the_softmax(kernels: str) -> None:
    sigmoid, softmax = _transfer(kernels)
    for raw in np.linspace(-40.0, 40.0, 81).tolist():
        assert sigmoid(raw) == pytest.approx(float(scipy_special.expit(raw)), rel=1e-13)
    for raws in ([0.3], [2.0, -1.0, 0.5], [-800.0, 700.0, 1.0, -2.0]):
        np.testing.assert_allclose(softmax(raws), scipy_special.softmax(raws + [0.0]),
                                   rtol=1e-12, atol=1e-300)

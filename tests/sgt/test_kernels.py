"""Per-function differential tests: each SGT C kernel against its Python twin (exact),
and the prefix/suffix merges against direct computation."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from reference.sgt import grad_hess, losses, splits
from reference.sgt.grad_hess import GradHessStats, merge
from reference.sgt.quantizer import bin_index

SEEDS = range(12)


def random_pairs(rng: np.random.Generator, n: int) -> list[tuple[float, float]]:
    scale = 10.0 ** rng.integers(-3, 4)
    return [(float(rng.normal() * scale), float(abs(rng.normal()) + 0.01)) for _ in range(n)]


def c_cell(ffi: Any, lib: Any, pairs: list[tuple[float, float]]) -> Any:
    cell = ffi.new("sgt_stats *")
    for g, h in pairs:
        lib.sgt_stats_add(cell, g, h)
    return cell


def as_list(cell: Any) -> list[Any]:
    return [cell.n, cell.sum_g, cell.sum_h, cell.m_g, cell.m_h, cell.c]


def py_cell(pairs: list[tuple[float, float]]) -> GradHessStats:
    cell = GradHessStats()
    for g, h in pairs:
        cell.add(g, h)
    return cell


@pytest.mark.parametrize("seed", SEEDS)
def test_stats_add_merge_delta_moments(lib: Any, seed: int) -> None:
    from fast._ffi import ffi

    rng = np.random.default_rng(seed)
    pa = random_pairs(rng, int(rng.integers(0, 30)))
    pb = random_pairs(rng, int(rng.integers(0, 30)))
    a, b = py_cell(pa), py_cell(pb)
    ca, cb = c_cell(ffi, lib, pa), c_cell(ffi, lib, pb)
    assert as_list(ca) == a.as_list() and as_list(cb) == b.as_list()
    out = ffi.new("sgt_stats *")
    lib.sgt_merge(ca, cb, out)
    assert as_list(out) == merge(a, b).as_list()
    lam = float(rng.uniform(0, 1))
    delta = grad_hess.delta_prediction(a, lam)
    assert lib.sgt_delta_prediction(ca, lam) == delta
    mean, var = ffi.new("double *"), ffi.new("double *")
    lib.sgt_loss_change_moments(ca, delta, mean, var)
    assert (mean[0], var[0]) == grad_hess.loss_change_moments(a, delta)
    for name in ("mean_g", "mean_h", "var_g", "var_h", "cov_gh"):
        assert getattr(lib, f"sgt_stats_{name}")(ca) == getattr(a, name)()


@pytest.mark.parametrize("seed", SEEDS)
def test_pool_children_and_candidates(lib: Any, seed: int) -> None:
    from fast._ffi import ffi

    rng = np.random.default_rng(100 + seed)
    k = int(rng.integers(2, 9))
    groups = [random_pairs(rng, int(rng.integers(0, 12))) for _ in range(k)]
    groups[0] += random_pairs(rng, 2)
    cells = [py_cell(g) for g in groups]
    carr = ffi.new("sgt_stats[]", k)
    for j, g in enumerate(groups):
        for gg, hh in g:
            lib.sgt_stats_add(ffi.addressof(carr[j]), gg, hh)
    lam, gamma = float(rng.uniform(0, 1)), float(rng.uniform(0, 2))
    deltas, mean, var = splits.pool_children(cells, lam)
    cd = ffi.new("double[]", k)
    mm, mv = ffi.new("double[]", k), ffi.new("double[]", k)
    cmean, cvar = ffi.new("double *"), ffi.new("double *")
    lib.sgt_pool_children(carr, k, lam, cd, mm, mv, cmean, cvar)
    assert list(cd) == deltas and (cmean[0], cvar[0]) == (mean, var)
    # the whole candidate search on a leaf layout: numeric feature with k bins + nominal
    n_leaf = 0
    for c in cells:
        n_leaf += c.n
    total = GradHessStats()
    for g in groups:
        for gg, hh in g:
            total.add(gg, hh)
    py_cells = [total] + cells + cells  # feature 0 numeric (k bins), feature 1 nominal (k)
    scratch_holder = _c_model(ffi, lib, k)
    m = scratch_holder[0]
    leaf = ffi.new("sgt_stats[]", 1 + 2 * k)
    for i, c in enumerate(py_cells):
        leaf[i].n, leaf[i].sum_g, leaf[i].sum_h = c.n, c.sum_g, c.sum_h
        leaf[i].m_g, leaf[i].m_h, leaf[i].c = c.m_g, c.m_h, c.c
    for used in (0, 1):
        best = splits.best_candidate(py_cells, [0, k], [1, 1 + k], [0, used], True, lam, gamma)
        used_c = ffi.new("uint8_t[]", [0, used])
        lib.sgt_best_candidate(leaf, ffi.addressof(m.q), used_c, 1, lam, gamma,
                               ffi.addressof(m.s))
        cb = m.s.best
        got = (cb.feature, cb.threshold, list(cb.deltas[0:cb.n_children]), cb.mean, cb.variance)
        assert got == (best.feature, best.threshold, best.deltas, best.mean, best.variance)


def _c_model(ffi: Any, lib: Any, k: int) -> Any:
    """A C model with one numeric feature of k bins and one nominal feature of k values."""
    p = ffi.new("sgt_params *")
    p.delta, p.lam, p.gamma = 1e-7, 0.1, 1.0
    p.grace_period, p.bins, p.warmup, p.max_depth, p.warmup_trains = 1, k, 1, -1, 1
    out = ffi.new("sgt_model **")
    rc = lib.sgt_model_new(p, 2, ffi.new("int32_t[]", [0, k]), ffi.new("double[]", 2),
                           ffi.new("double[]", 2), ffi.new("uint8_t[]", 2), 0, 1, out)
    assert rc == 0
    return (ffi.gc(out[0], lib.sgt_model_free),)


@pytest.mark.parametrize("seed", SEEDS)
def test_t_test_losses_and_bins(lib: Any, seed: int) -> None:
    from fast._ffi import ffi

    rng = np.random.default_rng(200 + seed)
    for _ in range(50):
        n = int(rng.integers(0, 5000))
        mean = float(-abs(rng.normal()) * 10.0 ** rng.integers(-4, 2))
        var = float(abs(rng.normal()) * 10.0 ** rng.integers(-6, 2))
        assert lib.sgt_t_test_p_value(mean, var, n) == splits.t_test_p_value(mean, var, n)
        assert lib.sgt_one_sided_p_value(-mean, var, n) == splits.one_sided_p_value(-mean, var, n)
        assert lib.sgt_one_sided_p_value(mean, var, n) == splits.one_sided_p_value(mean, var, n)
        raw, y = float(rng.normal() * 30), float(rng.integers(0, 2))
        assert lib.sgt_sigmoid(raw) == losses.sigmoid(raw)
        g, h = ffi.new("double *"), ffi.new("double *")
        lib.sgt_binary_cross_entropy_gh(y, raw, g, h)
        assert (g[0], h[0]) == losses.BinaryCrossEntropy().gradient_hessian(y, raw)
        lib.sgt_squared_error_gh(y, raw, g, h)
        assert (g[0], h[0]) == losses.SquaredError().gradient_hessian(y, raw)
        for scale in (1e-4, 1.0, 1e3, 1e9):   # pseudo-Huber: quadratic to linear part
            lib.sgt_pseudo_huber_gh(3.7 * y, raw * scale, g, h)
            assert (g[0], h[0]) == losses.PseudoHuber().gradient_hessian(3.7 * y, raw * scale)
        lo = float(rng.normal())
        hi = lo + float(abs(rng.normal())) * float(rng.integers(0, 2))
        x = float(rng.normal() * 2)
        bins = int(rng.integers(2, 100))
        assert lib.sgt_bin_index(x, lo, hi, bins) == bin_index(x, lo, hi, bins)
    k = int(rng.integers(2, 7))
    raws = [float(v) for v in rng.normal(size=k - 1) * 5]
    probs, grads, hess = (ffi.new("double[]", k) for _ in range(3))
    label = int(rng.integers(0, k))
    lib.sgt_softmax_gradients(raws, k - 1, label, probs, grads, hess)
    pg, ph = losses.softmax_gradients(raws, label)
    assert list(probs) == losses.softmax(raws)
    assert list(grads)[: k - 1] == pg and list(hess)[: k - 1] == ph
    bag = [float(v) for v in rng.integers(-2, 3, size=k)]
    lib.sgt_bag_gradients(bag, k, float(label % 2), grads, hess)
    bg, bh = losses.bag_gradients(bag, float(label % 2))
    assert list(grads) == bg and list(hess) == bh


@pytest.mark.parametrize("seed", SEEDS)
def test_prefix_and_suffix_merges_equal_direct_computation(seed: int) -> None:
    """Merging bins 0..k (ascending) and k+1..B-1 (descending) equals Welford on the
    concatenated pairs, up to rounding ([SGT-SPEC §4.3]: no subtraction)."""
    rng = np.random.default_rng(300 + seed)
    bins = int(rng.integers(2, 20))
    groups = [random_pairs(rng, int(rng.integers(0, 8))) for _ in range(bins)]
    cells = [py_cell(g) for g in groups]
    prefix = cells[0].copy()
    for k in range(bins - 1):
        if k > 0:
            prefix = merge(prefix, cells[k])
        suffix = cells[bins - 1].copy()
        for j in range(bins - 2, k, -1):
            suffix = merge(cells[j], suffix)
        for merged, part in ((prefix, groups[: k + 1]), (suffix, groups[k + 1:])):
            flat = [pair for g in part for pair in g]
            direct = py_cell(flat)
            assert merged.n == direct.n
            for got, want in zip(merged.as_list()[1:], direct.as_list()[1:], strict=True):
                assert got == pytest.approx(want, rel=1e-9, abs=1e-9 * (1 + abs(want)))
            if direct.n >= 2:
                gs = [g for g, _ in flat]
                mu = math.fsum(gs) / len(gs)
                assert merged.var_g() == pytest.approx(
                    math.fsum((g - mu) ** 2 for g in gs) / (len(gs) - 1), rel=1e-9, abs=1e-12)


def test_loss_objects_agree(both: tuple[Any, Any]) -> None:
    ref, fast = both
    rng = np.random.default_rng(400)
    for _ in range(200):
        y, raw = float(rng.integers(0, 2)), float(rng.normal() * 20)
        for name in ("SquaredError", "BinaryCrossEntropy"):
            a, b = getattr(ref, name)(), getattr(fast, name)()
            assert a.gradient_hessian(y, raw) == b.gradient_hessian(y, raw)
            assert a.transfer(raw) == b.transfer(raw)
            assert a == b

"""Oracle: the tree prior by enumeration, resampling by its expected counts, lpred by scipy.

- **Tree prior** [AG13, §2.1; DT-SPEC §2]: a node at depth ``d`` splits with probability
  ``p_split(d) = α (1 + d)^-β``. Every tree shape of depth at most 2 is enumerated and its
  prior probability, computed from the code's ``log p_split`` / ``log(1 - p_split)``
  (Python and C kernels) and from ``subtree_log_score``, is checked against the product
  written from the definition and against the frequency of that shape in a simulation of
  the branching process (numpy). The grow score must be the score of the grown tree.
- **Residual resampling** [DT-SPEC §5.2]: over many draws each index appears on average
  ``N w_i`` times and never fewer than ``floor(N w_i)`` (Python and C kernels).
- **lpred** [DT-SPEC §5.4]: a cloud that cannot grow (``α = 0``) keeps one leaf per
  particle, so each step's ``lpred_t`` is the log Student-t predictive density of the new
  target given the previous ones, written here with scipy.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from reference.dynatree import leaf_models as lm
from reference.dynatree.particles import residual_resample
from reference.dynatree.tree import Node, log_leaf_prob, log_split_prob, subtree_log_score
from reference.rng import Rng

scipy_stats = pytest.importorskip("scipy.stats")

PRIORS = [(0.95, 2.0), (0.5, 1.0), (0.8, 0.5)]
# shapes as nested tuples: None is a leaf, (left, right) an internal node
SHAPES: list[Any] = [None, (None, None), ((None, None), None), (None, (None, None)),
                     ((None, None), (None, None))]


def _shape_prior(shape: Any, alpha: float, beta: float, depth: int = 0) -> float:
    """P(shape) from the definition: Π_internal p_split(d) Π_leaves (1 - p_split(d))."""
    p = alpha * (1.0 + depth) ** (-beta)
    if shape is None:
        return 1.0 - p
    return p * _shape_prior(shape[0], alpha, beta, depth + 1) * _shape_prior(shape[1], alpha,
                                                                             beta, depth + 1)


def _kernel_log_prior(shape: Any, split: Callable[[int], float], leaf: Callable[[int], float],
                      depth: int = 0) -> float:
    if shape is None:
        return leaf(depth)
    return (split(depth) + _kernel_log_prior(shape[0], split, leaf, depth + 1)
            + _kernel_log_prior(shape[1], split, leaf, depth + 1))


def _kernels(lib: Any, name: str, alpha: float,
             beta: float) -> tuple[Callable[[int], float], Callable[[int], float]]:
    if name == "python":
        return (lambda d: log_split_prob(d, alpha, beta)), (lambda d: log_leaf_prob(d, alpha, beta))
    return ((lambda d: lib.dt_log_split_prob(d, alpha, beta)),
            (lambda d: lib.dt_log_leaf_prob(d, alpha, beta)))


@pytest.fixture(params=["python", "c"])
def kernel_lib(request: pytest.FixtureRequest) -> tuple[str, Any]:
    if request.param == "python":
        return "python", None
    return "c", request.getfixturevalue("lib")


@pytest.mark.parametrize(("alpha", "beta"), PRIORS)
def test_tree_prior_of_every_small_shape_is_the_product_of_split_probabilities(
        kernel_lib: tuple[str, Any], alpha: float, beta: float) -> None:
    split, leaf = _kernels(kernel_lib[1], kernel_lib[0], alpha, beta)
    for shape in SHAPES:
        assert math.exp(_kernel_log_prior(shape, split, leaf)) == pytest.approx(
            _shape_prior(shape, alpha, beta), rel=1e-12)


def _simulate_shape(rng: np.random.Generator, alpha: float, beta: float, depth: int,
                    limit: int) -> Any:
    """Draw a tree from the branching process; 'deep' once it goes past ``limit``."""
    if rng.uniform() >= alpha * (1.0 + depth) ** (-beta):
        return None
    if depth == limit:
        return "deep"
    return (_simulate_shape(rng, alpha, beta, depth + 1, limit),
            _simulate_shape(rng, alpha, beta, depth + 1, limit))


@pytest.mark.parametrize(("alpha", "beta"), PRIORS[:2])
def test_tree_prior_matches_the_frequencies_of_the_branching_process(
        kernel_lib: tuple[str, Any], alpha: float, beta: float) -> None:
    split, leaf = _kernels(kernel_lib[1], kernel_lib[0], alpha, beta)
    rng = np.random.default_rng(3)
    draws = 40_000
    counts: dict[str, int] = {}
    for _ in range(draws):
        key = repr(_simulate_shape(rng, alpha, beta, 0, 2))
        counts[key] = counts.get(key, 0) + 1
    for shape in SHAPES:
        p = math.exp(_kernel_log_prior(shape, split, leaf))
        freq = counts.get(repr(shape), 0) / draws
        assert abs(freq - p) < 4.0 * math.sqrt(p * (1.0 - p) / draws) + 1e-9, shape


CFG = lm.LeafConfig(lm.CONSTANT, 0, False, 1, 0, 0.0, 0.0)


def _tree(shape: Any, evidences: list[float], depth: int = 0,
          parent: Node | None = None) -> Node:
    node = Node(depth, parent, [], lm.LeafStats(CFG))
    if shape is None:
        node.stats.log_evidence = evidences.pop(0)
        return node
    node.var, node.value = 0, 0.5
    node.left = _tree(shape[0], evidences, depth + 1, node)
    node.right = _tree(shape[1], evidences, depth + 1, node)
    return node


@pytest.mark.parametrize(("alpha", "beta"), PRIORS)
def test_subtree_score_is_log_prior_plus_leaf_evidences(alpha: float, beta: float) -> None:
    for shape in SHAPES:
        n_leaves = repr(shape).count("None")
        evidences = [-1.5 - 0.25 * k for k in range(n_leaves)]
        root = _tree(shape, list(evidences))
        expected = math.log(_shape_prior(shape, alpha, beta)) + sum(evidences)
        assert subtree_log_score(root, alpha, beta) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(("alpha", "beta"), PRIORS)
def test_grow_score_is_the_score_of_the_grown_tree(alpha: float, beta: float) -> None:
    root = _tree((None, (None, None)), [-1.0, -2.0, -3.0])
    assert root.right is not None and root.right.left is not None
    leaf = root.right.left                     # a leaf at depth 2
    proposed = subtree_log_score(root, alpha, beta, leaf, (-4.0, -5.0))
    leaf.var, leaf.value = 0, 0.25
    leaf.left = Node(3, leaf, [], lm.LeafStats(CFG))
    leaf.right = Node(3, leaf, [], lm.LeafStats(CFG))
    leaf.left.stats.log_evidence, leaf.right.stats.log_evidence = -4.0, -5.0
    assert proposed == pytest.approx(subtree_log_score(root, alpha, beta), rel=1e-12)


def _resampler(kernel: tuple[str, Any]) -> Callable[[list[float], int], list[int]]:
    name, lib = kernel
    if name == "python":
        return lambda w, seed: residual_resample(w, Rng(seed))
    from fast._ffi import ffi

    def run(w: list[float], seed: int) -> list[int]:
        n = len(w)
        state = ffi.new("rng_state *")
        lib.rng_seed(state, seed)
        out = ffi.new("int32_t[]", n)
        lib.dt_residual_resample(ffi.new("double[]", w), n, state, out, ffi.new("double[]", n),
                                 ffi.new("double[]", n), ffi.new("int32_t[]", n))
        return list(ffi.unpack(out, n))

    return run


def test_residual_resampling_has_the_expected_counts(kernel_lib: tuple[str, Any]) -> None:
    resample = _resampler(kernel_lib)
    raw = [0.02, 0.31, 0.05, 0.17, 0.9, 0.11, 0.44]
    w = [v / sum(raw) for v in raw]
    n, reps = len(w), 6000
    floors = [math.floor(n * v) for v in w]
    totals = np.zeros(n)
    for seed in range(reps):
        counts = np.bincount(resample(w, seed), minlength=n)
        assert counts.sum() == n
        assert all(counts[i] >= floors[i] for i in range(n))
        totals += counts
    rest = n - sum(floors)
    for i in range(n):
        r = (n * w[i] - floors[i]) / rest
        se = math.sqrt(rest * r * (1.0 - r) / reps)
        assert abs(totals[i] / reps - n * w[i]) < 4.5 * se + 1e-12, i


def test_lpred_is_the_log_predictive_density_of_each_new_target(backend: ModuleType) -> None:
    rng = np.random.default_rng(9)
    y = 1.0 + 0.7 * rng.normal(size=30)
    X = rng.uniform(size=(30, 1))
    model = backend.DynamicTreeRegressor(n_particles=5, alpha=0.0, nstart=2, seed=1)
    model.partial_fit(X, y)
    lpred = model.lpred_
    assert lpred[:2] == [0.0, 0.0]
    for t in range(3, 30):                   # at least 3 previous targets: a proper predictive
        past = y[:t]
        n = len(past)
        scale = math.sqrt(float(((past - past.mean()) ** 2).sum()) * (1.0 + 1.0 / n) / (n - 1))
        expected = scipy_stats.t.logpdf(y[t], n - 1, loc=past.mean(), scale=scale)
        assert lpred[t] == pytest.approx(expected, rel=1e-9, abs=1e-12), t

"""Learning gives the same numbers for every ``n_jobs`` and in both backends
([DT-SPEC §0] item 6, stream rule 2; [DET-SPEC §3]).

Under rule 2 each particle slot propagates from its own random stream, so the step's
result does not depend on the order in which the slots are propagated nor on how they
are split between threads. Checked here on randomized streams, in lockstep: the reference
(one thread) against ``fast`` with ``n_jobs`` in 1, 2, 3 and -1, learning by
``partial_fit`` in uneven batches and by ``learn_one``, for the three leaf models and for
ALC (regression) and entropy (classification) retirement: the snapshots after every
batch, the ``lpred_`` history and the generator state are bit-identical. The models
have 96 particles, so that ``n_jobs`` = 2 and 3 do run on 2 and 3 threads (the rule
``min(n_jobs, N // 32)``, pinned at its limits below, and checked on each model).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

from _compare import assert_snapshot_equal
from _run_size import sized

SEEDS = sized(quick=range(1), full=range(4))
N_ROWS = sized(quick=45, full=160)
N_PARTICLES = 96
JOBS = (1, 2, 3, -1)
CASES: list[tuple[str, dict[str, Any]]] = [
    ("constant", {"leaf": "constant"}),
    ("linear", {"leaf": "linear", "intercept": "augmented", "min_leaf": 4}),
    ("class", {}),
    ("alc", {"leaf": "constant", "active_size": 30, "retirement": "alc", "lam": 0.9}),
    ("entropy", {"active_size": 30, "retirement": "entropy"}),
]


def _stream(seed: int, n: int, classifier: bool) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1000 + seed)
    X = rng.uniform(size=(n, 3))
    f = 10.0 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 20.0 * (X[:, 2] - 0.5) ** 2
    y = f + rng.standard_normal(n)
    if classifier:
        return X, (f > np.median(f)).astype(int) + (X[:, 2] > 0.8).astype(int)
    return X, y


def _model(pkg: ModuleType, name: str, kw: dict[str, Any], seed: int, n_jobs: int) -> Any:
    if name in ("class", "entropy"):
        return pkg.DynamicTreeClassifier(classes=[0, 1, 2], n_particles=N_PARTICLES,
                                         seed=seed, n_jobs=n_jobs, **kw)
    return pkg.DynamicTreeRegressor(n_particles=N_PARTICLES, seed=seed, n_jobs=n_jobs,
                                    **kw)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", [c[0] for c in CASES])
def test_learning_is_identical_for_every_n_jobs_and_backend(
        both: tuple[ModuleType, ModuleType], name: str, seed: int) -> None:
    reference, fast = both
    kw = dict(CASES)[name]
    X, y = _stream(seed, N_ROWS, name in ("class", "entropy"))
    models = [_model(reference, name, kw, seed, 1)] + [
        _model(fast, name, kw, seed, jobs) for jobs in JOBS]
    cuts = [0, 7, 8, 30, N_ROWS - 10]
    for lo, hi in zip(cuts, cuts[1:], strict=False):
        for m in models:
            m.partial_fit(X[lo:hi], y[lo:hi])
        want = models[0].snapshot()
        for m in models[1:]:
            assert_snapshot_equal(want, m.snapshot())
            assert _pool_check(m) == 0
    for i in range(N_ROWS - 10, N_ROWS):
        for m in models:
            m.learn_one(list(X[i]), y[i].item())
    want = models[0].snapshot()
    for m in models[1:]:
        assert_snapshot_equal(want, m.snapshot())
        assert m.lpred_ == models[0].lpred_
        assert m.rng.state == models[0].rng.state
    # the steps did run on threads (not a vacuous comparison of serial runs)
    from fast._ffi import lib
    assert [lib.dt_step_threads(m._engine._m) for m in models[1:4]] == [1, 2, 3]


@pytest.mark.parametrize(("n_particles", "n_jobs", "threads"), [
    (63, 2, 1), (64, 2, 2), (95, 3, 2), (96, 3, 3), (1000, 2, 2), (50, 4, 1), (1000, 1, 1)])
def test_threads_per_step_rule(n_particles: int, n_jobs: int, threads: int) -> None:
    """A step of N slots uses min(n_jobs, N // 32) threads, at least one: at each limit
    and one slot below it."""
    from conftest import require_fast

    require_fast()
    from fast._ffi import lib

    fast = require_fast()
    m = fast.DynamicTreeRegressor(n_particles=n_particles, n_jobs=n_jobs, seed=0)
    m.partial_fit(np.zeros((3, 2)), np.zeros(3))
    assert lib.dt_step_threads(m._engine._m) == threads


def _pool_check(model: Any) -> int:
    """``dt_model_check_sets`` of a ``fast`` model: 0 when every point set's reference
    count is the number of live leaves holding it and every free id is listed once (the
    threaded step merges its counts at the end of a step and frees sets there: a set it
    failed to free, or freed twice, changes no snapshot but shows here)."""
    from fast._lib import lib

    return int(lib.dt_model_check_sets(model._engine._m))


def _held_ids(model: Any, threads: int) -> list[int]:
    from fast._lib import lib

    return [int(lib.dt_threads_held_ids(model._engine._m, w)) for w in range(threads)]


def test_learning_threads_give_back_the_free_ids_of_a_step_they_sit_out() -> None:
    """Each learning thread keeps a stack of free point-set ids, brought to at least 3 N
    before each propagation and at most 6 N (the surplus goes to the model's free list). A
    step on fewer threads gives the ids of the threads it leaves idle back to the model, so
    that they are not lost to a model that learns on one thread afterwards; the pool stays
    consistent throughout."""
    from conftest import require_fast

    fast = require_fast()
    X, y = _stream(6, 60, False)
    m = fast.DynamicTreeRegressor(n_particles=N_PARTICLES, seed=6, n_jobs=3)
    m.partial_fit(X[:20], y[:20])
    held = _held_ids(m, 3)
    assert all(h > 0 for h in held), held
    assert _pool_check(m) == 0
    m.set_params(n_jobs=2)
    m.partial_fit(X[20:30], y[20:30])
    held = _held_ids(m, 3)
    assert held[0] > 0 and held[1] > 0 and held[2] == 0, held
    assert _pool_check(m) == 0
    m.set_params(n_jobs=1)
    m.partial_fit(X[30:31], y[30:31])
    assert _held_ids(m, 3) == [0, 0, 0]
    assert _pool_check(m) == 0
    m.set_params(n_jobs=2)
    m.partial_fit(X[31:], y[31:])
    assert _pool_check(m) == 0


def test_learning_thread_free_id_stacks_are_kept_between_want_and_twice_want() -> None:
    """``dt_workers_balance`` (before each threaded propagation, with want = 3 N) brings a
    thread's stack of free point-set ids to at least want and at most twice want: a stack
    of exactly 2 want ids keeps them all, one id more is trimmed to 2 want; a stack of want
    ids is left alone, one id fewer is filled to want. The ids only move (the pool stays
    consistent), and the model learns on as a serial one does."""
    from conftest import require_fast
    from fast._lib import lib

    fast = require_fast()
    X, y = _stream(8, 50, False)
    serial = fast.DynamicTreeRegressor(n_particles=N_PARTICLES, seed=8, n_jobs=1)
    m = fast.DynamicTreeRegressor(n_particles=N_PARTICLES, seed=8, n_jobs=2)
    for model in (serial, m):
        model.partial_fit(X[:30], y[:30])
    eng = m._engine._m
    stack = eng.thr.wk  # worker 0's stack alone (nw = 1): no move between threads

    def balance(want: int) -> int:
        assert lib.dt_workers_balance(eng, stack, 1, want) == 0
        assert _pool_check(m) == 0
        return int(stack[0].n_free)

    held = int(stack[0].n_free)
    assert held > 4
    want = (held - 1) // 2  # 2 want is held - 1 or held - 2: one or two ids past the cap
    assert balance(want) == 2 * want  # past 2 want: trimmed to it
    assert balance(want) == 2 * want  # at 2 want: kept
    assert balance(2 * want + 1) == 2 * want + 1  # one below want: filled to it
    assert balance(2 * want + 1) == 2 * want + 1  # at want: kept
    for model in (serial, m):
        model.partial_fit(X[30:], y[30:])
    assert_snapshot_equal(serial.snapshot(), m.snapshot())
    assert _pool_check(m) == 0


def test_n_jobs_changed_between_calls_keeps_the_numbers() -> None:
    """``set_params(n_jobs=...)`` between calls changes the threads of the next step only:
    a model whose n_jobs goes 2, 1, 3, -1 across batches (and learn_one calls) ends in the
    state of a model learned on one thread."""
    from conftest import require_fast

    fast = require_fast()
    X, y = _stream(5, 40, False)
    ref = fast.DynamicTreeRegressor(n_particles=N_PARTICLES, seed=4, n_jobs=1)
    m = fast.DynamicTreeRegressor(n_particles=N_PARTICLES, seed=4, n_jobs=2)
    ref.partial_fit(X, y)
    for lo, hi, jobs in [(0, 10, 2), (10, 20, 1), (20, 30, 3), (30, 35, -1)]:
        m.set_params(n_jobs=jobs)
        m.partial_fit(X[lo:hi], y[lo:hi])
    m.set_params(n_jobs=2)
    for i in range(35, 40):
        m.learn_one(list(X[i]), y[i].item())
    assert_snapshot_equal(ref.snapshot(), m.snapshot())


def test_threaded_step_under_allocation_failure() -> None:
    """With n_jobs=2 (two threads per step), every allocation of a learned row fails once
    in turn (``alloc_fail_after``), on a copy of the model (whose workers are not allocated
    yet): the row either raises MemoryError and leaves the copy as it was, or (a worker
    that could not be had: the step runs serially) learns it exactly as without the
    failure. The model stays bit-identical to a serial one throughout."""
    import copy

    from conftest import require_fast

    fast = require_fast()
    from _alloc_hook import fail_at

    X, y = _stream(3, 22, False)
    clean = fast.DynamicTreeRegressor(n_particles=64, seed=2, n_jobs=1)
    model = fast.DynamicTreeRegressor(n_particles=64, seed=2, n_jobs=2)
    raised = swallowed = 0
    for i in range(len(y)):
        row, target = list(X[i]), y[i].item()
        if i in (8, 21):
            want = copy.deepcopy(model)
            want.learn_one(row, target)
            for n in range(2000):
                trial = copy.deepcopy(model)
                error = None
                with fail_at(n) as flag:
                    try:
                        trial.learn_one(row, target)
                    except MemoryError as exc:
                        error = exc
                if not flag[0]:
                    assert error is None
                    break
                if error is not None:
                    raised += 1
                    assert_snapshot_equal(model.snapshot(), trial.snapshot())
                else:
                    swallowed += 1
                    assert_snapshot_equal(want.snapshot(), trial.snapshot())
                assert _pool_check(trial) == 0
                # the copy learns on after the failure, as the model does
                trial.learn_one(row, target) if error is not None else None
                assert_snapshot_equal(want.snapshot(), trial.snapshot())
            else:
                raise AssertionError("more than 2000 allocations in one row")
        model.learn_one(row, target)
        clean.learn_one(row, target)
        assert_snapshot_equal(clean.snapshot(), model.snapshot())
        assert _pool_check(model) == 0
    assert raised > 0 and swallowed > 0


def test_classes_added_in_place_then_learned_on_threads() -> None:
    """A classifier that gains classes in place between batches (``add_class``, which
    widens every statistics block) learns on threads afterwards with the numbers of one
    thread: the workers' scratch follows the wider blocks."""
    from conftest import require_fast

    fast = require_fast()
    from reference.dynatree.new_class import add_class

    X, y = _stream(6, 60, True)
    models = [fast.DynamicTreeClassifier(classes=[0, 1, 2], n_particles=N_PARTICLES, seed=3,
                                         n_jobs=jobs) for jobs in (1, 2)]
    for m in models:
        m.partial_fit(X[:20], y[:20])
    for step, label in enumerate((3, 4, 5, 6)):
        lo = 20 + 10 * step
        rows, targets = X[lo:lo + 10], y[lo:lo + 10].copy()
        targets[::3] = label            # the new class appears in the next batch
        for m in models:
            assert add_class(m, label)
            m.partial_fit(rows, targets)
        assert_snapshot_equal(models[0].snapshot(), models[1].snapshot())
    from fast._ffi import lib
    assert lib.dt_step_threads(models[1]._engine._m) == 2


def _learn_in_child(queue: Any, X: np.ndarray, y: np.ndarray) -> None:
    from fast import DynamicTreeRegressor
    m = DynamicTreeRegressor(n_particles=N_PARTICLES, seed=7, n_jobs=2)
    m.partial_fit(X, y)
    queue.put(m.snapshot())


def test_forked_child_learns_on_threads_after_its_parent_did() -> None:
    """The C pool of the learning step after ``fork``: a child made by multiprocessing's
    ``fork`` start method, after its parent learned on two threads, learns on two threads
    itself (its pool is started afresh) and gets the parent's numbers."""
    import multiprocessing
    import sys

    from conftest import require_fast

    fast = require_fast()
    if sys.platform == "win32" or "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork on this platform")
    X, y = _stream(8, 30, False)
    parent = fast.DynamicTreeRegressor(n_particles=N_PARTICLES, seed=7, n_jobs=2)
    parent.partial_fit(X, y)                    # the parent's pool threads exist now
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_learn_in_child, args=(queue, X, y))
    child.start()
    try:
        got = queue.get(timeout=120)            # a child whose pool hangs never answers
    finally:
        child.join(timeout=30)
        if child.is_alive():
            child.kill()
    assert_snapshot_equal(parent.snapshot(), got)


def test_learning_threads_are_capped_at_max_threads() -> None:
    """The C pool of the learning step never uses more than ``MAX_THREADS`` threads, like
    the pool of the predictions: ``n_jobs = MAX_THREADS`` gives that many, one more gives
    the same (on a model with enough particles that ``N // 32`` does not cap first)."""
    from conftest import require_fast

    fast = require_fast()
    from fast._ffi import lib
    from fast.dynatree.engine import learning_threads
    from reference.parallel import MAX_THREADS

    assert learning_threads(MAX_THREADS) == MAX_THREADS
    assert learning_threads(MAX_THREADS + 1) == MAX_THREADS
    for jobs in (MAX_THREADS, MAX_THREADS + 1):
        m = fast.DynamicTreeRegressor(n_particles=32 * (MAX_THREADS + 1), n_jobs=jobs, seed=0)
        m.partial_fit(np.zeros((3, 2)), np.zeros(3))      # nstart rows: no step yet
        assert lib.dt_step_threads(m._engine._m) == MAX_THREADS

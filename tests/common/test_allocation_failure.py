"""Allocation failure: every C allocation can fail; the fast models turn it into MemoryError.

``alloc_fail_after(n)`` (csrc/common/alloc.c) makes the n-th next allocation of the C library
return NULL once. For each model path (create, learn_one along a stream, partial_fit,
predict, copy) the failure point is moved over every allocation the path makes; each time
the call must raise ``MemoryError`` (or succeed with the normal result when the failed
allocation was optional), must not crash, and the model must be unchanged (learn_one,
predict, copy) and usable afterwards: finishing the stream without failures gives exactly
the state of a run that never failed.

``partial_fit`` is atomic row by row under ``MemoryError``: rows learned before the
failing row stay learned and count in ``n_seen_``; the test checks that the model equals
one that learned only those rows, and stays usable.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import pytest
from _hardening_models import SPECS, Spec, prediction_calls, stream

from _alloc_hook import fail_at
from _compare import assert_snapshot_equal

fast = pytest.importorskip("fast")

MAX_POINTS = 400  # guard: no path here makes more allocations


def _params() -> list[Any]:
    """One param per model (dynamic-tree ids start with ``DT-``)."""
    return [pytest.param(spec, id=spec.id, marks=[pytest.mark.dynatree] if spec.dt else [])
            for spec in SPECS]


def _sweep(call: Callable[[], Any], after_failure: Callable[[BaseException | None], None]
           ) -> int:
    """Move the failure point over every allocation of ``call``; returns how many
    failures were injected. ``after_failure`` checks the state after each injected run."""
    injected = 0
    for n in range(MAX_POINTS):
        error: BaseException | None = None
        with fail_at(n) as flag:
            try:
                call()
            except MemoryError as exc:
                error = exc
        if not flag[0]:
            assert error is None, f"MemoryError without an injected failure at {n}"
            return injected
        injected += 1
        after_failure(error)
    raise AssertionError(f"more than {MAX_POINTS} allocations in one call")


@pytest.mark.parametrize("spec", _params())
def test_create_and_first_learn(spec: Spec) -> None:
    """Construction and the first learn (which builds the C model for lazy facades)."""
    x, y = stream(spec, 1, seed=1)[0]

    def build() -> Any:
        model = spec.make(fast)
        model.learn_one(x, y)
        return model

    clean = build()
    seen: list[Any] = []

    def check(error: BaseException | None) -> None:
        seen.append(error)

    injected = _sweep(build, check)
    assert injected > 0, "no allocation on the create path"
    assert any(isinstance(e, MemoryError) for e in seen)
    assert_snapshot_equal(clean.snapshot(), build().snapshot())


@pytest.mark.parametrize("spec", _params())
def test_learn_one_along_a_stream(spec: Spec) -> None:
    """Every allocation of every learn_one along a stream fails once in turn: each time
    MemoryError and an unchanged model; then the clean call learns the row, and the
    model stays identical to one that never saw a failure."""
    data = stream(spec, 70, seed=2)
    clean = spec.make(fast)
    model = spec.make(fast)
    total = 0
    for step, (x, y) in enumerate(data):
        before = model.snapshot()
        learned: list[bool] = []

        def learn(x: Any = x, y: Any = y, learned: list[bool] = learned) -> None:
            model.learn_one(x, y)
            learned.append(True)

        def check(error: BaseException | None, step: int = step,
                  before: dict[str, Any] = before) -> None:
            assert error is not None, f"step {step}: an allocation failure was swallowed"
            assert_snapshot_equal(before, model.snapshot(), step=step)

        total += _sweep(learn, check)
        assert learned == [True], step   # only the final, failure-free call learned
        clean.learn_one(x, y)
        assert_snapshot_equal(clean.snapshot(), model.snapshot(), step=step)
    assert total > 0


@pytest.mark.parametrize("spec", _params())
def test_partial_fit_stays_usable(spec: Spec) -> None:
    data = stream(spec, 60, seed=3)
    xs, ys = [x for x, _ in data], [y for _, y in data]
    errors: list[BaseException | None] = []
    models: list[Any] = []

    def fit() -> None:
        models.clear()
        model = spec.make(fast)
        models.append(model)
        model.partial_fit(xs[:40], ys[:40])

    def check(error: BaseException | None) -> None:
        errors.append(error)
        if not models:   # the constructor failed
            return
        model = models[-1]
        # row by row atomic: exactly the rows before the failing one are learned, and
        # n_seen_ counts them (a twin that learned only those rows is identical)
        kept = model.n_seen_
        assert 0 <= kept < 40
        twin = spec.make(fast)
        if kept:
            twin.partial_fit(xs[:kept], ys[:kept])
            assert_snapshot_equal(twin.snapshot(), model.snapshot())
        for x, y in data[40:]:
            model.learn_one(x, y)
            for call in prediction_calls(spec):
                call(model, x)
        pickle.loads(pickle.dumps(model)).snapshot()

    assert _sweep(fit, check) > 0
    assert all(isinstance(e, MemoryError) for e in errors)


@pytest.mark.parametrize("spec", _params())
def test_predict_and_copy(spec: Spec) -> None:
    data = stream(spec, 60, seed=4)
    model = spec.make(fast)
    for x, y in data[:50]:
        model.learn_one(x, y)
    before = model.snapshot()
    xs = [x for x, _ in data[50:]]
    expected = model.predict(xs)
    expected_one = [call(model, xs[0]) for call in prediction_calls(spec)]

    def predict() -> None:
        out = model.predict(xs)
        assert (out == expected).all()
        assert [call(model, xs[0]) for call in prediction_calls(spec)] == expected_one

    def unchanged(error: BaseException | None) -> None:
        assert_snapshot_equal(before, model.snapshot())

    _sweep(predict, unchanged)
    copies: list[Any] = []
    injected = _sweep(lambda: copies.append(copy.deepcopy(model)), unchanged)
    injected += _sweep(lambda: copies.append(pickle.loads(pickle.dumps(model))), unchanged)
    assert injected > 0, "copying allocates C memory"
    for twin in copies:
        assert_snapshot_equal(before, twin.snapshot())
    # still usable, and identical to a clean copy
    clean = copy.deepcopy(model)
    for x, y in data[50:]:
        model.learn_one(x, y)
        clean.learn_one(x, y)
    assert_snapshot_equal(clean.snapshot(), model.snapshot())


def _c_sources() -> list[Any]:
    from pathlib import Path

    out = []
    csrc = Path(__file__).resolve().parents[2] / "csrc"
    for path in sorted(csrc.rglob("*.c")):
        name = path.relative_to(csrc).as_posix()
        if name == "common/alloc.c":
            continue
        marks: list[Any] = []
        if name.startswith("dynatree/"):
            marks = [pytest.mark.dynatree]
        out.append(pytest.param(path, id=name, marks=marks))
    return out


@pytest.mark.parametrize("path", _c_sources())
def test_every_allocation_goes_through_alloc_c(path: Any) -> None:
    """No direct malloc/calloc/realloc/free outside csrc/common/alloc.c (the hook must see all)."""
    import re

    text = re.sub(r"/\*.*?\*/", "", path.read_text(), flags=re.S)
    direct = re.findall(r"(?<![A-Za-z0-9_])(malloc|calloc|realloc|free)\s*\(", text)
    assert not direct, f"{path.name} calls {sorted(set(direct))} directly"

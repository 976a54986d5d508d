"""Property-based fuzzing of the public API, both backends side by side.

Hypothesis draws a model configuration's call sequence -- learn_one, partial_fit,
predict_one, predict, predict_proba(_one), snapshot, pickle and deepcopy round trips --
with random widths, values (ordinary, huge, tiny, NaN, inf), labels and bag shapes. The
reference and the fast model get the same calls. Properties:

- no crash; every exception is a ValueError/TypeError (bad input), the same class and
  message in both backends, and the rejected call changed nothing;
- accepted calls give identical results in both backends, and the snapshots agree
  exactly after every call (generator state included);
- invariants: ``n_seen_`` counts the accepted examples, probabilities are in [0, 1] and
  sum to 1 (or are empty before any class is known), regression predictions are finite.

The default profile keeps the file well under a minute; ``HYPOTHESIS_PROFILE=expensive``
runs many more examples.
"""

from __future__ import annotations

import copy
import math
import os
import pickle
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from _hardening_models import CLASSES, SPECS, Spec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _compare import assert_snapshot_equal
from _run_size import sized

# the quick run uses the "default" profile, the full run (--full) "ci"; HYPOTHESIS_PROFILE wins
_PROFILE = os.environ.get("HYPOTHESIS_PROFILE", sized(quick="default", full="ci"))
N_EXAMPLES = {"default": 8, "ci": 20}.get(_PROFILE, settings().max_examples)

SPECIAL = [0.0, -0.0, 1e300, -1e300, 1e-300, 5e-324, math.nan, math.inf, -math.inf]
values = st.one_of(
    st.floats(-10.0, 10.0, allow_nan=False),
    st.floats(-10.0, 10.0, allow_nan=False),
    st.integers(-3, 3).map(float),
    st.sampled_from(SPECIAL),
)
ordinary = st.one_of(st.floats(-10.0, 10.0, allow_nan=False), st.integers(-3, 3).map(float))


@st.composite
def rows(draw: Any, width: int) -> list[float]:
    w = draw(st.sampled_from([width] * 8 + [width - 1, width + 1]))
    if draw(st.integers(0, 9)) == 0:
        return [draw(values) for _ in range(max(w, 0))]
    return [draw(ordinary) for _ in range(max(w, 0))]


@st.composite
def inputs(draw: Any, spec: Spec, width: int) -> Any:
    if spec.kind == "mil":
        return [draw(rows(width)) for _ in range(draw(st.integers(0 if draw(
            st.integers(0, 20)) == 0 else 1, 4)))]
    return draw(rows(width))


@st.composite
def targets(draw: Any, spec: Spec) -> Any:
    if spec.kind == "reg":
        if draw(st.integers(0, 15)) == 0:
            return draw(st.sampled_from([math.nan, math.inf, "1", None]))
        return draw(st.floats(-100.0, 100.0, allow_nan=False))
    if spec.kind == "mil":
        return draw(st.sampled_from([0, 1] * 6 + [2, -1, None]))
    if spec.kind == "cls":
        return draw(st.sampled_from(CLASSES * 4 + ["zzz", None]))
    return draw(st.sampled_from(["a", "b", "c", 7, (1, 2)] * 3 + [["unhashable"]]))


@st.composite
def programs(draw: Any, spec: Spec) -> tuple[int, list[tuple[Any, ...]]]:
    width = draw(st.integers(1, 4))
    n_ops = draw(st.integers(1, 40))
    ops: list[tuple[Any, ...]] = []
    for _ in range(n_ops):
        kind = draw(st.sampled_from(
            ["learn"] * 8 + ["fit", "predict_one", "predict", "snapshot", "pickle", "deepcopy"]
            + ([] if spec.kind == "reg" else ["proba_one", "proba"])))
        if kind == "learn":
            ops.append((kind, draw(inputs(spec, width)), draw(targets(spec))))
        elif kind == "fit":
            n = draw(st.integers(0, 6))
            xs = [draw(inputs(spec, width)) for _ in range(n)]
            ys = [draw(targets(spec)) for _ in range(n + (draw(st.integers(0, 12)) == 0))]
            ops.append((kind, xs, ys))
        elif kind in ("predict_one", "proba_one"):
            ops.append((kind, draw(inputs(spec, width))))
        elif kind in ("predict", "proba"):
            ops.append((kind, [draw(inputs(spec, width)) for _ in range(draw(st.integers(1, 3)))]))
        else:
            ops.append((kind,))
    return width, ops


def _apply(model: Any, op: tuple[Any, ...]) -> Any:
    kind = op[0]
    if kind == "learn":
        model.learn_one(copy.deepcopy(op[1]), op[2])
        return None
    if kind == "fit":
        model.partial_fit(copy.deepcopy(op[1]), list(op[2]))
        return None
    if kind == "predict_one":
        return model.predict_one(copy.deepcopy(op[1]))
    if kind == "proba_one":
        return model.predict_proba_one(copy.deepcopy(op[1]))
    if kind == "predict":
        return model.predict(copy.deepcopy(op[1]))
    if kind == "proba":
        return model.predict_proba(copy.deepcopy(op[1]))
    return None


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return False
        if a.dtype.kind == "f" and b.dtype.kind == "f":
            return bool(np.array_equal(a, b, equal_nan=True))
        return bool((a == b).all()) if a.size else True
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return bool(type(a) is type(b) and a == b)


def _check_invariants(spec: Spec, model: Any, op: tuple[Any, ...], result: Any) -> None:
    kind = op[0]
    if kind == "proba_one" and result:
        probs = list(result.values())
        assert all(0.0 <= p <= 1.0 for p in probs), result
        assert abs(math.fsum(probs) - 1.0) < 1e-9 or math.fsum(probs) == 0.0, result
    if kind == "proba":
        arr = np.asarray(result, dtype=float)
        assert arr.ndim == 2 and arr.shape[0] == len(op[1])
        if arr.size:
            assert ((arr >= 0.0) & (arr <= 1.0)).all()
            sums = arr.sum(axis=1)
            assert (np.abs(sums - 1.0) < 1e-9).all() or (sums == 0.0).any()
    if kind == "predict_one" and spec.kind == "reg":
        assert isinstance(result, float) and math.isfinite(result), result
    if kind == "predict_one" and spec.kind == "cls":
        assert result in CLASSES or result is None


def _n_learned(spec: Spec, op: tuple[Any, ...]) -> int:
    if op[0] == "learn":
        return 1
    if op[0] == "fit":
        epochs = spec.kwargs.get("epochs", 1) if spec.kind == "mil" else 1
        return len(op[1]) * epochs
    return 0


def _run(both: tuple[ModuleType, ModuleType], spec: Spec, program: Any) -> None:
    _, ops = program
    models = [spec.make(pkg) for pkg in both]
    learned = 0
    for step, op in enumerate(ops):
        kind = op[0]
        if kind == "pickle":
            models = [pickle.loads(pickle.dumps(m)) for m in models]
        elif kind == "deepcopy":
            models = [copy.deepcopy(m) for m in models]
        befores = [m.snapshot() for m in models]
        outcomes = []
        for model, before in zip(models, befores, strict=True):
            try:
                result = _apply(model, op)
            except (ValueError, TypeError) as exc:
                outcomes.append(("error", type(exc), str(exc)))
                assert_snapshot_equal(before, model.snapshot(), step=step,
                                      path=f"rejected {kind}")
            else:
                outcomes.append(("ok", result))
        assert outcomes[0][0] == outcomes[1][0], (step, op, outcomes)
        if outcomes[0][0] == "error":
            assert outcomes[0][1:] == outcomes[1][1:], (step, op, outcomes)
        else:
            assert _same(outcomes[0][1], outcomes[1][1]), (step, op, outcomes)
            _check_invariants(spec, models[0], op, outcomes[0][1])
            learned += _n_learned(spec, op)
        assert_snapshot_equal(models[0].snapshot(), models[1].snapshot(), step=step)
        assert models[0].n_seen_ == models[1].n_seen_ == learned, (step, op)


def _params() -> list[Any]:
    return [pytest.param(s, id=s.id, marks=[pytest.mark.dynatree] if s.dt else [])
            for s in SPECS]


@pytest.mark.parametrize("spec", _params())
def test_fuzz_public_api(both: tuple[ModuleType, ModuleType], spec: Spec) -> None:
    @settings(max_examples=N_EXAMPLES, deadline=None, derandomize=_PROFILE != "expensive",
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.function_scoped_fixture])
    @given(program=programs(spec))
    def run(program: Any) -> None:
        _run(both, spec, program)

    run()

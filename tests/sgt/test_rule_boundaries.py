"""SGT rules pinned from both sides, in both backends (issue 47 item 8).

- ``GRADIENT_BOUND = 1e70`` (docs/guarantees.md: squared-error targets and custom
  gradients "must have magnitude at most 1e70"): exactly ``±1e70`` is learned, the next
  double is refused with the bound's ``ValueError`` and the model unchanged, on every entry
  path (one row, a list batch, a float64 array batch);
- ``MAX_LEAF_CELLS``: a leaf of exactly ``(2**31 - 1) // 64`` statistics cells is accepted
  by the feature check that both backends run before building a model, one more cell is
  refused (``test_leaf_size_limit.py`` checks the refusal two cells over on whole models;
  a model at the limit would allocate gigabytes).
"""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from _compare import assert_snapshot_equal
from reference.sgt.losses import CustomLoss
from reference.sgt.params import MAX_LEAF_CELLS, SGTParams, check_feature_config
from reference.sgt.splits import GRADIENT_BOUND

PAST = float(np.nextafter(GRADIENT_BOUND, math.inf))
X4 = [[0.1], [0.5], [0.9], [0.2]]


def test_gradient_bound_constant_and_its_next_double() -> None:
    assert GRADIENT_BOUND == 1e70 and PAST > 1e70
    assert float(np.nextafter(PAST, 0.0)) == 1e70


def _calls(model: Any, target: float) -> list[Any]:
    return [lambda: model.learn_one([0.5], target),
            lambda: model.partial_fit([[0.5], [0.6]], [target, 1.0]),
            lambda: model.partial_fit(np.array([[0.5], [0.6]]), np.array([target, 1.0]))]


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_squared_error_targets_at_the_bound_learn_and_the_next_double_is_refused(
        both: tuple[ModuleType, ModuleType], sign: float) -> None:
    snaps = []
    for pkg in both:
        for make in (lambda p: p.SGTRegressor(warmup=3), lambda p: p.SGT(warmup=3)):
            for k in range(3):
                model = make(pkg)
                model.partial_fit(X4, [1.0, 2.0, 3.0, 4.0])
                _calls(model, sign * GRADIENT_BOUND)[k]()
                assert model.n_seen_ == 5 + (k > 0)
                snaps.append(model.snapshot())
                model = make(pkg)
                model.partial_fit(X4, [1.0, 2.0, 3.0, 4.0])
                before = model.snapshot()
                with pytest.raises(ValueError, match="1e\\+70"):
                    _calls(model, sign * PAST)[k]()
                assert_snapshot_equal(before, model.snapshot())
    half = len(snaps) // 2
    for a, b in zip(snaps[:half], snaps[half:], strict=True):
        assert_snapshot_equal(a, b)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_custom_gradients_at_the_bound_learn_and_the_next_double_is_refused(
        both: tuple[ModuleType, ModuleType], sign: float) -> None:
    """The loss's gradient is the target itself (whatever the prediction), so a target of
    ``±1e70`` gives a gradient of exactly the bound."""
    loss = CustomLoss(gradient=lambda y, f: y, hessian=lambda y, f: 1.0)
    for pkg in both:
        for target, ok in ((sign * GRADIENT_BOUND, True), (sign * PAST, False)):
            model = pkg.SGT(loss=loss, warmup=3)
            model.partial_fit(X4, [1.0, 2.0, 3.0, 4.0])
            before = model.snapshot()
            if ok:
                model.learn_one([0.5], target)
                assert model.n_seen_ == 5
                continue
            with pytest.raises(ValueError, match="1e\\+70"):
                model.learn_one([0.5], target)
            assert_snapshot_equal(before, model.snapshot())


def test_a_leaf_of_exactly_max_leaf_cells_is_accepted_and_one_more_refused() -> None:
    """1 + 64 per numeric feature + K per nominal one: 524,287 numeric features and one
    nominal of K = 62 make 1 + 64 * 524,287 + 62 = 33,554,431 cells, the limit; K = 63
    one more."""
    n = 524_288
    assert 1 + 64 * (n - 1) + 62 == MAX_LEAF_CELLS == 33_554_431
    kinds = check_feature_config(SGTParams(bins=64, nominal={0: 62}), n)
    assert kinds[0] == 62 and len(kinds) == n
    with pytest.raises(ValueError, match="33,554,432 statistics cells"):
        check_feature_config(SGTParams(bins=64, nominal={0: 63}), n)

"""Magnitude bounds: values the methods' arithmetic cannot carry get a clear ``ValueError``.

Pins issue 41's magnitude defects (on 469477c all of these were accepted silently):

- a dynamic tree squares and sums its targets (and, with linear leaves, products of its
  features) and draws split points in a feature's range, so feature values and targets
  must have magnitude at most ``MAX_MAGNITUDE = 1e150``; 469477c accepted targets near
  ``1.7e306`` and predicted ``+inf``;
- ``alc`` divides by the widths of ``rect``: a width above the largest float (a rect of
  ``(-1e308, 1e308)``) is refused, where 469477c returned NaN;
- SGT's split test sums fourth powers of the gradients, so squared-error targets (the
  gradient is ``f - y``) and custom-loss gradients must have magnitude at most
  ``GRADIENT_BOUND = 1e70``; above about ``1e77`` 469477c never learned (predicted 0).

Each refusal is checked in both backends, on every entry path (one row, a list batch, a
float64 array batch), with the model unchanged; values at the bound keep working (and
predictions stay finite), checked against a hand-worked answer.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

from _compare import assert_snapshot_equal
from reference.dynatree.inputs import MAX_MAGNITUDE
from reference.sgt.losses import CustomLoss
from reference.sgt.splits import GRADIENT_BOUND


def _refused_on_every_path(model: Any, rows: list[list[float]], targets: list[float],
                           bound: str) -> None:
    before = model.snapshot()
    calls = [lambda: model.learn_one(rows[0], targets[0]),
             lambda: model.partial_fit(rows, targets),
             lambda: model.partial_fit(np.array(rows), np.array(targets))]
    for call in calls:
        with pytest.raises(ValueError, match=bound):
            call()
        assert_snapshot_equal(before, model.snapshot())


def _dt(pkg: ModuleType, **kw: Any) -> Any:
    model = pkg.DynamicTreeRegressor(n_particles=10, seed=3, **kw)
    model.partial_fit([[0.1, 0.2], [0.4, 0.3], [0.8, 0.9]], [1.0, 2.0, 3.0])
    return model


@pytest.mark.parametrize("target", [1.7e306, -2e150, 1.0000001e150])
def test_dynamic_tree_refuses_targets_above_the_bound(both: tuple[ModuleType, ModuleType],
                                                      target: float) -> None:
    for pkg in both:
        _refused_on_every_path(_dt(pkg), [[0.5, 0.5]] * 2, [target, 1.0], "1e\\+150")


@pytest.mark.parametrize("value", [1e300, -1.7e308, 2e150])
def test_dynamic_tree_refuses_features_above_the_bound(both: tuple[ModuleType, ModuleType],
                                                       value: float) -> None:
    for pkg in both:
        model = _dt(pkg)
        _refused_on_every_path(model, [[value, 0.5], [0.5, 0.5]], [1.0, 1.0], "1e\\+150")
        before = model.snapshot()
        for method, arg in ((model.predict, [[value, 0.5]]),
                            (model.predict, np.array([[value, 0.5]])),
                            (model.predict_one, [value, 0.5]),
                            (model.alc, np.array([[value, 0.5]]))):
            with pytest.raises(ValueError, match="1e\\+150"):
                method(arg)
        assert_snapshot_equal(before, model.snapshot())


def test_dynamic_tree_carries_values_at_the_bound(both: tuple[ModuleType, ModuleType]) -> None:
    """Targets ``±1e150`` at features ``±1e150``: a constant leaf predicts the mean of the
    targets it holds, here (1e150 - 1e150 + 1e150) / 3 = 1e150 / 3 at the root (hand
    count; no split is possible with 3 rows under the default minimum leaf size), finite
    and identical in both backends."""
    preds = []
    for pkg in both:
        model = pkg.DynamicTreeRegressor(n_particles=5, seed=1)
        X = np.full((3, 2), MAX_MAGNITUDE)
        X[1] = -MAX_MAGNITUDE
        model.partial_fit(X, np.array([MAX_MAGNITUDE, -MAX_MAGNITUDE, MAX_MAGNITUDE]))
        p = model.predict(X)
        assert np.all(np.isfinite(p))
        assert p[0] == pytest.approx(MAX_MAGNITUDE / 3, rel=1e-12)
        preds.append(p)
    np.testing.assert_array_equal(preds[0], preds[1])


@pytest.mark.parametrize("rect", [[(-1e308, 1e308), (0.0, 1.0)],
                                  [(0.0, 1.0), (-1.7e308, 1e308)]])
def test_dynamic_tree_refuses_a_rect_wider_than_the_largest_float(
        both: tuple[ModuleType, ModuleType], rect: Any) -> None:
    for pkg in both:
        model = _dt(pkg)
        before = model.snapshot()
        with pytest.raises(ValueError, match="widths"):
            model.alc([[0.5, 0.5]], rect=rect)
        with pytest.raises(ValueError, match="widths"):
            model.alc(np.array([[0.5, 0.5]]), rect=rect)
        assert_snapshot_equal(before, model.snapshot())
        with pytest.raises(ValueError, match="widths"):
            pkg.DynamicTreeRegressor(rect=rect).partial_fit([[0.5, 0.5]], [1.0])
    # the widest rect allowed still gives finite numbers
    wide = [(-8e307, 8e307), (0.0, 1.0)]
    for pkg in both:
        out = _dt(pkg).alc([[0.5, 0.5]], rect=wide)
        assert not np.isnan(out).any()


@pytest.mark.parametrize("target", [2e70, -1e77, 1e100])
def test_sgt_refuses_squared_error_targets_above_the_bound(
        both: tuple[ModuleType, ModuleType], target: float) -> None:
    for pkg in both:
        for model in (pkg.SGTRegressor(warmup=3), pkg.SGT(warmup=3)):
            model.partial_fit([[0.1], [0.5], [0.9], [0.2]], [1.0, 2.0, 3.0, 4.0])
            _refused_on_every_path(model, [[0.5], [0.6]], [target, 1.0], "1e\\+70")


def test_sgt_learns_a_two_valued_target_at_the_bound(both: tuple[ModuleType, ModuleType]
                                                     ) -> None:
    """y = 2e69 where x > 0.5 and 1e69 elsewhere: the split test's sums stay finite, the
    tree splits and predicts each side within 1% (469477c, above about 1e77: no split,
    prediction 0); both backends agree exactly."""
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(3000, 2))
    scale = GRADIENT_BOUND / 10
    y = np.where(X[:, 0] > 0.5, 2.0, 1.0) * scale
    probe = np.array([[0.9, 0.5], [0.1, 0.5]])
    out = []
    for pkg in both:
        model = pkg.SGTRegressor()
        model.partial_fit(X, y)
        p = model.predict(probe)
        np.testing.assert_allclose(p / scale, [2.0, 1.0], rtol=0.01)
        out.append(p)
    np.testing.assert_array_equal(out[0], out[1])


def test_sgt_refuses_custom_gradients_above_the_bound(both: tuple[ModuleType, ModuleType]
                                                      ) -> None:
    """A custom loss whose gradient exceeds ``GRADIENT_BOUND`` for one row: refused with
    ``ValueError`` naming the bound, model unchanged, in both backends."""
    def gradient(y: float, f: float) -> float:
        return f - y * (1e75 if y > 100 else 1.0)

    loss = CustomLoss(gradient=gradient, hessian=lambda y, f: 1.0)
    for pkg in both:
        model = pkg.SGT(loss=loss, warmup=3)
        model.partial_fit([[0.1], [0.5], [0.9], [0.2]], [1.0, 2.0, 3.0, 4.0])
        before = model.snapshot()
        with pytest.raises(ValueError, match="1e\\+70"):
            model.learn_one([0.5], 200.0)
        assert_snapshot_equal(before, model.snapshot())


# ---- ALC overflow (issue 41, round 3) -----------------------------------------------------
#
# The ALC score integrates a predictive variance (squared target scale) over a leaf's
# rectangle (volume: the product of its widths), so it can pass the float range for
# accepted inputs. On 469477c it came back silently as inf (features and targets near
# 1e100 in 3-D) or NaN (near 1e150); it now raises FloatingPointError naming the row and
# the remedy, in both backends, with the model unchanged.


def _dt_3d(pkg: ModuleType, scale: float) -> Any:
    rng = np.random.default_rng(21)
    model = pkg.DynamicTreeRegressor(n_particles=20, seed=4)
    model.fit(rng.random((60, 3)) * scale, rng.random(60) * scale)
    return model


@pytest.mark.parametrize("scale", [1e100, 1e150], ids=["inf", "nan"])
def test_an_alc_score_that_overflows_raises_floating_point_error(
        backend: ModuleType, scale: float) -> None:
    model = _dt_3d(backend, scale)
    before = model.snapshot()
    X = np.random.default_rng(22).random((4, 3)) * scale
    calls = [lambda: model.alc(X), lambda: model.alc(X.tolist()), model.alc_active]
    for call in calls:
        with pytest.raises(FloatingPointError,
                           match=r"ALC score of row 0 overflowed .*rescale the inputs"):
            call()
        assert_snapshot_equal(before, model.snapshot())
    assert np.isfinite(model.predict(X)).all()     # the model itself is usable


def test_alc_over_a_rect_whose_volume_passes_the_float_range_raises(
        backend: ModuleType) -> None:
    """Worked by hand: targets of order 1, a cube rect of side ``2w``. The integrated
    variance is of order ``(2w)**3``: at ``w = 1e102`` that is ``8e306`` (finite), at
    ``w = 1e103`` ``8e309`` (beyond the largest float), so only the second raises."""
    import math

    rng = np.random.default_rng(23)
    model = backend.DynamicTreeRegressor(n_particles=20, seed=5)
    model.fit(rng.random((60, 3)), rng.random(60))
    X = rng.random((3, 3))
    assert math.isfinite((2e102) ** 3) and math.isinf(math.prod([2e103] * 3))
    inside = model.alc(X, rect=[(-1e102, 1e102)] * 3)
    assert np.isfinite(inside).all() and (inside > 0).all()
    with pytest.raises(FloatingPointError, match="smaller rect"):
        model.alc(X, rect=[(-1e103, 1e103)] * 3)

"""Oracle: two SGT rules that only stored outputs guarded, worked out by hand.

1. **The threshold's own bin goes left.** A numeric split with threshold bin ``k`` sends
   bins ``0..k`` to the first child ([SGT-SPEC §3]). With bins of width 1/4 on [0, 1],
   targets -1 on [0, 0.5) (bins 0 and 1) and +1 on [0.75, 1) (bin 3), bin 2 empty and
   ``lam = gamma = 0``, the candidates ``k = 1`` and ``k = 2`` make the same children, and the
   first of equal candidates is kept: the stored threshold is 1, so a row in bin 1 (0.49)
   is predicted by the left child (-1) and a row in bin 2 (0.5) by the right one (+1). Had
   the rule been "left iff bin < k" in both backends, the stored threshold would be 2.
2. **The first row of a bag carries the derivatives on ties** ([GPF19, Eq. 28-29]). A fresh
   tree scores every row 0, so all rows of the first bag tie for the maximum; the first
   row gets ``g = sigma(0) - y = -0.5``, ``h = 0.25`` (``y = 1``), every other row
   ``(0, 0)``. Read in the root's bin cells: the first row's bin holds ``sum g = -0.5``.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest


@pytest.mark.parametrize("quantization", ["leaf", "global"])
def test_a_row_in_the_threshold_bin_goes_to_the_left_child(backend: ModuleType,
                                                           quantization: str) -> None:
    rng = np.random.default_rng(0)
    xs = np.concatenate([rng.uniform(0.0, 0.5, 300), rng.uniform(0.75, 1.0, 150)])
    rng.shuffle(xs)
    y = np.where(xs < 0.5, -1.0, 1.0)
    model = backend.SGTRegressor(bins=4, feature_ranges={0: (0.0, 1.0)}, grace_period=50,
                                 warmup=1, lam=0.0, gamma=0.0, quantization=quantization)
    model.partial_fit(xs[:, None], y)
    root, left, right = model.snapshot()["core"]["trees"][0]["nodes"][:3]
    assert (root["feature"], root["threshold"], root["first_child"]) == (0, 1, 1)
    assert (left["value"], right["value"]) == (-1.0, 1.0)
    assert model.predict_one([0.49]) == -1.0   # bin 1: the threshold's own bin, left
    assert model.predict_one([0.25]) == -1.0   # bin 1's lower edge
    assert model.predict_one([0.5]) == 1.0     # bin 2, right


@pytest.mark.parametrize("order", [(0.9, 0.1, 0.6), (0.1, 0.6, 0.9)])
def test_the_first_of_tied_bag_rows_carries_the_derivatives(backend: ModuleType,
                                                             order: tuple[float, ...]) -> None:
    model = backend.SGTMultiInstanceClassifier(bins=4, feature_ranges={0: (0.0, 1.0)},
                                               warmup=1, grace_period=1000)
    model.partial_fit([np.array(order)[:, None]], [1])
    root = model.snapshot()["core"]["trees"][0]["nodes"][0]
    cells = root["cells"]                      # [n, sum g, sum h, ...]; cell 1 + b: bin b
    first_bin = int(order[0] * 4)
    assert cells[0][:3] == [3, -0.5, 0.25]     # the leaf total
    for b in range(4):
        expected = [-0.5, 0.25] if b == first_bin else [0.0, 0.0]
        assert cells[1 + b][1:3] == expected, b

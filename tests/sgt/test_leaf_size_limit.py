"""The widest rows an SGT accepts: a leaf holds at most ``MAX_LEAF_CELLS`` statistics cells.

A leaf keeps 1 + ``bins`` cells per numeric feature + K per nominal feature
([SGT-SPEC §2]); the C library indexes them with 32-bit integers (with a margin of 64), so
a row of 2,000,000 columns (issue 41's CSV case) made ``sgt_model_new`` fail with
``MemoryError`` in ``fast`` on 469477c, and the reference try to allocate the cells. The
limit is now checked before any model is built: ``ValueError`` naming it, in both backends,
and the model stays unfitted.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

from reference.sgt.params import MAX_LEAF_CELLS


def test_the_limit_is_the_c_librarys() -> None:
    """The C quantizer refuses a leaf of more than ``INT32_MAX / 64`` cells."""
    assert MAX_LEAF_CELLS == (2**31 - 1) // 64 == 33_554_431


def test_rows_whose_leaves_would_exceed_the_limit_are_refused(
        both: tuple[ModuleType, ModuleType]) -> None:
    """524,288 numeric features at 64 bins: 1 + 64 * 524,288 = 33,554,433 cells, two over
    the limit. Refused on every entry path in both backends; the model stays unfitted (a
    narrow row is learned afterwards: the width was not fixed)."""
    width = 524_288
    assert 1 + 64 * width == MAX_LEAF_CELLS + 2
    for pkg in both:
        model = pkg.SGTRegressor(bins=64)
        with pytest.raises(ValueError, match="33,554,431"):
            model.partial_fit(np.zeros((1, width)), [1.0])
        with pytest.raises(ValueError, match="33,554,431"):
            model.learn_one([0.0] * width, 1.0)
        assert model.n_seen_ == 0
        model.learn_one([0.1, 0.2], 1.0)
        assert model.n_seen_ == 1

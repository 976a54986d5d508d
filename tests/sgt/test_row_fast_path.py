"""The plain-list fast path of ``check_row`` gives exactly what the numpy path gives.

``reference.sgt.params.check_row`` validates a plain list/tuple/1-D float64 row with a
Python loop (per-call speed); anything else goes through numpy. Forcing the numpy path
(``_plain_floats`` returning None) must not change any result, exception class or
message.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import reference.sgt.params as params

NAN, INF = float("nan"), float("inf")
ROWS: list[Any] = [
    [1.0, 2.0], [1, 2.5], (3, 4), [0.0, -0.0], [NAN, 1.0], [1.0, INF], [-INF, 1.0], [],
    [2**60, 1.0], [2**53, 1], [-(2**53), 1], [True, 1.0], [np.float64(1.5), 2.0],
    np.array([1.0, 2.0]), np.array([NAN, 1.0]), np.array([1, 2]), [[1.0, 2.0]],
    ["1", 2.0], [None, 1.0], [1.0, 2.0, 3.0], {"a": 1.0, "b": 2.0}, {"a": NAN, "b": 1},
    (1.0,), [2.5, 1.0], [1.0, 1.0], [0.5, 2.0],
]
SETTINGS = [(None, None, None), (2, None, None), (2, ("a", "b"), None), (3, None, None),
            (2, None, [0, 0]), (2, None, [0, 3]), (2, None, [2, 0])]


def _outcome(x: Any, n: Any, keys: Any, kinds: Any) -> Any:
    try:
        row, out_keys = params.check_row(x, n, keys, kinds)
    except Exception as exc:  # noqa: BLE001 - the class and message are compared
        return type(exc), str(exc)
    return [(type(v), v, math.copysign(1.0, v)) for v in row if not math.isnan(v)], out_keys


@pytest.mark.parametrize("x", ROWS, ids=repr)
@pytest.mark.parametrize("setting", SETTINGS, ids=repr)
def test_fast_path_matches_numpy_path(x: Any, setting: Any,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    fast_result = _outcome(x, *setting)
    monkeypatch.setattr(params, "_plain_floats", lambda values: None)
    assert _outcome(x, *setting) == fast_result


def test_fast_path_is_taken_for_plain_rows() -> None:
    assert params._plain_floats([1.0, 2]) == [1.0, 2.0]
    assert params._plain_floats(np.array([1.0, 2.0])) == [1.0, 2.0]
    assert params._plain_floats([True, 1.0]) is None
    assert params._plain_floats([2**60]) is None

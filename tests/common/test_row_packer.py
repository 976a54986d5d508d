"""The row packer of the fast one-row calls (``csrc/common/rows.c``, ``fast._rows_ext``).

``RowBuffer.pack(x, keys)`` must accept exactly the rows that need no conversion, with the
values the general path would compute: these tests compare it, by another route, with
:func:`reference.rows.plain_floats` (the reference's own recogniser of plain rows) and with
``float``, on generated rows of every kind, and check that it never raises or runs user
code, whatever it is given. The calls a model binds to its buffer (``bind``: ``learn``,
``score``, ``label``, ``proba``) are checked against the same library calls made through
cffi.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import require_fast
from reference.rows import plain_floats

INT_EXACT = 2**53


def _buffer(width: int) -> Any:
    require_fast()
    from fast._rows_ext import RowBuffer

    return RowBuffer(width, np.ndarray)


class _Hostile:
    """A value or key whose every special method raises (none may be called)."""

    def __float__(self) -> float:
        raise AssertionError("__float__ called")

    def __index__(self) -> int:
        raise AssertionError("__index__ called")

    def __eq__(self, other: object) -> bool:
        raise AssertionError("__eq__ called")

    def __hash__(self) -> int:
        return 7


class _Float(float):
    pass


VALUES = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(2**60), max_value=2**60),
    st.sampled_from([INT_EXACT, -INT_EXACT, INT_EXACT + 1, -INT_EXACT - 1, True, False,
                     np.float64(0.5), np.float32(0.25), np.int64(3), np.bool_(True),
                     _Float(1.5), Fraction(1, 3), "1.0", b"1", None, 1j, _Hostile()]),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(VALUES, min_size=1, max_size=6), st.integers(1, 6),
       st.sampled_from([list, tuple]))
def test_sequences_packed_as_plain_floats_reads_them(values: list[Any], width: int,
                                                     kind: type) -> None:
    buffer = _buffer(width)
    row = kind(values)
    expected = plain_floats(row)
    packed = buffer.pack(row, None)
    assert packed == (expected is not None and len(expected) == width)
    if packed:
        assert [v.hex() for v in buffer.get()] == [float(v).hex() for v in expected]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=5),
       st.integers(1, 5), st.sampled_from(["<f8", ">f8", "<f4", "<i8"]), st.booleans())
def test_arrays_packed_as_plain_floats_reads_them(values: list[float], width: int,
                                                  dtype: str, strided: bool) -> None:
    buffer = _buffer(width)
    with np.errstate(all="ignore"):
        base = np.repeat(np.asarray(values, dtype=np.float64), 2).astype(dtype)
    arr = base[::2] if strided else base[: len(values)]
    expected = plain_floats(arr)
    packed = buffer.pack(arr, None)
    assert packed == (expected is not None and len(expected) == width)
    if packed:
        assert [v.hex() for v in buffer.get()] == [float(v).hex() for v in expected]


def test_other_arrays_and_buffers_take_the_general_path() -> None:
    buffer = _buffer(2)
    assert not buffer.pack(np.zeros((1, 2)), None)              # 2-D
    assert not buffer.pack(np.zeros(2).view(np.ndarray).astype(object), None)
    assert not buffer.pack(memoryview(np.zeros(2)), None)       # not a numpy array
    assert not buffer.pack(np.ma.masked_array(np.zeros(2)), None)   # a subclass
    assert not buffer.pack(iter([0.0, 1.0]), None)
    assert not buffer.pack("ab", None)
    assert buffer.pack(np.arange(2.0), None)


@pytest.mark.parametrize("keys_kind", [list, tuple])
def test_dicts_packed_in_the_models_key_order(keys_kind: type) -> None:
    buffer = _buffer(3)
    keys = keys_kind(["a", "b", "c"])
    same = {"a": 1.0, "b": 2, "c": -0.5}
    assert buffer.pack(same, keys)
    assert buffer.get() == [1.0, 2.0, -0.5]
    # equal keys built at run time (not the same objects) are accepted
    fresh = {"".join(["a"]): 4.0, "".join(["b"]): 5.0, "".join(["c"]): 6.0}
    assert buffer.pack(fresh, keys) and buffer.get() == [4.0, 5.0, 6.0]
    assert not buffer.pack({"b": 2.0, "a": 1.0, "c": 3.0}, keys)       # another order
    assert not buffer.pack({"a": 1.0, "b": 2.0}, keys)                 # a key missing
    assert not buffer.pack({"a": 1.0, "b": 2.0, "c": 3.0, "d": 4.0}, keys)
    assert not buffer.pack({"a": 1.0, "b": True, "c": 3.0}, keys)      # a bool value
    assert not buffer.pack(same, None)                                 # fitted on sequences
    int_keys = _buffer(2)
    assert int_keys.pack({0: 1.0, 1: 2.0}, (0, 1)) and int_keys.get() == [1.0, 2.0]
    assert int_keys.pack({2**70: 1.0, 1: 2.0}, (2**70, 1))             # equal big ints
    assert not int_keys.pack({0.0: 1.0, 1: 2.0}, (0, 1))               # 0.0 == 0, not plain


def test_pack_never_runs_user_code_or_raises() -> None:
    buffer = _buffer(2)
    hostile = _Hostile()
    assert not buffer.pack([hostile, 1.0], None)
    assert not buffer.pack({hostile: 1.0, "b": 2.0}, (hostile.__class__(), "b"))
    assert not buffer.pack({"a": hostile, "b": 2.0}, ("a", "b"))
    assert not buffer.pack({"a": 1.0, "b": 2.0}, ("a", hostile))
    assert not buffer.pack({"a": 1.0, "b": 2.0}, "ab")                 # keys not a list
    assert not buffer.pack([_Float(1.0), 2.0], None)                   # a float subclass
    assert not buffer.pack([1.0, 2**53 + 1], None)                     # would round
    assert buffer.pack([math.inf, math.nan], None)                     # C checks finiteness
    with pytest.raises(TypeError):
        buffer.pack([1.0, 2.0])                                        # wrong arity


def test_buffer_construction_is_checked() -> None:
    require_fast()
    from fast._rows_ext import RowBuffer

    for width in (0, -1):
        with pytest.raises(ValueError, match="positive"):
            RowBuffer(width, np.ndarray)
    with pytest.raises(TypeError):
        RowBuffer(2, "not a type")
    with pytest.raises((OverflowError, ValueError)):
        RowBuffer(2**62, np.ndarray)
    buffer = RowBuffer(4, np.ndarray)
    assert buffer.width == 4 and buffer.address != 0 and buffer.get() == [0.0] * 4


def test_bind_checks_its_arguments_and_unbound_calls_decline() -> None:
    buffer = _buffer(2)
    assert buffer.learn([1.0, 2.0], None, 1.0) is False        # nothing bound
    assert buffer.score([1.0, 2.0], None) is None
    assert buffer.label([1.0, 2.0], None) == -1
    assert buffer.proba([1.0, 2.0], None) is None
    with pytest.raises(ValueError, match="handle"):
        buffer.bind(None, "m", handle=0)
    with pytest.raises(ValueError, match="buffers"):
        buffer.bind(None, "m", handle=1, score=1)              # score without out
    with pytest.raises(TypeError, match="unexpected"):
        buffer.bind(None, "m", handle=1, shape=1)
    with pytest.raises(TypeError):
        buffer.bind(None, b"not a str", handle=1)
    with pytest.raises(OverflowError):
        buffer.bind(None, "m", handle=-1)
    assert buffer.score([1.0, 2.0], None) is None              # failed binds bind nothing


def test_bound_calls_are_the_library_calls() -> None:
    """An SGT engine's bound calls give what the cffi calls give on the same row, and keep
    the model alive after the engine is gone."""
    fast = require_fast()
    import gc

    from fast._ffi import ffi, lib

    X = np.random.default_rng(0).uniform(size=(300, 3))
    model = fast.SGTClassifier(classes=[0, 1], warmup=50, grace_period=20)
    model.partial_fit(X, (X[:, 0] > 0.5).astype(int))
    engine = model._engine
    label, proba = engine.label_one_raw, engine.proba_one_raw
    probs, k = ffi.new("double[2]"), ffi.new("int32_t *")
    for row in X[:20].tolist():
        assert lib.sgt_model_proba_row(engine._m, row, 3, probs, k) == 0
        assert label(row, None) == k[0]
        assert proba(row, None) == list(probs)
    assert label([0.1, 0.2], None) == -1                        # wrong width: declined
    assert label([0.1, 0.2, math.nan], None) == -1              # C refuses NaN
    del model, engine
    gc.collect()
    assert label(X[0].tolist(), None) in (0, 1)                 # the bound model lives on


def test_dynamic_tree_predictions_bound_with_the_gil_released() -> None:
    """The dynamic trees bind their predictions with ``release_gil``: the bound calls give
    what the cffi calls give."""
    fast = require_fast()
    from fast._ffi import ffi, lib

    X = np.random.default_rng(1).uniform(size=(60, 2))
    reg = fast.DynamicTreeRegressor(n_particles=30)
    reg.partial_fit(X, X[:, 0] + X[:, 1])
    clf = fast.DynamicTreeClassifier(classes=["a", "b", "c"], n_particles=30)
    clf.partial_fit(X, np.array(["a", "b", "c"])[(3 * X[:, 0]).astype(int)])
    out, probs, label = ffi.new("double[1]"), ffi.new("double[3]"), ffi.new("int32_t *")
    for row in X[:10].tolist():
        assert lib.dt_model_mean_row(reg._engine._m, row, 2, out) == 0
        assert reg._engine.predict_one_raw(row, None) == out[0]
        assert lib.dt_model_label_row(clf._engine._m, row, 2, probs, label) == 0
        assert clf._engine.predict_label_raw(row, None) == label[0]
        assert clf._engine.predict_proba_raw(row, None) == list(probs)
    assert reg._engine.predict_one_raw([0.1, math.inf], None) is None   # C refuses inf

"""The versioned state format used by pickling and ``copy.deepcopy`` (both backends).

Every model's ``__getstate__`` returns a dict that carries the key
:data:`STATE_FORMAT_KEY` with the integer :data:`STATE_FORMAT_VERSION`. ``__setstate__``
checks it first: a state written by a newer, unknown format (or one without a version)
raises :class:`StateFormatError` (a ``ValueError``) with a message that names the model,
the format found and the formats this version reads, instead of building a corrupt
model. Format history (docs/guarantees.md):

- 1: the first format. Reference models: their attribute dict. Fast models: their
  parameters, facade attributes and the plain-data ``snapshot()`` of the C state, which
  is written back into a new C handle. Dynamic trees keep ``lpred_`` there as a plain list;
  their ``lpred_window`` parameter, added later, lives in the parameters, and a state
  whose parameters lack it loads as ``None`` (no window).
- 2: the fast models' engine state as typed arrays: a dynamic tree's ``_snap`` holds its
  rows, targets and particles as arrays and columns (:mod:`reference.dynatree.columns`),
  an SGT core's snapshot its trees' nodes as columns (:mod:`reference.sgt.columns`), each
  checked vectorised before it reaches C. Reference models are laid out as in format 1.
  States of format 1 still load.
"""

from __future__ import annotations

import copy
import math
from typing import Any

__all__ = ["COUNTER_MAX", "STATE_FORMAT_KEY", "STATE_FORMAT_VERSION", "StateFormatError",
           "VersionedState", "fail", "as_int", "as_counter", "as_float", "as_list", "as_dict",
           "as_rng_state", "as_labels", "check_engine_backend", "check_attributes",
           "pack_state", "unpack_state"]

STATE_FORMAT_KEY = "__driftwood_state_format__"
STATE_FORMAT_VERSION = 2
SUPPORTED_FORMATS = (1, 2)

COUNTER_MAX = 2**53
"""The largest counter a restored state may hold (rows seen, class counts, cell counts,
update and mistake counters, ids): every value up to it is an exact double, so the C
backend (``int64_t`` counters, converted to ``double`` where the mathematics divides by
them) and the reference (Python integers) compute the same numbers with them, and a
stream needs 2**63 - 2**53 more rows, centuries at any speed, before an ``int64_t`` could
overflow. A model loaded at the bound learns on and saves and reloads in both backends
until a counter passes it (``tests/common/test_state_invariants.py``)."""


MAX_MESSAGE = 400
"""Longest :class:`StateFormatError` message: a field quoted in it (a string of megabytes
in a hostile file, say) is cut, keeping its start and its end."""


class StateFormatError(ValueError):
    """A pickled state or a model file cannot be restored: written in a format this
    version cannot read, or holding a field that is out of range, of the wrong type or
    inconsistent with the rest (the message names the field; at most
    :data:`MAX_MESSAGE` characters, whatever the field holds)."""

    def __init__(self, message: object = "", *args: object) -> None:
        text = str(message)
        if len(text) > MAX_MESSAGE:
            keep = MAX_MESSAGE // 2 - 10
            text = f"{text[:keep]} ...[{len(text) - 2 * keep} characters cut]... " \
                   f"{text[-keep:]}"
        super().__init__(text, *args)


def pack_state(state: dict[str, Any]) -> dict[str, Any]:
    """``state`` plus the format version key (a new dict)."""
    out = dict(state)
    out[STATE_FORMAT_KEY] = STATE_FORMAT_VERSION
    return out


def unpack_state(state: Any, owner: str) -> dict[str, Any]:
    """Check the format version of a pickled ``state`` of model ``owner``; return the
    state without the version key, or raise :class:`StateFormatError`."""
    if not isinstance(state, dict) or STATE_FORMAT_KEY not in state:
        raise StateFormatError(
            f"cannot restore {owner}: the pickled state has no driftwood state-format "
            f"version (this version reads formats {list(SUPPORTED_FORMATS)})")
    version = state[STATE_FORMAT_KEY]
    if version not in SUPPORTED_FORMATS:
        raise StateFormatError(
            f"cannot restore {owner}: state format {version!r} was written by another "
            f"version of driftwood; this version reads formats {list(SUPPORTED_FORMATS)}")
    out = dict(state)
    del out[STATE_FORMAT_KEY]
    return out


def engine_state_now(state: dict[str, Any]) -> dict[str, Any]:
    """``state`` with a copy of its ``_engine`` (if any), taken now: a model's
    ``__getstate__`` runs under its lock (:mod:`reference.locking`) but pickle reads the
    objects of the state later, when another thread may be learning in the engine (in C,
    without the GIL). The copy is an engine of the same class and state, which pickle
    writes as it would the engine itself."""
    if state.get("_engine") is None:
        return state
    state = dict(state)
    state["_engine"] = copy.deepcopy(state["_engine"])
    return state


def check_engine_backend(model: Any) -> None:
    """Refuse a restored model whose engine is not of its backend's engine class: a
    pickle of one backend's model unpickled into the other backend's class (by a tampered
    or renamed pickle) would otherwise run one backend's engine under the other's facade
    (a reference ``SGTClassifier`` state under the fast class loaded, then ``partial_fit``
    raised ``AttributeError``). Model files move models between backends."""
    expected = getattr(type(model), "_engine_class", None)
    engine = model.__dict__.get("_engine")
    if expected is None or engine is None or isinstance(engine, expected):
        return
    raise StateFormatError(
        f"cannot restore {type(model).__name__}: the pickled state holds an engine of "
        f"{type(engine).__module__}.{type(engine).__name__}, not of this backend "
        f"({expected.__module__}.{expected.__name__}); a pickle restores only in the "
        f"backend that wrote it: save and load a model file to move a model between "
        f"backends")


def check_attributes(model: Any, fresh: Any) -> None:
    """Refuse a restored model whose attributes are not those of ``fresh``, a new model
    of the same class and parameters: every attribute ``fresh`` has must be there, and
    hold a value of its kind (a number for a number, the same type for a string, a list,
    a dict, a tuple or a boolean, an instance of its class for an object) unless ``fresh`` holds
    None there (set by learning). A tampered pickle missing ``_class_index`` or holding
    an int for it otherwise loaded and then failed in ``partial_fit``."""
    have, want = model.__dict__, fresh.__dict__
    owner = type(model).__name__
    missing = sorted(set(want) - set(have))
    if missing:
        raise StateFormatError(f"cannot restore {owner}: the pickled state lacks "
                               f"{missing[:5]}")
    for key, ref in want.items():
        value = have[key]
        if ref is None:
            continue
        if type(ref) in (int, float):
            ok = type(value) in (int, float)
        elif type(ref) in (bool, str, list, dict, tuple):
            ok = type(value) is type(ref)
        else:
            ok = isinstance(value, type(ref))
        if not ok:
            raise StateFormatError(f"cannot restore {owner}: the pickled entry {key} holds "
                                   f"a {type(value).__name__} where the model holds a "
                                   f"{type(ref).__name__}")


class VersionedState:
    """Mixin: pickling through a versioned state dict.

    Subclasses override :meth:`_get_state` / :meth:`_set_state` when their state is not
    their attribute dict (the fast models, which own a C handle).
    """

    def _get_state(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def _set_state(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __getstate__(self) -> dict[str, Any]:
        return pack_state(self._get_state())

    def __setstate__(self, state: dict[str, Any]) -> None:
        owner = type(self).__name__
        try:
            self._set_state(unpack_state(state, owner))
            check_engine_backend(self)
            self._check_restored()
        except (StateFormatError, MemoryError):
            raise
        except Exception as exc:
            # a tampered state (a missing entry, an entry of the wrong type, a generator
            # state refused by the generator) is a state format error like any other
            raise StateFormatError(f"cannot restore {owner}: the pickled state is "
                                   f"inconsistent ({type(exc).__name__}: {exc})") from None

    def _check_restored(self) -> None:
        """Check the whole restored state; raise :class:`StateFormatError` naming the bad
        field. The models' implementation is ``EstimatorMixin._check_restored`` (the
        checks of a model file); the fast backends whose ``_set_state`` already checked
        the state before building C override it with nothing to do."""


# -- field checks shared by the family state checks (reference/*/state_check.py) ---------
def fail(where: str, problem: str) -> StateFormatError:
    """The exception for a bad field: ``field <where>: <problem>``."""
    return StateFormatError(f"field {where}: {problem}")


def as_int(value: Any, where: str, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` if it is an int (not a bool) within ``[lo, hi]``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise fail(where, f"expected an integer, found {type(value).__name__}")
    if lo is not None and value < lo:
        raise fail(where, f"{value} is below {lo}")
    if hi is not None and value > hi:
        raise fail(where, f"{value} is above {hi}")
    return value


def as_counter(value: Any, where: str, lo: int = 0) -> int:
    """``value`` if it is an integer counter in ``[lo, COUNTER_MAX]``."""
    return as_int(value, where, lo, COUNTER_MAX)


def as_float(value: Any, where: str, finite: bool = True, lo: float | None = None) -> float:
    """``value`` as a float if it is a number (finite unless ``finite`` is False; never
    NaN when ``finite`` is False either, unless ``lo`` is None and NaN is allowed by the
    caller checking it afterwards)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise fail(where, f"expected a number, found {type(value).__name__}")
    out = float(value)
    if finite and not math.isfinite(out):
        raise fail(where, f"expected a finite number, found {out}")
    if lo is not None and not out >= lo:
        raise fail(where, f"{out} is below {lo}")
    return out


def as_list(value: Any, where: str, length: int | None = None) -> list[Any]:
    """``value`` if it is a list (of ``length`` items when given)."""
    if not isinstance(value, list):
        raise fail(where, f"expected a list, found {type(value).__name__}")
    if length is not None and len(value) != length:
        raise fail(where, f"expected {length} items, found {len(value)}")
    return value


def as_dict(value: Any, where: str, keys: tuple[str, ...]) -> dict[str, Any]:
    """``value`` if it is a dict with exactly the string keys ``keys``."""
    if not isinstance(value, dict):
        raise fail(where, f"expected an object, found {type(value).__name__}")
    if set(value) != set(keys):
        missing = sorted(set(keys) - set(value))
        extra = sorted(str(k) for k in set(value) - set(keys))
        raise fail(where, f"missing keys {missing}, unexpected keys {extra}")
    return value


def as_rng_state(value: Any, where: str) -> list[int]:
    """Four 64-bit words of a xoshiro256** state, not all zero."""
    words = as_list(value, where, 4)
    for i, word in enumerate(words):
        as_int(word, f"{where}[{i}]", 0, 2**64 - 1)
    if not any(words):
        raise fail(where, "an all-zero generator state is invalid")
    return words


def as_labels(value: Any, where: str) -> list[Any]:
    """A list of distinct hashable class labels."""
    labels = as_list(value, where)
    try:
        if len(set(labels)) != len(labels):
            raise fail(where, "class labels must be distinct")
    except TypeError:
        raise fail(where, "class labels must be hashable") from None
    return labels

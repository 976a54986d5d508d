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
"""

from __future__ import annotations

from typing import Any

__all__ = ["STATE_FORMAT_KEY", "STATE_FORMAT_VERSION", "StateFormatError", "VersionedState",
           "pack_state", "unpack_state"]

STATE_FORMAT_KEY = "__driftwood_state_format__"
STATE_FORMAT_VERSION = 1
SUPPORTED_FORMATS = (1,)


class StateFormatError(ValueError):
    """A pickled state was written in a format this version cannot read."""


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
        self._set_state(unpack_state(state, type(self).__name__))

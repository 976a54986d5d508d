"""Data-only model files for the ``fast`` backend: :func:`load` builds fast models.

The format, its checks and ``model.save`` are those of :mod:`reference.persist`; a file
saved by either backend loads into either.
"""

from __future__ import annotations

import os
from typing import Any

import reference.persist as _ref

__all__ = ["load"]


def load(path: str | os.PathLike[str], max_bytes: int | None = None) -> Any:
    return _ref.load_into(path, "fast", max_bytes)


load.__doc__ = (_ref.load.__doc__ or "").replace("``reference.load`` builds a reference model "
                                                 "and ``fast.load`` a fast one",
                                                 "``fast.load`` builds a fast model and "
                                                 "``reference.load`` a reference one")

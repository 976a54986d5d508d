"""Atomic file writes, shared by the data registry and the model files.

:func:`write_atomic` writes beside the target under a temporary name, flushes the bytes to
disk and renames the file over the target, so that a full disk, a crash or Ctrl-C leaves
either the previous file or the new one, never a partial file, and no temporary file
behind.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["write_atomic"]


def write_atomic(target: Path, content: bytes) -> None:
    """Replace ``target`` by a file holding ``content``, atomically (see the module doc)."""
    fd, tmp = tempfile.mkstemp(prefix="." + target.name + ".", suffix=".part",
                               dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise

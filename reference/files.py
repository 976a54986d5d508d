"""Atomic file writes, shared by the data registry and the model files.

:func:`write_atomic` writes beside the target under a temporary name, flushes the bytes to
disk and renames the file over the target, so that a full disk, a crash or Ctrl-C leaves
either the previous file or the new one, never a partial file, and no temporary file
behind.

What a user of ``open(path, "wb")`` would expect is kept:

- **mode**: a file that exists keeps its permission bits (a model shared with another
  user's serving process stays readable after a retrain); a new file gets the mode
  ``open`` would give it (``0o666`` less the umask, or the directory's default ACL),
  because the temporary file is created with ``os.open(..., 0o666)`` and the kernel
  applies them;
- **symbolic links**: writing to a link replaces the file the link points to (resolved
  through every link), atomically beside that target; the link itself stays;
- **only regular files**: a target that exists and is not a regular file (a FIFO, a
  device node, a socket) is refused with :class:`FileExistsError` and left alone; a
  directory raises :class:`IsADirectoryError`.

The temporary file is named ``.{name}.{12 random hex digits}.part``, the name cut so
that the temporary name never exceeds the directory's limit on names
(:func:`name_limit`): a target named with exactly the limit saves like any other.

Owner and group of a replaced file are those of the writing process (as after any
rename-based save; only root could keep another owner).
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from pathlib import Path

__all__ = ["write_atomic", "resolve_target", "name_limit", "temporary_name"]


def resolve_target(target: Path) -> tuple[Path, int | None]:
    """The file that writing ``target`` replaces (symbolic links followed) and the
    permission bits it has (None if it does not exist yet); refuses a target that exists
    and is not a regular file."""
    real = Path(os.path.realpath(target))
    try:
        info = os.stat(real)
    except FileNotFoundError:
        return real, None
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(errno.EISDIR, "is a directory, not a file", os.fspath(target))
    if not stat.S_ISREG(info.st_mode):
        kind = ("a FIFO" if stat.S_ISFIFO(info.st_mode) else
                "a device node" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode)
                else "a socket" if stat.S_ISSOCK(info.st_mode) else "not a regular file")
        raise FileExistsError(errno.EEXIST, f"exists and is {kind}; driftwood writes only "
                              f"regular files and leaves this one alone", os.fspath(target))
    return real, stat.S_IMODE(info.st_mode)


NAME_MAX_DEFAULT = 255
"""The longest file name assumed where the system does not say (``os.pathconf`` with
``PC_NAME_MAX`` unavailable, as on Windows): 255, the limit of every common file system."""


def name_limit(directory: Path) -> int:
    """The longest file name (in bytes of the file system's encoding) ``directory``
    accepts: ``os.pathconf(directory, "PC_NAME_MAX")`` where available, else
    :data:`NAME_MAX_DEFAULT`."""
    try:
        limit = os.pathconf(directory, "PC_NAME_MAX")
    except (AttributeError, ValueError, OSError):
        return NAME_MAX_DEFAULT
    return limit if isinstance(limit, int) and limit > 0 else NAME_MAX_DEFAULT


def temporary_name(name: str, token: str, limit: int) -> str:
    """The temporary name of ``name``: ``.{name}.{token}.part``, with ``name`` cut (whole
    characters) so that the result is at most ``limit`` bytes: a legal name of up to the
    limit still gets a temporary name beside it, which stays unique by its random
    ``token`` (12 hex digits)."""
    keep = name
    while keep and len(os.fsencode(f".{keep}.{token}.part")) > limit:
        keep = keep[:-1]
    return f".{keep}.{token}.part"


def _create_temporary(real: Path) -> tuple[int, Path]:
    """A new, empty file beside ``real`` (mode 0o666 less the umask, as ``open`` gives),
    named within the directory's name limit (:func:`temporary_name`)."""
    limit = name_limit(real.parent)
    for _ in range(100):
        tmp = real.parent / temporary_name(real.name, secrets.token_hex(6), limit)
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", os.fspath(real.parent))


def write_atomic(target: Path, content: bytes) -> None:
    """Replace ``target`` by a file holding ``content``, atomically (see the module doc)."""
    real, mode = resolve_target(Path(target))
    fd, tmp = _create_temporary(real)
    try:
        with os.fdopen(fd, "wb") as handle:
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, real)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise

"""Where a check runs: inside bubblewrap, or in a process group the harness cleans up.

:mod:`reference.exercises.isolation` starts one child per check. How that child is
contained is chosen here, once per process (:func:`mode`):

``"bwrap"``
    On Linux, where `bubblewrap <https://github.com/containers/bubblewrap>`_ (``bwrap``,
    the sandbox Flatpak uses) is installed and works (:func:`bwrap_problem` tries it).
    The check runs with the whole file system read-only except its own temporary
    directory, an empty ``/tmp``, the class folder and the compiled backend hidden, no
    network (``--unshare-net``), its own PID namespace (so it sees no other process and
    every process it starts ends with it), its own session (no terminal to write into),
    no capabilities (also when the grader runs as root) and ``--die-with-parent``.
``"process-group"``
    Elsewhere (macOS, Windows, no user namespaces), or when asked
    (:data:`SANDBOX_VARIABLE` ``=process-group``): the child runs in a session of its
    own; on Linux its harness becomes a child subreaper
    (``prctl(PR_SET_CHILD_SUBREAPER)``), so that every orphaned descendant of the
    student's code is re-parented to it, and kills them all when the check ends; it also
    dies with the grader (``PR_SET_PDEATHSIG``) and kills them first. The file system is
    not read-only in this mode: the grader's comparison of the class folder
    (:mod:`reference.exercises.gradebook`) reports and undoes any change.

The prctl and capability calls go through :mod:`ctypes` to the C library; each is a
no-op where the platform lacks it.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

__all__ = ["BWRAP", "MODES", "PROCESS_GROUP", "SANDBOX_VARIABLE", "bwrap_command",
           "bwrap_problem", "children", "die_with_parent", "drop_capabilities", "kill_descendants",
           "mode", "not_dumpable", "subreaper"]

SANDBOX_VARIABLE = "DRIFTWOOD_SANDBOX"
"""Environment variable choosing the mode: ``auto`` (default: ``bwrap`` where it works),
``bwrap`` (required: an error where it does not work) or ``process-group``."""

BWRAP = "bwrap"
PROCESS_GROUP = "process-group"
MODES = ("auto", BWRAP, PROCESS_GROUP)

_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_CHILD_SUBREAPER = 36


@functools.lru_cache(maxsize=1)
def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    except OSError:  # pragma: no cover - a Linux without a C library by that name
        return None


def _prctl(option: int, value: int) -> bool:
    libc = _libc()
    if libc is None:
        return False
    return int(libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0)) == 0


def subreaper() -> bool:
    """Make this process a child subreaper (Linux): orphans below it become its children."""
    return _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def die_with_parent(sig: int = signal.SIGKILL) -> bool:
    """Ask the kernel to send ``sig`` to this process when its parent ends (Linux)."""
    parent = os.getppid()
    done = _prctl(_PR_SET_PDEATHSIG, int(sig))
    if done and os.getppid() != parent:     # the parent ended before the call
        os.kill(os.getpid(), sig)
    return done


def not_dumpable() -> bool:
    """Make this process non-dumpable (Linux): a process without ``CAP_SYS_PTRACE`` can
    then neither trace it nor open its ``/proc/PID/fd``, ``mem`` or ``environ``."""
    return _prctl(_PR_SET_DUMPABLE, 0)


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def drop_capabilities() -> bool:
    """Drop every capability of this process and forbid gaining any (Linux): also a
    process running as root can then not reach a non-dumpable process (see
    :func:`not_dumpable`) or raise its limits again."""
    libc = _libc()
    if libc is None:
        return False
    _prctl(_PR_SET_NO_NEW_PRIVS, 1)
    header = _CapHeader(0x20080522, 0)            # _LINUX_CAPABILITY_VERSION_3
    data = (_CapData * 2)()
    return int(libc.capset(ctypes.byref(header), data)) == 0


def children(pid: int) -> list[int]:
    """The child processes of ``pid``, of all its threads (Linux; elsewhere none)."""
    found: list[int] = []
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return found
    for task in tasks:
        try:
            found += [int(p) for p in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
    return found


_children = children


def kill_descendants(pid: int | None = None, rounds: int = 200) -> int:
    """Kill (``SIGKILL``) every descendant of ``pid`` (default: this process) and reap
    the direct children; returns how many processes were killed.

    Meant for a child subreaper (:func:`subreaper`): a process that escaped into its own
    session is still a descendant, and an orphan is re-parented here, so repeating the
    sweep until no child is left reaches everything the student's code started.
    """
    me = os.getpid() if pid is None else pid
    killed = 0
    for _ in range(rounds):
        stack = _children(me)
        if not stack:
            if me == os.getpid():
                _reap()
            if not _children(me):
                return killed
        while stack:
            child = stack.pop()
            stack.extend(_children(child))
            try:
                os.kill(child, signal.SIGKILL)
                killed += 1
            except (ProcessLookupError, PermissionError):
                pass
        if me == os.getpid():
            _reap()
        time.sleep(0.005)
    return killed


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _bwrap_base(bwrap: str) -> list[str]:
    return [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--tmpfs", "/tmp", "--unshare-all", "--die-with-parent", "--new-session",
            "--cap-drop", "ALL"]


@functools.lru_cache(maxsize=1)
def bwrap_problem() -> str | None:
    """Why the ``bwrap`` mode cannot run here (``None``: it can): not Linux, no ``bwrap``
    on ``PATH``, or bwrap fails to start a sandbox (no user namespaces, say)."""
    if not sys.platform.startswith("linux"):
        return f"bubblewrap runs on Linux only (this is {sys.platform})"
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed"
    try:
        done = subprocess.run([*_bwrap_base(bwrap), "--", sys.executable, "-c", "pass"],
                              capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"bwrap does not start: {err}"
    if done.returncode != 0:
        text = " ".join(done.stderr.decode("utf-8", "replace").split())[:200]
        return f"bwrap cannot create a sandbox here ({text or f'status {done.returncode}'})"
    return None


def mode(requested: str | None = None) -> str:
    """The mode a check runs in: ``requested``, else :data:`SANDBOX_VARIABLE`, else
    ``auto`` (``bwrap`` where :func:`bwrap_problem` finds none, else ``process-group``).

    Raises ``ValueError`` for an unknown mode, or ``RuntimeError`` when ``bwrap`` is
    required and cannot run here."""
    wanted = (requested or os.environ.get(SANDBOX_VARIABLE, "") or "auto").strip().lower()
    if wanted not in MODES:
        raise ValueError(f"unknown sandbox mode {wanted!r} (known: {', '.join(MODES)})")
    if wanted == PROCESS_GROUP:
        return PROCESS_GROUP
    problem = bwrap_problem()
    if problem is None:
        return BWRAP
    if wanted == BWRAP:
        raise RuntimeError(f"the bwrap sandbox was asked for, but {problem}")
    return PROCESS_GROUP


def bwrap_command(work: Path, hidden: Sequence[Path], command: Sequence[str]) -> list[str]:
    """The ``bwrap`` command line that runs ``command`` in the sandbox described in the
    module docstring: ``work`` is the only writable directory (and the working
    directory), each of ``hidden`` (existing directories: the class folder, the compiled
    backend) is replaced by an empty one, unless it holds the Python installation, this
    library or ``work`` (then it stays visible, read-only)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise RuntimeError("bubblewrap (bwrap) is not installed")
    argv = _bwrap_base(bwrap)
    needed = [Path(sys.prefix).resolve(), Path(sys.executable).resolve(), work.resolve(),
              Path(__file__).resolve()]
    for folder in hidden:
        # a folder holding what the check needs (Python, the library, its own folder)
        # stays visible, read-only
        if folder.is_dir() and not any(folder == n or folder in n.parents for n in needed):
            argv += ["--tmpfs", str(folder)]
    argv += ["--bind", str(work), str(work), "--chdir", str(work), "--", *command]
    return argv

"""The loaded C library and the one place where C status codes become exceptions."""

from __future__ import annotations

from typing import Any, NoReturn

import numpy as np

from reference.batches import as_float64

REMEDY = (
    "the C backend is not built in this installation (was there no working C compiler "
    "when it was installed?). To get it: install a prebuilt wheel ('pip install --force-reinstall "
    "driftwood-learn'), or install a C compiler (gcc or clang; Xcode's command line tools on "
    "macOS; Microsoft C++ Build Tools on Windows) and reinstall ('pip install "
    "--force-reinstall --no-binary driftwood-learn driftwood-learn', or 'pip install -e .' "
    "in a clone). Meanwhile 'reference' has the same models, in pure Python"
)
"""What :func:`missing_build` tells a user to do (docs/index.md's install routes)."""


def missing_build(module: str, exc: ImportError) -> ImportError:
    """The error raised when the compiled extension ``module`` cannot be imported: what
    happened, and the remedy (:data:`REMEDY`). A ``ModuleNotFoundError`` (naming
    ``module``) where the extension is absent, as after an install without a compiler, so
    that ``pytest.importorskip("fast")`` skips; a plain ``ImportError`` where it exists but
    does not load (a broken build is an error, never a skip)."""
    message = f"the C extension {module} could not be loaded ({exc}); {REMEDY}"
    if isinstance(exc, ModuleNotFoundError):
        return ModuleNotFoundError(message, name=module)
    return ImportError(message)


try:
    from fast._lib import ffi, lib
except ImportError as exc:  # pragma: no cover - exercised only without a build
    raise missing_build("fast._lib", exc) from exc

__all__ = ["ffi", "lib", "REMEDY", "missing_build", "check", "raise_status", "status_message",
           "doubles", "view_doubles", "piece_doubles", "STATUS_EXCEPTIONS"]

STATUS_EXCEPTIONS: dict[int, type[Exception]] = {
    lib.ST_EINVAL: ValueError,
    lib.ST_ENOMEM: MemoryError,
    lib.ST_EDIM: ValueError,
    lib.ST_ESTATE: RuntimeError,
    lib.ST_ERANGE: IndexError,
}
"""Status code -> exception class, the single mapping used by every ``fast`` class."""


def status_message(rc: int, what: str = "") -> str:
    """The message of the exception for status ``rc``, with the C library's words for it
    (``st_message``, the one error-message function of ``csrc/common/common.h``)."""
    words = ffi.string(lib.st_message(rc)).decode()
    return f"{what or 'C library'} failed with status {rc} ({words})"


def raise_status(rc: int, what: str = "") -> NoReturn:
    """Raise the exception for a non-zero status code ``rc`` (:func:`status_message`)."""
    raise STATUS_EXCEPTIONS.get(rc, RuntimeError)(status_message(rc, what))


def check(rc: int, what: str = "") -> None:
    """Return if ``rc == ST_OK``; otherwise raise the mapped exception."""
    if rc != lib.ST_OK:
        raise_status(rc, what)


def doubles(values: Any) -> Any:
    """A fresh C ``double[]`` holding ``values`` (a sequence of floats)."""
    return ffi.new("double[]", [float(v) for v in values])


def view_doubles(arr: np.ndarray) -> Any:
    """A float64 C-contiguous array as a C ``double *`` over its own memory (no copy)."""
    return ffi.from_buffer("double[]", arr)


def piece_doubles(X: np.ndarray, start: int, stop: int) -> Any:
    """Rows ``start:stop`` of a numeric 2-D array as C doubles: the rows themselves when
    the array is C-contiguous float64, else a float64 copy of this piece alone
    (:mod:`reference.batches`)."""
    return view_doubles(as_float64(X[start:stop]))

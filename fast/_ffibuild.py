"""cffi builder for ``fast._lib``.

The cdef is *derived* from ``csrc/core.h``: every line starting with ``#`` is dropped
and the rest is handed to ``ffibuilder.cdef`` (numpy's cffi example does the same), so
the binding and the header cannot drift. Every ``csrc/*.c`` file is compiled, with
``-ffp-contract=off`` so GCC never fuses ``a*b + c`` into an FMA (which would break
bit-parity with the Python reference, [DET-SPEC §2]).
"""

from __future__ import annotations

import os
from pathlib import Path

from cffi import FFI

ROOT = Path(__file__).resolve().parent.parent
CSRC = ROOT / "csrc"
HEADER = CSRC / "core.h"
CFLAGS = ["-std=c99", "-O2", "-ffp-contract=off", "-Wall", "-Wextra"]
EXTRA_FLAGS = os.environ.get("DRIFTWOOD_EXTRA_CFLAGS", "").split()
"""Extra compile and link flags, e.g. sanitizers for ``.ci/sanitize``; empty normally."""


def cdef_from_header(text: str) -> str:
    """The header with preprocessor lines removed: the text cffi's ``cdef`` accepts."""
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


ffibuilder = FFI()
ffibuilder.cdef(cdef_from_header(HEADER.read_text()))
ffibuilder.set_source(
    "fast._lib",
    '#include "core.h"',
    sources=[str(p.relative_to(ROOT)) for p in sorted(CSRC.glob("*.c"))],
    include_dirs=[str(CSRC.relative_to(ROOT))],
    depends=[str(HEADER.relative_to(ROOT))],  # ships core.h in the sdist (no MANIFEST.in)
    extra_compile_args=CFLAGS + EXTRA_FLAGS,
    extra_link_args=EXTRA_FLAGS,
    libraries=["m"],
    py_limited_api=False,
)

if __name__ == "__main__":  # python fast/_ffibuild.py: build in place for development
    os.chdir(ROOT)
    ffibuilder.compile(tmpdir=str(ROOT), verbose=True)

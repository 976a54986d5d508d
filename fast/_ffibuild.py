"""cffi builder for ``fast._lib``, and the build of ``fast._rows_ext``.

The cdef is *derived* from the headers in :data:`HEADERS` (``csrc/common/common.h``, then
one header per family): every line starting with ``#`` is dropped and the rest is handed
to ``ffibuilder.cdef`` (numpy's cffi example does the same), so the binding and the
headers cannot drift. Every ``.c`` file under ``csrc/`` (searched recursively: ``common/``
and one folder per family) is compiled, with
``-ffp-contract=off`` so GCC never fuses ``a*b + c`` into an FMA (which would break
bit-parity with the Python reference, [DET-SPEC §2]); MSVC, which has no such flag, gets
:data:`MSVC_CFLAGS` instead (:func:`flags_for`).

The C backend is optional: :class:`OptionalBuildExt`, the ``build_ext`` command of
``setup.py``, turns a failed C build (no compiler, a compiler that fails) into one warning
and installs the pure-Python packages, the ``driftwood`` command and the exercises without
``fast._lib`` and ``fast._rows_ext`` (MarkupSafe and msgpack treat their speed-ups the same
way). ``DRIFTWOOD_REQUIRE_C=1`` makes a failed C build an error instead (CI's install).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import sysconfig
import tempfile
import warnings
from pathlib import Path

from cffi import FFI
from setuptools import Extension
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent.parent
CSRC = ROOT / "csrc"
HEADERS = [CSRC / "common" / "common.h", CSRC / "dynatree" / "dynatree.h",
           CSRC / "sgt" / "sgt.h", CSRC / "abacoc" / "abacoc.h"]
"""The public headers in dependency order (each family header includes only common.h)."""
ROWS_SOURCE = CSRC / "common" / "rows.c"
"""The one C file that uses the Python C API: built as its own extension module,
``fast._rows_ext`` (:func:`rows_extension`), not into ``fast._lib``."""
SOURCES = sorted(p for p in CSRC.rglob("*.c") if p != ROWS_SOURCE)
"""Every C source of the library, all folders."""
CFLAGS = ["-std=c99", "-O3", "-ffp-contract=off", "-fvisibility=hidden", "-Wall", "-Wextra"]
"""Compile flags of every C file. ``-O3`` does not change a result: GCC reorders
floating-point operations only under ``-ffast-math`` (never used), and
``-ffp-contract=off`` forbids fused multiply-adds. ``-fvisibility=hidden`` keeps the
library's functions private to the module (only ``PyInit__lib`` is exported, by Python's
own macro), so that calls between them are direct rather than through the PLT."""
MSVC_CFLAGS = ["/O2", "/fp:precise", "/std:c11", "/W3"]
"""Compile flags under MSVC (Windows wheels), which refuses GCC's. What keeps bit parity
there: ``/fp:precise`` (value-safe: no reassociation, no flush to zero) and no
contraction, since ``#pragma fp_contract`` is off by default under ``/fp:precise`` from
Visual Studio 2022 (17.0) on and nothing here enables ``/fp:contract``; nor do we pass
``/arch:AVX2``, so x64 code has no FMA instruction to contract into at all. Doubles are
SSE2 on x64 (no x87 extended precision). The ``/O2`` optimisations respect all of this."""
LIMITED_API = (sys.version_info >= (3, 11) and not hasattr(sys, "gettotalrefcount")
               and not sysconfig.get_config_var("Py_GIL_DISABLED")
               and not os.environ.get("DRIFTWOOD_FULL_API"))
"""Build both extensions on Python's limited C API (stable ABI, ``abi3``): on CPython
3.11 and later (``rows.c`` needs the buffer protocol, limited only from 3.11), not on debug
or free-threaded builds, and not with ``DRIFTWOOD_FULL_API=1``. One wheel per platform
then serves 3.11 and every later version (``setup.py`` tags it ``cp311-abi3``); 3.10 has
its own wheel. What it costs a one-row call: ``tests/benchmarks/bench_limited_api.py``."""
LIMITED_API_VERSION = "0x030B0000"
"""``Py_LIMITED_API`` of ``rows.c`` when :data:`LIMITED_API`: the 3.11 limited API."""
LIBRARIES = [] if sys.platform == "win32" else ["m", "pthread"]
"""Link libraries: the maths library ``m`` and the POSIX threads ``pthread`` (the C pool
of the dynamic trees' learning step, ``csrc/common/parallel.c``) on POSIX; on Windows both
are part of the C runtime and the Windows API, and MSVC has no ``m.lib``."""


def compiler_command() -> list[str]:
    """The C compiler the build calls: ``$CC`` if set (setuptools honours it), else the one
    Python was configured with."""
    return shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")


def lto_flags(compiler: list[str] | None = None) -> list[str]:
    """Link-time optimisation flags the compiler accepts, found by building and linking a
    two-function shared object: ``-flto=auto`` (GCC: parallel, without its warning about
    serial jobs), else ``-flto`` (clang, whose older releases refuse ``=auto``), else none,
    so that a compiler or linker without LTO (clang with a linker lacking the LLVM plugin,
    say) still builds the library, without it. ``DRIFTWOOD_NO_LTO=1`` skips the probe and
    LTO."""
    if os.environ.get("DRIFTWOOD_NO_LTO"):
        return []
    cc = compiler_command() if compiler is None else compiler
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "probe.c"
        src.write_text("static int twice(int x) { return 2 * x; }\n"
                       "int probe(int x) { return twice(x) + 1; }\n")
        for flag in ("-flto=auto", "-flto"):
            try:
                done = subprocess.run([*cc, "-O2", "-fPIC", "-shared", flag, str(src), "-o",
                                       str(Path(tmp) / "probe.so")],
                                      capture_output=True, timeout=120, check=False)
            except (OSError, subprocess.SubprocessError):
                return []
            if done.returncode == 0:
                return [flag]
    return []


LTO_FLAGS = lto_flags()
"""Link-time optimisation (inlining across the C files: ``dt_leaf_stats`` and the other
small accessors are called from every file), on both the compile and the link line, with
the compile flags repeated at the link, where GCC generates the code. About 10% off the
dynamic trees' particle step (Performance page). Empty where the compiler cannot
(:func:`lto_flags`) or with ``DRIFTWOOD_NO_LTO=1``."""
EXTRA_FLAGS = os.environ.get("DRIFTWOOD_EXTRA_CFLAGS", "").split()
"""Extra compile and link flags, e.g. sanitizers for ``.ci/sanitize``; empty normally."""
BUILD_FLAGS = CFLAGS + LTO_FLAGS + EXTRA_FLAGS
"""The flags of both the compile and the link line (with LTO the code is generated at the
link, so it needs the same optimisation and floating-point flags as the compile)."""


def cdef_from_header(text: str) -> str:
    """The header with preprocessor lines removed: the text cffi's ``cdef`` accepts."""
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


ffibuilder = FFI()
ffibuilder.cdef("\n".join(cdef_from_header(h.read_text()) for h in HEADERS))
ffibuilder.set_source(
    "fast._lib",
    "\n".join(f'#include "{h.relative_to(CSRC).as_posix()}"' for h in HEADERS),
    sources=[str(p.relative_to(ROOT)) for p in SOURCES],
    include_dirs=[str(CSRC.relative_to(ROOT))],
    # ships every header in the sdist (no MANIFEST.in)
    depends=[str(h.relative_to(ROOT)) for h in sorted(CSRC.rglob("*.h"))],
    extra_compile_args=BUILD_FLAGS,
    extra_link_args=BUILD_FLAGS,
    libraries=LIBRARIES,
    py_limited_api=LIMITED_API,
)


def rows_extension() -> Extension:
    """The row packer ``fast._rows_ext`` (``csrc/common/rows.c``), same flags as the
    library, on the limited API where :data:`LIMITED_API`; ``setup.py`` lists it next to
    the cffi module."""
    limited = [("Py_LIMITED_API", LIMITED_API_VERSION)] if LIMITED_API else []
    return Extension("fast._rows_ext", sources=[str(ROWS_SOURCE.relative_to(ROOT))],
                     extra_compile_args=BUILD_FLAGS, extra_link_args=BUILD_FLAGS,
                     define_macros=limited, py_limited_api=LIMITED_API)


def flags_for(compiler_type: str) -> tuple[list[str], list[str]]:
    """The (compile, link) flags for setuptools' compiler type: :data:`MSVC_CFLAGS` and no
    link flag for ``"msvc"``, :data:`BUILD_FLAGS` on both lines for every other compiler
    (GCC, clang, MinGW: they share GCC's flags)."""
    if compiler_type == "msvc":
        return MSVC_CFLAGS + EXTRA_FLAGS, []
    return BUILD_FLAGS, BUILD_FLAGS


REQUIRE_C = "DRIFTWOOD_REQUIRE_C"
"""Environment variable: set to ``1`` to make a failed C build an error (CI sets it)."""


def c_required() -> bool:
    """Whether :data:`REQUIRE_C` is set to a true value."""
    return os.environ.get(REQUIRE_C, "").lower() not in ("", "0", "false", "no")


def skipped_message(reason: str) -> str:
    """The one warning of a build that skipped the C backend."""
    return (
        f"driftwood: the C backend (fast) was NOT built: {reason}. The pure-Python backend "
        "(reference), the driftwood command and the exercises are installed and work; "
        "`import fast` will raise ImportError and `driftwood run` uses the reference "
        "(about 10x slower for the stochastic gradient trees, 30x for ABACOC and 300x or "
        "more for the dynamic trees). For the C backend install a wheel (pip install "
        f"driftwood-learn) or a C compiler, then reinstall; set {REQUIRE_C}=1 to make this "
        "an error."
    )


BUILD_ERRORS: tuple[type[BaseException], ...] = (Exception,)
"""What a failed build raises: setuptools' compiler, exec and platform errors, but also
``OSError`` (a compiler that is not there) and others from cffi or the platform, so every
exception is caught (``KeyboardInterrupt`` is not an ``Exception``)."""


class OptionalBuildExt(build_ext):  # type: ignore[misc]
    """``build_ext`` for which the C backend is optional.

    Chooses the flags for the compiler found (:func:`flags_for`) and builds each
    extension; if one fails (no compiler, or a compiler error), it warns once
    (:func:`skipped_message`), builds no further extension and lets the install go on
    without them, unless ``DRIFTWOOD_REQUIRE_C=1`` (:func:`c_required`), when the error
    propagates. cffi's setuptools hook subclasses this command (``setup.py`` passes it as
    ``cmdclass``), so the generation of ``_lib.c`` runs first and its build is covered too.
    """

    skipped: str | None = None
    """The reason the C backend was skipped, or None."""

    def run(self) -> None:
        if getattr(self, "inplace", False) or getattr(self, "editable_mode", False):
            remove_stale_builds()  # pip install -e: the new build must not be shadowed
        try:
            super().run()
        except BUILD_ERRORS as exc:  # e.g. no compiler at all on Windows (PlatformError)
            self.skip(exc)

    def build_extension(self, ext: Extension) -> None:
        if self.skipped is not None:
            ext.optional = True  # not built: the in-place copy (pip install -e) skips it
            return
        compile_flags, link_flags = flags_for(self.compiler.compiler_type)
        ext.extra_compile_args = list(compile_flags)
        ext.extra_link_args = list(link_flags)
        try:
            super().build_extension(ext)
        except BUILD_ERRORS as exc:
            self.skip(exc, ext.name)  # re-raises if the C backend is required
            ext.optional = True

    def skip(self, exc: BaseException, name: str = "") -> None:
        """Warn once that the C backend is skipped because of ``exc`` (re-raise it if
        :func:`c_required`)."""
        if c_required():
            raise exc
        if self.skipped is None:
            where = f"building {name} failed" if name else "no C build"
            detail = str(exc) if len(str(exc)) <= 160 else str(exc)[:157] + "..."
            self.skipped = f"{where} ({type(exc).__name__}: {detail})"
            # explicit: the warning names the build, not this line of code
            warnings.warn_explicit(skipped_message(self.skipped), UserWarning,
                                   "driftwood C build", 0)


def remove_stale_builds(folder: Path | None = None) -> list[Path]:
    """Delete the compiled ``fast._lib`` and ``fast._rows_ext`` files in ``folder`` (default
    ``fast/``) that a build on this interpreter would not write: Python imports
    ``*.cpython-3XY-*.so`` before ``*.abi3.so``, so an in-place build of the other kind
    left there would shadow the new one. Returns the deleted files."""
    folder = ROOT / "fast" if folder is None else folder
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    if LIMITED_API and sys.platform != "win32":
        suffix = ".abi3.so"
    stale = [f for name in ("_lib", "_rows_ext") for f in folder.glob(f"{name}.*")
             if f.suffix in (".so", ".pyd") and f.name != name + suffix]
    for f in stale:
        f.unlink()
    return stale


def build_rows_in_place() -> None:
    """Build ``fast._rows_ext`` next to its sources (what ``pip install -e .`` does)."""
    from setuptools import Distribution

    command = Distribution({"ext_modules": [rows_extension()]}).get_command_obj("build_ext")
    command.inplace = True
    command.ensure_finalized()
    command.run()


if __name__ == "__main__":  # python fast/_ffibuild.py: build in place for development
    os.chdir(ROOT)
    remove_stale_builds()
    ffibuilder.compile(tmpdir=str(ROOT), verbose=True)
    build_rows_in_place()

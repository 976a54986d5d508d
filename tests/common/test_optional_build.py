"""The optional C build (``fast/_ffibuild.py``'s ``OptionalBuildExt``, ``setup.py``'s
``build_ext``): without a working compiler the install goes on with one warning and no
extension; ``DRIFTWOOD_REQUIRE_C=1`` makes that an error; the flags follow the compiler.

The build module is loaded from its file, not through ``fast`` (whose import needs the
extension these tests are about), so the tests also run where the C was never built. The
whole route (``pip install`` of a fresh clone with ``CC=/bin/false`` and with no compiler
on ``PATH``) is CI's no-compiler job in ``.ci/run``.
"""

from __future__ import annotations

import importlib.util
import shutil
import stat
import sys
import warnings
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip("setuptools")


@pytest.fixture(scope="module")
def build() -> ModuleType:
    script = ROOT / "fast" / "_ffibuild.py"
    if not (script.is_file() and (ROOT / "csrc").is_dir()):
        pytest.skip("not a source tree (tests copied beside an installed wheel)")
    spec = importlib.util.spec_from_file_location("_ffibuild_under_test", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _spy_compiler(tmp_path: Path, then: str) -> tuple[str, Path]:
    """A compiler script that logs each call's arguments, then runs ``then``."""
    log = tmp_path / "calls.log"
    script = tmp_path / "cc-spy"
    script.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\n{then}\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script), log


def _run_build(build: ModuleType, tmp_path: Path) -> tuple[object, list[Path]]:
    """Build two toy extensions with OptionalBuildExt; the command and the built files."""
    from setuptools import Distribution, Extension

    sources = []
    for name in ("toy_a", "toy_b"):
        src = tmp_path / f"{name}.c"
        src.write_text("#include <Python.h>\n"
                       f"static struct PyModuleDef m = {{PyModuleDef_HEAD_INIT, \"{name}\"}};\n"
                       f"PyMODINIT_FUNC PyInit_{name}(void) {{ return PyModule_Create(&m); }}\n")
        sources.append(Extension(name, [str(src)]))
    dist = Distribution({"ext_modules": sources, "script_name": "setup.py"})
    command = build.OptionalBuildExt(dist)
    command.build_lib = str(tmp_path / "lib")
    command.build_temp = str(tmp_path / "temp")
    command.ensure_finalized()
    command.run()
    return command, sorted((tmp_path / "lib").glob("toy_*"))


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell compiler stand-ins")
def test_a_failing_compiler_warns_once_and_builds_nothing(
        build: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cc, log = _spy_compiler(tmp_path, "exit 1")
    monkeypatch.setenv("CC", cc)
    monkeypatch.delenv("DRIFTWOOD_REQUIRE_C", raising=False)
    with pytest.warns(UserWarning) as caught:
        command, built = _run_build(build, tmp_path)
    messages = [str(w.message) for w in caught if "NOT built" in str(w.message)]
    assert len(messages) == 1
    assert "building toy_a failed" in messages[0] and "CompileError" in messages[0]
    assert "reference" in messages[0] and "DRIFTWOOD_REQUIRE_C=1" in messages[0]
    assert built == []
    # the first failure stops the build: toy_b is never handed to the compiler
    assert len(log.read_text().splitlines()) == 1
    assert command.skipped is not None  # type: ignore[attr-defined]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX compiler paths")
def test_a_missing_compiler_is_skipped_the_same_way(
        build: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CC", str(tmp_path / "no-such-compiler"))
    monkeypatch.delenv("DRIFTWOOD_REQUIRE_C", raising=False)
    with pytest.warns(UserWarning, match="NOT built"):
        _, built = _run_build(build, tmp_path)
    assert built == []


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell compiler stand-ins")
@pytest.mark.parametrize("value", ["1", "true", "yes"])
def test_required_c_makes_a_failed_build_an_error(
        build: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        value: str) -> None:
    from setuptools.errors import CompileError

    cc, _ = _spy_compiler(tmp_path, "exit 1")
    monkeypatch.setenv("CC", cc)
    monkeypatch.setenv("DRIFTWOOD_REQUIRE_C", value)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and it does not warn first
        with pytest.raises(CompileError):
            _run_build(build, tmp_path)


def test_require_c_reads_like_the_other_switches(
        build: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    for value, required in [("", False), ("0", False), ("no", False), ("false", False),
                            ("1", True), ("yes", True)]:
        monkeypatch.setenv("DRIFTWOOD_REQUIRE_C", value)
        assert build.c_required() is required


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_a_working_compiler_builds_with_the_gcc_flags(
        build: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cc, log = _spy_compiler(tmp_path, f'exec "{shutil.which("gcc")}" "$@"')
    monkeypatch.setenv("CC", cc)
    monkeypatch.setenv("LDSHARED", f"{cc} -shared")
    monkeypatch.setenv("DRIFTWOOD_REQUIRE_C", "1")
    command, built = _run_build(build, tmp_path)
    assert [p.name.split(".")[0] for p in built] == ["toy_a", "toy_b"]
    assert command.skipped is None  # type: ignore[attr-defined]
    compiles = [line for line in log.read_text().splitlines() if " -c " in f" {line} "]
    assert len(compiles) == 2
    assert all("-ffp-contract=off" in line.split() for line in compiles)


def test_msvc_gets_its_own_value_safe_flags(build: ModuleType) -> None:
    """MSVC refuses GCC's flags: it gets /fp:precise and nothing that allows contraction,
    reassociation or FMA instructions; no link flags."""
    compile_flags, link_flags = build.flags_for("msvc")
    assert "/fp:precise" in compile_flags and link_flags == []
    assert not any(f.startswith("-") for f in compile_flags)
    for unsafe in ("/fp:fast", "/fp:contract", "/arch:AVX2", "/arch:AVX512"):
        assert unsafe not in compile_flags
    for compiler in ("unix", "mingw32", "cygwin"):
        flags, link = build.flags_for(compiler)
        assert "-ffp-contract=off" in flags and flags == link == build.BUILD_FLAGS


def test_the_maths_and_thread_libraries_are_linked_only_outside_windows(
        build: ModuleType) -> None:
    """POSIX links libm and libpthread (the C pool of the learning step; part of the C
    library on glibc 2.34+ and macOS, a library of its own on older glibc); on Windows
    both are part of the C runtime and the Windows API."""
    assert build.LIBRARIES == ([] if sys.platform == "win32" else ["m", "pthread"])


def test_abi3_from_python_311_on(build: ModuleType) -> None:
    """On CPython >= 3.11 both extensions use the limited API (one abi3 wheel per
    platform); rows.c at the 3.11 level, the first with the buffer protocol."""
    expected = (sys.version_info >= (3, 11) and not hasattr(sys, "gettotalrefcount")
                and not build.sysconfig.get_config_var("Py_GIL_DISABLED")
                and not build.os.environ.get("DRIFTWOOD_FULL_API"))
    assert build.LIMITED_API is expected
    rows = build.rows_extension()
    assert rows.py_limited_api is expected
    assert (("Py_LIMITED_API", "0x030B0000") in rows.define_macros) is expected


@pytest.mark.skipif(sys.platform == "win32", reason="Windows names abi3 modules .pyd")
def test_the_installed_extensions_match_the_api_choice(build: ModuleType) -> None:
    """The extensions this interpreter loads were built as the build module says: abi3
    files (``*.abi3.so``) exactly when the limited API is chosen."""
    pytest.importorskip("fast")
    for name in ("fast._rows_ext", "fast._lib"):
        path = str(sys.modules[name].__file__)
        assert path.endswith(".abi3.so") is build.LIMITED_API, path


def test_stale_builds_of_the_other_kind_are_removed(build: ModuleType, tmp_path: Path) -> None:
    """An in-place build of the other API left in fast/ would shadow the new one (Python
    tries ``*.cpython-3XY-*.so`` first): the build removes exactly those files."""
    import sysconfig

    versioned = sysconfig.get_config_var("EXT_SUFFIX")
    names = ["_lib" + versioned, "_rows_ext" + versioned, "_lib.abi3.so",
             "_rows_ext.abi3.so", "_lib.c", "_rows.py", "other.abi3.so"]
    for name in names:
        (tmp_path / name).write_text("")
    removed = {p.name for p in build.remove_stale_builds(tmp_path)}
    kept = {p.name for p in tmp_path.iterdir()}
    if build.LIMITED_API and sys.platform != "win32":
        assert removed == {"_lib" + versioned, "_rows_ext" + versioned}
    else:
        assert removed == {"_lib.abi3.so", "_rows_ext.abi3.so"}
    assert kept == set(names) - removed

"""The C library's build flags (``fast/_ffibuild.py``): no flag may change a floating-point
result, and the build must not depend on the compiler supporting link-time optimisation."""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

import pytest
from _installed import skip_without_source_tree, source_module

skip_without_source_tree()
build = source_module("fast/_ffibuild.py", "_driftwood_ffibuild")


def _script(path: Path, body: str) -> list[str]:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return [str(path)]


def test_no_flag_changes_floating_point_results() -> None:
    """Bit parity with the reference needs IEEE arithmetic as written: no fused
    multiply-add, no reassociation, on the compile and on the link line (where LTO
    generates the code)."""
    for flags in (build.CFLAGS, build.BUILD_FLAGS):
        assert "-ffp-contract=off" in flags
        assert not any("fast-math" in f or f == "-Ofast" or "associative" in f for f in flags)


def test_lto_probe_takes_the_first_flag_the_compiler_links(tmp_path: Path) -> None:
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("no gcc")
    assert build.lto_flags([gcc]) == ["-flto=auto"]
    # a compiler that refuses GCC's "=auto" (older clang) but links with plain -flto
    no_auto = _script(tmp_path / "cc-no-auto",
                      'for a in "$@"; do [ "$a" = "-flto=auto" ] && exit 1; done\n'
                      f'exec "{gcc}" "$@"\n')
    assert build.lto_flags(no_auto) == ["-flto"]


def test_lto_probe_builds_without_lto_when_the_compiler_cannot(tmp_path: Path) -> None:
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("no gcc")
    # a compiler whose linker has no LTO plugin: every -flto form fails, the rest works
    no_lto = _script(tmp_path / "cc-no-lto",
                     'for a in "$@"; do case "$a" in -flto*) exit 1;; esac; done\n'
                     f'exec "{gcc}" "$@"\n')
    assert build.lto_flags(no_lto) == []
    assert build.lto_flags([str(tmp_path / "no-such-compiler")]) == []


def test_no_lto_switch_skips_the_probe(monkeypatch: pytest.MonkeyPatch,
                                       tmp_path: Path) -> None:
    monkeypatch.setenv("DRIFTWOOD_NO_LTO", "1")
    called = tmp_path / "called"
    probe = _script(tmp_path / "cc-spy", f'touch "{called}"\nexit 0\n')
    assert build.lto_flags(probe) == []
    assert not called.exists()

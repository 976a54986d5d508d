"""The installed-wheel mode's guard (``DRIFTWOOD_TEST_INSTALLED=1``, CI's wheel job): a
session that would test the source tree instead of the installed packages refuses to
start, and says why (tests/common/_installed.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import _installed
import pytest
from _installed import INSTALLED_MODE, PACKAGE_PARENT, SOURCE_ROOT, installed_problems

REAL_SITE_PACKAGES = _installed._site_packages()


def _treat_as_site_packages(monkeypatch: pytest.MonkeyPatch, *folders: Path,
                            with_real: bool = True) -> None:
    """Make ``folders`` count as site-packages (with the real ones, unless ``with_real`` is
    false: a checkout may also have a non-editable install there)."""
    site = {f.resolve() for f in folders} | (REAL_SITE_PACKAGES if with_real else set())
    monkeypatch.setattr(_installed, "_site_packages", lambda: site)


def test_packages_imported_from_site_packages_pass(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    """Where the packages come from counts as site-packages, the source tree is elsewhere
    and holds no copy: nothing to report (whether this run is a checkout's or a wheel's)."""
    _treat_as_site_packages(monkeypatch, PACKAGE_PARENT)
    monkeypatch.setattr(_installed, "SOURCE_ROOT", tmp_path)
    assert installed_problems() == []


def test_packages_outside_site_packages_are_refused(monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path) -> None:
    """An editable install (or the source tree on ``sys.path``) imports from outside
    site-packages: each package and each compiled module is named."""
    _treat_as_site_packages(monkeypatch, tmp_path, with_real=False)
    problems = installed_problems()
    for name in ("reference", "fast", "fast._lib", "fast._rows_ext"):
        assert any(p.startswith(f"{name} is imported from ") and "outside site-packages" in p
                   for p in problems), (name, problems)
    assert any("modules of the packages were imported from outside" in p for p in problems)


def test_imports_from_the_source_tree_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Even where the source tree is inside an environment's folder, importing its copy
    of the packages is refused."""
    _treat_as_site_packages(monkeypatch, PACKAGE_PARENT)
    monkeypatch.setattr(_installed, "SOURCE_ROOT", PACKAGE_PARENT)
    problems = installed_problems()
    assert any(p.startswith("reference is imported from the source tree") for p in problems)
    assert any(p.startswith("fast._lib is imported from the source tree") for p in problems)


def test_a_copy_of_a_package_on_sys_path_is_refused(monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path) -> None:
    """A ``sys.path`` entry holding another ``fast`` would shadow the installed one in
    every child process that inherits the path."""
    (tmp_path / "fast").mkdir()
    (tmp_path / "fast" / "__init__.py").write_text("")
    _treat_as_site_packages(monkeypatch, PACKAGE_PARENT)
    monkeypatch.setattr(_installed, "SOURCE_ROOT", tmp_path / "elsewhere")
    monkeypatch.setattr(sys, "path", [*sys.path, str(tmp_path)])
    assert installed_problems() == [
        f"sys.path entry {tmp_path.resolve()} holds a copy of fast that would shadow the "
        "installed one"]


def test_the_session_refuses_to_start_unless_it_tests_the_installed_packages() -> None:
    """End to end: pytest with ``DRIFTWOOD_TEST_INSTALLED=1`` stops before collecting
    (usage error, exit status 4) in a checkout's editable install, and starts when the
    packages are installed (this test's own session in CI's wheel job)."""
    env = {**os.environ, "DRIFTWOOD_TEST_INSTALLED": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", "-q",
         "--collect-only", "tests/common/test_rng.py"],
        cwd=SOURCE_ROOT, env=env, capture_output=True, text=True, timeout=300)
    if INSTALLED_MODE:
        assert done.returncode == 0, done.stdout + done.stderr
    else:
        assert done.returncode == 4, done.stdout + done.stderr
        assert "would not test the installed packages" in done.stderr
        assert "reference is imported from" in done.stderr

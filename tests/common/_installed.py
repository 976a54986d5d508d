"""Where the packages under test come from, and the installed-wheel mode's guard.

The tests run against whatever ``import reference`` and ``import fast`` find: a checkout
installed with ``pip install -e .``, or a wheel in ``site-packages``. CI's wheel job
installs the repaired wheel in a fresh environment and runs the quick run from the unpacked
sdist with its ``reference/`` and ``fast/`` folders removed, so that nothing on
``sys.path`` can shadow the installed packages. Hence:

- a test that starts another Python puts :data:`PACKAGE_PARENT` on its ``PYTHONPATH``,
  never the source tree;
- a test that reads a package's files as text (the C/Python layout, the mutants' edits,
  the shipped data) finds them with :func:`tree_path`, which looks for ``reference/...``
  and ``fast/...`` beside the imported packages (the wheel ships every one of their
  ``.py`` and data files) and for everything else (``csrc/``, ``docs/``, ``tests/``) in
  the source tree;
- a test module that needs the build script loads it by path (:func:`source_module`) and
  is skipped in the installed mode (:func:`skip_without_source_tree`).

``DRIFTWOOD_TEST_INSTALLED=1`` turns the installed mode on: ``tests/conftest.py`` then
refuses to start (:func:`installed_problems`) unless both packages and the two compiled
extensions are imported from the environment's ``site-packages``, outside the source tree.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import sysconfig
from pathlib import Path
from types import ModuleType

import pytest

import reference

SOURCE_ROOT = Path(__file__).resolve().parents[2]
"""The source tree that holds these tests (a checkout, or an unpacked sdist)."""

PACKAGE_PARENT = Path(reference.__file__).resolve().parents[1]
"""The folder that holds the imported ``reference`` (and ``fast``): the checkout for an
editable install, ``site-packages`` for a wheel."""

PACKAGES = ("reference", "fast")
"""The two import packages the distribution installs."""

EXTENSIONS = ("fast._lib", "fast._rows_ext")
"""The compiled modules a wheel must carry (the cffi library and the row packer)."""

INSTALLED_MODE = os.environ.get("DRIFTWOOD_TEST_INSTALLED", "").lower() not in (
    "", "0", "false", "no")
"""``DRIFTWOOD_TEST_INSTALLED=1``: the session tests an installed wheel (see the module
docstring)."""


NOT_INSTALLED = frozenset({"fast/_ffibuild.py"})
"""Files of the packages' folders that a wheel leaves out (``setup.py``'s build_py): the
build script, which only the source tree (a clone, the sdist) holds."""


def tree_path(relative: str) -> Path:
    """The file or folder ``relative`` (a path as in the repository, e.g.
    ``"reference/sgt/engine.py"`` or ``"csrc/sgt/engine.c"``) as the tests see it:
    ``reference/`` and ``fast/`` paths beside the imported packages (except
    :data:`NOT_INSTALLED`), the rest in the source tree. In a checkout with an editable
    install both are the checkout."""
    top = Path(relative).parts[0] if relative else ""
    installed = top in PACKAGES and relative not in NOT_INSTALLED
    return (PACKAGE_PARENT if installed else SOURCE_ROOT) / relative


def source_module(relative: str, name: str) -> ModuleType:
    """The module at ``SOURCE_ROOT / relative`` loaded by path as ``name`` (for instance
    the build script ``fast/_ffibuild.py``, which reads ``csrc/`` beside it)."""
    spec = importlib.util.spec_from_file_location(name, SOURCE_ROOT / relative)
    assert spec is not None and spec.loader is not None, relative
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def skip_without_source_tree() -> None:
    """Skip the calling test module in the installed mode: for the few modules that test
    the build itself (``fast/_ffibuild.py`` reads ``csrc/`` beside it, so only the source
    tree's copy can run; the checkout's run covers them)."""
    if INSTALLED_MODE:
        pytest.skip("tests the build from the source tree; DRIFTWOOD_TEST_INSTALLED=1 tests "
                    "an installed wheel (the checkout's run covers this module)",
                    allow_module_level=True)


def _site_packages() -> set[Path]:
    paths = sysconfig.get_paths()
    return {Path(paths[key]).resolve() for key in ("purelib", "platlib")}


def installed_problems() -> list[str]:
    """Why this session does not test an installed build, or ``[]``.

    Each of ``reference``, ``fast``, ``fast._lib`` and ``fast._rows_ext`` must import, from a
    file inside this interpreter's ``site-packages`` (so not an editable install, which
    imports from the checkout) and not from ``SOURCE_ROOT/reference`` or
    ``SOURCE_ROOT/fast``; so must every submodule of the two already imported; and no
    ``sys.path`` entry may hold another copy of either package (it would shadow the
    installed one in any process that inherits it). ``tests/conftest.py`` checks this when
    the session starts and again when it ends (in every xdist worker).
    """
    problems = []
    site = _site_packages()
    for name in (*PACKAGES, *EXTENSIONS):
        try:
            module = importlib.import_module(name)
        except ImportError as exc:
            problems.append(f"{name} does not import: {exc}")
            continue
        if module.__file__ is None:
            problems.append(f"{name} has no file (a namespace package?)")
            continue
        where = Path(module.__file__).resolve()
        if not any(where.is_relative_to(s) for s in site):
            problems.append(f"{name} is imported from {where}, outside site-packages "
                            f"({', '.join(map(str, sorted(site)))})")
        for package in PACKAGES:
            if where.is_relative_to((SOURCE_ROOT / package).resolve()):
                problems.append(f"{name} is imported from the source tree ({where})")
    outside = sorted(f"{name} ({file})" for name, module in list(sys.modules.items())
                     if name.split(".")[0] in PACKAGES
                     and (file := getattr(module, "__file__", None)) is not None
                     and not any(Path(file).resolve().is_relative_to(s) for s in site))
    if outside:
        problems.append(f"{len(outside)} modules of the packages were imported from outside "
                        f"site-packages: {', '.join(outside[:3])}{', ...' * (len(outside) > 3)}")
    for entry in sys.path:
        folder = Path(entry or os.getcwd()).resolve()
        if folder in site:
            continue
        for package in PACKAGES:
            if (folder / package / "__init__.py").is_file():
                problems.append(f"sys.path entry {folder} holds a copy of {package} that "
                                "would shadow the installed one")
    return problems

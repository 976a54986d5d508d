"""Where the packages under test come from.

The tests run against whatever ``import reference`` and ``import fast`` find: a checkout
installed with ``pip install -e .``, or a wheel in ``site-packages`` (CI installs the
built wheel and runs the quick run from the sdist's tests, with the sdist's own copies of
the two packages beside them, which have no compiled ``fast._lib``). So a test that starts
another Python puts :data:`PACKAGE_PARENT` on its ``PYTHONPATH``, never the source tree,
and a test that reads the build script loads it from the source tree by path
(:func:`source_module`).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import reference

SOURCE_ROOT = Path(__file__).resolve().parents[2]
"""The source tree that holds these tests (a checkout, or an unpacked sdist)."""

PACKAGE_PARENT = Path(reference.__file__).resolve().parents[1]
"""The folder that holds the imported ``reference`` (and ``fast``): the checkout for an
editable install, ``site-packages`` for a wheel."""


def source_module(relative: str, name: str) -> ModuleType:
    """The module at ``SOURCE_ROOT / relative`` loaded by path as ``name`` (for instance
    the build script ``fast/_ffibuild.py``, which reads ``csrc/`` beside it)."""
    spec = importlib.util.spec_from_file_location(name, SOURCE_ROOT / relative)
    assert spec is not None and spec.loader is not None, relative
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

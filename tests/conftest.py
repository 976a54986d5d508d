"""Shared fixtures: the ``backend`` fixture runs a test once per package.

CPython's pattern for modules with a C accelerator (``Lib/test/test_heapq.py``): a test
is written once against ``backend`` and runs on ``reference`` and on ``fast``. Without
the compiled extension the ``fast`` half is *skipped* on a developer's machine, but with
``REQUIRE_FAST=1`` or ``CI=true`` (both set by ``.ci/run``) it *fails*, so CI can never
test only Python.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from types import ModuleType

import pytest

try:
    from hypothesis import settings

    # "default" is the quick run's, "ci" the full run's (--full); HYPOTHESIS_PROFILE overrides
    settings.register_profile("default", max_examples=25, deadline=None)
    settings.register_profile("ci", max_examples=100, deadline=None, derandomize=True)
    settings.register_profile("expensive", max_examples=1000, deadline=None)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
except ImportError:  # pragma: no cover
    settings = None

def _flag(name: str) -> bool:
    return os.environ.get(name, "").lower() not in ("", "0", "false", "no")


# DRIFTWOOD_TEST_INSTALLED=1 (CI's wheel job): the session tests an installed wheel, and
# refuses to start unless reference, fast and its compiled modules come from site-packages
# (tests/common/_installed.py)
TEST_INSTALLED = _flag("DRIFTWOOD_TEST_INSTALLED")

# CI (which sets CI=true), anyone exporting REQUIRE_FAST=1 and the installed-wheel mode must
# have the C build.
REQUIRE_FAST = _flag("REQUIRE_FAST") or _flag("CI") or TEST_INSTALLED


def _load_fast() -> ModuleType | None:
    try:
        return importlib.import_module("fast")
    except ImportError:
        if REQUIRE_FAST:
            raise
        return None


FAST = _load_fast()
REFERENCE = importlib.import_module("reference")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--runslow", action="store_true", default=False,
        help="run long lockstep runs and full-scale experiments (implies --full)",
    )
    parser.addoption(
        "--full", action="store_true", default=False,
        help="the full run (CI's): every seed, full stream lengths, Hypothesis' ci profile; "
             "without it the quick run (tests/common/_run_size.py)",
    )


def pytest_configure(config: pytest.Config) -> None:
    # imported here, not at the top: tests/common is on sys.path only under this project's
    # pytest configuration, and other processes import this file as a plain module
    from _run_size import full_run, set_full

    if TEST_INSTALLED:
        from _installed import installed_problems

        problems = installed_problems()
        if problems:
            raise pytest.UsageError(
                "DRIFTWOOD_TEST_INSTALLED=1, but this session would not test the installed "
                "packages:\n  " + "\n  ".join(problems))
    config.addinivalue_line("markers", "slow: opt-in long run (use --runslow)")
    set_full(config.getoption("--full") or config.getoption("--runslow"))
    if full_run() and settings is not None and "HYPOTHESIS_PROFILE" not in os.environ:
        settings.load_profile("ci")


def pytest_report_header(config: pytest.Config) -> list[str]:
    from _run_size import full_run

    if full_run():
        size = "run size: full (every seed and stream length)"
    else:
        size = "run size: quick (fewer seeds, shorter streams; --full for CI's full run)"
    where = ", ".join(f"{module.__name__} from {os.path.dirname(module.__file__ or '?')}"
                      for module in (REFERENCE, FAST) if module is not None)
    mode = " (installed mode: DRIFTWOOD_TEST_INSTALLED=1)" if TEST_INSTALLED else ""
    return [size, f"packages: {where}{mode}"]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--runslow"):
        return
    skip_slow = pytest.mark.skip(reason="long run: use --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip_slow)


# CI exports REQUIRE_DATA=1 (with DRIFTWOOD_DATA pointing at its copies of the data sets):
# a test that needs a real data set which is not available then fails instead of skipping.
REQUIRE_DATA = _flag("REQUIRE_DATA")


def require_dataset(name: str, task: str = "auto") -> tuple[object, object]:
    """``load_csv(name)``, or skip naming the set (fail under REQUIRE_DATA=1) if absent.

    The small sets ship with the package and always load; the larger ones must have been
    fetched (``driftwood data fetch NAME``) or be in ``$DRIFTWOOD_DATA``.
    """
    from reference.evaluation.datasets import load_csv
    from reference.evaluation.registry import DataSetNotAvailable

    try:
        return load_csv(name, task=task)
    except DataSetNotAvailable:
        if REQUIRE_DATA:
            raise
        pytest.skip(
            f"data set {name!r} is not available locally: `driftwood data fetch {name}` "
            "(set REQUIRE_DATA=1 to make this a failure)"
        )


def require_fast() -> ModuleType:
    """The ``fast`` package, or skip (fail under REQUIRE_FAST=1) if it is not built."""
    if FAST is None:
        pytest.skip("fast backend not built (set REQUIRE_FAST=1 to make this a failure)")
    return FAST


@pytest.fixture(autouse=True, scope="session")
def _still_testing_the_installed_packages() -> Iterator[None]:
    """In the installed mode, the check of ``pytest_configure`` again once every test of
    this process has run: no test may have switched to the source tree on the way."""
    yield
    if TEST_INSTALLED:
        from _installed import installed_problems

        problems = installed_problems()
        assert not problems, ("DRIFTWOOD_TEST_INSTALLED=1, but by the end this session "
                              "was not testing the installed packages:\n  "
                              + "\n  ".join(problems))


@pytest.fixture(autouse=True, scope="session")
def _no_c_backend_notice() -> Iterator[None]:
    """The ``driftwood`` command's once-per-installation notice that the C backend is not
    built (``reference.evaluation.cli._notice``) counts as said in the test processes, so
    that no test's output depends on whether the user cache already remembers it;
    ``tests/evaluation/test_c_notice.py`` tests the notice itself."""
    from reference.evaluation.cli import _notice

    _notice._SAID_IN_THIS_PROCESS = True
    yield


@pytest.fixture(params=["reference", "fast"])
def backend(request: pytest.FixtureRequest) -> ModuleType:
    """The package under test: ``reference`` or ``fast``."""
    if request.param == "reference":
        return REFERENCE
    return require_fast()


@pytest.fixture
def both() -> tuple[ModuleType, ModuleType]:
    """``(reference, fast)`` for lockstep tests."""
    return REFERENCE, require_fast()


@pytest.fixture
def lib() -> object:
    """The raw cffi ``lib`` of the fast backend, for per-kernel differential tests."""
    require_fast()
    from fast._ffi import lib as clib

    return clib

"""The one notice that the C backend was not built, said by the ``driftwood`` command once.

pip shows a build's warnings only with ``-v``, so an install without a C compiler says
nothing where users look. The ``driftwood`` command says it instead, on stderr, the first
time it runs in such an installation (:func:`say_once`): that ``fast`` is missing, how much
slower the reference is (:data:`SLOWDOWN_SUMMARY`, the figures of the README and of
``driftwood run``'s fallback note) and what to do.

"Once" is remembered by a marker file in the user cache,
``platformdirs.user_cache_dir("driftwood")/notices/c-backend-missing-<version>-<install>``
(``<install>`` a hash of the installed package's folder): once per user, version and
installation, so a reinstall or another virtual environment says it again, and an
installation that gains the C backend never does. Where the cache cannot be written (a
read-only home), the notice is said once per process instead.
"""

from __future__ import annotations

import hashlib
import importlib
import sys
from pathlib import Path
from typing import TextIO

__all__ = ["SLOWDOWN_SUMMARY", "c_backend_built", "marker_path", "notice", "say_once"]

SLOWDOWN_SUMMARY = ("about 10x slower for the stochastic gradient trees, 30x for ABACOC "
                    "and 300x or more for the dynamic trees")
"""How much slower the reference is than ``fast``: one statement, the same in the README,
the teaching page, the build's warning (``fast/_ffibuild.py``) and this notice (a test
compares them), from ``driftwood run``'s measurements
(:data:`reference.evaluation.cli.run.SLOWDOWN`)."""

_SAID_IN_THIS_PROCESS = False


def c_backend_built() -> bool:
    """Whether ``fast`` imports (its compiled extension is there and loads)."""
    try:
        importlib.import_module("fast")
    except ImportError:
        return False
    return True


def marker_path() -> Path:
    """The marker file whose presence means the notice was said (see the module)."""
    import platformdirs

    from reference._version import __version__

    install = Path(__file__).resolve().parents[3]
    digest = hashlib.sha256(str(install).encode("utf-8")).hexdigest()[:12]
    return (Path(platformdirs.user_cache_dir("driftwood")) / "notices"
            / f"c-backend-missing-{__version__}-{digest}")


def notice() -> str:
    """The notice's text (one line)."""
    return ("driftwood: note: the C backend (fast) was not built when this package was "
            "installed (no C compiler?), so everything runs on the pure-Python reference, "
            f"{SLOWDOWN_SUMMARY}; `python -c 'import fast'` says how to get it (said once)")


def say_once(stream: TextIO | None = None) -> bool:
    """Write :func:`notice` to ``stream`` (stderr) if the C backend is not built and the
    notice was not said before in this installation; returns whether it was written."""
    global _SAID_IN_THIS_PROCESS
    if _SAID_IN_THIS_PROCESS or c_backend_built():
        return False
    try:
        marker = marker_path()
        if marker.exists():
            return False
    except (OSError, ImportError):
        marker = None
    print(notice(), file=sys.stderr if stream is None else stream)
    _SAID_IN_THIS_PROCESS = True
    if marker is not None:
        try:
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()
        except OSError:
            pass  # a read-only cache: said once per process
    return True

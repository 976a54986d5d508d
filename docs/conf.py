"""Sphinx configuration for the driftwood documentation.

Build (CI runs exactly this, from the repository root)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html

What happens at configuration time, before Sphinx reads any source:

1. ``../tutorials/*`` is copied into ``docs/tutorials/`` (git-ignored), where the
   index toctree picks the notebooks up with the glob ``tutorials/*``. Tutorials are
   MyST notebooks executed by myst-nb on every build; a failing cell fails the build.
2. The API pages ``docs/api/generated/*.rst`` (git-ignored) are written from the
   packages themselves: every name in ``reference.__all__`` and ``fast.__all__``, and
   every evaluation-kit module that imports. New models therefore appear without
   editing the docs.
3. The repository root is put on ``PYTHONPATH``, so notebook kernels import the source
   tree. The tutorials use the data sets shipped with the package and generated streams,
   so a bare clone builds; the one figure that needs a larger set says so and draws a
   stored copy (``tutorials/stored/``) unless the set is in ``$DRIFTWOOD_DATA`` or the
   user cache (``driftwood data fetch NAME``).

The built site is then checked by ``docs/_ext/check_html.py`` (CI runs it after this
build; see ``docs/writing_docs.md``).

The build is offline: MathJax is served from ``_static/mathjax`` (sphinx-mathjax-offline)
and there is no intersphinx.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent

# -- environment inherited by the notebook kernels ----------------------------------------

# The packages the pages document and run: the installed ``reference`` and ``fast`` when
# they are importable (a checkout installed with ``pip install -e .`` finds itself; a wheel
# is found in site-packages, not shadowed by the source tree's copies, which have no
# compiled ``fast._lib``), else the source tree.
_found = importlib.util.find_spec("reference")
PACKAGES = (Path(_found.origin).resolve().parents[1] if _found is not None and _found.origin
            else ROOT)
_pythonpath = os.environ.get("PYTHONPATH", "")
if str(PACKAGES) not in _pythonpath.split(os.pathsep):
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(PACKAGES), _pythonpath) if p)
if str(PACKAGES) not in sys.path:
    sys.path.insert(0, str(PACKAGES))
sys.path.insert(0, str(DOCS / "_ext"))
# The notebook kernels inherit this environment. CI (and many shells) export
# MPLBACKEND=Agg, which would stop the executed pages from showing any figure: the kernels
# must draw with the inline backend, so it is set here, not merely defaulted.
os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"

from driftwood_docs import copy_tutorials, generate_api_pages  # noqa: E402
from driftwood_notebooks import offer_notebooks  # noqa: E402

# -- project -------------------------------------------------------------------------------

project = "driftwood"
author = "the driftwood developers"
copyright = "2026, the driftwood developers"
try:
    from importlib.metadata import version as _dist_version

    release = _dist_version("driftwood")
except Exception:  # not installed: the docs still build from the source tree
    release = "0.1.0"
version = release

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinxcontrib.bibtex",
    "sphinx-mathjax-offline",  # sets mathjax_path to the bundled copy in _static/mathjax
    "driftwood_docs",  # docs/_ext: Notation sections, bibliography labels, spec-tag links
    "driftwood_exercises",  # docs/_ext: the exercise-table directive of the Teaching page
]

exclude_patterns = ["_build", "jupyter_execute", "**.ipynb_checkpoints", "Thumbs.db", ".DS_Store",
                    "teaching/instructor-exercises/**",  # an exercise folder, literalincluded
                    "tutorials/_notebooks/**"]  # each tutorial's .ipynb, offered for download
root_doc = "index"

# -- MyST / myst-nb ------------------------------------------------------------------------

myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
myst_dmath_double_inline = True

nb_execution_mode = "force"  # every build re-runs the notebooks against the current code
nb_execution_timeout = 300
# A failing cell fails the build, with its traceback on the console: myst-nb reports it as
# a warning carrying the traceback (raising would hide it in a log file and stop at the
# first failure), and driftwood_docs.fail_on_notebook_errors then fails the build.
nb_execution_raise_on_error = False
nb_execution_show_tb = True
nb_merge_streams = True

# -- autodoc / numpydoc --------------------------------------------------------------------

autodoc_member_order = "bysource"
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types
autosummary_generate = False  # summary tables only; pages come from driftwood_docs
numpydoc_show_class_members = False  # members come from autodoc's :members:
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set[str] = set()  # style checks off; rendering problems still warn
numpydoc_xref_param_type = False

# -- bibliography --------------------------------------------------------------------------

bibtex_bibfiles = ["references.bib"]
bibtex_default_style = "driftwood_tags"  # labels are the keys: [AG13], [TGP11], ...
bibtex_reference_style = "label"

# -- HTML ----------------------------------------------------------------------------------

try:
    import furo  # noqa: F401

    html_theme = "furo"
except ImportError:  # furo is in the docs extras; alabaster ships with Sphinx
    html_theme = "alabaster"
html_title = f"driftwood {release}"
html_static_path: list[str] = ["_static"]
html_css_files = ["driftwood.css"]  # wide tables fit the page (see the file)
html_show_sourcelink = False

# -- config-time steps 1 and 2 (helpers in _ext/driftwood_docs.py) ---------------------------

copy_tutorials(ROOT / "tutorials", DOCS / "tutorials")
offer_notebooks(DOCS / "tutorials")  # _ext/driftwood_notebooks.py: each page's .ipynb
generate_api_pages(DOCS / "api" / "generated")

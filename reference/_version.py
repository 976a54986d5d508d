"""The version of the distribution ``driftwood-learn`` (packages ``reference`` and ``fast``).

The single source of the version: ``pyproject.toml`` reads it (``dynamic = ["version"]``),
``reference.__version__``, ``fast.__version__`` and ``driftwood --version`` show it.
A release changes this line and CHANGELOG.md (docs/releasing.md).
"""

__version__ = "0.2.0"

DISTRIBUTION = "driftwood-learn"
"""The name on the package index (``pip install driftwood-learn``); the import names are
``reference`` and ``fast``, the command ``driftwood``."""

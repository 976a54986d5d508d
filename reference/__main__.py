"""``python -m reference ...`` runs the ``driftwood`` command line (:mod:`reference.cli`)."""

import sys

from reference.cli import main

if __name__ == "__main__":
    sys.exit(main())

"""``python -m reference ...``: the ``driftwood`` command line (:mod:`reference.evaluation.cli`)."""

import sys

from reference.evaluation.cli import main

if __name__ == "__main__":
    sys.exit(main())

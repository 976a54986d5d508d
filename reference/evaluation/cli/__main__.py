"""``python -m reference.evaluation.cli ...``: the ``driftwood`` command line."""

import sys

from reference.evaluation.cli import main

if __name__ == "__main__":
    sys.exit(main())

"""The registry of real data sets: what each is, where it comes from, how to get it.

Every real data set the project uses has one :class:`DataSet` record in :data:`REGISTRY`:
task, shape, provenance, licence, citation and the SHA-256 of its *canonical* CSV file (a
header row, numeric feature columns, the target in a last column ``y``; class targets coded
``0..K-1``). A data set is found, in this order:

1. in the directory given by the ``data_dir`` argument, or by the environment variable
   ``DRIFTWOOD_DATA`` when it is set (a plain ``<name>.csv``; this is how a course or a CI
   machine points the library at its own copies);
2. inside the package (``reference/_data/<name>.csv.gz``): the small sets that the tests and
   tutorials need ship with the library, so they load with no setting and no network;
3. in the user cache, ``platformdirs.user_cache_dir("driftwood")/data`` (e.g.
   ``~/.cache/driftwood/data`` on Linux), where :func:`fetch` puts the larger sets.

:func:`fetch` downloads a set's public source with :mod:`pooch` (a well-kept library for
exactly this: HTTP download into a temporary file, hash check, atomic move, progress bar),
verifies the source's SHA-256 where it is known, converts it to the canonical CSV, verifies
the canonical SHA-256, and only then moves the file into the cache with :func:`os.replace`.
An interrupted or corrupted download therefore never leaves a partial or wrong file where
the loader looks. ``fetch(name, source=path)`` installs a local copy instead (checked the
same way), for sets without a reproducible public URL or for machines without a network.

The command line mirrors these functions: ``driftwood data list``, ``driftwood data fetch
NAME [--from PATH]``, ``driftwood data path NAME``.
"""


from reference.evaluation.registry.cache import cache_dir, fetch, locate, open_text, status
from reference.evaluation.registry.catalog import REGISTRY, DataSet, DataSetNotAvailable

__all__ = [
    "DataSet",
    "DataSetNotAvailable",
    "REGISTRY",
    "cache_dir",
    "fetch",
    "locate",
    "open_text",
    "status",
]

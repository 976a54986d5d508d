"""Finding, verifying and fetching the registered data sets (the user cache).

A set is looked for in ``data_dir`` or ``$DRIFTWOOD_DATA``, then inside the package, then
in the user cache; :func:`fetch` downloads or installs a copy into the cache only after
both checksums agree (see :mod:`reference.evaluation.registry`).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import shutil
import tempfile
from importlib import resources
from pathlib import Path

from reference.evaluation.registry.catalog import DataSet, DataSetNotAvailable, _get
from reference.files import write_atomic

__all__ = ["cache_dir", "fetch", "locate", "open_text", "status"]

DATA_ENV = "DRIFTWOOD_DATA"
"""Environment variable naming a directory of canonical CSV files (checked first)."""


def cache_dir() -> Path:
    """The user cache directory of fetched sets.

    ``$DRIFTWOOD_DATA`` when set, else ``platformdirs.user_cache_dir("driftwood")/data``.
    """
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("driftwood")) / "data"


def _shipped_path(data: DataSet) -> Path | None:
    if not data.shipped:
        return None
    path = Path(str(resources.files("reference") / "_data" / (data.filename + ".gz")))
    return path if path.is_file() else None


def locate(name: str, data_dir: str | os.PathLike[str] | None = None) -> Path:
    """Path of a registered set's file: ``<name>.csv``, or the shipped ``<name>.csv.gz``.

    Looks in ``data_dir`` (or ``$DRIFTWOOD_DATA``), then the package, then the user cache.

    Raises
    ------
    DataSetNotAvailable
        If it is nowhere; the message names the set, its URL and the command to fetch it.
    KeyError
        If ``name`` is not a registered set.
    """
    data = _get(name)
    directory = Path(data_dir) if data_dir is not None else None
    if directory is None and os.environ.get(DATA_ENV):
        directory = Path(os.environ[DATA_ENV])
    if directory is not None and (directory / data.filename).is_file():
        return _verified(data, directory / data.filename)
    shipped = _shipped_path(data)
    if shipped is not None:
        return shipped
    cached = cache_dir() / data.filename
    if cached.is_file():
        return _verified(data, cached)
    where = data.url or "no public URL reproduces it; install a copy with --from PATH"
    raise DataSetNotAvailable(
        f"data set {data.name!r} is not available locally (looked in "
        f"{str(directory) + ', ' if directory else ''}{str(cache_dir())!r}). Source: {where}. "
        f"Fetch it with `driftwood data fetch {data.name}` (or "
        f"`driftwood data fetch {data.name} --from PATH` for a local copy), or set "
        f"{DATA_ENV} to a directory holding {data.filename}"
    )


def _verified(data: DataSet, path: Path) -> Path:
    """``path`` if its SHA-256 is the registry's; a changed or corrupt copy is never used."""
    digest = _sha256(path.read_bytes())
    if digest != data.sha256:
        raise DataSetNotAvailable(
            f"{path} is not the registered {data.name!r} (SHA-256 {digest}, expected "
            f"{data.sha256}); remove it and run `driftwood data fetch {data.name}`"
        )
    return path


def open_text(path: Path) -> io.TextIOBase:
    """Open a located file as text, decompressing a ``.gz``."""
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")
    return open(path, encoding="utf-8")  # noqa: SIM115


def status(name: str) -> str:
    """``"shipped"``, ``"local"`` (``$DRIFTWOOD_DATA``), ``"cached"`` or ``"missing"``."""
    data = _get(name)
    env = os.environ.get(DATA_ENV)
    if env and (Path(env) / data.filename).is_file():
        return "local"
    if _shipped_path(data) is not None:
        return "shipped"
    return "cached" if (cache_dir() / data.filename).is_file() else "missing"


def _sha256(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def _install(data: DataSet, content: bytes, target_dir: Path) -> Path:
    """Check ``content`` against the canonical hash, then write it atomically."""
    digest = _sha256(content)
    if digest != data.sha256:
        raise ValueError(
            f"data set {data.name!r}: SHA-256 {digest} of the canonical file differs from the "
            f"registry's {data.sha256}; nothing was written"
        )
    target_dir.mkdir(parents=True, exist_ok=True)
    target = target_dir / data.filename
    write_atomic(target, content)
    return target


def fetch(
    name: str,
    source: str | os.PathLike[str] | None = None,
    *,
    url: str | None = None,
    progress: bool | None = None,
    target_dir: str | os.PathLike[str] | None = None,
) -> Path:
    """Put a registered set into the cache (or ``target_dir``) and return its path.

    Parameters
    ----------
    name : str
        Registry name (e.g. ``"covtype_50k"``).
    source : path, optional
        A local copy to install instead of downloading: the canonical CSV, or the source
        file at the set's URL; checked against the registry's SHA-256 either way.
    url : str, optional
        Download from this URL instead of the registry's (a mirror; the checks are the same).
    progress : bool, optional
        Download progress on stderr: tqdm's bar on a terminal (if tqdm is installed), else
        a line every few seconds with the time left; default: when stderr is a terminal.
    target_dir : path, optional
        Where to write; default :func:`cache_dir`.

    Returns
    -------
    pathlib.Path
        The canonical file. A set already present (shipped or cached) is not fetched again.

    Raises
    ------
    ValueError
        If a checksum differs (nothing is written).
    DataSetNotAvailable
        If the set has no URL and no ``source`` was given, or the download failed; the
        message says why and how to get the file.
    """
    data = _get(name)
    target = Path(target_dir) if target_dir is not None else cache_dir()
    if source is not None:
        raw = Path(source).read_bytes()
        content = raw if _sha256(raw) == data.sha256 else data.convert(raw)
        return _install(data, content, target)
    if _shipped_path(data) is not None and target_dir is None:
        return _shipped_path(data)  # type: ignore[return-value]
    existing = target / data.filename
    if existing.is_file() and _sha256(existing.read_bytes()) == data.sha256:
        return existing
    address = url or data.url
    if address is None:
        raise DataSetNotAvailable(
            f"data set {data.name!r} has no public URL that reproduces it ({data.source}); "
            f"install a copy with `driftwood data fetch {data.name} --from PATH`"
        )
    try:
        raw = _download(address, data.url_sha256, target, progress)
    except DataSetNotAvailable as err:
        raise DataSetNotAvailable(
            f"{err}. Without network: get {address} by other means and install it with "
            f"`driftwood data fetch {data.name} --from PATH`, or set {DATA_ENV} to a "
            f"directory holding {data.filename} (the canonical CSV)"
        ) from err
    return _install(data, data.convert(raw), target)


def _download(address: str, known: str | None, target: Path, progress: bool | None) -> bytes:
    """Download ``address`` with pooch into a private temporary directory; return its bytes.

    pooch writes to a temporary file and moves it only after the hash check; the whole
    temporary directory is removed afterwards, so nothing of a failed download remains.
    """
    import sys

    import pooch

    if progress is None:
        progress = sys.stderr.isatty()
    bar: bool | _DownloadProgress = progress
    if progress:
        try:
            import tqdm  # noqa: F401
        except ImportError:
            bar = _DownloadProgress(Path(address).name)
        if not sys.stderr.isatty():
            bar = _DownloadProgress(Path(address).name)
    target.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".download.", dir=target))
    try:
        path = pooch.retrieve(
            address,
            known_hash=f"sha256:{known}" if known else None,
            path=scratch,
            fname="source",
            progressbar=bar,
        )
        return Path(path).read_bytes()
    except ValueError:
        raise
    except Exception as err:  # network errors of every kind
        raise DataSetNotAvailable(
            f"download of {address} failed ({type(err).__name__}: {err}); nothing was written"
        ) from err
    finally:
        if isinstance(bar, _DownloadProgress):
            bar.bar.close(final=False)
        shutil.rmtree(scratch, ignore_errors=True)


class _DownloadProgress:
    """pooch's progress-bar protocol (``total``, ``update``, ``reset``, ``close``) on a
    :class:`~reference.evaluation.prequential.ProgressBar` counting kilobytes: plain lines
    with the time left where tqdm's redrawn bar would not show."""

    def __init__(self, name: str) -> None:
        from reference.evaluation.prequential import ProgressBar

        self.bar = ProgressBar(0, f"download {name}", unit="kB")
        self.bytes = 0

    @property
    def total(self) -> int:
        return self.bar.total * 1024

    @total.setter
    def total(self, size: int) -> None:
        self.bar.total = -(-size // 1024)

    def update(self, size: int) -> None:
        before = -(-self.bytes // 1024)
        self.bytes += size
        self.bar.update(-(-self.bytes // 1024) - before)

    def reset(self) -> None:
        self.bytes = 0
        self.bar.count = 0

    def close(self) -> None:
        self.bar.close()
        self.bar.enabled = False  # closed: nothing more to write

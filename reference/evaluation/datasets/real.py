"""Real data sets: the CSV loader over the data registry, and a seeded row shuffle.

A real data set is a CSV file with a header row, numeric columns and the target in the
last column. Registered sets are found through :mod:`reference.evaluation.registry`
(shipped with the package, in ``$DRIFTWOOD_DATA`` or in the user cache); any other file
of the same format is read from ``data_dir``.
"""

from __future__ import annotations

import csv
import os
import warnings
from pathlib import Path

import numpy as np
import numpy.typing as npt

from reference.evaluation import registry
from reference.rng import Rng

__all__ = ["DATA_ENV", "data_dir", "load_csv", "shuffled"]

DATA_ENV = "DRIFTWOOD_DATA"
"""Environment variable naming the directory of the real data sets."""


def shuffled(
    X: npt.ArrayLike, y: npt.ArrayLike, seed: int = 0
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.generic]]:
    """Rows of ``(X, y)`` in a random order drawn with our generator (Fisher-Yates).

    For ``i = n-1, ..., 1``: ``j = rng.below(i + 1)``, swap positions ``i`` and ``j`` of
    the permutation; then ``X[perm], y[perm]`` are returned (new arrays).

    Parameters
    ----------
    X : array_like of shape (n, d)
    y : array_like of shape (n,)
    seed : int, default 0
        Seed of the :class:`~reference.rng.Rng`.

    Returns
    -------
    X, y : ndarrays
        Permuted copies (``X`` as float64, ``y`` keeps its dtype).

    Notes
    -----
    Random draws: ``below(i + 1)`` for ``i = n-1`` down to 1 (``n - 1`` calls).

    Examples
    --------
    >>> X, y = shuffled(np.arange(10.0).reshape(5, 2), np.arange(5), seed=1)
    >>> sorted(y.tolist())
    [0, 1, 2, 3, 4]
    >>> bool((X[:, 0] == 2 * y).all())
    True
    """
    X_arr = np.asarray(X, dtype=np.float64)
    y_arr = np.asarray(y)
    n = X_arr.shape[0]
    if y_arr.shape[0] != n:
        raise ValueError(f"X has {n} rows but y has {y_arr.shape[0]}")
    rng = Rng(seed)
    perm = list(range(n))
    for i in range(n - 1, 0, -1):
        j = rng.below(i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    index = np.asarray(perm, dtype=np.intp)
    return X_arr[index], y_arr[index]


def data_dir(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """The directory searched first for data files.

    The argument if given; else ``$DRIFTWOOD_DATA`` if set; else the user cache of fetched
    sets (:func:`reference.evaluation.registry.cache_dir`). Registered sets that ship with
    the package are found even when they are not in this directory.

    Examples
    --------
    >>> str(data_dir("/tmp/somewhere"))
    '/tmp/somewhere'
    """
    if data_dir is not None:
        return Path(data_dir)
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env)
    return registry.cache_dir()


def load_csv(
    name: str, data_dir: str | os.PathLike[str] | None = None, task: str = "auto"
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.generic]]:
    """Load a real data set: a header row, numeric columns, last column ``y``.

    Parameters
    ----------
    name : str
        A registered set (``driftwood data list``; e.g. ``"elec2_dynatree"``) or a file
        name in ``data_dir``, with or without ``.csv``.
    data_dir : str or path, optional
        Directory searched first. Default: ``$DRIFTWOOD_DATA`` if set. A registered set is
        then looked up inside the package (the small sets ship with it) and in the user
        cache (where ``driftwood data fetch`` puts the larger ones).
    task : {"auto", "regression", "classification"}, default "auto"
        ``"auto"`` returns ``y`` as int64 when every target is integral, float64 otherwise;
        ``"regression"`` always float64; ``"classification"`` int64 (error if a target is
        not integral).

    Returns
    -------
    X : ndarray of shape (n, d), float64
    y : ndarray of shape (n,), int64 or float64

    Raises
    ------
    reference.evaluation.registry.DataSetNotAvailable
        (a ``FileNotFoundError``) if a registered set is not available locally; the
        message names the set, its URL and the command that fetches it.
    FileNotFoundError
        If an unregistered file is missing; the message names the file, the directory
        tried and the environment variable ``DRIFTWOOD_DATA``.
    ValueError
        If a value is not numeric, a row has another number of columns than the rows
        before it or than the header (the message names the line and both widths), or
        ``task`` is unknown.

    Examples
    --------
    >>> X, y = load_csv("mcycle")           # ships with the package: no setting, no network
    >>> X.shape, y.dtype.name
    ((133, 1), 'float64')
    >>> try:
    ...     load_csv("no_such_file", data_dir="/nonexistent")
    ... except FileNotFoundError as err:
    ...     "DRIFTWOOD_DATA" in str(err)
    True
    """
    if task not in ("auto", "regression", "classification"):
        raise ValueError(f"task must be 'auto', 'regression' or 'classification', got {task!r}")
    filename = name if name.endswith(".csv") else name + ".csv"
    if filename[:-4] in registry.REGISTRY:
        path = registry.locate(filename, data_dir)
    else:
        directory = _resolve_dir(data_dir)
        path = directory / filename
        if not path.is_file():
            raise FileNotFoundError(
                f"data file {filename!r} not found in {str(directory)!r}; put the file there, "
                f"pass data_dir=..., or set the environment variable {DATA_ENV} to the "
                f"directory that holds it (registered sets: `driftwood data list`)"
            )
    try:
        with registry.open_text(path) as handle, warnings.catch_warnings():
            # an empty file: numpy warns, then the shape check below says what is wrong
            warnings.simplefilter("ignore", UserWarning)
            table = np.loadtxt(handle, delimiter=",", skiprows=1, dtype=np.float64, ndmin=2)
    except ValueError as err:
        ragged = None if isinstance(err, UnicodeDecodeError) else _ragged_row(path)
        if ragged is not None:
            line_no, width, first = ragged
            raise ValueError(f"{path}, line {line_no}: a row of {width:,} columns after rows "
                             f"of {first:,}; give every row one value per header name "
                             f"(the header has {_header_width(path):,})") from err
        raise ValueError(f"{path}: non-numeric value ({err})") from err
    names = _header_width(path)
    if table.shape[0] and table.shape[1] != names:
        raise ValueError(f"{path}, line {_first_row_line(path)}: the header has {names:,} "
                         f"columns but the rows have {table.shape[1]:,}; give every row one "
                         f"value per header name")
    if table.shape[1] < 2:
        raise ValueError(f"{path}: need at least one feature column and the target column")
    X = np.ascontiguousarray(table[:, :-1])
    target = table[:, -1]
    integral = bool(np.all(np.isfinite(target)) and np.all(target == np.round(target)))
    if task == "regression" or (task == "auto" and not integral):
        return X, np.ascontiguousarray(target)
    if not integral:
        raise ValueError(f"{path}: task='classification' but some targets are not integers")
    return X, target.astype(np.int64)


def _header_width(path: Path) -> int:
    """Number of names in the header (the first line) of a CSV file."""
    with registry.open_text(path) as handle:
        return len(next(csv.reader([handle.readline()]), []))


def _first_row_line(path: Path) -> int:
    """Line number (from 1) of the first data row: the first line after the header that is
    neither blank nor a ``#`` comment, as :func:`numpy.loadtxt` reads (its rows all have
    the same width, so this is the first row that differs from the header)."""
    with registry.open_text(path) as handle:
        handle.readline()
        for line_no, line in enumerate(handle, start=2):
            if line.split("#", 1)[0].strip():
                return line_no
    return 2


def _ragged_row(path: Path) -> tuple[int, int, int] | None:
    """``(line number, width, first row's width)`` of the first data row whose number of
    comma-separated fields differs from the first data row's, or None if all agree."""
    first = 0
    with registry.open_text(path) as handle:
        handle.readline()
        for line_no, line in enumerate(handle, start=2):
            text = line.split("#", 1)[0]
            if not text.strip():
                continue
            width = text.count(",") + 1
            if not first:
                first = width
            elif width != first:
                return line_no, width, first
    return None


def _resolve_dir(directory: str | os.PathLike[str] | None) -> Path:
    return data_dir(directory)

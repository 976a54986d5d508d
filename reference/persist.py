"""The data-only model file: ``model.save(path)`` and :func:`load` (both backends).

A pickle runs code when it is loaded: it is for files you wrote yourself. A model file
written by :func:`save` holds data only (numbers, strings, lists), is read without
running any code from it, is checked field by field before anything is built from it,
and loads into either backend: save from ``fast``, load into ``reference``, or the
reverse, and learning continues bit for bit as in the saved model.

The file is UTF-8 JSON, gzip-compressed, one document::

    {"format": "driftwood-model", "version": 1, "class": "SGTRegressor",
     "written_by": "fast", "params": {...}, "fitted": {...}, "snapshot": {...}}

plus ``"feature_names_in": [...]`` for a model fitted on a data frame with string column
names (its ``feature_names_in_``; older readers ignore the entry).

``params`` are the constructor arguments, ``fitted`` the facade state (feature count and
names, class labels, rows seen, ...) and ``snapshot`` the engine state in the plain-data
schema of ``model.snapshot()``, which is the same in both backends. Floats are written
with Python's shortest round-trip ``repr``, so they load bit for bit (non-finite values
as the JSON extensions ``NaN``/``Infinity``). Values JSON has no word for are tagged:
a tuple is ``{"__tuple__": [...]}``, a dict with keys other than strings is
``{"__items__": [[key, value], ...]}`` and a built-in SGT loss is
``{"__loss__": "SquaredError"}``.

What can be saved: models whose labels and feature names are ``str``, ``int``,
``float``, ``bool``, ``None`` or tuples of these (numpy scalars are converted) and, for
:class:`~reference.SGT`, a built-in loss. Anything else (a :class:`~reference.CustomLoss`
holding Python functions, a ``frozenset`` label) raises ``ValueError`` when saving:
pickle such a model.

Every problem found when loading raises :class:`~reference.state.StateFormatError`
(a ``ValueError``) naming the field, in both backends alike; the checks are
:func:`check_document` here and the family checks in ``reference/*/state_check.py``.
"""

from __future__ import annotations

import gzip
import importlib
import inspect
import json
import math
import os
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from reference.feature_names import restore_names
from reference.files import write_atomic
from reference.state import StateFormatError

__all__ = ["FILE_FORMAT", "FILE_VERSION", "MAX_DEPTH", "MAX_DOCUMENT_BYTES", "MAX_FILE_BYTES",
           "save", "load", "load_into", "read_document", "to_document",
           "from_document", "StateFormatError"]

FILE_FORMAT = "driftwood-model"
FILE_VERSION = 1
MAX_DOCUMENT_BYTES = 128 << 20
"""Default cap on a model file's decompressed size (128 MiB): :func:`load` inflates the file
in chunks and refuses it with :class:`StateFormatError` as soon as it passes the cap, so a
gzip bomb costs at most the cap in memory and the time to inflate it. A legitimate larger
model (a dynamic tree with many particles over a long unretired stream) loads with
``load(path, max_bytes=...)`` or the environment variable ``DRIFTWOOD_MAX_MODEL_BYTES``."""

MAX_FILE_BYTES = MAX_DOCUMENT_BYTES
"""Former name of :data:`MAX_DOCUMENT_BYTES`."""

MAX_DEPTH = 32
"""Deepest nesting of arrays and objects a model file may hold. Written documents nest at
most 9 deep (an SGT leaf's statistics inside its tree inside the snapshot); a
deeper document is refused before any recursive code walks it."""

CHUNK_BYTES = 1 << 20
"""How much is inflated at a time."""

FEATURE_NAMES_KEY = "feature_names_in"
"""Optional top-level entry: the model's ``feature_names_in_`` (data-frame column names)."""

MODEL_CLASSES = ("DynamicTreeRegressor", "DynamicTreeClassifier", "SGTRegressor",
                 "SGTClassifier", "SGTMultiInstanceClassifier", "SGT", "ABACOCClassifier")
"""The public model classes a file may name (the same names in both backends)."""

LOSS_NAMES = ("SquaredError", "BinaryCrossEntropy", "PseudoHuber")


# -- plain data <-> JSON values --------------------------------------------------------
def encode(value: Any, where: str) -> Any:
    """``value`` as a JSON value (tagged where JSON has no word for it); ValueError
    naming ``where`` for something that is not data."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, np.bool_):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if isinstance(value, np.str_):
        return str(value)
    if isinstance(value, list):
        return [encode(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, tuple):
        return {"__tuple__": [encode(v, f"{where}[{i}]") for i, v in enumerate(value)]}
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value) and not (
                set(value) & {"__tuple__", "__items__", "__loss__"}):
            return {k: encode(v, f"{where}.{k}") for k, v in value.items()}
        return {"__items__": [[encode(k, f"{where} key"), encode(v, f"{where}[{k!r}]")]
                              for k, v in value.items()]}
    name = type(value).__name__
    if name in LOSS_NAMES and type(value).__module__ in ("reference.sgt.losses",
                                                        "fast.sgt.losses"):
        return {"__loss__": name}
    raise ValueError(f"{where} holds a {type(value).__name__} ({value!r:.60}), which a data-only "
                     f"model file cannot represent; pickle this model instead (trusted "
                     f"files only)")


def decode(value: Any, where: str, backend: str) -> Any:
    """Inverse of :func:`encode`; :class:`StateFormatError` for a malformed tag."""
    if isinstance(value, list):
        return _decode_list(value, where, backend)
    if not isinstance(value, dict):
        return value
    if len(value) == 1 and "__tuple__" in value:
        items = value["__tuple__"]
        if not isinstance(items, list):
            raise StateFormatError(f"{where}: a tuple tag must hold a list")
        return tuple(_decode_list(items, where, backend))
    if len(value) == 1 and "__items__" in value:
        pairs = value["__items__"]
        if not isinstance(pairs, list) or not all(
                isinstance(p, list) and len(p) == 2 for p in pairs):
            raise StateFormatError(f"{where}: an items tag must hold [key, value] pairs")
        out = {}
        for key, item in pairs:
            key = decode(key, where, backend)
            try:
                out[key] = decode(item, where, backend)
            except TypeError:
                raise StateFormatError(f"{where}: unhashable key {key!r}") from None
        return out
    if len(value) == 1 and "__loss__" in value:
        if where != "params.loss":
            raise StateFormatError(f"{where}: a loss may only stand in params.loss")
        name = value["__loss__"]
        if name not in LOSS_NAMES:
            raise StateFormatError(f"{where}: unknown loss {name!r}; known: {list(LOSS_NAMES)}")
        return getattr(importlib.import_module(backend), name)()
    return {k: decode(v, f"{where}.{k}", backend) for k, v in value.items()}


def _decode_list(value: list[Any], where: str, backend: str) -> list[Any]:
    if not any(isinstance(v, (list, dict)) for v in value):
        return list(value)                # numbers, strings, null: nothing to decode
    return [decode(v, f"{where}[{i}]", backend) for i, v in enumerate(value)]


# -- documents ---------------------------------------------------------------------------
def to_document(model: Any) -> dict[str, Any]:
    """The data-only document of ``model`` (what :func:`save` writes, before JSON)."""
    name = type(model).__name__
    if name not in MODEL_CLASSES:
        raise TypeError(f"{name} is not a driftwood model class")
    backend = type(model).__module__.split(".")[0]
    with model._lock:
        params = model._constructor_params()
        fitted = model._fitted_state()
        snapshot = model.snapshot()
        names = model.__dict__.get("feature_names_in_")
    doc = {"format": FILE_FORMAT, "version": FILE_VERSION, "class": name,
           "written_by": backend,
           "params": encode(params, "params"), "fitted": encode(fitted, "fitted"),
           "snapshot": encode(snapshot, "snapshot")}
    if names is not None:
        doc[FEATURE_NAMES_KEY] = [str(n) for n in names]
    return doc


def check_document(doc: Any) -> None:
    """The header of a document: format, version, class and the three sections."""
    if not isinstance(doc, dict):
        raise StateFormatError("a driftwood model file holds one JSON object; found "
                               f"{type(doc).__name__}")
    if doc.get("format") != FILE_FORMAT:
        raise StateFormatError(f"not a driftwood model file (format {doc.get('format')!r})")
    version = doc.get("version")
    if version != FILE_VERSION or isinstance(version, bool):
        raise StateFormatError(f"model file version {version!r} is not readable by this "
                               f"driftwood, which reads version {FILE_VERSION}")
    if doc.get("class") not in MODEL_CLASSES:
        raise StateFormatError(f"field class: {doc.get('class')!r} is not one of "
                               f"{list(MODEL_CLASSES)}")
    for key in ("params", "fitted", "snapshot"):
        if not isinstance(doc.get(key), dict):
            raise StateFormatError(f"field {key}: expected an object")


def from_document(doc: Any, backend: str = "reference") -> Any:
    """The model a document describes, built in ``backend`` (``"reference"`` or
    ``"fast"``) after every field was checked. :class:`StateFormatError` otherwise."""
    if backend not in ("reference", "fast"):
        raise ValueError(f"backend must be 'reference' or 'fast', got {backend!r}")
    check_document(doc)
    cls = getattr(importlib.import_module(backend), doc["class"])
    params = decode(doc["params"], "params", backend)
    fitted = decode(doc["fitted"], "fitted", backend)
    snapshot = decode(doc["snapshot"], "snapshot", backend)
    names = sorted(inspect.signature(cls).parameters)
    if isinstance(params, dict):
        # a file written before a parameter existed: the value of the older behaviour
        params = {**getattr(cls, "_params_added", {}), **params}
    if not isinstance(params, dict) or sorted(map(str, params)) != names:
        raise StateFormatError(f"field params: expected an object with the keys {names}")
    try:
        model = cls(**params)
    except (TypeError, ValueError) as exc:
        raise StateFormatError(f"field params: {exc}") from None
    model._load_fitted(fitted, snapshot)
    if FEATURE_NAMES_KEY in doc:
        restore_names(model, doc[FEATURE_NAMES_KEY], FEATURE_NAMES_KEY)
    return model


# -- files -------------------------------------------------------------------------------
def save(model: Any, path: str | os.PathLike[str]) -> None:
    """Write ``model`` to ``path`` as a data-only model file (see the module doc).

    The file is written next to ``path`` under a temporary name, flushed to disk and
    then renamed over ``path``: a full disk or an interruption leaves any previous file
    at ``path`` intact and no partial file behind.
    """
    doc = to_document(model)
    data = json.dumps(doc, separators=(",", ":")).encode("utf-8")
    write_atomic(Path(path), gzip.compress(data, mtime=0))


def document_limit(max_bytes: int | None = None) -> int:
    """The decompressed-size cap in force: ``max_bytes`` if given, else
    ``$DRIFTWOOD_MAX_MODEL_BYTES`` if set, else :data:`MAX_DOCUMENT_BYTES`."""
    if max_bytes is None:
        text = os.environ.get("DRIFTWOOD_MAX_MODEL_BYTES")
        if text is None:
            return MAX_DOCUMENT_BYTES
        try:
            max_bytes = int(text)
        except ValueError:
            raise ValueError(f"DRIFTWOOD_MAX_MODEL_BYTES must be a number of bytes, "
                             f"got {text!r}") from None
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
        raise ValueError(f"max_bytes must be a positive number of bytes, got {max_bytes!r}")
    return max_bytes


def _inflate(path: str | os.PathLike[str], limit: int) -> bytearray:
    """The decompressed bytes of ``path``, inflated a chunk at a time into one buffer and
    refused as soon as they pass ``limit`` (so a bomb costs at most ``limit`` bytes)."""
    data = bytearray()
    with gzip.open(path, "rb") as src:
        while True:
            chunk = src.read(min(CHUNK_BYTES, limit + 1 - len(data)))
            if not chunk:
                return data
            data += chunk
            if len(data) > limit:
                raise StateFormatError(
                    f"{os.fspath(path)} inflates past {limit} bytes, the largest model file "
                    f"this load accepts; if you trust the file and it is a large model, pass "
                    f"max_bytes= to load or set DRIFTWOOD_MAX_MODEL_BYTES")


def check_depth(doc: Any, where: str) -> None:
    """Refuse a parsed document nested deeper than :data:`MAX_DEPTH`, walking it with an
    explicit stack (no recursion), before any recursive code (decoding, the checks) sees
    it."""
    stack: list[tuple[Any, int]] = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise StateFormatError(f"{where}: nested more than {MAX_DEPTH} deep; a model "
                                   f"file nests at most a few levels")
        items = value.values() if isinstance(value, dict) else value
        stack.extend((item, depth + 1) for item in items if isinstance(item, (list, dict)))


def read_document(path: str | os.PathLike[str], max_bytes: int | None = None) -> Any:
    """The JSON document of a model file, or :class:`StateFormatError` if the file is
    not gzip-compressed JSON (truncated, corrupted, an integer longer than the
    interpreter parses), inflates past the cap (:func:`document_limit`) or nests deeper
    than :data:`MAX_DEPTH`.

    The cost is bounded by the cap: the file is inflated a chunk at a time and refused as
    soon as it passes the cap, then parsed once; the nesting is checked without recursion
    before anything else walks the document.
    """
    limit = document_limit(max_bytes)
    try:
        data = _inflate(path, limit)
    except (OSError, EOFError, zlib.error) as exc:
        if isinstance(exc, FileNotFoundError | PermissionError | IsADirectoryError):
            raise
        raise StateFormatError(f"{os.fspath(path)} is not a readable driftwood model file "
                               f"({exc})") from None
    try:
        doc = json.loads(data.decode("utf-8"), parse_constant=_constant)
    except (ValueError, RecursionError) as exc:
        # JSONDecodeError, UnicodeDecodeError and the interpreter's limit on integer digits
        # are ValueErrors; the parser raises RecursionError past its own nesting limit
        raise StateFormatError(f"{os.fspath(path)} is not a driftwood model file: the JSON "
                               f"does not parse ({type(exc).__name__}: {exc})"[:300]) from None
    del data
    check_depth(doc, os.fspath(path))
    return doc


def _constant(name: str) -> float:
    return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[name]


def load_into(path: str | os.PathLike[str], backend: str,
              max_bytes: int | None = None) -> Any:
    """:func:`load` into ``backend`` (``"reference"`` or ``"fast"``)."""
    return from_document(read_document(path, max_bytes), backend)


def load(path: str | os.PathLike[str], max_bytes: int | None = None) -> Any:
    """Read a data-only model file written by ``model.save(path)``.

    ``reference.load`` builds a reference model and ``fast.load`` a fast one, whichever
    backend wrote the file: the import decides, as everywhere else in driftwood. No code
    from the file runs; every field is checked before the model is built, and a bad file
    raises :class:`StateFormatError` naming the field, never crashing, whatever it holds.

    Parameters
    ----------
    path : str or path-like
        A file written by ``model.save``.
    max_bytes : int, optional
        Largest decompressed size accepted (default :data:`MAX_DOCUMENT_BYTES`, 128 MiB,
        or ``$DRIFTWOOD_MAX_MODEL_BYTES``). Loading costs time and memory proportional
        to the decompressed size, so the cap bounds what a hostile file can cost; raise
        it for a large model you trust.

    Returns
    -------
    model
        The saved model, in this backend, bit for bit: same ``snapshot()``, and
        learning continues as it would have in the saved model.

    Raises
    ------
    StateFormatError
        The file is not a driftwood model file, was written by an unknown format
        version, or holds a field that is out of range, of the wrong type or
        inconsistent with the rest (the message names it).
    OSError
        The file cannot be opened (missing, no permission).
    """
    return load_into(path, "reference", max_bytes)

"""The data-only model file: ``model.save(path)`` and :func:`load` (both backends).

A pickle runs code when it is loaded: it is for files you wrote yourself. A model file
written by :func:`save` holds data only (numbers, strings, lists and typed arrays), is
read without running any code from it, is checked field by field before anything is
built from it, and loads into either backend: save from ``fast``, load into
``reference``, or the reverse, and learning continues bit for bit as in the saved model.

Format 2 (written since 2026-11; :mod:`reference.container`): a binary container, a
small JSON header and typed little-endian arrays, compressed with zlib or not (``save(...,
compress=False)``). The header is the document of format 1 below with ``"version": 2``,
in which bulky numeric data stand as ``{"__array__": k}``: a dynamic tree's stored rows,
targets, ``lpred`` and particles (as columns, :mod:`reference.dynatree.columns`), and in
every model any list of at least 16 numbers of one type (integers or floats; a list of
such lists of one length as a two-axis array). Arrays are read with ``numpy.frombuffer``
(no Python object per number); the dynamic trees' columns are checked on the arrays,
vectorised (:func:`reference.dynatree.state_check.check_engine_columns`).

Format 1 (written until 2026-11, still read): UTF-8 JSON, gzip-compressed, one
document::

    {"format": "driftwood-model", "version": 1, "class": "SGTRegressor",
     "written_by": "fast", "params": {...}, "fitted": {...}, "snapshot": {...}}

plus ``"feature_names_in": [...]`` for a model fitted on a data frame with string column
names (its ``feature_names_in_``). A document with any other top-level key is refused.

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
The cost of a load is bounded by the file for any input: the decompressed size is capped
(:func:`document_limit`), and the JSON elements of a document or header are counted on
its bytes before it is parsed (:func:`reference.container.check_element_count`), so a
file of a few hundred kilobytes cannot make the parser build gigabytes of objects; a
format-2 array's declared shape is checked before anything is allocated
(:func:`reference.container.check_shape`), and the arrays that become Python lists (those
outside a family's columns) are refused when their lists would cost more than the cap
(:func:`check_list_cost`), before any list exists.
"""

from __future__ import annotations

import gzip
import importlib
import inspect
import io
import json
import math
import os
import stat
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from reference.container import (
    CONTAINER_COST,
    ELEMENT_COST,
    ArrayTable,
    check_element_count,
    is_container,
    parse_budget,
    quote,
    read_container,
    write_container,
)
from reference.feature_names import restore_names
from reference.files import write_atomic
from reference.state import StateFormatError

__all__ = ["FILE_FORMAT", "FILE_VERSION", "READ_VERSIONS", "MAX_DEPTH", "MAX_DOCUMENT_BYTES",
           "MAX_FILE_BYTES", "save", "load", "load_into", "read_document",
           "to_document", "to_container", "from_document", "StateFormatError"]

FILE_FORMAT = "driftwood-model"
FILE_VERSION = 2
"""The format :func:`save` writes (the binary container)."""
READ_VERSIONS = (1, 2)
"""The formats :func:`load` reads: 1 (gzip JSON) and 2 (the binary container)."""
TOP_LEVEL_KEYS = ("format", "version", "class", "written_by", "params", "fitted",
                  "snapshot", "feature_names_in")
PACK_MIN = 16
"""Shortest list of numbers a format-2 file stores as an array (shorter ones stay JSON)."""
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


NESTED = frozenset((list, dict, tuple, np.ndarray))
"""The types a document's lists hold that the walks below descend into (a parsed document
holds exact types only)."""


def _nested(values: Any) -> bool:
    """Whether ``values`` hold a list, dict, tuple or array: the types are collected at C
    speed (``map``), so a list of 15 million numbers is passed over in a fraction of a
    second instead of the seconds a Python loop takes."""
    return not NESTED.isdisjoint(set(map(type, values)))


def _decode_list(value: list[Any], where: str, backend: str) -> list[Any]:
    if not _nested(value):
        return list(value)                # numbers, strings, null: nothing to decode
    return [decode(v, f"{where}[{i}]", backend) for i, v in enumerate(value)]


# -- documents ---------------------------------------------------------------------------
def to_document(model: Any) -> dict[str, Any]:
    """The data-only document of ``model`` in format 1 (plain data, as gzip JSON holds
    it)."""
    name = type(model).__name__
    if name not in MODEL_CLASSES:
        raise TypeError(f"{name} is not a driftwood model class")
    backend = type(model).__module__.split(".")[0]
    with model._lock:
        params = model._constructor_params()
        fitted = model._fitted_state()
        snapshot = model.snapshot()
        names = model.__dict__.get("feature_names_in_")
    doc = {"format": FILE_FORMAT, "version": 1, "class": name,
           "written_by": backend,
           "params": encode(params, "params"), "fitted": encode(fitted, "fitted"),
           "snapshot": encode(snapshot, "snapshot")}
    if names is not None:
        doc[FEATURE_NAMES_KEY] = [str(n) for n in names]
    return doc


def check_document(doc: Any, version: int | None = None) -> None:
    """The header of a document: format, version (``version`` if given: 1 for gzip JSON,
    2 for a container), class, no unknown key and the three sections."""
    if not isinstance(doc, dict):
        raise StateFormatError("a driftwood model file holds one JSON object; found "
                               f"{type(doc).__name__}")
    if doc.get("format") != FILE_FORMAT:
        raise StateFormatError(f"not a driftwood model file (format {quote(doc.get('format'))})")
    found = doc.get("version")
    if found not in READ_VERSIONS or isinstance(found, bool) or (
            version is not None and found != version):
        raise StateFormatError(f"model file version {quote(found)} is not readable by this "
                               f"driftwood, which reads versions {list(READ_VERSIONS)} (1 as "
                               f"gzip JSON, 2 as its binary container)")
    unknown = [k for k in doc if k not in TOP_LEVEL_KEYS]
    if unknown:
        raise StateFormatError(f"unknown top-level keys {quote(unknown[:5])}; a model file "
                               f"holds only {list(TOP_LEVEL_KEYS)}")
    if doc.get("class") not in MODEL_CLASSES:
        raise StateFormatError(f"field class: {quote(doc.get('class'))} is not one of "
                               f"{list(MODEL_CLASSES)}")
    for key in ("params", "fitted", "snapshot"):
        if not isinstance(doc.get(key), dict):
            raise StateFormatError(f"field {key}: expected an object")


def from_document(doc: Any, backend: str = "reference", max_bytes: int | None = None) -> Any:
    """The model a document describes, built in ``backend`` (``"reference"`` or
    ``"fast"``) after every field was checked. :class:`StateFormatError` otherwise.

    The lists built from a format-2 file's arrays may cost at most the cap in force
    (:func:`document_limit` of ``max_bytes``; :func:`plain`)."""
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
    keep = getattr(cls, "_file_arrays", {})
    parts = [(fitted, keep.get("fitted", ())), (snapshot, keep.get("snapshot", ()))]
    check_list_cost(parts, document_limit(max_bytes))
    fitted, snapshot = (plain(value, kept) for value, kept in parts)
    model._load_fitted(fitted, snapshot)
    if FEATURE_NAMES_KEY in doc:
        restore_names(model, doc[FEATURE_NAMES_KEY], FEATURE_NAMES_KEY)
    return model


COLUMN_TAGS = ("__records__", "__nodes__", "__balls__")
"""The tags of a family's columns (dynamic-tree particles, SGT nodes, ABACOC balls), which
the family's checks read as arrays."""


def plain(value: Any, keep: tuple[str, ...] = ()) -> Any:
    """``value`` with every array of a format-2 file as (nested) lists of Python numbers
    (the plain data of format 1), except the arrays at the top-level keys ``keep`` and
    inside a family's tagged columns (:data:`COLUMN_TAGS`), which its checks read as
    arrays. Lists of scalars are returned as they are (not copied)."""
    return _plain(value, keep)


def check_list_cost(parts: list[tuple[Any, tuple[str, ...]]], budget: int) -> None:
    """Refuse, before :func:`plain` builds any list, the arrays of ``parts`` (each a value
    and its ``keep``) whose Python lists would cost more than ``budget`` bytes
    (:func:`list_cost`). An array's lists cost 4 to 13 times its bytes, so a file
    whose arrays sit where the checks read short lists (a generator state, a feature
    range) would otherwise cost gigabytes before the checks refuse them: 128 MiB of
    zeros deflated into a 146 kB file cost 1.6 GB and 5.7 s that way."""
    cost = sum(list_cost(value, keep) for value, keep in parts)
    if cost > budget:
        raise StateFormatError(
            f"the arrays stored where a model file holds lists would cost about {cost} "
            f"bytes as Python lists, more than the {budget} bytes of this cap; a model "
            f"file stores its bulk in the arrays its checks read as arrays")


def list_cost(value: Any, keep: tuple[str, ...] = ()) -> int:
    """The bytes of Python objects :func:`plain` would build from the arrays of ``value``
    (:data:`reference.container.ELEMENT_COST` per number, plus
    :data:`reference.container.CONTAINER_COST` per list), read from their shapes, with an
    explicit stack."""
    total = 0
    stack: list[tuple[Any, tuple[str, ...]]] = [(value, keep)]
    while stack:
        node, kept = stack.pop()
        if isinstance(node, np.ndarray):
            rows = node.shape[0] if node.ndim == 2 else 0
            total += node.size * ELEMENT_COST + (rows + 1) * CONTAINER_COST
        elif isinstance(node, dict):
            if len(node) == 1 and next(iter(node)) in COLUMN_TAGS:
                continue
            stack.extend((v, ()) for k, v in node.items()
                         if not (k in kept and isinstance(v, np.ndarray)))
        elif isinstance(node, (list, tuple)) and _nested(node):
            stack.extend((v, ()) for v in node if isinstance(v, (np.ndarray, dict, list,
                                                                 tuple)))
    return total


def _plain(value: Any, keep: tuple[str, ...] = ()) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, dict):
        if len(value) == 1 and next(iter(value)) in COLUMN_TAGS:
            return value
        return {k: v if k in keep and isinstance(v, np.ndarray) else _plain(v)
                for k, v in value.items()}
    if isinstance(value, list):
        if not _nested(value):
            return value                  # numbers, strings: already plain (no copy)
        return [_plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    return value


# -- format 2: arrays in a container -----------------------------------------------------
def _number_kind(values: list[Any]) -> str | None:
    """``"f"`` if every value is a float, ``"i"`` if every one is an int of 64 bits (not
    a bool), else None."""
    if all(type(v) is float for v in values):
        return "f"
    if all(type(v) is int and -2**63 <= v < 2**63 for v in values):
        return "i"
    return None


def _as_array(value: list[Any]) -> np.ndarray | None:
    """A list of at least :data:`PACK_MIN` numbers of one kind as an array (a list of
    such lists of one length as a two-axis array), else None."""
    if not value:
        return None
    if isinstance(value[0], list):
        width = len(value[0])
        if width == 0 or len(value) * width < PACK_MIN or not all(
                isinstance(r, list) and len(r) == width for r in value):
            return None
        kinds = {_number_kind(r) for r in value}
        if len(kinds) != 1 or None in kinds:
            return None
        kind = kinds.pop()
    else:
        kind = _number_kind(value) if len(value) >= PACK_MIN else None
        if kind is None:
            return None
    return np.array(value, dtype=np.float64 if kind == "f" else np.int64)


def pack(value: Any, table: ArrayTable) -> Any:
    """An encoded value (:func:`encode`) with its arrays, and its long lists of numbers,
    moved into ``table`` (each replaced by ``{"__array__": k}``)."""
    if isinstance(value, np.ndarray):
        return table.add(value)
    if isinstance(value, list):
        array = _as_array(value)
        if array is not None:
            return table.add(array)
        return [pack(v, table) for v in value]
    if isinstance(value, dict):
        return {k: pack(v, table) for k, v in value.items()}
    return value


def _encode_arrays(value: Any, where: str) -> Any:
    """:func:`encode`, keeping numpy arrays as they are (a family's array state)."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, list) and any(isinstance(v, (list, dict)) for v in value):
        return [_encode_arrays(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value) and not (
            set(value) & {"__tuple__", "__items__", "__loss__"}):
        return {k: _encode_arrays(v, f"{where}.{k}") for k, v in value.items()}
    return encode(value, where)


def to_container(model: Any, compress: bool = True) -> bytes:
    """The bytes of a format-2 model file of ``model`` (:mod:`reference.container`)."""
    name = type(model).__name__
    if name not in MODEL_CLASSES:
        raise TypeError(f"{name} is not a driftwood model class")
    backend = type(model).__module__.split(".")[0]
    with model._lock:
        params = model._constructor_params()
        file_state = getattr(model, "_file_state", None)
        fitted, snapshot = file_state() if file_state is not None else (
            model._fitted_state(), model.snapshot())
        names = model.__dict__.get("feature_names_in_")
    table = ArrayTable(compress)
    header: dict[str, Any] = {
        "format": FILE_FORMAT, "version": FILE_VERSION, "class": name, "written_by": backend,
        "params": encode(params, "params"),
        "fitted": pack(_encode_arrays(fitted, "fitted"), table),
        "snapshot": pack(_encode_arrays(snapshot, "snapshot"), table)}
    if names is not None:
        header[FEATURE_NAMES_KEY] = [str(n) for n in names]
    return write_container(header, table)


def _put_arrays(header: dict[str, Any], arrays: list[np.ndarray], where: str) -> None:
    """Replace every ``{"__array__": k}`` of the header's ``fitted`` and ``snapshot`` by
    array ``k`` (in place, with an explicit stack); each array is used exactly once."""
    used = [False] * len(arrays)
    stack: list[Any] = [header.get("fitted"), header.get("snapshot")]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else \
            enumerate(node) if isinstance(node, list) else ()
        for key, value in list(items):
            if isinstance(value, dict) and len(value) == 1 and "__array__" in value:
                k = value["__array__"]
                if type(k) is not int or not 0 <= k < len(arrays) or used[k]:
                    raise StateFormatError(f"{where}: array reference {quote(k)} is not an "
                                           f"unused array of the file")
                used[k] = True
                node[key] = arrays[k]
            elif isinstance(value, (dict, list)):
                stack.append(value)
    if not all(used):
        raise StateFormatError(f"{where}: array {used.index(False)} is not referenced")


# -- files -------------------------------------------------------------------------------
def save(model: Any, path: str | os.PathLike[str], compress: bool = True,
         version: int = FILE_VERSION) -> None:
    """Write ``model`` to ``path`` as a data-only model file of format ``version`` (see the
    module doc): 2, its arrays deflated with zlib if ``compress``, or 1 (gzip JSON, for
    readers older than format 2; ``compress`` is then ignored).

    The file is written next to ``path`` under a temporary name, flushed to disk and
    then renamed over ``path``: a full disk or an interruption leaves any previous file
    at ``path`` intact and no partial file behind. An existing file keeps its permission
    bits, a symbolic link keeps pointing at the (replaced) file, and a path that is not a
    regular file (a FIFO, a device) is refused (:func:`reference.files.write_atomic`).
    """
    if version == 1:
        data = json.dumps(to_document(model), separators=(",", ":")).encode("utf-8")
        write_atomic(Path(path), gzip.compress(data, mtime=0))
    elif version == FILE_VERSION:
        write_atomic(Path(path), to_container(model, compress))
    else:
        raise ValueError(f"version must be 1 or {FILE_VERSION}, got {version!r}")


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


def _inflate(raw: bytes, path: str | os.PathLike[str], limit: int) -> bytearray:
    """The decompressed bytes of the gzip file ``raw``, inflated a chunk at a time into
    one buffer and refused as soon as they pass ``limit`` (so a bomb costs at most
    ``limit`` bytes)."""
    data = bytearray()
    with gzip.GzipFile(fileobj=io.BytesIO(raw), mode="rb") as src:
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


def _read_capped(path: str | os.PathLike[str], cap: int) -> bytes:
    """The bytes of ``path``, at most ``cap`` + 1 of them (the cap leaves room for gzip's
    overhead on incompressible data over the decompressed cap); ``read`` sizes its buffer
    by the request, so a regular file is asked for no more than it holds."""
    with open(path, "rb") as handle:
        info = os.fstat(handle.fileno())
        if stat.S_ISREG(info.st_mode):
            return handle.read(min(cap + 1, info.st_size + 1))
        chunks: list[bytes] = []
        total = 0
        while total <= cap:
            chunk = handle.read(min(CHUNK_BYTES, cap + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        return b"".join(chunks)


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
        if _nested(items):
            stack.extend((item, depth + 1) for item in items
                         if isinstance(item, (list, dict)))


def read_document(path: str | os.PathLike[str], max_bytes: int | None = None) -> Any:
    """The document of a model file of either format, or :class:`StateFormatError` if
    the file is neither a container (:mod:`reference.container`) nor gzip-compressed
    JSON (truncated, corrupted, an integer longer than the interpreter parses), inflates
    past the cap (:func:`document_limit`), holds JSON whose parse would cost more than
    :func:`reference.container.parse_budget`, nests deeper than :data:`MAX_DEPTH` or has
    unknown top-level keys. A container's document holds its arrays (numpy, read-only)
    where the header references them.

    The cost is bounded by the cap: a gzip file is inflated a chunk at a time and refused
    as soon as it passes the cap, its elements counted on the bytes before it is parsed
    once; the nesting is checked without recursion before anything else walks the
    document.
    """
    limit = document_limit(max_bytes)
    where = quote(os.fspath(path), 200)
    raw = _read_capped(path, limit + (limit >> 6) + 4096)
    if is_container(raw):
        header, arrays = read_container(raw, limit, where)
        check_depth(header, where)
        check_document(header, 2)
        _put_arrays(header, arrays, where)
        return header
    try:
        data = _inflate(raw, path, limit)
    except (OSError, EOFError, zlib.error) as exc:
        if isinstance(exc, FileNotFoundError | PermissionError | IsADirectoryError):
            raise
        raise StateFormatError(f"{os.fspath(path)} is not a readable driftwood model file "
                               f"({exc})") from None
    check_element_count(data, parse_budget(limit), where)
    try:
        text = data.decode("utf-8")
        del data                           # the bytes are not needed during the parse
        doc = json.loads(text, parse_constant=_constant)
    except (ValueError, RecursionError) as exc:
        # JSONDecodeError, UnicodeDecodeError and the interpreter's limit on integer digits
        # are ValueErrors; the parser raises RecursionError past its own nesting limit
        raise StateFormatError(f"{os.fspath(path)} is not a driftwood model file: the JSON "
                               f"does not parse ({type(exc).__name__}: {exc})"[:300]) from None
    del text
    check_depth(doc, where)
    check_document(doc, 1)
    return doc


def _constant(name: str) -> float:
    return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[name]


def load_into(path: str | os.PathLike[str], backend: str,
              max_bytes: int | None = None) -> Any:
    """:func:`load` into ``backend`` (``"reference"`` or ``"fast"``)."""
    return from_document(read_document(path, max_bytes), backend, max_bytes)


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

"""The binary container of model files, format version 2: a small JSON header, then typed
little-endian arrays (both backends; :mod:`reference.persist` fills and reads it).

Layout (every integer little-endian)::

    offset 0   8 bytes   magic b"\\x89DWM\\r\\n\\x1a\\n"
    offset 8   uint32    container version (2)
    offset 12  uint32    header length H in bytes
    offset 16  H bytes   the header: one UTF-8 JSON object
    16 + H     the arrays' stored bytes, one after the other, in the header's order

(the writer pads the header with spaces to a multiple of 8 bytes, so that the arrays start
8-byte aligned; a reader copies an array that is not aligned).

The header is the model document of format version 1 (``format``, ``version`` = 2,
``class``, ``written_by``, ``params``, ``fitted``, ``snapshot`` and the optional
``feature_names_in``) in which bulky numeric data stand as ``{"__array__": k}``, plus
``"arrays"``: a list whose entry ``k`` describes array ``k``::

    {"dtype": "<f8" | "<i4" | "<i8", "shape": [d0] or [d0, d1],
     "codec": "raw" | "zlib", "stored": <bytes in the file>}

An array's bytes are C-ordered little-endian values; ``"zlib"`` stores them deflated
(RFC 1950), ``"raw"`` as they are. Every array is referenced exactly once. Nothing in a
file runs code: the header is parsed by ``json.loads`` and each array by
``numpy.frombuffer`` on its checked bytes (never pickle).

Costs are bounded by the file, for any input (:func:`read_container`):

- the whole file, the header and the arrays' decompressed bytes together are capped by
  the caller's limit (:func:`reference.persist.document_limit`, 128 MiB by default);
- before ``json.loads`` runs, the header's elements are counted on its bytes
  (:func:`check_element_count`) and a header whose parse would cost more than
  :func:`parse_budget` in Python objects is refused; the header's keys are checked
  before any array is read, and an unknown key is refused;
- each array's declared shape is checked against its dtype, its stored size and the
  cap before a byte of it is inflated (:func:`check_shape`: no axis longer than the cap
  holds elements, no rows of zero width), and inflating stops at the declared size.

Every problem raises :class:`~reference.state.StateFormatError` whose message quotes at
most a few hundred characters of the file.
"""

from __future__ import annotations

import json
import math
import struct
import zlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from reference.state import StateFormatError

__all__ = ["MAGIC", "CONTAINER_VERSION", "DTYPES", "ArrayTable", "write_container",
           "read_container", "is_container", "check_element_count", "check_shape",
           "parse_budget",
           "CONTAINER_COST", "ELEMENT_COST", "PARSE_FACTOR", "PARSE_FLOOR"]

MAGIC = b"\x89DWM\r\n\x1a\n"
CONTAINER_VERSION = 2
DTYPES: dict[str, np.dtype[Any]] = {"<f8": np.dtype("<f8"), "<i4": np.dtype("<i4"),
                                     "<i8": np.dtype("<i8")}
HEADER_KEYS = ("format", "version", "class", "written_by", "params", "fitted", "snapshot",
               "arrays", "feature_names_in")
REQUIRED_KEYS = ("format", "version", "class", "params", "fitted", "snapshot", "arrays")
"""(``written_by`` is informational: format 1 does not require it either.)"""
ARRAY_KEYS = ("dtype", "shape", "codec", "stored")
CONTAINER_COST = 72
"""Bytes of Python memory a JSON object or array costs once parsed, at least: an empty
dict is 64 bytes, plus its slot in its parent."""
ELEMENT_COST = 32
"""Bytes a JSON value other than a container costs once parsed (a float: 24 bytes plus
its slot); small integers and repeated strings cost less."""


@dataclass
class ArrayTable:
    """The arrays of a container being written: :meth:`add` returns the reference that
    stands for an array in the header."""

    compress: bool = True
    arrays: list[np.ndarray] = field(default_factory=list)

    def add(self, array: np.ndarray) -> dict[str, int]:
        kind = array.dtype.kind
        code = "<f8" if kind == "f" else "<i4" if array.dtype.itemsize <= 4 else "<i8"
        if kind not in "fiu" or array.ndim not in (1, 2) or (
                kind == "u" and array.size and int(array.max()) >= 2**63):
            raise TypeError(f"cannot store an array of {array.dtype} with {array.ndim} axes "
                            f"(or unsigned values past 2**63 - 1)")
        self.arrays.append(np.ascontiguousarray(array, dtype=DTYPES[code]))
        return {"__array__": len(self.arrays) - 1}


def write_container(header: dict[str, Any], table: ArrayTable) -> bytes:
    """The bytes of a container holding ``header`` (without ``"arrays"``) and the arrays
    of ``table``."""
    blobs: list[bytes] = []
    entries: list[dict[str, Any]] = []
    for array in table.arrays:
        raw = array.tobytes()
        blob = zlib.compress(raw, 1) if table.compress and raw else raw
        if len(blob) >= len(raw):
            codec, blob = "raw", raw
        else:
            codec = "zlib"
        blobs.append(blob)
        entries.append({"dtype": array.dtype.str, "shape": list(array.shape),
                        "codec": codec, "stored": len(blob)})
    text = json.dumps({**header, "arrays": entries}, separators=(",", ":"),
                      allow_nan=True).encode("utf-8")
    text += b" " * (-len(text) % 8)      # the arrays start 8-byte aligned
    return b"".join([MAGIC, struct.pack("<II", CONTAINER_VERSION, len(text)), text, *blobs])


def is_container(head: bytes) -> bool:
    """Whether a file starting with ``head`` is a container (else: gzip JSON)."""
    return head[:len(MAGIC)] == MAGIC


def quote(value: Any, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters (errors quote at most that much)."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def check_element_count(text: bytes | bytearray, budget: int, where: str) -> None:
    """Refuse a JSON text whose parse would cost more than ``budget`` bytes of Python
    objects, counted on the bytes before parsing: every ``{`` and ``[`` opens a container
    (:data:`CONTAINER_COST`) and every ``,`` separates a further element
    (:data:`ELEMENT_COST`); inside strings they only over-count. The count runs at
    memory speed (``bytes.count``), so a text of empty objects is refused in the time it
    takes to read it instead of costing some 24 times its size in the parser."""
    containers = text.count(b"{") + text.count(b"[")
    elements = text.count(b",") + 1
    cost = containers * CONTAINER_COST + elements * ELEMENT_COST
    if cost > budget:
        raise StateFormatError(
            f"{where}: {containers} JSON objects and arrays and {elements} elements in "
            f"{len(text)} bytes would cost about {cost} bytes once parsed, more than the "
            f"{budget} bytes allowed for this cap; a model file stores its bulk as numbers "
            f"(format 1) or arrays (format 2), not as empty containers")


PARSE_FACTOR = 4
"""A JSON text (a format-1 document or a format-2 header) may cost at most this many times
the cap in Python objects once parsed (512 MiB at the default cap of 128 MiB), as counted
by :func:`check_element_count`; documents as written count three to ten times their size
(an SGT's many small integers count high), so at the default cap a written format-1
document of up to about 50 MiB of JSON loads, and a larger one with ``max_bytes=``. (At 8,
a 118 kB file of ``0.0,`` inflating to 128 MB cost 2.2 GB and 23 s.)"""
PARSE_FLOOR = 64 << 20
"""... and at least this many bytes, however small the cap (a cap set to a small file's
size still loads that file)."""


def parse_budget(limit: int) -> int:
    """The bytes a JSON text may cost once parsed under the cap ``limit``."""
    return max(PARSE_FACTOR * limit, PARSE_FLOOR)


def _constant(name: str) -> float:
    return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[name]


def _parse_header(data: memoryview, limit: int, where: str) -> tuple[dict[str, Any], int]:
    if len(data) < 16:
        raise StateFormatError(f"{where}: a model file container is at least 16 bytes")
    version, size = struct.unpack("<II", data[8:16])
    if version != CONTAINER_VERSION:
        raise StateFormatError(f"{where}: container version {version} is not readable by "
                               f"this driftwood, which reads version {CONTAINER_VERSION}")
    if size > len(data) - 16:
        raise StateFormatError(f"{where}: the header of {size} bytes runs past the end of "
                               f"the file ({len(data)} bytes)")
    text = bytes(data[16:16 + size])
    check_element_count(text, parse_budget(limit), where)
    try:
        header = json.loads(text.decode("utf-8"), parse_constant=_constant)
    except (ValueError, RecursionError) as exc:
        raise StateFormatError(f"{where}: the header does not parse "
                               f"({type(exc).__name__}: {exc})"[:300]) from None
    if not isinstance(header, dict):
        raise StateFormatError(f"{where}: the header is one JSON object; found "
                               f"{type(header).__name__}")
    unknown = [k for k in header if k not in HEADER_KEYS]
    if unknown:
        raise StateFormatError(f"{where}: unknown header keys {quote(unknown[:5])}; a model "
                               f"file header holds only {list(HEADER_KEYS)}")
    missing = [k for k in REQUIRED_KEYS if k not in header]
    if missing:
        raise StateFormatError(f"{where}: the header lacks {missing}")
    return header, 16 + size


def check_shape(shape: list[int], itemsize: int, limit: int, at: str) -> None:
    """Refuse a declared shape whose cost is not bounded by the values it holds: an axis
    longer than the cap holds elements (``limit // itemsize``; an array with an empty
    axis holds nothing, so without this ``[0, 2**61]`` would overflow numpy's size), and
    a two-axis array of zero width with rows (``[2e7, 0]`` holds no value, yet as lists it
    is 2e7 empty lists, 1.4 GB). The writer never writes either: its two-axis arrays have
    at least one column."""
    most = limit // itemsize
    if any(s > most for s in shape):
        raise StateFormatError(f"{at}: shape {quote(shape)} has an axis longer than the "
                               f"{most} elements of this cap")
    if len(shape) == 2 and shape[0] > 0 and shape[1] == 0:
        raise StateFormatError(f"{at}: shape {quote(shape)} declares rows without values; "
                               f"a two-axis array of a model file has at least one column")


def _check_entry(entry: Any, k: int, where: str, limit: int) -> tuple[
        np.dtype[Any], tuple[int, ...], str, int, int]:
    at = f"{where}: arrays[{k}]"
    if not isinstance(entry, dict) or sorted(entry) != sorted(ARRAY_KEYS):
        raise StateFormatError(f"{at}: expected an object with the keys {list(ARRAY_KEYS)}")
    dtype = DTYPES.get(entry["dtype"]) if isinstance(entry["dtype"], str) else None
    if dtype is None:
        raise StateFormatError(f"{at}: dtype {quote(entry['dtype'])} is not one of "
                               f"{list(DTYPES)}")
    shape = entry["shape"]
    if not isinstance(shape, list) or len(shape) not in (1, 2) or not all(
            type(s) is int and 0 <= s < 2**62 for s in shape):
        raise StateFormatError(f"{at}: shape {quote(shape)} is not one or two counts")
    check_shape(shape, dtype.itemsize, limit, at)
    if entry["codec"] not in ("raw", "zlib"):
        raise StateFormatError(f"{at}: codec {quote(entry['codec'])} is not raw or zlib")
    stored = entry["stored"]
    if type(stored) is not int or stored < 0:
        raise StateFormatError(f"{at}: stored size {quote(stored)} is not a byte count")
    nbytes = math.prod(shape) * dtype.itemsize
    if entry["codec"] == "raw" and stored != nbytes:
        raise StateFormatError(f"{at}: {stored} raw bytes for a {shape} array of "
                               f"{entry['dtype']} ({nbytes} bytes)")
    return dtype, tuple(shape), entry["codec"], stored, nbytes


def _inflate(blob: memoryview, nbytes: int, at: str) -> bytes:
    """The ``nbytes`` bytes a zlib stream inflates to, never more (a bomb stops there)."""
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(blob, nbytes)
    except zlib.error as exc:
        raise StateFormatError(f"{at}: the deflated bytes are corrupt ({exc})") from None
    if len(out) != nbytes or inflater.unconsumed_tail or not inflater.eof or \
            inflater.unused_data:
        raise StateFormatError(f"{at}: the deflated bytes do not inflate to exactly the "
                               f"{nbytes} bytes of its shape")
    return out


def read_container(data: bytes | bytearray | memoryview, limit: int,
                   where: str) -> tuple[dict[str, Any], list[np.ndarray]]:
    """The header (without ``"arrays"``) and the arrays (read-only, native byte order)
    of a container, checked as the module doc says; :class:`StateFormatError` otherwise."""
    view = memoryview(data)
    if len(view) > limit:
        raise StateFormatError(f"{where}: {len(view)} bytes, more than the {limit}-byte cap")
    header, pos = _parse_header(view, limit, where)
    entries = header.pop("arrays")
    if not isinstance(entries, list):
        raise StateFormatError(f"{where}: arrays must be a list")
    checked = [_check_entry(e, k, where, limit) for k, e in enumerate(entries)]
    if sum(c[4] for c in checked) > limit:
        raise StateFormatError(f"{where}: the arrays hold more than the {limit}-byte cap")
    if pos + sum(c[3] for c in checked) != len(view):
        raise StateFormatError(f"{where}: the arrays' stored sizes do not add up to the "
                               f"file's length")
    arrays = []
    for k, (dtype, shape, codec, stored, nbytes) in enumerate(checked):
        blob = view[pos:pos + stored]
        pos += stored
        raw = _inflate(blob, nbytes, f"{where}: arrays[{k}]") if codec == "zlib" else blob
        array = np.frombuffer(raw, dtype=dtype).reshape(shape)
        if not dtype.isnative:
            array = array.astype(dtype.newbyteorder("="))
        elif not array.flags.aligned:
            array = array.copy()         # a raw array after one of odd length: C needs
        arrays.append(array)             # its values aligned
    return header, arrays

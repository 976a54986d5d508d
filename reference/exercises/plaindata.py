"""Values as plain data: what travels from a check's worker to the grader.

The worker of an isolated check (:mod:`reference.exercises.harness`) sends the student's
outputs as **plain data** (JSON of numbers, strings, lists and tagged tuples, mappings and
exceptions: never pickle); the grader (:mod:`reference.exercises.isolation`) turns them
back and compares them with the reference.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from reference.exercises import checker

__all__ = ["Opaque", "decode", "encode", "round_trip"]

_MAX_DEPTH = 200
"""Deeper values than this are sent as opaque (a self-containing list, say)."""



class Opaque:
    """A value the child could not send as plain data: its type's name and a safe text.

    Two opaque values are equal when both agree; an opaque value never equals a number,
    a sequence or a mapping, so a function that returns an unusual object fails with a
    readable message rather than a traceback.
    """

    __slots__ = ("type_name", "text")

    def __init__(self, type_name: str, text: str) -> None:
        self.type_name = type_name
        self.text = text

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Opaque) and other.type_name == self.type_name
                and other.text == self.text)

    def __hash__(self) -> int:
        return hash((self.type_name, self.text))

    def __repr__(self) -> str:
        return self.text


def _safe_text(value: Any) -> Opaque:
    name = type(value).__name__ if isinstance(type(value).__name__, str) else "object"
    try:
        text = repr(value)
        if not isinstance(text, str):
            raise TypeError
    except BaseException:  # noqa: BLE001 - a student's __repr__ may raise anything
        text = f"<{name} object whose repr raised>"
    return Opaque(name, text[:500])


def encode(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON-ready plain data that :func:`decode` turns back.

    Kept exactly: ``None``, booleans, integers, floats (also ``nan``, ``inf`` and ``-0.0``),
    strings, lists. Tagged: a tuple ``{"t": [...]}``, a mapping ``{"d": [[key, value],
    ...]}``, an exception record ``{"r": [text, traceback, kind]}``. numpy arrays become
    lists and numpy scalars numbers (as :func:`reference.exercises.checker.difference`
    sees them). Anything else, or anything that fails to convert, becomes
    ``{"o": [type name, text]}`` (an :class:`Opaque`). Only exact built-in types are
    trusted: a subclass of ``float`` is converted with ``float()``, and is opaque if
    that raises.
    """
    try:
        if depth > _MAX_DEPTH:
            return {"o": ["object", "<nested too deeply>"]}
        kind = type(value)
        if value is None or kind in (bool, int, float, str):
            return value
        if kind is list:
            return [encode(v, depth + 1) for v in value]
        if kind is tuple:
            return {"t": [encode(v, depth + 1) for v in value]}
        if kind is dict:
            return {"d": [[encode(k, depth + 1), encode(v, depth + 1)]
                          for k, v in value.items()]}
        if kind is checker._Raised:
            return {"r": [str(value.text), str(value.tb), str(value.kind)]}
        if isinstance(value, np.ndarray):
            return encode(value.tolist(), depth + 1)
        if isinstance(value, np.generic):
            return encode(value.item(), depth + 1)
        for base in (bool, int, float, str):
            if isinstance(value, base):
                return base(value)
        if isinstance(value, tuple):
            return {"t": [encode(v, depth + 1) for v in tuple.__iter__(value)]}
        if isinstance(value, list):
            return [encode(v, depth + 1) for v in list.__iter__(value)]
    except BaseException:  # noqa: BLE001 - a student's value may fail in any way
        pass
    opaque = _safe_text(value)
    return {"o": [opaque.type_name, opaque.text]}


def decode(data: Any) -> Any:
    """The value that :func:`encode` described (``ValueError`` on malformed data)."""
    if data is None or type(data) in (bool, int, float, str):
        return data
    if type(data) is list:
        return [decode(v) for v in data]
    if type(data) is dict and len(data) == 1:
        (tag, body), = data.items()
        if tag == "t" and type(body) is list:
            return tuple(decode(v) for v in body)
        if tag == "d" and type(body) is list:
            out: dict[Any, Any] = {}
            for pair in body:
                if type(pair) is not list or len(pair) != 2:
                    raise ValueError("malformed mapping item")
                key = decode(pair[0])
                try:
                    out[key] = decode(pair[1])
                except TypeError as err:            # an unhashable key
                    raise ValueError("malformed mapping key") from err
            return out
        if tag in ("r", "o") and type(body) is list and all(type(b) is str for b in body):
            if tag == "o" and len(body) == 2:
                return Opaque(body[0], body[1])
            if tag == "r" and len(body) == 3:
                return checker._Raised(body[0], body[1], body[2])
    raise ValueError(f"malformed value {str(data)[:80]}")


def round_trip(value: Any) -> Any:
    """``decode(encode(value))``: how a value looks after travelling from the child."""
    return decode(json.loads(json.dumps(encode(value))))


def _encode_outputs(outputs: checker.Outputs) -> dict[str, Any]:
    return {
        "notes": [str(n) for n in outputs.notes],
        "problem": None if outputs.problem is None else str(outputs.problem),
        "values": [encode(v) for v in outputs.values],
        "stream": None if outputs.stream is None else [
            [encode(p), encode(s)] for p, s in outputs.stream],
        "constructor_error": None if outputs.constructor_error is None
        else encode(outputs.constructor_error),
    }


def _decode_outputs(data: Any, n_cases: int) -> checker.Outputs:
    if type(data) is not dict:
        raise ValueError("the result is not a mapping")
    notes = data.get("notes", [])
    problem = data.get("problem")
    if not (type(notes) is list and all(type(n) is str for n in notes)):
        raise ValueError("malformed notes")
    if problem is not None and type(problem) is not str:
        raise ValueError("malformed signature problem")
    values = decode(data.get("values", []))
    if type(values) is not list or len(values) > n_cases:
        raise ValueError("malformed case outputs")
    stream = data.get("stream")
    steps: list[tuple[Any, Any]] | None = None
    if stream is not None:
        if type(stream) is not list or not all(
                type(s) is list and len(s) == 2 for s in stream):
            raise ValueError("malformed stream")
        steps = [(decode(p), decode(s)) for p, s in stream]
    error = data.get("constructor_error")
    constructor_error = None if error is None else decode(error)
    if constructor_error is not None and not isinstance(constructor_error, checker._Raised):
        raise ValueError("malformed constructor error")
    return checker.Outputs(notes=list(notes), problem=problem, values=values, stream=steps,
                           constructor_error=constructor_error)

"""Exact comparison of snapshots and predictions, and the lockstep runner.

``assert_snapshot_equal`` recurses through plain data (numpy's ``assert_state_equal``
idea) and reports the *first* differing path, with float differences in ulps. The
default tolerance is exact equality ([DET-SPEC §3]): a mismatch is fixed by
making the operations agree, never by adding tolerance.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np


def _ordered(x: float) -> int:
    """Map a double to an integer so that adjacent doubles differ by 1."""
    (i,) = struct.unpack("<q", struct.pack("<d", x))
    return i if i >= 0 else -(i & 0x7FFFFFFFFFFFFFFF)


def ulps(a: float, b: float) -> float:
    """Distance between two doubles in units in the last place (inf if one is NaN)."""
    if math.isnan(a) or math.isnan(b):
        return 0.0 if (math.isnan(a) and math.isnan(b)) else math.inf
    return float(abs(_ordered(a) - _ordered(b)))


class Mismatch(AssertionError):
    """Raised by :func:`assert_snapshot_equal` with step, path and ulp difference."""


def _same_float(a: float, b: float) -> bool:
    if math.isnan(a) and math.isnan(b):
        return True
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b) if a == 0.0 else a == b


def _plain(x: Any) -> Any:
    """numpy scalars and arrays become Python floats/ints/lists; everything else as is."""
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, tuple):
        return list(x)
    return x


def first_difference(a: Any, b: Any, path: str = "") -> str | None:
    """Describe the first difference between two plain-data trees, or ``None``."""
    a, b = _plain(a), _plain(b)
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        ka, kb = list(a.keys()), list(b.keys())
        if ka != kb:
            return f"{path or '<root>'}: keys differ: {ka} vs {kb}"
        for k in ka:
            d = first_difference(a[k], b[k], f"{path}.{k}" if path else str(k))
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path or '<root>'}: lengths differ: {len(a)} vs {len(b)}"
        for i, (u, v) in enumerate(zip(a, b, strict=True)):
            d = first_difference(u, v, f"{path}[{i}]")
            if d:
                return d
        return None
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) \
                and not isinstance(a, bool) and not isinstance(b, bool):
            fa, fb = float(a), float(b)
            if type(a) is type(b) and _same_float(fa, fb):
                return None
            kind = "" if type(a) is type(b) else f" (types {type(a).__name__}/{type(b).__name__})"
            return f"{path or '<root>'}: {a!r} vs {b!r}, {ulps(fa, fb):.0f} ulps{kind}"
        return f"{path or '<root>'}: {a!r} vs {b!r}"
    if type(a) is not type(b) or a != b:
        return f"{path or '<root>'}: {a!r} vs {b!r}"
    return None


def assert_snapshot_equal(a: Any, b: Any, path: str = "", step: int | None = None) -> None:
    """Assert two snapshots (plain nested data) are exactly equal.

    Floats must be bit-identical (``-0.0`` differs from ``0.0``; NaN equals NaN), ints
    equal, containers of the same length and key order. The failure message names the
    step, the first differing path and, for floats, the difference in ulps.
    """
    d = first_difference(a, b, path)
    if d is not None:
        where = f"step {step}: " if step is not None else ""
        raise Mismatch(where + d)


def run_lockstep(
    ref_model: Any,
    fast_model: Any,
    stream: Iterable[tuple[Sequence[float], Any]],
    *,
    predict: Sequence[str] = ("predict_one",),
    learn: Callable[[Any, Sequence[float], Any], None] | None = None,
    snapshot_every: int = 1,
    check: Callable[[Any, int], None] | None = None,
) -> int:
    """Run two models step by step on one stream and demand exact agreement.

    At every step ``t``: each method named in ``predict`` is called on ``x`` by both
    models and the results compared (skipped before the first learn if the reference
    raises), then both learn ``(x, y)`` (``learn`` defaults to ``m.learn_one(x, y)``),
    then, every ``snapshot_every`` steps, their ``snapshot()`` are compared. ``check``
    (if given) is called as ``check(model, t)`` on both after learning, for invariants.
    Returns the number of steps run. The first mismatch raises :class:`Mismatch`
    naming the step, the path and the ulp difference.
    """
    t = -1
    for t, (x, y) in enumerate(stream):
        for name in predict:
            try:
                pa = getattr(ref_model, name)(x)
            except Exception as exc:  # noqa: BLE001 - both must fail alike
                try:
                    getattr(fast_model, name)(x)
                except Exception as exc2:  # noqa: BLE001
                    if type(exc2) is not type(exc):
                        raise Mismatch(
                            f"step {t}: {name} raised {type(exc).__name__} vs "
                            f"{type(exc2).__name__}"
                        ) from exc2
                    continue
                raise Mismatch(f"step {t}: {name} raised {exc!r} only in reference") from exc
            pb = getattr(fast_model, name)(x)
            assert_snapshot_equal(pa, pb, path=name, step=t)
        if learn is None:
            ref_model.learn_one(x, y)
            fast_model.learn_one(x, y)
        else:
            learn(ref_model, x, y)
            learn(fast_model, x, y)
        if check is not None:
            check(ref_model, t)
            check(fast_model, t)
        if snapshot_every and (t + 1) % snapshot_every == 0:
            assert_snapshot_equal(ref_model.snapshot(), fast_model.snapshot(), step=t)
    assert_snapshot_equal(ref_model.snapshot(), fast_model.snapshot(), step=t)
    return t + 1

"""Comparing the two backends: exact comparison of plain data, and two lockstep drivers.

The backends must agree bit for bit, so every comparison here is exact ([DET-SPEC §3]):
floats equal in value *and* sign (``-0.0`` differs from ``0.0``; NaN equals NaN), ints
never equal to floats, containers of the same length and mappings with the same keys in
the same order. A mismatch is fixed by making the operations agree, never by adding a
tolerance.

Public API (signatures):

- ``first_difference(a, b, path="", *, in_ulps=False) -> str | None``: the first
  difference of two plain-data trees (snapshots, predictions), by path.
- ``ulps(a, b) -> float``: distance of two doubles in units in the last place.
- ``assert_snapshot_equal(a, b, path="", step=None)``: raises :class:`Mismatch`.
- ``run_lockstep(ref_model, fast_model, stream, *, predict=("predict_one",), learn=None,
  snapshot_every=1, check=None) -> int``: the tests' driver; the first mismatch raises.
- ``lockstep(ref_model, fast_model, X, y, proba=False, snapshot_every=1,
  keep_going=False, progress=None, description="compare") -> dict``: the driver of
  ``driftwood compare``; counts the agreeing steps and times both backends.
"""

from __future__ import annotations

import math
import struct
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from reference.evaluation.prequential import ProgressBar

__all__ = [
    "Mismatch",
    "assert_snapshot_equal",
    "first_difference",
    "lockstep",
    "run_lockstep",
    "ulps",
]


# ---------------------------------------------------------------------------
# exact comparison of plain data
# ---------------------------------------------------------------------------


def _ordered(x: float) -> int:
    """Map a double to an integer so that adjacent doubles differ by 1."""
    (i,) = struct.unpack("<q", struct.pack("<d", x))
    return int(i) if i >= 0 else -(int(i) & 0x7FFFFFFFFFFFFFFF)


def ulps(a: float, b: float) -> float:
    """Distance between two doubles in units in the last place (inf if one is NaN).

    Examples
    --------
    >>> ulps(1.0, 1.0 + 2.0**-52), ulps(-0.0, 0.0)
    (1.0, 0.0)
    """
    if math.isnan(a) or math.isnan(b):
        return 0.0 if (math.isnan(a) and math.isnan(b)) else math.inf
    return float(abs(_ordered(a) - _ordered(b)))


def _plain(x: Any) -> Any:
    """numpy scalars and arrays become Python floats/ints/lists; tuples lists."""
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, tuple):
        return list(x)
    return x


def _same_float(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _leaf_difference(left: Any, right: Any, label: str, in_ulps: bool) -> str | None:
    """The difference of two leaves (neither both mappings nor both lists), or ``None``."""
    if isinstance(left, float) and isinstance(right, float):
        if _same_float(left, right):
            return None
    elif type(left) is type(right) and left == right:
        return None
    if not in_ulps:
        return f"{label}: {left!r} != {right!r}"
    if (isinstance(left, float) or isinstance(right, float)) and _number(left) and _number(right):
        kind = "" if type(left) is type(right) else (
            f" (types {type(left).__name__}/{type(right).__name__})"
        )
        distance = ulps(float(left), float(right))
        return f"{label}: {left!r} vs {right!r}, {distance:.0f} ulps{kind}"
    return f"{label}: {left!r} vs {right!r}"


def first_difference(a: Any, b: Any, path: str = "", *, in_ulps: bool = False) -> str | None:
    """The first difference between two plain-data trees (exact), or ``None``.

    Floats must be equal bit for bit in value and sign (NaN equals NaN); ints and floats
    never compare equal across types; mappings must have the same keys in the same
    order. The trees are walked depth first, in order, so the difference reported is
    the first one met in that order.

    Parameters
    ----------
    a, b : plain data
        Nested mappings, lists, tuples, numpy arrays and scalars.
    path : str, default ""
        Name of the root in the message (``"<root>"`` when empty).
    in_ulps : bool, default False
        Message style: ``"path: a != b"`` (the command line's), or ``"path: a vs b,
        N ulps"`` with the distance of two numbers in ulps (the tests').

    Returns
    -------
    str or None

    Examples
    --------
    >>> first_difference({"a": [1.0, 2.0]}, {"a": [1.0, 2.5]})
    'a[1]: 2.0 != 2.5'
    >>> first_difference([0.0], [-0.0])
    '[0]: 0.0 != -0.0'
    >>> first_difference({"m": 1.0}, {"m": 1.0000000000000002}, in_ulps=True)
    'm: 1.0 vs 1.0000000000000002, 1 ulps'
    >>> first_difference({"x": 1}, {"x": 1}) is None
    True
    """
    stack: list[tuple[Any, Any, str]] = [(a, b, path)]
    while stack:
        left, right, where = stack.pop()
        left, right = _plain(left), _plain(right)
        label = where or "<root>"
        if isinstance(left, Mapping) and isinstance(right, Mapping):
            keys_l, keys_r = list(left), list(right)
            if keys_l != keys_r:
                return f"{label}: keys differ: {keys_l} vs {keys_r}"
            for key in reversed(keys_l):
                stack.append((left[key], right[key], f"{where}.{key}" if where else str(key)))
        elif isinstance(left, list) and isinstance(right, list):
            if len(left) != len(right):
                return f"{label}: lengths differ: {len(left)} vs {len(right)}"
            for i in range(len(left) - 1, -1, -1):
                stack.append((left[i], right[i], f"{where}[{i}]"))
        else:
            diff = _leaf_difference(left, right, label, in_ulps)
            if diff is not None:
                return diff
    return None


class Mismatch(AssertionError):
    """Raised by :func:`assert_snapshot_equal` with step, path and ulp difference."""


def assert_snapshot_equal(a: Any, b: Any, path: str = "", step: int | None = None) -> None:
    """Assert two snapshots (plain nested data) are exactly equal.

    Same rules as :func:`first_difference`; the failure message names the step, the
    first differing path and, for floats, the difference in ulps.

    Examples
    --------
    >>> assert_snapshot_equal({"n": 3, "w": [0.5]}, {"n": 3, "w": [0.5]})
    >>> assert_snapshot_equal({"w": [0.5]}, {"w": [0.25]}, step=7)
    Traceback (most recent call last):
        ...
    reference.evaluation.compare.Mismatch: step 7: w[0]: 0.5 vs 0.25, 4503599627370496 ulps
    """
    d = first_difference(a, b, path, in_ulps=True)
    if d is not None:
        where = f"step {step}: " if step is not None else ""
        raise Mismatch(where + d)


# ---------------------------------------------------------------------------
# lockstep drivers
# ---------------------------------------------------------------------------


def _predict_both(ref_model: Any, fast_model: Any, name: str, x: Any, t: int) -> None:
    """Call ``name(x)`` on both models and demand the same result or the same exception."""
    try:
        pa = getattr(ref_model, name)(x)
    except Exception as exc:  # noqa: BLE001 - both must fail alike
        try:
            getattr(fast_model, name)(x)
        except Exception as exc2:  # noqa: BLE001
            if type(exc2) is not type(exc):
                raise Mismatch(
                    f"step {t}: {name} raised {type(exc).__name__} vs {type(exc2).__name__}"
                ) from exc2
            return
        raise Mismatch(f"step {t}: {name} raised {exc!r} only in reference") from exc
    pb = getattr(fast_model, name)(x)
    assert_snapshot_equal(pa, pb, path=name, step=t)


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
    models and the results compared (if the reference raises, the fast twin must raise
    the same exception type), then both learn ``(x, y)`` (``learn`` defaults to
    ``m.learn_one(x, y)``), then, every ``snapshot_every`` steps and after the last,
    their ``snapshot()`` are compared. ``check`` (if given) is called as
    ``check(model, t)`` on both after learning, for invariants.

    Returns
    -------
    int
        The number of steps run.

    Raises
    ------
    Mismatch
        At the first difference, naming the step, the path and the ulp difference.
    """
    t = -1
    for t, (x, y) in enumerate(stream):
        for name in predict:
            _predict_both(ref_model, fast_model, name, x, t)
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


def _outcome(fn: Callable[..., Any], *call_args: Any) -> Any:
    """``fn(*call_args)``, or, if it raises an ``Exception``, the plain-data record
    ``{"raised": type name, "message": text}``: an exception is an outcome to compare
    (both backends must raise alike), never the end of the comparison."""
    try:
        return fn(*call_args)
    except Exception as exc:  # the comparison reports it; KeyboardInterrupt passes
        return {"raised": type(exc).__name__, "message": str(exc)}


def _first_raised(t: int, outputs: list[list[Any]]) -> str | None:
    """``"step t: reference|fast raised Name: message"`` for the first raising call."""
    for backend, out in zip(("reference", "fast"), outputs, strict=True):
        for value in out:
            if isinstance(value, dict) and set(value) == {"raised", "message"}:
                return f"step {t}: {backend} raised {value['raised']}: {value['message']}"
    return None


def _timed(fn: Callable[..., Any], *call_args: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn(*call_args)
    return out, time.perf_counter() - start


def lockstep(
    ref_model: Any,
    fast_model: Any,
    X: npt.ArrayLike,
    y: npt.ArrayLike,
    proba: bool = False,
    snapshot_every: int = 1,
    keep_going: bool = False,
    progress: bool | ProgressBar | None = None,
    description: str = "compare",
) -> dict[str, Any]:
    """Run two models step by step on ``(X, y)``; compare predictions and snapshots.

    At each step both predict (``predict_one``, and ``predict_proba_one`` if
    ``proba``), the outputs are compared exactly, both learn, and every
    ``snapshot_every`` steps (and at the last step) their ``snapshot()`` are compared.
    Only the predict and learn calls are timed. An exception raised by a predict or learn
    call is an outcome like a return value (``{"raised": name, "message": text}``): both
    models raising alike agree, one raising and the other not is a mismatch. Stops at the
    first mismatch unless ``keep_going`` (then only the timing continues to mean anything).

    ``progress``: a progress display on stderr (default: when stderr is a terminal and
    ``n >= 2000``), or a :class:`~reference.evaluation.prequential.ProgressBar` to advance
    once per step (its ``count`` then tells a caller that catches ``KeyboardInterrupt``
    how many steps were run).

    Returns
    -------
    dict
        ``steps`` run, ``agreeing`` (steps before the first mismatch), ``snapshots``
        compared, ``mismatch`` (text or None), ``time_reference``, ``time_fast``,
        ``ratio`` (reference time / fast time).

    Examples
    --------
    >>> from reference.evaluation.baselines import RunningMean
    >>> from reference.evaluation.datasets import friedman1
    >>> X, y = friedman1(50)
    >>> out = lockstep(RunningMean(), RunningMean(), X, y)
    >>> out["agreeing"], out["mismatch"]
    (50, None)
    """
    rows = np.asarray(X, dtype=np.float64)
    labels = list(np.asarray(y).tolist())
    n = len(labels)
    if isinstance(progress, ProgressBar):
        bar = progress
    else:
        if progress is None:
            progress = n >= 2000 and sys.stderr.isatty()
        bar = ProgressBar(n, description, enabled=progress, unit="rows")
    t_ref = t_fast = 0.0
    mismatch: str | None = None
    agreeing = 0
    snapshots = 0
    steps = 0
    raised: str | None = None
    for t in range(n):
        x = rows[t].tolist()
        target = labels[t]
        outputs = []
        for model in (ref_model, fast_model):
            start = time.perf_counter()
            out: list[Any] = [_outcome(model.predict_one, x)]
            if proba:
                out.append(_outcome(model.predict_proba_one, x))
            elapsed = time.perf_counter() - start
            outputs.append(out)
            if model is ref_model:
                t_ref += elapsed
            else:
                t_fast += elapsed
        learned, dt = _timed(_outcome, ref_model.learn_one, x, target)
        outputs[0].append(learned if isinstance(learned, dict) else None)
        t_ref += dt
        learned, dt = _timed(_outcome, fast_model.learn_one, x, target)
        outputs[1].append(learned if isinstance(learned, dict) else None)
        t_fast += dt
        steps += 1
        bar.update()
        if raised is None:
            raised = _first_raised(t, outputs)
        if mismatch is None:
            diff = first_difference(outputs[0], outputs[1], "prediction")
            if diff is None and (t % snapshot_every == snapshot_every - 1 or t == n - 1):
                snapshots += 1
                diff = first_difference(ref_model.snapshot(), fast_model.snapshot(), "snapshot")
            if diff is None:
                agreeing += 1
            else:
                mismatch = f"step {t}: {diff}"
                if not keep_going:
                    break
    bar.close()
    ratio = t_ref / t_fast if t_fast > 0.0 else math.inf
    return {
        "steps": steps,
        "agreeing": agreeing,
        "snapshots": snapshots,
        "mismatch": mismatch,
        "raised": raised,
        "time_reference": t_ref,
        "time_fast": t_fast,
        "ratio": ratio,
    }

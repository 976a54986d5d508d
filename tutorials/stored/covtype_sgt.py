"""Learning curves of SGT on the forest cover-type data (tutorial 03), and their stored copy.

``covtype_50k`` is not shipped with the package (``driftwood data fetch covtype_50k``
downloads it into the user cache). The tutorial computes the curves with
:func:`accuracy_curves` when the set is available and draws the stored copy
``covtype_sgt.json`` (beside this file) otherwise. Recompute the stored copy, from the
repository root, with::

    driftwood data fetch covtype_50k
    python tutorials/stored/covtype_sgt.py

``tests/common/test_docs.py`` recomputes the curves and checks them against the stored copy
whenever the data set is available.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

STORED = Path(__file__).resolve().with_suffix(".json")
"""The stored copy of the curves, beside this file."""

DATA_SET = "covtype_50k"
COMMAND = "python tutorials/stored/covtype_sgt.py"
"""The command that rewrites :data:`STORED` (it needs the data set)."""

INDICATORS = range(10, 54)
"""Columns of the 44 binary indicators (4 wilderness areas, 40 soil types)."""


def accuracy_curves(X: Any, y: Any) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """Prequential accuracy after each instance, and a one-line summary of each model.

    Two SGT committees with the paper's quantization ([GPF19]: global bins fixed after a
    warm-up of 1,000 rows, ``quantization="global"``; otherwise the defaults; the ``fast``
    backend, or where it is not built the reference, whose curves are the same bit for
    bit, only slower): every input numeric, and the binary indicators declared nominal with two
    categories; and the running majority class as the baseline.
    """
    try:
        import fast as backend
    except ModuleNotFoundError:  # installed without a C compiler
        import reference as backend

    classes = sorted(set(y.tolist()))
    steps = np.arange(1, len(y) + 1)
    curves, notes = {}, {}
    settings: list[tuple[str, dict[str, Any]]] = [
        ("SGT, all numeric", {}),
        ("SGT, indicators nominal", {"nominal": {i: 2 for i in INDICATORS}}),
    ]
    for name, extra in settings:
        model = backend.SGTClassifier(classes=classes, quantization="global", **extra)
        hits = model.progressive_predict(X, y) == y
        curves[name] = np.cumsum(hits) / steps
        notes[name] = (f"{model.n_nodes_} nodes in "
                       f"{len(model.snapshot()['core']['trees'])} trees")
    counts = np.zeros(len(classes))
    majority_hits = np.empty(len(y), dtype=bool)
    for i, label in enumerate(y):
        majority_hits[i] = counts.argmax() == label
        counts[label] += 1
    curves["majority class"] = np.cumsum(majority_hits) / steps
    notes["majority class"] = "the most frequent class so far"
    return curves, notes


def checkpoints(n: int, count: int = 150) -> np.ndarray:
    """Instance counts kept in the stored copy: log-spaced from 100 to ``n``, and ``n``."""
    points = np.unique(np.round(np.geomspace(100, n, count)).astype(np.int64))
    return points[(points >= 100) & (points <= n)]


def thinned(curves: dict[str, np.ndarray], notes: dict[str, str]) -> dict[str, Any]:
    """The stored form: every curve at :func:`checkpoints`, plus the summaries."""
    n = len(next(iter(curves.values())))
    points = checkpoints(n)
    return {
        "data_set": DATA_SET,
        "command": COMMAND,
        "instances": points.tolist(),
        "accuracy": {name: curve[points - 1].tolist() for name, curve in curves.items()},
        "notes": notes,
    }


def to_json(stored: dict[str, Any]) -> str:
    """JSON text of the stored form, one line per key and per curve."""
    lines = []
    for key, value in stored.items():
        if isinstance(value, dict):
            inner = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in value.items())
            lines.append(f" {json.dumps(key)}: {{\n{inner}\n }}")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def read_stored(path: Path = STORED) -> dict[str, Any]:
    """The stored copy, as written by :func:`thinned`."""
    stored: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return stored


def main() -> None:
    from reference.evaluation.datasets import load_csv

    X, y = load_csv(DATA_SET)
    curves, notes = accuracy_curves(X, y)
    STORED.write_text(to_json(thinned(curves, notes)), encoding="utf-8")
    print(f"wrote {STORED}")


if __name__ == "__main__":
    main()

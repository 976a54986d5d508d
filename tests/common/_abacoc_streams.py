"""Seeded test streams for the ABACOC tests (no dependency on the evaluation kit)."""

from __future__ import annotations

from typing import Any

import numpy as np

from reference.evaluation.datasets import load_csv


def random_stream(
    seed: int, n: int, n_features: int, n_classes: int, *, lattice: float = 0.0,
    new_class_at: int | None = None, labels: Any = None,
) -> tuple[np.ndarray, list[Any]]:
    """Gaussian points, optionally snapped to a lattice of step ``lattice`` (duplicates and
    exact distance ties); labels depend on the first coordinate plus noise; a new class
    appears at ``new_class_at``."""
    g = np.random.default_rng(seed)
    X = g.normal(size=(n, n_features))
    if lattice > 0:
        X = np.round(X / lattice) * lattice
    score = X[:, 0] + 0.7 * g.normal(size=n)
    edges = np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1])
    y = [int(np.searchsorted(edges, s)) for s in score]
    if new_class_at is not None:
        for i in range(new_class_at, n):
            if g.uniform() < 0.25:
                y[i] = n_classes
    if labels is not None:
        y = [labels[k] for k in y]
    return X, y


def bananas() -> tuple[np.ndarray, np.ndarray]:
    """``bananas.csv`` in file order: X (5300 x 2) and integer labels."""
    X, y = load_csv("bananas.csv", task="classification")
    return X, np.asarray(y, dtype=np.int64)

"""The ``search="auto"`` probe, pinned at its limits in both backends (issue 47 item 8).

[ABACOC-SPEC §13]: the tree is judged once its queries since the last build number at
least 128 (``PROBE_QUERIES``); it is dropped if they computed the distance to at least half
of the balls on average (``2 visited >= queries * n_balls``), and tried again once the cover
has doubled. ``test_search_policy.py`` checks that both backends decide alike on streams;
here the index's counters are set by hand on a model holding a tree and the end-of-step
``maintain`` is called directly (``BallIndex.maintain``, ``ab_index_maintain``), so each
side of both limits is checked exactly, independently of any stream.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from reference.abacoc.kdtree import PROBE_QUERIES


def _model(pkg: Any) -> Any:
    """A cover of a few dozen balls (noise labels in 2-D) holding a kd-tree."""
    g = np.random.default_rng(1)
    X = g.uniform(size=(300, 2))
    y = g.integers(0, 2, size=300)
    model = pkg.ABACOCClassifier(search="auto", search_threshold=8, leaf_size=4)
    model.partial_fit(X, y)
    return model


def _judge_reference(model: Any, queries: int, visited: int) -> tuple[bool, int]:
    cover = model._engine.cover
    index = cover.index
    assert index.tree is not None and index.retry_at == 0
    index.tree.queries = queries
    index.tree.visited = visited
    index.maintain(cover.balls, cover.n_features)
    return index.tree is not None, index.retry_at


def _judge_fast(model: Any, queries: int, visited: int) -> tuple[bool, int]:
    from fast._ffi import ffi, lib

    h = model._engine._h
    assert h.tree != ffi.NULL and h.tree_retry_at == 0
    h.tree.queries = queries
    h.tree.visited = visited
    lib.ab_index_maintain(h)
    return h.tree != ffi.NULL, int(h.tree_retry_at)


def test_probe_count_is_128() -> None:
    assert PROBE_QUERIES == 128


CASES = [
    # (queries, visited as a function of n_balls, dropped)
    (127, lambda n: 127 * n, False),    # every ball visited, one query short of the probe
    (128, lambda n: 128 * n, True),     # the first maintain with 128 queries drops it
    (128, lambda n: 64 * n, True),      # exactly half the balls on average: dropped
    (128, lambda n: 64 * n - 1, False),  # one visit fewer than half: the tree pays
    (129, lambda n: 129 * n, True),
    (0, lambda n: 0, False),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_auto_search_judges_the_tree_at_128_queries_and_half_the_balls(both: Any,
                                                                       case: int) -> None:
    queries, visits, dropped = CASES[case]
    for pkg, judge in zip(both, (_judge_reference, _judge_fast), strict=True):
        model = _model(pkg)
        n = model.n_balls_
        assert n >= 8
        has_tree, retry = judge(model, queries, visits(n))
        assert has_tree is not dropped, (pkg.__name__, queries)
        assert retry == (2 * n if dropped else 0)

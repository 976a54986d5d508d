"""SGT's split reservation is what a row uses: a nominal feature of many categories.

Before any state changes, a fast SGT row reserves the leaves of the split it will make, so
that running out of memory leaves the model as it was. It used to reserve the largest split
any row could make at every row: with ``nominal={0: 100000}`` that is 100,000 leaves of
100,000 cells each, and the fast backend raised ``MemoryError`` under a 3 GB limit where
the reference learned every row in 73 MB. Now a row reserves the children of the split its
attempt makes (``sgt_tree_plan``: the attempt decided on a copy of the leaf's cells after
the row): nothing at a row whose leaf does not attempt or makes no split.

Checked here:

- in a fresh process under a 3 GB address-space limit, both backends learn 300 rows with
  ``nominal={0: 100000}`` one by one and in one ``partial_fit``, regressor and classifier,
  and the two backends predict the same;
- the rule from both sides, on a small nominal stream: after every ``learn_one`` no spare
  leaf is left over (nothing was reserved that the row did not use), and the rows whose
  leaf splits are exactly those that reserved (``spare_cap`` grows only at a split);
- an allocation failing at every point of a row that makes a nominal split leaves the
  model as it was, and the row then learns as the reference does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from _installed import PACKAGE_PARENT

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS: Linux")

_LEARN = textwrap.dedent("""
    import json, resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
    import numpy as np
    pkg = __import__(sys.argv[1])
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 100000, 300), rng.uniform(size=300)])
    y = X[:, 1] + 0.01 * (X[:, 0] % 7)
    labels = (X[:, 1] > 0.5).astype(int)
    out = {}
    for name, target in (("SGTRegressor", y), ("SGTClassifier", labels)):
        kw = {"classes": [0, 1]} if name == "SGTClassifier" else {}
        one = getattr(pkg, name)(nominal={0: 100000}, **kw)
        for row, t in zip(X, target):
            one.learn_one(list(map(float, row)), t)
        batch = getattr(pkg, name)(nominal={0: 100000}, **kw).partial_fit(X, target)
        out[name] = [np.asarray(one.predict(X[:20])).tolist(),
                     np.asarray(batch.predict(X[:20])).tolist(), one.n_seen_]
    print(json.dumps(out))
""")


@pytest.mark.skipif("libasan" in os.environ.get("LD_PRELOAD", ""),
                    reason="AddressSanitizer reserves more address space than the limit")
def test_many_categories_learn_under_a_memory_limit_in_both_backends() -> None:
    env = {**os.environ, "PYTHONPATH": str(PACKAGE_PARENT)}
    results = {}
    backends = ["reference"]
    try:
        import fast  # noqa: F401
        backends.append("fast")
    except ImportError:  # pragma: no cover - the C library is not built
        pass
    for name in backends:
        done = subprocess.run([sys.executable, "-c", _LEARN, name], env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        results[name] = json.loads(done.stdout.strip().splitlines()[-1])
    for name in ("SGTRegressor", "SGTClassifier"):
        one, batch, seen = results["reference"][name]
        assert seen == 300
        assert one == batch
        if "fast" in results:
            assert results["fast"][name] == results["reference"][name]


def _nominal_stream(n: int = 400) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.integers(0, 5, n), rng.uniform(size=n)])
    y = 2.0 * (X[:, 0] % 2) + 3.0 * (X[:, 1] > 0.5) + 0.05 * rng.normal(size=n)
    return X, y


def test_a_row_reserves_exactly_the_split_it_makes() -> None:
    fast = pytest.importorskip("fast")
    X, y = _nominal_stream()
    model = fast.SGTRegressor(nominal={0: 5}, warmup=1, grace_period=10, delta=0.5)
    model.learn_one(list(map(float, X[0])), float(y[0]))
    tree = lambda: model._engine._m.trees[0]  # noqa: E731
    splits = grown = 0
    for row, target in zip(X[1:], y[1:], strict=True):
        cap, before = tree().spare_cap, tree().n_splits
        model.learn_one(list(map(float, row)), float(target))
        split = tree().n_splits > before
        splits += split
        assert tree().n_spare == 0                 # nothing reserved that was not used
        if tree().spare_cap > cap:
            grown += 1
            assert split                           # a reservation only where a row split
    assert splits >= 2
    nodes = model.snapshot()["core"]["trees"][0]["nodes"]
    assert any(node["threshold"] == -1 and node["n_children"] == 5 for node in nodes)


def _splits(model: Any) -> int:
    core = model.snapshot()["core"]
    return 0 if core is None else int(core["trees"][0]["n_splits"])


def test_a_nominal_split_that_runs_out_of_memory_leaves_the_model_as_it_was(
        both: tuple[ModuleType, ModuleType]) -> None:
    from _alloc_hook import sweep_allocation_failures
    from _compare import assert_snapshot_equal

    reference, fast = both
    X, y = _nominal_stream()

    def make(pkg: ModuleType) -> Any:
        return pkg.SGTRegressor(nominal={0: 5}, warmup=1, grace_period=10, delta=0.5)

    model = make(fast)
    # learn up to the first row whose learning makes a split, then fail its allocations
    probe = make(reference)
    stop = None
    for i, (row, target) in enumerate(zip(X, y, strict=True)):
        before = _splits(probe)
        probe.learn_one(list(map(float, row)), float(target))
        if _splits(probe) > before:
            stop = i
            break
    assert stop is not None
    for row, target in zip(X[:stop], y[:stop], strict=True):
        model.learn_one(list(map(float, row)), float(target))
    before = model.snapshot()
    row, target = list(map(float, X[stop])), float(y[stop])
    injected = sweep_allocation_failures(
        lambda: model.learn_one(row, target),
        lambda n: assert_snapshot_equal(before, model.snapshot(), step=n), limit=1000)
    assert injected >= 2                        # the split's leaves were reserved
    assert_snapshot_equal(probe.snapshot(), model.snapshot())

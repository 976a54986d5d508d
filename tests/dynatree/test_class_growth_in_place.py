"""A class joining the dynamic-tree classifier in place: the model of the state path, bit
for bit, in amortised constant time per class slot ([DT-SPEC §12.2]).

:func:`reference.dynatree.new_class.with_new_class` builds the grown model through the
model's state (snapshot, each leaf record grown by ``grown_leaf``, then a load: the
specification of growth, kept here as the oracle); :func:`reference.dynatree.new_class.add_class`
grows the leaves in place (in C ``dt_model_add_class``). Checked in both backends, on
randomized streams with and without retirement (``lam < 1``, so retired counts are
fractional):

- after each of several labels joined, and after rows of every label are learned, the
  in-place model's snapshot (leaves, counts, retired counts, ``ell``, random state), facade
  state and ``classes`` parameter equal those of the state path, its predictions too, and
  the two backends agree step by step (lockstep) after the growth;
- :func:`drop_class` puts the model back as it was; a model without rows grows its class
  list alone;
- the growth takes no snapshot and recomputes one evidence per distinct leaf record;
- the C class capacity of the leaf blocks doubles exactly when a class joins a full block
  (pinned at the limit and one step before it), so over 100 labels the blocks are relaid
  out O(log 100) times;
- every allocation of the growth failing in turn gives ``MemoryError`` and the model as
  it was; then the growth succeeds with the state path's model; an interrupt half-way
  through the reference's growth (or its undo) changes nothing;
- ``drop_class`` refuses a class with data; the adapter undoes a growth only if the row
  was not learned;
- a model grown in place (free class slots in its C blocks) saves, pickles and loads as
  the state path's model.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

from _compare import assert_snapshot_equal, run_lockstep
from _run_size import sized
from reference.dynatree.new_class import add_class, drop_class, with_new_class

SEEDS = sized(quick=range(2), full=range(6))
RETIREMENT = [None, {"active_size": 25, "lam": 0.8}, {"active_size": 20,
                                                       "retirement": "entropy", "lam": 0.9}]


def _rows(rng: np.random.Generator, n: int, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    X = rng.uniform(size=(n, 2))
    y = np.minimum((X[:, 0] * n_classes).astype(int), n_classes - 1)
    noisy = rng.uniform(size=n) < 0.2
    y[noisy] = rng.integers(0, n_classes, size=int(noisy.sum()))
    return X, y


def _model(pkg: ModuleType, retire: dict[str, Any] | None, seed: int) -> Any:
    return pkg.DynamicTreeClassifier(classes=[0, 1], n_particles=12, seed=seed,
                                     **(retire or {}))


def _state(model: Any) -> tuple[Any, Any, Any]:
    return model.snapshot(), model._fitted_state(), model.get_params()["classes"]


def _same(a: tuple[Any, Any, Any], b: tuple[Any, Any, Any]) -> None:
    assert_snapshot_equal(a[0], b[0])
    assert_snapshot_equal(a[1], b[1])
    assert a[2] == b[2]


def _grow(model: Any, label: Any) -> None:
    with model._lock:
        assert add_class(model, label)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("retire", RETIREMENT, ids=["no-retirement", "random-lam", "entropy"])
def test_in_place_growth_is_the_state_path_bit_for_bit(both: tuple[ModuleType, ModuleType],
                                                       retire: dict[str, Any] | None,
                                                       seed: int) -> None:
    states = []
    for pkg in both:
        rng = np.random.default_rng(seed)
        X, y = _rows(rng, 60, 2)
        grown = _model(pkg, retire, seed).fit(X, y)
        twin = _model(pkg, retire, seed).fit(X, y)
        for label in range(2, 7):
            _grow(grown, label)
            twin._adopt(with_new_class(twin, label))
            _same(_state(grown), _state(twin))
            Xn, yn = _rows(rng, 12, label + 1)
            for one in (grown, twin):
                for row, target in zip(Xn, yn, strict=True):
                    one.learn_one(list(row), int(target))
            _same(_state(grown), _state(twin))
            np.testing.assert_array_equal(grown.predict_proba(X), twin.predict_proba(X))
        states.append(_state(grown))
    _same(states[0], states[1])


@pytest.mark.parametrize("retire", RETIREMENT, ids=["no-retirement", "random-lam", "entropy"])
def test_backends_in_lockstep_after_in_place_growth(both: tuple[ModuleType, ModuleType],
                                                    retire: dict[str, Any] | None) -> None:
    ref, fast = (_model(pkg, retire, 5) for pkg in both)
    rng = np.random.default_rng(5)
    X, y = _rows(rng, 40, 2)
    stream = list(zip(X.tolist(), y.tolist(), strict=True))
    run_lockstep(ref, fast, stream, predict=("predict_proba_one",), snapshot_every=10)
    for label in range(2, 5):
        _grow(ref, label)
        _grow(fast, label)
        assert_snapshot_equal(ref.snapshot(), fast.snapshot())
        Xn, yn = _rows(rng, 25, label + 1)
        run_lockstep(ref, fast, list(zip(Xn.tolist(), yn.tolist(), strict=True)),
                     predict=("predict_proba_one", "predict_one"), snapshot_every=5)


def test_drop_class_puts_the_model_back(backend: ModuleType) -> None:
    rng = np.random.default_rng(7)
    X, y = _rows(rng, 50, 3)
    model = backend.DynamicTreeClassifier(classes=[0, 1, 2], n_particles=8, seed=2,
                                          active_size=30, lam=0.7).fit(X, y)
    before = _state(model)
    probs = model.predict_proba(X)
    _grow(model, "new")
    assert model.classes_ == [0, 1, 2, "new"]
    drop_class(model)
    _same(before, _state(model))
    np.testing.assert_array_equal(model.predict_proba(X), probs)
    model.learn_one(list(X[0]), 1)                   # usable
    assert model.predict_proba(X).shape == (50, 3)


@pytest.mark.parametrize("retired", [False, True], ids=["counted", "retired"])
def test_drop_class_refuses_a_class_with_data(backend: ModuleType, retired: bool) -> None:
    """The undo step's rule, from both sides: with no count of the last class it drops the
    class (above); one row of it learned (still active, or retired into the retired
    counts), ``ValueError`` and the model unchanged."""
    rng = np.random.default_rng(13)
    X, y = _rows(rng, 30, 3)
    model = backend.DynamicTreeClassifier(classes=[0, 1, 2], n_particles=6, seed=2,
                                          active_size=20 if retired else None).fit(X, y)
    _grow(model, 3)
    model.learn_one([0.5, 0.5], 3)
    if retired:                               # the row of class 3 retired: only g_3 > 0
        model.retire([model._engine.pool()[1].index(3.0)])
        assert all(3.0 != v for v in model._engine.pool()[1])
    before = _state(model)
    with pytest.raises(ValueError, match="has data"):
        drop_class(model)
    _same(before, _state(model))
    assert model.classes_ == [0, 1, 2, 3]


def test_a_model_without_rows_grows_its_class_list(both: tuple[ModuleType, ModuleType]) -> None:
    rng = np.random.default_rng(8)
    X, y = _rows(rng, 40, 3)
    states = []
    for pkg in both:
        grown = pkg.DynamicTreeClassifier(classes=["a", "b"], n_particles=6, seed=1)
        twin = pkg.DynamicTreeClassifier(classes=["a", "b"], n_particles=6, seed=1)
        _grow(grown, "c")
        twin._adopt(with_new_class(twin, "c"))
        _same(_state(grown), _state(twin))
        labels = [["a", "b", "c"][k] for k in y]
        grown.fit(X, labels)
        twin.fit(X, labels)
        _same(_state(grown), _state(twin))
        states.append(_state(grown))
    _same(states[0], states[1])


def test_a_label_already_known_is_refused(backend: ModuleType) -> None:
    model = backend.DynamicTreeClassifier(classes=["a", "b"], n_particles=4, seed=1)
    model.learn_one([0.5], "a")
    before = _state(model)
    with pytest.raises(ValueError, match="already a class"):
        add_class(model, "b")
    _same(before, _state(model))


def test_growth_takes_no_snapshot_and_one_evidence_per_leaf_record(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The reference growth's work: one evidence recomputation per distinct leaf record,
    whatever the number of classes, and no pass through the model's state."""
    import reference
    import reference.dynatree.new_class as new_class
    from reference.dynatree.tree import leaves

    rng = np.random.default_rng(9)
    X, y = _rows(rng, 80, 2)
    model = reference.DynamicTreeClassifier(classes=[0, 1], n_particles=10, seed=4).fit(X, y)
    calls = [0]
    evidence = new_class.grown_evidence

    def counted(st: Any, cfg: Any) -> float:
        calls[0] += 1
        return evidence(st, cfg)

    def no_state(*args: Any) -> None:
        raise AssertionError("the in-place growth went through the model's state")

    monkeypatch.setattr(new_class, "grown_evidence", counted)
    monkeypatch.setattr(type(model), "snapshot", no_state)
    monkeypatch.setattr(type(model), "_load_fitted", no_state)
    for label in range(2, 30):
        calls[0] = 0
        records = {id(leaf.stats) for root in model._engine._roots for leaf in leaves(root)}
        _grow(model, label)
        assert calls[0] == len(records)


def _capacity(model: Any) -> int:
    return (int(model._engine._m.cfg.sw) - 9) // 2


def test_the_c_class_capacity_doubles_when_a_full_block_grows() -> None:
    fast = pytest.importorskip("fast")
    rng = np.random.default_rng(10)
    X, y = _rows(rng, 40, 2)
    model = fast.DynamicTreeClassifier(classes=[0, 1], n_particles=6, seed=1).fit(X, y)
    assert _capacity(model) == 2                           # a model that never grew: tight
    capacities = {2}
    for label in range(2, 100):
        before = _capacity(model)
        _grow(model, label)
        n, cap = len(model.classes_), _capacity(model)
        # the limit: a full block (n - 1 == before) doubles; one short of it does not
        assert cap == (2 * before if n - 1 == before else before)
        assert n <= cap < 2 * n
        assert cap // 2 & (cap // 2 - 1) == 0              # 2 times a power of 2
        capacities.add(cap)
    # 2, 4, ..., 128: the blocks were relaid out 6 times for 98 labels (O(log C))
    assert sorted(capacities) == [2 ** k for k in range(1, 8)]
    twin = fast.DynamicTreeClassifier(classes=list(range(100)), n_particles=6, seed=1)
    twin.fit(X, y)
    assert _capacity(twin) == 100                          # classes= given: no room added


def test_an_allocation_failure_leaves_the_model_as_it_was(
        both: tuple[ModuleType, ModuleType]) -> None:
    """Every allocation of the in-place step fails in turn (the relaid-out blocks, the
    scratch blocks): MemoryError, the model as before; then the step succeeds and gives
    the state path's model."""
    from _alloc_hook import sweep_allocation_failures

    reference, fast = both
    rng = np.random.default_rng(11)
    X, y = _rows(rng, 60, 2)
    model = fast.DynamicTreeClassifier(classes=[0, 1], n_particles=8, seed=3,
                                       active_size=30, lam=0.8).fit(X, y)
    for label in range(2, 4):                 # fill the capacity 4: the next one doubles
        _grow(model, label)
    assert _capacity(model) == 4
    before = _state(model)

    def unchanged(n: int) -> None:
        _same(before, _state(model))
        assert model.classes_ == [0, 1, 2, 3]

    injected = sweep_allocation_failures(lambda: _grow(model, 4), unchanged, limit=50)
    assert injected >= 2                      # the statistics blocks, the scratch blocks
    assert _capacity(model) == 8
    twin = reference.DynamicTreeClassifier(classes=[0, 1], n_particles=8, seed=3,
                                           active_size=30, lam=0.8).fit(X, y)
    for label in range(2, 5):
        twin._adopt(with_new_class(twin, label))
    _same(_state(twin), _state(model))
    model.learn_one(list(X[0]), 4)
    twin.learn_one(list(X[0]), 4)
    _same(_state(twin), _state(model))


def test_the_river_adapter_grows_in_place(backend: ModuleType,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Labels arriving one by one through ``to_river`` take the in-place step (the state
    path is not called once two labels are known), with the state path's model."""
    import reference.dynatree.new_class as new_class

    rng = np.random.default_rng(12)
    X = rng.uniform(size=(60, 2))
    labels = [int(v) for v in rng.integers(0, 8, size=60)]
    # the oracle: the adapter's rule written out with the state path (no row is learned
    # before two labels are known; each new label grows the model, then its row is learned)
    known: list[int] = []
    oracle: Any = None
    for row, label in zip(X, labels, strict=True):
        if label not in known:
            if known:
                oracle = (backend.DynamicTreeClassifier(n_particles=6, seed=2,
                                                        classes=[known[0], label])
                          if oracle is None else with_new_class(oracle, label))
            known.append(label)
        if oracle is not None:
            oracle.learn_one(list(row), label)

    def refused(*args: Any) -> None:
        raise AssertionError("the adapter went through the model's state")

    monkeypatch.setattr(new_class, "with_new_class", refused)
    adapter = backend.to_river(backend.DynamicTreeClassifier(n_particles=6, seed=2))
    for row, label in zip(X, labels, strict=True):
        adapter.learn_one({"a": row[0], "b": row[1]}, label)
    assert adapter.model.classes_ == oracle.classes_ == known
    assert_snapshot_equal(adapter.model.snapshot(), oracle.snapshot())


@pytest.mark.parametrize("learned", [False, True], ids=["refused", "learned-then-ctrl-c"])
def test_the_adapter_undoes_a_growth_only_if_the_row_was_not_learned(
        backend: ModuleType, learned: bool) -> None:
    """A new label's row that raises: refused (nothing learned), the class is dropped and
    the model is as before; learned and then interrupted (Ctrl-C after the C call), the
    class stays, registered with the adapter, so that model and adapter agree."""
    adapter = backend.to_river(backend.DynamicTreeClassifier(n_particles=6, seed=2))
    rng = np.random.default_rng(14)
    for i in range(30):
        adapter.learn_one({"a": float(rng.uniform()), "b": float(rng.uniform())}, i % 3)
    model = adapter.model
    before, seen = _state(model), model.n_seen_
    learn_one = model.learn_one

    def failing(x: Any, y: Any) -> None:
        if learned:
            learn_one(x, y)
            raise KeyboardInterrupt
        raise ValueError("refused")

    model.learn_one = failing
    with pytest.raises(KeyboardInterrupt if learned else ValueError):
        adapter.learn_one({"a": 0.5, "b": 0.5}, "new")
    del model.learn_one
    if learned:
        assert model.classes_ == [0, 1, 2, "new"] and adapter._labels == model.classes_
        assert model.n_seen_ == seen + 1
    else:
        _same(before, _state(model))
        assert model.classes_ == [0, 1, 2] and adapter._labels == [0, 1, 2]
    adapter.learn_one({"a": 0.1, "b": 0.9}, "new")            # usable
    assert model.classes_ == [0, 1, 2, "new"]


def test_a_model_grown_in_place_is_saved_pickled_and_loaded(
        both: tuple[ModuleType, ModuleType], tmp_path: Any) -> None:
    """A grown C model whose leaf blocks have free class slots (capacity 8 for 5 classes)
    writes the model file and the pickle of the state path's model, which load in either
    backend and go on learning alike."""
    import copy
    import pickle

    reference, fast = both
    rng = np.random.default_rng(15)
    X, y = _rows(rng, 50, 2)
    grown = fast.DynamicTreeClassifier(classes=[0, 1], n_particles=6, seed=4,
                                       active_size=30, lam=0.8).fit(X, y)
    twin = reference.DynamicTreeClassifier(classes=[0, 1], n_particles=6, seed=4,
                                           active_size=30, lam=0.8).fit(X, y)
    for label in range(2, 5):
        _grow(grown, label)
        twin._adopt(with_new_class(twin, label))
    assert _capacity(grown) == 8 and len(grown.classes_) == 5
    grown.save(tmp_path / "grown.gz")
    twin.save(tmp_path / "twin.gz")
    copies = [pickle.loads(pickle.dumps(grown)), copy.deepcopy(grown)]
    copies += [pkg.load(tmp_path / name) for pkg in both for name in ("grown.gz", "twin.gz")]
    Xn, yn = _rows(rng, 15, 5)
    for one in [grown, twin, *copies]:
        assert one.classes_ == [0, 1, 2, 3, 4]
        for row, target in zip(Xn, yn, strict=True):
            one.learn_one(list(row), int(target))
    for one in [twin, *copies]:
        _same(_state(grown), _state(one))


@pytest.mark.parametrize("step", ["grow", "drop"])
def test_an_interrupt_half_way_through_the_reference_growth_changes_nothing(
        monkeypatch: pytest.MonkeyPatch, step: str) -> None:
    """Ctrl-C (or MemoryError) raised after some leaves were resized: every record is put
    back, the classes too, and the model goes on as the uninterrupted one."""
    import reference
    import reference.dynatree.new_class as new_class

    rng = np.random.default_rng(16)
    X, y = _rows(rng, 60, 3)
    model = reference.DynamicTreeClassifier(classes=[0, 1, 2], n_particles=8, seed=5,
                                            active_size=40, lam=0.9).fit(X, y)
    if step == "drop":
        _grow(model, 3)
    before = _state(model)
    calls = [0]
    evidence = new_class.grown_evidence

    def interrupted(st: Any, cfg: Any) -> float:
        calls[0] += 1
        if calls[0] == 5:
            raise KeyboardInterrupt
        return evidence(st, cfg)

    monkeypatch.setattr(new_class, "grown_evidence", interrupted)
    with pytest.raises(KeyboardInterrupt):
        if step == "grow":
            _grow(model, 3)
        else:
            drop_class(model)
    _same(before, _state(model))
    assert model.classes_ == ([0, 1, 2] if step == "grow" else [0, 1, 2, 3])
    monkeypatch.setattr(new_class, "grown_evidence", evidence)
    twin = reference.DynamicTreeClassifier(classes=[0, 1, 2], n_particles=8, seed=5,
                                           active_size=40, lam=0.9).fit(X, y)
    if step == "drop":
        twin._adopt(with_new_class(twin, 3))
    for one in (model, twin):
        one.learn_one([0.3, 0.7], 1)
    _same(_state(twin), _state(model))

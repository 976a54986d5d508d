"""The random-stream rule of particle learning ([DT-SPEC §0] item 6, rule 2) and the states
written under rule 1 (driftwood 0.1).

- ``stream_seed`` is the documented formula (splitmix64 outputs, recomputed here from the
  published splitmix64 constants), the same in C and Python, one seed per slot, and the
  seed states of different slots are not shifted copies of one splitmix64 sequence (the
  naive ``key + slot * increment`` is, which the test shows);
- a slot's propagation depends on the step key and the slot, not on which particle
  resampling put there: two models in the same state but with particles permuted propagate
  slot k with the same draws (checked on the per-slot generator the reference builds);
- files and pickles of driftwood 0.1 (no ``stream_rule``) load with a
  ``StreamRuleWarning`` and continue under rule 2, exactly as a file of rule 2 holding the
  same state does; a current file loads silently; an unknown rule is refused.
"""

from __future__ import annotations

import pickle
import warnings
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from _dynatree_helpers import regression_stream

from reference.dynatree.particles import STREAM_RULE, StreamRuleWarning
from reference.persist import from_document, to_document
from reference.rng import MASK, seed_state, stream_seed
from reference.state import StateFormatError

V1 = Path(__file__).resolve().parents[1] / "data" / "model_files_v1"
GAMMA = 0x9E3779B97F4A7C15


def _splitmix_out(x: int) -> int:
    """splitmix64's output for counter value ``x`` (Steele, Lea & Flood 2014), written
    from its constants, not from reference.rng."""
    z = (x + GAMMA) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def test_stream_seed_is_the_documented_formula_in_both_backends(lib: object) -> None:
    rng = np.random.default_rng(3)
    keys = [0, 1, MASK] + [int(k) for k in rng.integers(0, 2**63, 20)]
    for key in keys:
        for slot in (0, 1, 2, 999, 2**31 - 1):
            want = _splitmix_out(key ^ _splitmix_out(slot))
            assert stream_seed(key, slot) == want
            assert lib.rng_stream_seed(key, slot) == want  # type: ignore[attr-defined]


def test_slot_streams_are_distinct_and_not_shifted_copies() -> None:
    """For one key, 4,096 slots: distinct seeds, and no state word shared between two
    slots' seed states; the naive rule key + k * GAMMA shares three words between
    neighbouring slots (its states are shifted copies), which is what the rule avoids."""
    key = 0x0123456789ABCDEF
    n = 4096
    seeds = [stream_seed(key, k) for k in range(n)]
    assert len(set(seeds)) == n
    words = [w for s in seeds for w in seed_state(s)]
    assert len(set(words)) == 4 * n
    naive = [w for k in range(2) for w in seed_state((key + k * GAMMA) & MASK)]
    assert len(set(naive)) == 5          # 8 words, 3 shared: a shifted copy


def test_slot_draws_do_not_depend_on_the_particle_in_the_slot(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The generators pl_step hands to propagate, recorded per slot: for the same model
    state and the same row, a model whose particles were permuted before the step gets
    the same seeds per slot (the stream belongs to the slot, not to the particle)."""
    import reference
    from reference.dynatree import particles

    seen: list[list[tuple[int, int, int, int]]] = []
    real = particles.propagate

    def spy(root, index, X, y, cfg, minp, alpha, beta, rng):  # type: ignore[no-untyped-def]
        seen[-1].append(rng.state)
        return real(root, index, X, y, cfg, minp, alpha, beta, rng)

    monkeypatch.setattr(particles, "propagate", spy)
    rows = regression_stream(6, 30)
    a = reference.DynamicTreeRegressor(n_particles=6, seed=9, alpha=0.0)  # no resampling
    for x, y in rows[:-1]:
        seen.append([])
        a.learn_one(x, y)
    b = pickle.loads(pickle.dumps(a))
    b._engine._roots = b._engine._roots[::-1]
    seen.clear()
    for model in (a, b):
        seen.append([])
        model.learn_one(*rows[-1])
    assert seen[0] == seen[1]
    assert len(set(seen[0])) == 6


@pytest.mark.parametrize("name", ["DT-DynamicTreeRegressor", "DT-DynamicTreeClassifier-active"])
def test_rule1_files_warn_and_continue_under_rule2(both: tuple[ModuleType, ModuleType],
                                                    tmp_path: Path, name: str) -> None:
    rows = regression_stream(11, 12, d=3)
    outs = []
    for backend in both:
        with pytest.warns(StreamRuleWarning, match="continues under rule 2"):
            old = backend.load(V1 / f"{name}.dwm")
        path = tmp_path / f"{backend.__name__}.dwm"
        old.save(path)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            new = backend.load(path)   # written under rule 2: silent
        assert to_document(new)["fitted"]["stream_rule"] == STREAM_RULE
        d = old.n_features_in_
        for model in (old, new):
            for x, _ in rows:
                xs = (x * 2)[:d]
                if hasattr(model, "classes_"):
                    model.learn_one(xs, model.classes_[int(xs[0] > 0.5)])
                else:
                    model.learn_one(xs, float(sum(xs)))
        assert to_document(old)["snapshot"] == to_document(new)["snapshot"]
        outs.append(to_document(old)["snapshot"])
    if len(outs) == 2:
        assert outs[0] == outs[1]


def test_unknown_rule_is_refused_and_rule_1_explicit_warns(backend: ModuleType) -> None:
    model = backend.DynamicTreeRegressor(n_particles=4, seed=1)
    for x, y in regression_stream(1, 20):
        model.learn_one(x, y)
    doc = to_document(model)
    for bad in (3, 0, "2", 2.0, None):
        doc["fitted"]["stream_rule"] = bad
        with pytest.raises(StateFormatError, match="stream_rule"):
            from_document(doc, backend.__name__)
    doc["fitted"]["stream_rule"] = 1
    with pytest.warns(StreamRuleWarning):
        from_document(doc, backend.__name__)


def test_rule1_pickles_warn_current_ones_do_not(backend: ModuleType) -> None:
    model = backend.DynamicTreeRegressor(n_particles=4, seed=1)
    for x, y in regression_stream(1, 20):
        model.learn_one(x, y)
    state = model.__getstate__()
    assert state["_stream_rule"] == STREAM_RULE
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pickle.loads(pickle.dumps(model))
    old = dict(state)
    del old["_stream_rule"]
    fresh = type(model).__new__(type(model))
    with pytest.warns(StreamRuleWarning):
        fresh.__setstate__(old)
    old["_stream_rule"] = 7
    with pytest.raises(StateFormatError, match="stream_rule"):
        type(model).__new__(type(model)).__setstate__(old)

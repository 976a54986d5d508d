"""The array path of the fast ABACOC batch methods (:mod:`reference.batches`).

``fast`` hands a numeric batch to C chunk by chunk (a view of C-contiguous float64, a
converted copy of one chunk otherwise) and maps a label array to class indices a chunk at
a time: bit for bit what the reference does, with the same errors, the model unchanged by
a rejected batch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import reference
import reference.batches as batches
from _compare import rejects_alike
from conftest import require_fast

N_ROWS = 500


@pytest.fixture(autouse=True)
def _small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of 48 rows (of 2 features), so every test crosses chunk boundaries."""
    require_fast()
    monkeypatch.setattr(batches, "CHUNK_BYTES", 8 * 2 * 48)


def _stream(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.random((N_ROWS, 2))
    return X, (X[:, 0] + 0.3 * X[:, 1] > 0.6).astype(np.int64)


def _layouts(X: np.ndarray, tmp_path: Path) -> dict[str, np.ndarray]:
    mapped = np.memmap(tmp_path / "X.f64", dtype=np.float64, mode="w+", shape=X.shape)
    mapped[:] = X
    mapped.flush()
    return {
        "c_float64": X,
        "float32": X.astype(np.float32),
        "fortran": np.asfortranarray(X),
        "int16": np.round(X * 20).astype(np.int16),
        "memmap": np.memmap(tmp_path / "X.f64", dtype=np.float64, mode="r", shape=X.shape),
    }


LABELS = {
    "int": lambda k: k + 3,
    "int8_extremes": lambda k: np.where(k == 1, 127, -128).astype(np.int8),
    "str": lambda k: np.where(k == 1, "yes", "no"),
    "float_signed_zero": lambda k: np.where(k == 1, -0.0, 0.5),
    "list": lambda k: np.where(k == 1, "yes", "no").tolist(),
}


def _pair(**params: Any) -> tuple[Any, Any]:
    import fast

    return reference.ABACOCClassifier(**params), fast.ABACOCClassifier(**params)


@pytest.mark.parametrize("labels", sorted(LABELS))
@pytest.mark.parametrize("layout", ["c_float64", "float32", "fortran", "int16", "memmap"])
def test_batches_of_any_layout_match_the_reference(layout: str, labels: str,
                                                   tmp_path: Path) -> None:
    X, k = _stream(0)
    arr = _layouts(X, tmp_path)[layout]
    lab = LABELS[labels](k)
    ref, fast_model = _pair(variant="auto_adj")
    for model in (ref, fast_model):
        model.partial_fit(arr[:250], lab[:250])
    assert fast_model.classes_ == ref.classes_
    assert [type(c) for c in fast_model.classes_] == [type(c) for c in ref.classes_]
    assert fast_model.snapshot() == ref.snapshot()
    np.testing.assert_array_equal(fast_model.predict(arr), ref.predict(arr))
    np.testing.assert_array_equal(fast_model.predict_proba(arr), ref.predict_proba(arr))
    got = fast_model.prequential(arr[250:], lab[250:], rate=0.7, seed=3)
    want = ref.prequential(arr[250:], lab[250:], rate=0.7, seed=3)
    np.testing.assert_array_equal(got["predictions"], want["predictions"])
    assert (got["n_correct"], got["n_learned"]) == (want["n_correct"], want["n_learned"])
    assert fast_model.snapshot() == ref.snapshot()


def test_batch_equals_the_one_row_path() -> None:
    import fast

    X, k = _stream(1)
    batch, rows = fast.ABACOCClassifier(), fast.ABACOCClassifier()
    batch.partial_fit(np.asfortranarray(X.astype(np.float32)), k)
    for x, label in zip(X.astype(np.float32).tolist(), k.tolist(), strict=True):
        rows.learn_one(x, label)
    assert batch.snapshot() == rows.snapshot()
    assert batch.classes_ == rows.classes_


def test_a_bad_value_in_a_later_chunk_rejects_the_whole_batch() -> None:
    X, k = _stream(2)
    ref, fast_model = _pair()
    for model in (ref, fast_model):
        model.partial_fit(X[:40], k[:40])
    before = (ref.snapshot(), fast_model.snapshot(), list(fast_model.classes_))
    bad = X.astype(np.float32)
    bad[300, 0] = np.inf                                # the 7th chunk of 48 rows
    labels = k.copy()
    labels[200] = 9                                     # a new label, never registered
    for call, args in (("partial_fit", (bad, labels)), ("predict", (bad,)),
                       ("predict_proba", (bad,)), ("prequential", (bad, labels)),
                       ("partial_fit", (X, labels[:-1])),
                       ("partial_fit", (np.zeros((4, 3)), labels[:4]))):
        rejects_alike(ref, fast_model, call, *args)
        assert (ref.snapshot(), fast_model.snapshot(), list(fast_model.classes_)) == before


def test_randomized_base_rejects_a_foreign_label_in_a_later_chunk() -> None:
    X, k = _stream(3)
    ref, fast_model = _pair(variant="base", labels=(0, 1))
    labels = k.copy()
    labels[400] = 2
    messages = []
    for model in (ref, fast_model):
        with pytest.raises(ValueError) as info:
            model.partial_fit(X, labels)
        messages.append(str(info.value))
        assert model.n_seen_ == 0
    assert messages[0] == messages[1] and "label 2 is not one of" in messages[0]

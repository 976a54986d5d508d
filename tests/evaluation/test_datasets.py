"""Synthetic streams and the CSV loader of ``reference.evaluation.datasets``."""

from __future__ import annotations

import math
from itertools import islice
from pathlib import Path

import numpy as np
import pytest

from reference.evaluation import datasets
from reference.evaluation.datasets import (
    drift_coefficient,
    drifting_friedman,
    friedman1,
    hyperplane,
    iter_friedman1,
    iter_moving_xor,
    iter_sea,
    load_csv,
    moving_xor,
    normal,
    parabola,
    regime_coefficient,
    regime_friedman,
    sea,
    shuffled,
)
from reference.rng import Rng


def friedman_surface(X: np.ndarray, a: np.ndarray | float = 1.0) -> np.ndarray:
    return (
        10.0 * a * np.sin(np.pi * X[:, 0] * X[:, 1])
        + 20.0 * (X[:, 2] - 0.5) ** 2
        + 10.0 * X[:, 3]
        + 5.0 * X[:, 4]
    )


# ---------------------------------------------------------------- normal draws


def test_normal_is_box_muller_of_two_uniforms() -> None:
    rng, twin = Rng(11), Rng(11)
    for _ in range(50):
        z = normal(rng)
        u1, u2 = twin.uniform(), twin.uniform()
        assert z == math.sqrt(-2.0 * math.log(1.0 - u1)) * math.cos(2.0 * math.pi * u2)
    assert rng.state == twin.state  # exactly two outputs per draw


def test_normal_moments() -> None:
    rng = Rng(3)
    z = np.array([normal(rng) for _ in range(40000)])
    assert abs(z.mean()) < 0.03
    assert abs(z.var() - 1.0) < 0.04
    assert abs(np.mean(np.abs(z) < 1.0) - 0.6827) < 0.01


# ---------------------------------------------------------------- determinism


@pytest.mark.parametrize(
    "make",
    [
        lambda s: friedman1(300, seed=s),
        lambda s: friedman1(300, n_features=8, seed=s),
        lambda s: drifting_friedman(300, k=0.5, seed=s),
        lambda s: regime_friedman(300, start=100, stop=200, seed=s),
        lambda s: parabola(300, seed=s),
        lambda s: moving_xor(300, period=300, seed=s),
        lambda s: sea(300, concept_length=75, seed=s),
        lambda s: hyperplane(300, seed=s),
    ],
)
def test_streams_are_determined_by_the_seed(make) -> None:  # type: ignore[no-untyped-def]
    X1, y1 = make(5)
    X2, y2 = make(5)
    X3, _ = make(6)
    assert X1.dtype == np.float64 and X1.ndim == 2 and X1.shape[0] == y1.shape[0] == 300
    assert np.array_equal(X1, X2) and np.array_equal(y1, y2)
    assert not np.array_equal(X1, X3)


def test_array_form_is_the_start_of_the_iterator_form() -> None:
    X, y = friedman1(50, n_features=6, noise=0.5, seed=9)
    rows = list(islice(iter_friedman1(n_features=6, noise=0.5, seed=9), 50))
    assert np.array_equal(X, np.array([x for x, _ in rows]))
    assert np.array_equal(y, np.array([t for _, t in rows]))
    Xs, ys = sea(40, concept_length=10, seed=2)
    rows_s = list(islice(iter_sea(concept_length=10, seed=2), 40))
    assert ys.tolist() == [label for _, label in rows_s]
    assert ys.dtype == np.int64


def test_friedman_uses_our_generator_in_documented_order() -> None:
    X, y = friedman1(3, n_features=5, noise=2.0, seed=4)
    rng = Rng(4)
    for t in range(3):
        x = [rng.uniform() for _ in range(5)]
        eps = normal(rng)
        assert X[t].tolist() == x
        assert y[t] == pytest.approx(friedman_surface(X[t : t + 1])[0] + 2.0 * eps, abs=1e-12)


# ---------------------------------------------------------------- Friedman family


def test_friedman_surface_and_irrelevant_inputs() -> None:
    X, y = friedman1(2000, n_features=10, noise=0.0, seed=1)
    assert X.shape == (2000, 10)
    assert np.all((X >= 0.0) & (X < 1.0))
    np.testing.assert_allclose(y, friedman_surface(X), rtol=0, atol=1e-12)
    _, y_noisy = friedman1(2000, n_features=10, noise=1.0, seed=1)
    resid = y_noisy - y
    assert abs(resid.std() - 1.0) < 0.06


def test_friedman_rejects_fewer_than_five_inputs() -> None:
    with pytest.raises(ValueError, match="n_features"):
        friedman1(10, n_features=4)
    with pytest.raises(ValueError, match="noise"):
        friedman1(10, noise=-1.0)


@pytest.mark.parametrize(
    ("t", "k", "expected"),
    [
        (0, 0.1, 1.0),
        (2500, 0.1, 3.0),
        (5000, 0.1, 1.0),
        (7500, 0.1, -1.0),
        (500, 0.5, 3.0),
        (1500, 0.5, -1.0),
        (10000, 0.1, 1.0),
    ],
)
def test_drift_coefficient_at_specific_times(t: int, k: float, expected: float) -> None:
    assert drift_coefficient(t, k) == pytest.approx(expected, abs=1e-12)
    assert drift_coefficient(t, k) == 2.0 * math.sin(2.0 * math.pi * k * t / 1000.0) + 1.0


def test_drifting_friedman_uses_a_t_of_each_row() -> None:
    n = 3000
    X, y = drifting_friedman(n, k=0.5, noise=0.0, seed=8)
    X0, _ = friedman1(n, seed=8)
    assert np.array_equal(X, X0)
    a = np.array([2.0 * math.sin(2.0 * math.pi * 0.5 * t / 1000.0) + 1.0 for t in range(n)])
    np.testing.assert_allclose(y, friedman_surface(X, a), rtol=0, atol=1e-12)


def test_regime_change_a_b_a() -> None:
    assert [regime_coefficient(t) for t in (0, 9999, 10000, 15000, 19999, 20000, 29999)] == [
        0.0,
        0.0,
        10.0,
        10.0,
        10.0,
        0.0,
        0.0,
    ]
    X, y = regime_friedman(30000, noise=0.0, seed=2)
    assert X.shape == (30000, 5)
    t = np.arange(30000)
    a = np.where((t >= 10000) & (t < 20000), 10.0, 0.0)
    np.testing.assert_allclose(y, friedman_surface(X, a), rtol=0, atol=1e-11)
    # the interaction term is absent outside regime B
    base = 20.0 * (X[:, 2] - 0.5) ** 2 + 10.0 * X[:, 3] + 5.0 * X[:, 4]
    assert np.allclose(y[:10000], base[:10000]) and np.allclose(y[20000:], base[20000:])
    assert not np.allclose(y[10000:20000], base[10000:20000])


def test_parabola() -> None:
    X, y = parabola(5000, noise=0.0, seed=3)
    assert X.shape == (5000, 1)
    x = X[:, 0]
    assert x.min() >= -3.0 and x.max() < 2.0 and x.min() < -2.9 and x.max() > 1.9
    np.testing.assert_allclose(y, x + x * x, rtol=0, atol=1e-12)
    _, y_noisy = parabola(5000, noise=1.0, seed=3)
    assert abs((y_noisy - y).std() - 1.0) < 0.05


# ---------------------------------------------------------------- classification streams


def test_moving_xor_rotates_half_a_turn_per_period() -> None:
    period = 1000
    rows = list(islice(iter_moving_xor(period=period, seed=1), 2 * period))
    X = np.array([x for x, _ in rows])
    y = np.array([label for _, label in rows])
    xor = (X[:, 0] * X[:, 1] > 0).astype(int)
    assert y[0] == xor[0]
    early = slice(0, 20)  # almost unrotated: labels are the plain XOR
    assert np.mean(y[early] == xor[early]) >= 0.9
    quarter = slice(period // 2 - 10, period // 2 + 10)  # a quarter turn: labels inverted
    assert np.mean(y[quarter] != xor[quarter]) >= 0.9
    assert y[period] == xor[period]  # back to the start after the period
    assert abs(y.mean() - 0.5) < 0.05


def test_moving_xor_noise_flips_labels_without_changing_inputs() -> None:
    X0, y0 = moving_xor(4000, period=4000, noise=0.0, seed=5)
    X1, y1 = moving_xor(4000, period=4000, noise=0.2, seed=5)
    assert np.array_equal(X0, X1)
    assert abs(np.mean(y0 != y1) - 0.2) < 0.03


def test_sea_concepts_and_noise() -> None:
    X, y = sea(4000, concept_length=1000, noise=0.0, seed=7)
    assert X.shape == (4000, 3) and np.all((X >= 0) & (X < 10))
    for block, theta in enumerate((8.0, 9.0, 7.0, 9.5)):
        rows = slice(1000 * block, 1000 * (block + 1))
        assert np.array_equal(y[rows], (X[rows, 0] + X[rows, 1] <= theta).astype(np.int64))
    # cycling after the last concept
    X5, y5 = sea(5000, concept_length=1000, noise=0.0, seed=7)
    assert np.array_equal(y5[4000:], (X5[4000:, 0] + X5[4000:, 1] <= 8.0).astype(np.int64))
    Xn, yn = sea(4000, concept_length=1000, noise=0.1, seed=7)
    assert np.array_equal(X, Xn)
    assert abs(np.mean(y != yn) - 0.1) < 0.02


def test_hyperplane_labels_follow_the_documented_weights() -> None:
    X, y = hyperplane(2000, n_features=4, mag_change=0.0, noise=0.0, seed=12)
    rng = Rng(12)
    w = np.array([rng.uniform() for _ in range(4)])
    expected = []
    for row in X.tolist():
        total = weight_total = 0.0
        for wi, xi in zip(w.tolist(), row, strict=True):
            total += wi * xi
            weight_total += wi
        expected.append(1 if total >= 0.5 * weight_total else 0)
    assert y.tolist() == expected
    assert 0.35 < y.mean() < 0.65


def test_hyperplane_drifts() -> None:
    X0, y0 = hyperplane(5000, mag_change=0.0, noise=0.0, seed=1)
    X1, y1 = hyperplane(5000, mag_change=0.01, noise=0.0, seed=1)
    assert np.array_equal(X0, X1)
    assert y0[0] == y1[0]
    assert np.mean(y0[-1000:] != y1[-1000:]) > 0.02
    with pytest.raises(ValueError, match="noise"):
        hyperplane(5, noise=2.0)


# ---------------------------------------------------------------- shuffling


def test_shuffled_is_fisher_yates_with_below() -> None:
    X = np.arange(40.0).reshape(20, 2)
    y = np.arange(20)
    Xs, ys = shuffled(X, y, seed=3)
    rng = Rng(3)
    perm = list(range(20))
    for i in range(19, 0, -1):
        j = rng.below(i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    assert ys.tolist() == perm
    assert np.array_equal(Xs, X[perm])
    assert sorted(ys.tolist()) == list(range(20))
    assert shuffled(X, y, seed=4)[1].tolist() != perm
    with pytest.raises(ValueError):
        shuffled(X, y[:5])


# ---------------------------------------------------------------- CSV loader


def write_csv(path: Path, text: str) -> None:
    path.write_text(text)


def test_load_csv_from_argument_and_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_csv(tmp_path / "tiny.csv", "a,b,y\n1,2.5,0\n3,4,1\n5,6,1\n")
    X, y = load_csv("tiny", data_dir=tmp_path)
    assert X.dtype == np.float64 and X.tolist() == [[1, 2.5], [3, 4], [5, 6]]
    assert y.dtype == np.int64 and y.tolist() == [0, 1, 1]
    assert load_csv("tiny.csv", data_dir=str(tmp_path))[1].tolist() == [0, 1, 1]
    assert load_csv("tiny", data_dir=tmp_path, task="regression")[1].dtype == np.float64
    monkeypatch.setenv("DRIFTWOOD_DATA", str(tmp_path))
    assert load_csv("tiny")[0].shape == (3, 2)
    # the argument wins over the variable
    other = tmp_path / "other"
    other.mkdir()
    write_csv(other / "tiny.csv", "a,y\n7,0.5\n")
    X2, y2 = load_csv("tiny", data_dir=other)
    assert X2.tolist() == [[7.0]] and y2.dtype == np.float64


def test_missing_file_names_file_directory_and_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRIFTWOOD_DATA", str(tmp_path))
    with pytest.raises(FileNotFoundError) as info:
        load_csv("absent_set")
    message = str(info.value)
    assert "absent_set.csv" in message
    assert str(tmp_path) in message
    assert "DRIFTWOOD_DATA" in message


def test_default_directory_is_the_user_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    import platformdirs

    monkeypatch.delenv("DRIFTWOOD_DATA", raising=False)
    expected = Path(platformdirs.user_cache_dir("driftwood")) / "data"
    assert datasets.data_dir() == expected


def test_bad_files(tmp_path: Path) -> None:
    write_csv(tmp_path / "text.csv", "a,y\nhello,1\n")
    with pytest.raises(ValueError):
        load_csv("text", data_dir=tmp_path)
    write_csv(tmp_path / "real.csv", "a,y\n1,0.5\n")
    with pytest.raises(ValueError, match="classification"):
        load_csv("real", data_dir=tmp_path, task="classification")
    with pytest.raises(ValueError, match="task"):
        load_csv("real", data_dir=tmp_path, task="nonsense")


def test_shipped_data_sets_load_without_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DRIFTWOOD_DATA", raising=False)
    X, y = load_csv("elec2_dynatree")
    assert X.shape == (27552, 4)
    assert y.dtype == np.int64 and set(np.unique(y).tolist()) == {0, 1}
    Xm, ym = load_csv("mcycle")
    assert Xm.shape == (133, 1) and ym.dtype == np.float64

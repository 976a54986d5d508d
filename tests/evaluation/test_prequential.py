"""Prequential evaluation, label sub-sampling, baselines and learning-curve plots."""

from __future__ import annotations

import copy
import io
import math
import pickle
from collections.abc import Callable
from itertools import islice
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from reference.evaluation import metrics
from reference.evaluation.baselines import MajorityClass, RunningMean
from reference.evaluation.datasets import friedman1, iter_sea, moving_xor, sea
from reference.evaluation.plotting import plot_learning_curves
from reference.evaluation.prequential import ProgressBar, prequential
from reference.evaluation.prequential import progress as progress_module
from reference.evaluation.prequential.progress import duration
from reference.rng import Rng


class Spy:
    """Records the order of calls; predicts the number of rows learned so far."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.n_seen_ = 0

    def predict_one(self, x: Any) -> float:
        self.calls.append(("predict", x[0]))
        return float(self.n_seen_)

    def learn_one(self, x: Any, y: Any) -> None:
        self.calls.append(("learn", x[0]))
        self.n_seen_ += 1


# ---------------------------------------------------------------- protocol


def test_test_then_train_order() -> None:
    X = np.arange(5.0).reshape(5, 1)
    spy = Spy()
    result = prequential(spy, X, np.zeros(5))
    expected = []
    for t in range(5):
        expected += [("predict", float(t)), ("learn", float(t))]
    assert spy.calls == expected
    # the prediction of step t was made before learning row t
    assert result.y_pred.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]


def test_regression_run_against_direct_computation() -> None:
    X, y = friedman1(600, seed=2)
    result = prequential(RunningMean(), X, y, window=50, n_points=40)
    # RunningMean's prediction at t is the mean of y[:t] (0 at t = 0)
    expected_pred = np.concatenate(([0.0], np.cumsum(y)[:-1] / np.arange(1, 600)))
    np.testing.assert_allclose(result.y_pred, expected_pred, rtol=1e-12, atol=1e-12)
    assert result.task == "regression" and result.n == 600 and result.n_learned == 600
    assert result.final["rmse"] == pytest.approx(metrics.rmse(y, expected_pred), rel=1e-12)
    assert result.final["mae"] == pytest.approx(metrics.mae(y, expected_pred), rel=1e-12)
    assert result.t[-1] == 600 and result.t.size == 40
    for i, t in enumerate(result.t.tolist()):
        cum = metrics.rmse(y[:t], expected_pred[:t])
        win = metrics.rmse(y[max(0, t - 50) : t], expected_pred[max(0, t - 50) : t])
        assert result.curves["rmse"][i] == pytest.approx(cum, rel=1e-9)
        assert result.windowed["rmse"][i] == pytest.approx(win, rel=1e-9)
    t_points, values = result.curve("mae", windowed=True)
    assert np.array_equal(t_points, result.t) and values is result.windowed["mae"]
    with pytest.raises(KeyError, match="available"):
        result.curve("accuracy")
    assert "rmse" in result.summary() and "examples" in result.summary()
    assert result.elapsed > 0.0


def test_classification_run_against_direct_computation() -> None:
    X, y = sea(1500, concept_length=500, seed=3)
    model = MajorityClass(classes=[0, 1], smoothing=1.0)
    result = prequential(model, X, y, window=200)
    # replay the baseline to get its scores
    replay = MajorityClass(classes=[0, 1], smoothing=1.0)
    scores, guesses, logs = [], [], []
    for x, label in zip(X.tolist(), y.tolist(), strict=True):
        guesses.append(replay.predict_one(x))
        proba = replay.predict_proba_one(x)
        scores.append(proba[1])
        logs.append(math.log(proba[label]))
        replay.learn_one(x, label)
    assert result.task == "classification"
    assert result.final["accuracy"] == metrics.accuracy(y, guesses)
    assert np.array_equal(result.scores, np.array(scores))
    assert result.final["auc"] == pytest.approx(metrics.auc(y, scores), abs=1e-12)
    assert result.final["h_measure"] == pytest.approx(metrics.h_measure(y, scores), abs=1e-12)
    assert result.final["alpd"] == pytest.approx(float(np.mean(logs)), rel=1e-12)
    i = result.t.size - 1
    assert result.windowed["auc"][i] == pytest.approx(metrics.auc(y[-200:], scores[-200:]))
    assert result.windowed["h_measure"][i] == pytest.approx(
        metrics.h_measure(y[-200:], scores[-200:])
    )


def test_abstentions_count_as_mistakes_and_empty_distributions_are_skipped() -> None:
    y = [0, 0, 1, 0]
    X = [[0.0]] * 4
    result = prequential(MajorityClass(), X, y)
    # predictions: None (abstain), 0, 0, 0 -> correct at steps 1 and 3
    assert result.y_pred.tolist() == [None, 0, 0, 0]
    assert result.final["accuracy"] == 0.5
    # step 0 has no distribution (skipped); step 2 gives label 1 probability 0 -> -inf
    assert math.isnan(result.log_density[0])
    assert result.final["alpd"] == -math.inf


def test_alpd_recovers_once_an_impossible_step_leaves_the_window() -> None:
    y = [0, 1] + [1] * 30
    X = [[0.0]] * 32
    result = prequential(MajorityClass(), X, y, window=5, n_points=32)
    assert result.curves["alpd"][-1] == -math.inf
    assert np.isfinite(result.windowed["alpd"][-1])


class GaussianMean(RunningMean):
    """RunningMean that keeps a running sum of one-step N(mean, 1) log densities."""

    def __init__(self) -> None:
        super().__init__()
        self.log_marginal_likelihood_ = 0.0

    def learn_one(self, x: Any, y: float) -> None:
        self.log_marginal_likelihood_ += metrics.gaussian_log_density(y, self.mean_, 1.0)
        super().learn_one(x, y)


def test_regression_alpd_from_log_marginal_likelihood_increments() -> None:
    X, y = friedman1(300, seed=5)
    result = prequential(GaussianMean(), X, y, rate=0.5, label_seed=2)
    assert result.log_density is not None
    replay = RunningMean()
    expected = []
    for x, target, learned in zip(X.tolist(), y.tolist(), result.learned.tolist(), strict=True):
        if learned:
            expected.append(metrics.gaussian_log_density(target, replay.mean_, 1.0))
            replay.learn_one(x, target)
        else:
            expected.append(math.nan)
    np.testing.assert_allclose(result.log_density, expected, rtol=1e-9)
    assert result.final["alpd"] == pytest.approx(float(np.nanmean(expected)), rel=1e-9)
    assert prequential(RunningMean(), X, y).log_density is None


def test_iterator_input() -> None:
    result = prequential(MajorityClass(), iter_sea(seed=1), n=300)
    X, y = sea(300, seed=1)
    direct = prequential(MajorityClass(), X, y)
    assert result.final == direct.final
    with pytest.raises(ValueError, match="pass n="):
        prequential(MajorityClass(), iter_sea(seed=1))
    with pytest.raises(ValueError, match="ended"):
        prequential(MajorityClass(), iter(list(islice(iter_sea(), 10))), n=20)


def test_array_streams_are_read_in_blocks_as_the_lists_they_hold() -> None:
    """An array stream is turned into Python rows a block at a time (never whole): the
    rows and labels the model sees, and so the run, are those of the lists."""
    from reference.evaluation.prequential.loop import _array_items

    X, y = sea(5000, seed=2)
    assert list(_array_items(X, 7)) == X.tolist()
    assert list(_array_items(y.reshape(-1, 1), 4096)) == y.reshape(-1, 1).tolist()
    by_array = prequential(MajorityClass(), X, y)
    by_list = prequential(MajorityClass(), X.tolist(), y.tolist())
    assert by_array.final == by_list.final
    assert prequential(MajorityClass(), X, y, n=4100).final == prequential(
        MajorityClass(), X.tolist()[:4100], y.tolist()[:4100]).final


def test_bad_arguments() -> None:
    X, y = friedman1(10)
    for kwargs in ({"rate": 0.0}, {"rate": 1.5}, {"window": 0}, {"n_points": 0}, {"task": "x"}):
        with pytest.raises(ValueError):
            prequential(RunningMean(), X, y, **kwargs)
    with pytest.raises(ValueError):
        prequential(RunningMean(), X, y[:5])
    with pytest.raises(ValueError, match="empty"):
        prequential(RunningMean(), X[:0], y[:0])


# ---------------------------------------------------------------- sub-sampling [DOC15, Alg. 5]


def test_sub_sampling_reveals_rate_of_labels_from_its_own_generator() -> None:
    X, y = sea(5000, seed=4)
    model = MajorityClass()
    result = prequential(model, X, y, rate=0.3, label_seed=17)
    coin = Rng(17)
    expected = np.array([coin.uniform() < 0.3 for _ in range(5000)])
    assert np.array_equal(result.learned, expected)
    assert result.n_learned == model.n_seen_ == int(expected.sum())
    assert 1350 < result.n_learned < 1650  # Binomial(5000, 0.3): mean 1500, sd 32
    assert result.n == 5000 and len(result.y_pred) == 5000  # every example is scored
    again = prequential(MajorityClass(), X, y, rate=0.3, label_seed=17)
    assert np.array_equal(again.learned, result.learned)
    assert again.final == result.final
    other = prequential(MajorityClass(), X, y, rate=0.3, label_seed=18)
    assert not np.array_equal(other.learned, result.learned)


def test_full_rate_learns_everything() -> None:
    X, y = sea(200, seed=4)
    result = prequential(MajorityClass(), X, y, rate=1.0, label_seed=99)
    assert result.learned.all() and result.n_learned == 200


class SizedModel(MajorityClass):
    @property
    def n_balls_(self) -> int:
        return len(self.classes_) * 10


def test_model_size_tracking() -> None:
    X, y = sea(300, seed=1)
    result = prequential(SizedModel(), X, y, size="n_balls_", n_points=10)
    assert result.sizes is not None and result.sizes[-1] == 20.0
    assert result.final["size"] == 20.0 and result.final["max_size"] == 20.0
    assert result.curves["size"][0] == 10.0
    fn = prequential(SizedModel(), X, y, size=lambda m: m.n_seen_)
    assert fn.sizes is not None and fn.sizes.tolist() == list(range(1, 301))


# ---------------------------------------------------------------- progress bar


def test_progress_bar_text() -> None:
    out = io.StringIO()
    bar = ProgressBar(4, "demo", stream=out, style="bar")
    for _ in range(4):
        bar.update()
    bar.close()
    text = out.getvalue()
    assert "demo" in text and "4/4" in text and "100%" in text and text.endswith("\n")
    silent = io.StringIO()
    off = ProgressBar(4, "demo", enabled=False, stream=silent)
    off.update()
    off.close()
    assert silent.getvalue() == "" and off.count == 1


class FakeClock:
    """Stands in for ``time.perf_counter`` in the progress module: advanced by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_progress_lines_off_a_terminal_estimate_the_time_left(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Off a terminal: a plain line every ``interval`` seconds, none in between, with the
    time left = steps left x seconds per step so far (a steady rate); a last line without
    an estimate."""
    clock = FakeClock()
    monkeypatch.setattr(progress_module, "time", SimpleNamespace(perf_counter=clock))
    out = io.StringIO()
    bar = ProgressBar(2000, "compare sgt", stream=out, unit="rows", interval=5.0)
    assert bar.style == "lines"  # a StringIO is no terminal
    clock.now += 35.0 / 12
    bar.update(100)
    assert out.getvalue() == ""  # under 5 s: nothing yet
    clock.now += 35.0 * 11 / 12
    bar.update(1100)  # 1200 rows in 35 s at a steady rate: 800 left at 35/1200 s a row
    assert out.getvalue() == "[compare sgt] 1200/2000 rows, 35 s elapsed, ~23 s left\n"
    clock.now += 1.0
    bar.update(100)
    assert out.getvalue().count("\n") == 1  # the next line only 5 s later
    clock.now += 23.0
    bar.update(700)
    bar.close()
    assert out.getvalue().splitlines()[-1] == "[compare sgt] 2000/2000 rows, 59 s elapsed"


def test_progress_of_a_resumed_job_estimates_from_this_run_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = FakeClock()
    monkeypatch.setattr(progress_module, "time", SimpleNamespace(perf_counter=clock))
    out = io.StringIO()
    bar = ProgressBar(10, "grid", stream=out, unit="cells", start=6)
    clock.now += 8.0
    bar.update(2)  # 2 cells in 8 s (the 6 earlier ones cost nothing now): 2 left, 8 s
    assert bar.remaining() == 8.0
    assert "8/10 cells, 8.0 s elapsed, ~8.0 s left" in out.getvalue()


def _loop_seconds(cost: Callable[[int], float], n: int) -> list[float]:
    """Elapsed seconds after each of ``n`` steps when step ``i`` (from 0) costs
    ``cost(i)`` seconds."""
    elapsed, total = [], 0.0
    for i in range(n):
        total += cost(i)
        elapsed.append(total)
    return elapsed


def _estimate_at(cost: Callable[[int], float], n: int, done: int) -> tuple[float, float]:
    """(the bar's time left after ``done`` of ``n`` steps, the true time left), the bar
    driven one step at a time by a fake clock that advances by each step's cost."""
    seconds = _loop_seconds(cost, n)
    clock = FakeClock()
    start = clock.now
    bar = ProgressBar(n, "run", enabled=False, clock=clock)
    for i in range(done):
        clock.now = start + seconds[i]
        bar.update()
    return bar.remaining(), seconds[-1] - seconds[done - 1]


@pytest.mark.parametrize("per_step", ["steady", "growing", "growing-from-a-floor"])
def test_the_time_left_follows_the_measured_rate(per_step: str) -> None:
    """A dynamic tree's rows cost more as its trees grow (a per-row cost that rises
    linearly with the rows seen): the estimate from the rate so far was about 3x too low
    there; following the measured rate, it is right within 1 % from a tenth of the run
    on (a steady rate, a cost per step proportional to the steps seen or growing from a
    floor)."""
    costs = {"steady": lambda i: 0.02, "growing": lambda i: 1e-4 * (i + 1),
             "growing-from-a-floor": lambda i: 0.01 + 1e-4 * i}
    cost, n = costs[per_step], 3000
    for done in (300, 1000, 2000, 2900):
        estimate, truth = _estimate_at(cost, n, done)
        assert estimate == pytest.approx(truth, rel=0.01), done
    if per_step != "steady":   # what the rate so far says: several times too little
        done = 300
        seconds = _loop_seconds(cost, n)
        so_far = (n - done) * seconds[done - 1] / done
        assert so_far < _estimate_at(cost, n, done)[1] / 2.5


@pytest.mark.parametrize("change", [0.0, -1e-6], ids=["steady", "falling"])
def test_a_falling_cost_per_step_is_not_extrapolated_downwards(change: float) -> None:
    """The slope of the cost per step is held at 0 from below: at the limit (a steady
    rate) the estimate is the truth; one step past it (a cost that falls, as after a
    warm-up) the steps left are charged at the second half's rate, above the truth, never
    extrapolated towards a free step."""
    n, done = 3000, 1000

    def cost(i: int) -> float:
        return 0.004 + change * i

    estimate, truth = _estimate_at(cost, n, done)
    seconds = _loop_seconds(cost, n)
    half = next(c for c in range(done // 2, 0, -1)
                if c in {k for k, _ in _recorded_pairs(cost, done)})
    recent = (seconds[done - 1] - seconds[half - 1]) / (done - half)
    if change == 0.0:
        assert estimate == pytest.approx(truth, rel=1e-9)
    else:
        assert estimate == pytest.approx((n - done) * recent, rel=1e-9)
        assert estimate > truth * 1.05


def _recorded_pairs(cost: Callable[[int], float], done: int) -> list[tuple[int, float]]:
    clock = FakeClock()
    seconds = _loop_seconds(cost, done)
    bar = ProgressBar(done, "run", enabled=False, clock=clock)
    for i in range(done):
        clock.now = 100.0 + seconds[i]
        bar.update()
    return bar._samples


def test_an_interrupted_bar_only_ends_its_line() -> None:
    lines = io.StringIO()
    quiet = ProgressBar(10, "run", stream=lines)
    quiet.update()
    quiet.close(final=False)
    assert lines.getvalue() == ""
    drawn = io.StringIO()
    bar = ProgressBar(10, "run", stream=drawn, style="bar")
    bar.update()
    bar.close(final=False)
    assert drawn.getvalue().startswith("\rrun [") and drawn.getvalue().endswith("   \n")
    assert "10/10" not in drawn.getvalue()


def test_durations_read_as_people_write_them() -> None:
    assert [duration(s) for s in (0.04, 9.96, 10.4, 59.6, 61, 3599, 3600, 86399)] == [
        "0.0 s", "10.0 s", "10 s", "1 min 0 s", "1 min 1 s", "59 min 59 s", "1 h 00 min",
        "23 h 59 min",
    ]


def test_prequential_progress_switch(capsys: pytest.CaptureFixture[str]) -> None:
    X, y = friedman1(50)
    prequential(RunningMean(), X, y, progress=True, description="bar-test")
    assert "bar-test" in capsys.readouterr().err
    prequential(RunningMean(), X, y, progress=False, description="bar-test")
    assert capsys.readouterr().err == ""


# ---------------------------------------------------------------- baselines


def test_running_mean_api() -> None:
    model = RunningMean()
    assert model.predict_one([1.0, 2.0]) == 0.0 and model.n_features_in_ is None
    model.partial_fit(np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]), np.array([1.0, 2.0, 6.0]))
    assert model.predict_one([0.0, 0.0]) == 3.0 and model.n_seen_ == 3
    assert model.n_features_in_ == 2
    assert model.predict(np.zeros((2, 2))).tolist() == [3.0, 3.0]
    dist = model.predict_dist_one([0.0, 0.0])
    assert dist["mean"] == 3.0
    assert dist["variance"] == pytest.approx(np.var([1.0, 2.0, 6.0], ddof=1) * (1 + 1 / 3))
    snap = model.snapshot()
    for bad_x, bad_y, error in (
        ([1.0], 1.0, ValueError),
        ([1.0, math.nan], 1.0, ValueError),
        ([1.0, 2.0], math.inf, ValueError),
        (["a", 2.0], 1.0, TypeError),
    ):
        with pytest.raises(error):
            model.learn_one(bad_x, bad_y)
        assert model.snapshot() == snap  # unchanged after a rejected call
    assert model.clone().snapshot()["n_seen"] == 0 and model.get_params() == {}
    assert pickle.loads(pickle.dumps(model)).snapshot() == snap
    assert copy.deepcopy(model).snapshot() == snap


def test_majority_class_api() -> None:
    model = MajorityClass()
    assert model.predict_one([0.0]) is None and model.predict_proba_one([0.0]) == {}
    model.partial_fit([[0.0], [1.0], [2.0], [3.0]], ["b", "a", "a", "b"])
    assert model.classes_ == ["b", "a"]
    assert model.predict_one([0.0]) == "b"  # tie -> first seen
    model.learn_one([0.0], "a")
    assert model.predict_one([0.0]) == "a"
    assert model.predict_proba_one([0.0]) == {"b": 2 / 5, "a": 3 / 5}
    np.testing.assert_allclose(model.predict_proba([[0.0]]), [[0.4, 0.6]])
    with pytest.raises(ValueError):
        model.learn_one([0.0, 1.0], "a")
    fixed = MajorityClass(classes=[0, 1, 2], smoothing=1.0)
    assert fixed.predict_proba_one([0.0]) == {0: 1 / 3, 1: 1 / 3, 2: 1 / 3}
    fixed.learn_one([0.0], np.int64(2))
    assert fixed.classes_ == [0, 1, 2]
    assert fixed.predict_proba_one([0.0]) == {0: 0.25, 1: 0.25, 2: 0.5}
    snap = fixed.snapshot()
    with pytest.raises(ValueError, match="not one of"):
        fixed.learn_one([0.0], 7)
    assert fixed.snapshot() == snap
    assert fixed.clone().get_params() == {"classes": [0, 1, 2], "smoothing": 1.0}
    with pytest.raises(ValueError, match="smoothing"):
        MajorityClass(smoothing=-1.0)


def test_baselines_accept_mappings_with_fixed_keys() -> None:
    model = RunningMean()
    model.learn_one({"a": 1.0, "b": 2.0}, 4.0)
    assert model.predict_one({"a": 0.0, "b": 0.0}) == 4.0
    with pytest.raises(ValueError, match="keys"):
        model.learn_one({"b": 1.0, "a": 2.0}, 1.0)


# ---------------------------------------------------------------- plotting


def test_plot_learning_curves() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X, y = moving_xor(800, period=800, seed=1)
    a = prequential(MajorityClass(smoothing=1.0), X, y, window=100)
    b = prequential(MajorityClass(classes=[0, 1], smoothing=1.0), X, y, rate=0.5, window=100)
    fig = plot_learning_curves({"all labels": a, "half": b}, metrics=["accuracy", "auc"])
    assert len(fig.axes) == 2
    assert len(fig.axes[0].lines) == 2 and len(fig.axes[1].lines) == 2
    np.testing.assert_array_equal(fig.axes[0].lines[0].get_xdata(), a.t)
    np.testing.assert_array_equal(fig.axes[0].lines[1].get_ydata(), b.windowed["accuracy"])
    assert fig.axes[0].get_ylabel() == "accuracy (window 100)"
    plt.close(fig)
    fig2 = plot_learning_curves(a, windowed=False)
    np.testing.assert_array_equal(fig2.axes[0].lines[0].get_ydata(), a.curves["accuracy"])
    plt.close(fig2)
    with pytest.raises(KeyError, match="rmse"):
        plot_learning_curves(a, metrics="rmse")
    plt.close("all")

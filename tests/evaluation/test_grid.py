"""The experiment grid runner: seeds, engines, resumption, summaries and the CLI."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
pytest.importorskip("joblib")

from _timing import CHILD_TIMEOUT  # noqa: E402

from reference.evaluation import grid  # noqa: E402
from reference.evaluation.cli import main  # noqa: E402

SPEC: dict[str, Any] = {
    "experiment": {"name": "tiny", "seed": 11, "repetitions": 2, "backend": "fast",
                   "metrics": ["mae", "rmse"]},
    "models": [{"name": "sgt", "grid": {"lam": [0.1, 1.0]}, "params": {"warmup": 50}},
               {"name": "mean"}],
    "streams": [{"name": "friedman", "n": 300}, {"name": "parabola", "n": 200}],
}


@pytest.fixture
def experiment(both: Any) -> grid.Experiment:
    return grid.load_experiment(SPEC)


def _values(frame: Any) -> list[tuple[str, str, float]]:
    return list(zip(frame["cell"], frame["metric"], frame["value"], strict=True))


def test_cells_expand_models_grids_streams_and_repetitions(experiment: grid.Experiment) -> None:
    cells = experiment.cells()
    assert len(cells) == (2 + 1) * 2 * 2
    assert len({c.key for c in cells}) == len(cells)
    assert {dict(c.params)["lam"] for c in cells if c.model == "sgt"} == {0.1, 1.0}


def test_seeds_come_from_the_experiment_seed_and_the_cell(experiment: grid.Experiment) -> None:
    cells = experiment.cells()
    seeds = {c.key: grid.cell_seeds(experiment.seed, c) for c in cells}
    assert seeds == {c.key: grid.cell_seeds(experiment.seed, c) for c in reversed(cells)}
    by_stream_rep: dict[tuple[str, int], set[int]] = {}
    for c in cells:
        by_stream_rep.setdefault((c.stream, c.rep), set()).add(seeds[c.key][0])
    # every model of a repetition sees the same stream; repetitions differ
    assert all(len(s) == 1 for s in by_stream_rep.values())
    assert len({next(iter(s)) for s in by_stream_rep.values()}) == len(by_stream_rep)
    assert len({s[1] for s in seeds.values()}) == len(cells)
    other = grid.cell_seeds(experiment.seed + 1, cells[0])
    assert other != seeds[cells[0].key]


def test_results_are_identical_whatever_the_engine_and_the_order(
        experiment: grid.Experiment, tmp_path: Path) -> None:
    serial = grid.run_grid(experiment, tmp_path / "serial", engine="serial", progress=False)
    backwards = grid.run_grid(experiment, tmp_path / "backwards", engine="serial",
                              progress=False, order=lambda cells: cells[::-1])
    pooled = grid.run_grid(experiment, tmp_path / "joblib", engine="joblib", n_jobs=2,
                           progress=False)
    assert len(serial) == len(experiment.cells()) * 2
    assert _values(serial) == _values(backwards) == _values(pooled)
    assert (tmp_path / "serial" / "results.csv").read_bytes() == \
        (tmp_path / "joblib" / "results.csv").read_bytes()


def test_a_dask_cluster_gives_the_serial_results(experiment: grid.Experiment,
                                                 tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    serial = grid.run_grid(experiment, tmp_path / "serial", engine="serial", progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        on_dask = grid.run_grid(experiment, tmp_path / "dask", engine="dask",
                                scheduler=cluster.scheduler_address, progress=False)
    assert _values(on_dask) == _values(serial)


def test_a_rerun_computes_only_the_missing_cells(experiment: grid.Experiment,
                                                 tmp_path: Path) -> None:
    first = grid.run_grid(experiment, tmp_path, engine="serial", progress=False)
    files = sorted((tmp_path / "cells").glob("*.csv"))
    assert len(files) == len(experiment.cells())
    for path in files[:3]:
        path.unlink()
    ran: list[grid.Cell] = []

    def record(cells: list[grid.Cell]) -> list[grid.Cell]:
        ran.extend(cells)
        return cells

    again = grid.run_grid(experiment, tmp_path, engine="serial", progress=False, order=record)
    assert sorted(f"{c.digest}.csv" for c in ran) == sorted(p.name for p in files[:3])
    assert _values(again) == _values(first)
    ran.clear()
    grid.run_grid(experiment, tmp_path, engine="serial", progress=False, order=record)
    assert ran == []


def test_an_interrupted_run_keeps_every_finished_cell(experiment: grid.Experiment,
                                                      tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    real = grid.run_cell
    calls = {"n": 0}

    def flaky(exp: grid.Experiment, cell: grid.Cell) -> list[dict[str, Any]]:
        calls["n"] += 1
        if calls["n"] == 4:
            raise KeyboardInterrupt
        return real(exp, cell)

    monkeypatch.setattr(grid.runner, "run_cell", flaky)
    with pytest.raises(KeyboardInterrupt):
        grid.run_grid(experiment, tmp_path, engine="serial", progress=False)
    kept = sorted((tmp_path / "cells").glob("*.csv"))
    assert len(kept) == 3
    for path in kept:                          # each finished cell is whole and readable
        assert len(pd.read_csv(path)) == 2
    assert not list((tmp_path / "cells").glob("*.tmp*"))
    monkeypatch.setattr(grid.runner, "run_cell", real)
    done = grid.run_grid(experiment, tmp_path, engine="serial", progress=False)
    fresh = grid.run_grid(experiment, tmp_path / "fresh", engine="serial", progress=False)
    assert _values(done) == _values(fresh)


def test_resuming_a_different_experiment_is_refused(experiment: grid.Experiment,
                                                    tmp_path: Path) -> None:
    grid.run_grid(experiment, tmp_path, engine="serial", progress=False)
    changed = json.loads(json.dumps(SPEC))
    changed["experiment"]["repetitions"] = 3
    with pytest.raises(grid.GridError, match="different experiment"):
        grid.run_grid(changed, tmp_path, engine="serial", progress=False)


def test_summary_is_the_mean_and_its_monte_carlo_standard_error(
        experiment: grid.Experiment, tmp_path: Path) -> None:
    results = grid.run_grid(experiment, tmp_path, engine="serial", progress=False)
    table = grid.summarize(results)
    for _, row in table.iterrows():
        values = results[(results["model"] == row["model"]) & (results["params"] == row["params"])
                         & (results["stream"] == row["stream"])
                         & (results["metric"] == row["metric"])]["value"].to_numpy()
        assert row["reps"] == len(values) == 2
        assert row["mean"] == pytest.approx(values.mean(), rel=1e-12)
        assert row["se"] == pytest.approx(values.std(ddof=1) / math.sqrt(2), rel=1e-12)
    stored = grid.read_results(tmp_path)
    assert _values(stored) == _values(results)           # floats stored exactly


def test_a_grid_cell_equals_a_direct_prequential_run(experiment: grid.Experiment) -> None:
    import fast
    from reference.evaluation.datasets import friedman1
    from reference.evaluation.prequential import prequential

    cell = next(c for c in experiment.cells() if c.model == "sgt" and c.stream == "friedman")
    rows = grid.run_cell(experiment, cell)
    data_seed, _ = grid.cell_seeds(experiment.seed, cell)
    X, y = friedman1(cell.n, seed=data_seed % 2**31)
    direct = prequential(fast.SGTRegressor(**dict(cell.params)), X, y, task="regression",
                         label_seed=data_seed % 2**31, progress=False)
    assert {r["metric"]: r["value"] for r in rows} == {m: direct.final[m] for m in ("mae", "rmse")}


@pytest.mark.parametrize(("change", "message"), [
    ({"models": [{"name": "nope"}]}, "models"),
    ({"streams": [{"name": "friedman", "n": 0}]}, "positive integer"),
    ({"experiment": {"repetitions": 0}}, "repetitions"),
    ({"experiment": {"backend": "gpu"}}, "backend"),
    ({"models": [{"name": "sgt", "grid": {"lam": []}}]}, "non-empty"),
    ({"models": [{"name": "abacoc"}]}, "'abacoc' is for classification but stream 'friedman'"),
    ({"streams": [{"name": "csv:bananas", "n": 10}]}, "stream 'csv:bananas' is classification"),
])
def test_a_bad_spec_is_refused_with_a_clear_message(change: dict[str, Any], message: str) -> None:
    spec = {**SPEC, **change}
    with pytest.raises(grid.GridError, match=message):
        grid.load_experiment(spec)


def test_cli_runs_a_toml_spec_and_prints_the_summary(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text('[experiment]\nname = "cli"\nseed = 3\nrepetitions = 2\n'
                    'metrics = ["rmse"]\n[[models]]\nname = "mean"\n'
                    '[[streams]]\nname = "parabola"\nn = 100\n')
    out = tmp_path / "out"
    assert main(["grid", str(spec), "--out", str(out), "--engine", "serial",
                 "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "2 cells" in text and "rmse" in text and "parabola" in text
    assert main(["grid", "--summary-only", "--out", str(out)]) == 0
    assert "rmse" in capsys.readouterr().out
    assert main(["grid", str(tmp_path / "missing.toml"), "--out", str(out)]) == 2


def test_plot_shows_mean_and_error_bars(experiment: grid.Experiment, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    results = grid.run_grid(experiment, tmp_path, engine="serial", progress=False)
    fig = grid.plot_grid(results, "mae", "lam")
    ax = fig.axes[0]
    assert ax.get_xlabel() == "lam" and ax.get_ylabel() == "mae"
    lines = [line for line in ax.get_lines() if len(line.get_xdata()) == 2]
    assert lines and np.allclose(sorted(lines[0].get_xdata()), [0.1, 1.0])


def test_burn_in_scores_only_the_steps_after_it(both: Any) -> None:
    import fast
    from reference.evaluation.datasets import friedman1
    from reference.evaluation.prequential import prequential

    spec = {"experiment": {"name": "burn", "seed": 5, "repetitions": 1},
            "models": [{"name": "sgt", "params": {"warmup": 50, "burn_in": 100}}],
            "streams": [{"name": "friedman", "n": 400}]}
    exp = grid.load_experiment(spec)
    (cell,) = exp.cells()
    got = {r["metric"]: r["value"] for r in grid.run_cell(exp, cell)}
    data_seed, _ = grid.cell_seeds(exp.seed, cell)
    X, y = friedman1(400, seed=data_seed % 2**31)
    result = prequential(fast.SGTRegressor(warmup=50), X, y, task="regression",
                         label_seed=data_seed % 2**31, progress=False)
    err = result.y_pred[100:] - y[100:]
    assert got == {"rmse": float(np.sqrt(np.mean(err**2))), "mae": float(np.mean(np.abs(err)))}


def test_ag13_retirement_protocol_trains_each_variant_as_the_paper_says(both: Any) -> None:
    import fast
    from reference.evaluation.datasets import friedman1

    spec = {"experiment": {"name": "ag13", "seed": 9, "repetitions": 1,
                           "protocol": "ag13-retirement"},
            "models": [{"name": "dynatree",
                        "grid": {"variant": ["ORIG", "ORAND", "OALC", "FULL"]},
                        "params": {"n_particles": 20, "pool": 40, "test_n": 200}}],
            "streams": [{"name": "friedman", "n": 150}]}
    exp = grid.load_experiment(spec)
    rmse = {}
    for cell in exp.cells():
        (row,) = grid.run_cell(exp, cell)
        rmse[dict(cell.params)["variant"]] = row["value"]
    assert all(math.isfinite(v) and v > 0 for v in rmse.values())
    # ORIG is the FULL model of the first `pool` points, scored on the noiseless test set
    cell = next(c for c in exp.cells() if dict(c.params)["variant"] == "ORIG")
    data_seed, model_seed = grid.cell_seeds(exp.seed, cell)
    X, y = friedman1(150, seed=data_seed % 2**31)
    Xt, yt = friedman1(200, noise=0.0, seed=(data_seed + 1) % 2**31)
    model = fast.DynamicTreeRegressor(n_particles=20, seed=model_seed % 2**31)
    model.partial_fit(X[:40], y[:40])
    assert rmse["ORIG"] == float(np.sqrt(np.mean((model.predict(Xt) - yt) ** 2)))
    bad = {**spec, "models": [{"name": "dynatree", "params": {"variant": "NOPE"}}]}
    with pytest.raises(grid.GridError, match="variant"):
        grid.run_cell(grid.load_experiment(bad), grid.load_experiment(bad).cells()[0])


def test_learn_until_stops_learning_after_k_examples(both: Any) -> None:
    import fast
    from reference.evaluation.protocols import LearnFirst

    inner = fast.SGTRegressor(warmup=10)
    model = LearnFirst(inner, 3)
    for i in range(5):
        model.learn_one([float(i)], float(i))
    assert model.seen == 5 and inner.n_seen_ == 3
    assert model.predict_one([1.0]) == inner.predict_one([1.0])


def test_trajectory_records_the_statistics_after_every_block(both: Any) -> None:
    import fast
    from reference.evaluation.datasets import regime_friedman
    from reference.evaluation.protocols import trajectory_frame

    spec = {"experiment": {"name": "traj", "seed": 3, "repetitions": 1,
                           "protocol": "trajectory"},
            "models": [{"name": "dynatree",
                        "params": {"n_particles": 10, "every": 40,
                                   "record": "mean_height, mean_leaves"}}],
            "streams": [{"name": "aba", "n": 90}]}
    exp = grid.load_experiment(spec)
    (cell,) = exp.cells()
    got = {r["metric"]: r["value"] for r in grid.run_cell(exp, cell)}
    data_seed, model_seed = grid.cell_seeds(exp.seed, cell)
    X, y = regime_friedman(90, seed=data_seed % 2**31, start=30, stop=60)
    model = fast.DynamicTreeRegressor(n_particles=10, seed=model_seed % 2**31)
    expected = {}
    for start, stop in ((0, 40), (40, 80), (80, 90)):      # the last block is short
        model.partial_fit(X[start:stop], y[start:stop])
        stats = model.tree_stats()
        expected[f"mean_height@{stop}"] = stats["mean_height"]
        expected[f"mean_leaves@{stop}"] = stats["mean_leaves"]
    assert got == expected
    frame = trajectory_frame(pd.DataFrame({"metric": list(got), "value": list(got.values())}))
    assert list(frame["t"]) == [40, 80, 90, 40, 80, 90]
    assert list(frame["statistic"]) == ["mean_height"] * 3 + ["mean_leaves"] * 3
    bad = {**spec, "models": [{"name": "dynatree", "params": {"record": "no_such_stat"}}]}
    with pytest.raises(grid.GridError, match="no_such_stat"):
        grid.run_cell(grid.load_experiment(bad), grid.load_experiment(bad).cells()[0])


def test_rate_budget_fraction_and_scaling_reach_the_prequential_run(both: Any) -> None:
    import fast
    from reference.evaluation.baselines import NearestNeighbours
    from reference.evaluation.datasets import sea
    from reference.evaluation.prequential import prequential

    spec = {"experiment": {"name": "sub", "seed": 4, "repetitions": 1,
                           "metrics": ["accuracy", "size"]},
            "models": [{"name": "abacoc", "params": {"budget_fraction": 0.05,
                                                     "scale": "minmax"}},
                       {"name": "nn3", "params": {"rate": 0.2, "scale": "minmax-l2"}}],
            "streams": [{"name": "sea", "n": 400}]}
    exp = grid.load_experiment(spec)
    fix_cell, nn_cell = exp.cells()
    data_seed, model_seed = grid.cell_seeds(exp.seed, fix_cell)
    X, y = sea(400, concept_length=100, seed=data_seed % 2**31)
    X = (X - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0))
    fix = prequential(fast.ABACOCClassifier(budget=20, seed=model_seed % 2**31), X, y,
                      task="classification", label_seed=data_seed % 2**31,
                      size="n_balls_", progress=False)
    assert {r["metric"]: r["value"] for r in grid.run_cell(exp, fix_cell)} == {
        "accuracy": fix.final["accuracy"], "size": fix.final["size"]}
    assert fix.final["size"] <= 20
    unit = X / np.sqrt((X * X).sum(axis=1))[:, None]
    nn = prequential(NearestNeighbours(classes=[0, 1]), unit, y, task="classification",
                     rate=0.2, label_seed=data_seed % 2**31, size="n_stored_",
                     progress=False)
    got = {r["metric"]: r["value"] for r in grid.run_cell(exp, nn_cell)}
    assert got == {"accuracy": nn.final["accuracy"], "size": nn.final["size"]}
    assert 40 <= got["size"] <= 120                      # about 20% of 400 rows learned


def test_nearest_neighbours_vote_like_a_brute_force_count() -> None:
    from reference.evaluation.baselines import NearestNeighbours

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = rng.integers(0, 4, size=300)
    model = NearestNeighbours(k=3).partial_fit(X[:200], y[:200])
    assert model.n_stored_ == 200 and model.classes_ == list(dict.fromkeys(y[:200].tolist()))
    for x in X[200:]:
        d = ((X[:200] - x) ** 2).sum(axis=1)
        near = np.argsort(d, kind="stable")[:3]
        labels = y[:200][near].tolist()
        counts = {c: labels.count(c) for c in labels}
        top = max(counts.values())
        expected = labels[0] if counts[labels[0]] == top else next(
            c for c in model.classes_ if counts.get(c, 0) == top)
        assert model.predict_one(x) == expected
        proba = model.predict_proba_one(x)
        assert proba == {c: counts.get(c, 0) / 3 for c in model.classes_}
    sk = pytest.importorskip("sklearn.neighbors")
    binary = (y > 1).astype(int)        # two classes, k = 3: no tied vote, sklearn agrees
    knn = sk.KNeighborsClassifier(n_neighbors=3).fit(X[:200], binary[:200])
    ours = NearestNeighbours(k=3, classes=[0, 1]).partial_fit(X[:200], binary[:200])
    assert list(ours.predict(X[200:])) == list(knn.predict(X[200:]))
    assert NearestNeighbours().predict_one([0.0]) is None
    with pytest.raises(ValueError, match="k must be"):
        NearestNeighbours(k=0)


def test_local_dask_workers_start_deaf_to_ctrl_c() -> None:
    """Worker processes started inside ``_workers_ignore_ctrl_c`` inherit an ignored
    SIGINT (a terminal's Ctrl-C reaches them too; the parent alone stops the run), and the
    parent's handler is restored afterwards."""
    import signal
    import subprocess
    import sys

    from reference.evaluation.grid.runner import _workers_ignore_ctrl_c

    before = signal.getsignal(signal.SIGINT)
    probe = "import signal; print(signal.getsignal(signal.SIGINT) is signal.SIG_IGN)"
    with _workers_ignore_ctrl_c():
        inside = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                                timeout=CHILD_TIMEOUT)
    assert inside.stdout.strip() == "True"
    assert signal.getsignal(signal.SIGINT) is before
    outside = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                             timeout=CHILD_TIMEOUT)
    assert outside.stdout.strip() == ("True" if before is signal.SIG_IGN else "False")


def test_summary_orders_parameter_values_as_numbers_and_names_what_size_counts() -> None:
    """A grid over SGT's delta reads 1e-05, 0.001, 0.1 (their text order is 0.001, 0.1,
    1e-05); the size metric of a tree is shown as nodes."""
    from reference.evaluation.cli.grid import summary_text

    rows = []
    for delta in (0.001, 0.1, 1e-05, 1e-07):
        for metric, value in (("rmse", 1.0 / (1 + delta)), ("size", 10.0)):
            for rep in (0, 1):
                rows.append({"cell": f"c{delta}", "model": "sgt",
                             "params": json.dumps({"delta": delta, "lam": 0.1}),
                             "stream": "friedman", "n": 100, "rep": rep, "data_seed": rep,
                             "model_seed": rep, "metric": metric, "value": value + rep})
    table = grid.summarize(pd.DataFrame(rows, columns=list(grid.COLUMNS)))
    deltas = [json.loads(p)["delta"] for p in table["params"]]
    assert deltas == sorted(deltas) and deltas[0] == 1e-07 and deltas[-1] == 0.1
    text = summary_text(table)
    assert "size (nodes)" in text and "rmse" in text
    shown = [line.split()[1] for line in text.splitlines() if " rmse " in line]
    assert shown == ["delta=1e-07", "delta=1e-05", "delta=0.001", "delta=0.1"]

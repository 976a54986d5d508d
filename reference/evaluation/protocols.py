"""Evaluation protocols of the experiment grid: how one cell turns into metrics.

A protocol is a function ``(context) -> {metric: value}``; the grid
(:mod:`reference.evaluation.grid`) calls the one its experiment names, with the cell's model, its
parameters, the stream and the cell's seeds. Three protocols exist:

``"prequential"`` (default)
    Test-then-train over the stream ([DOC15, Alg. 5], :func:`reference.evaluation.prequential.
    prequential`); the metrics of its final summary (with the model size, ``n_balls_``,
    ``n_nodes_`` or ``n_stored_``, when the model has one). With a ``burn_in`` parameter ``b``
    the first ``b`` examples are learned without being scored (as AG13 §5.1 fits 500
    points before measuring the one-step error) and the metrics are ``rmse`` and ``mae``
    (regression) or ``accuracy`` (classification) over the remaining steps. With
    ``learn_until = k`` the model learns only the first ``k`` examples and then only
    predicts (AG13 §5.2's FULL: 30,000 points, "no update thereafter").
    ``rate`` overrides the experiment's label rate for the cell (DOC15's online
    sub-sampling, Alg. 5: every example is predicted, learned with probability ``rate``;
    the coins come from the data seed, so every model of a repetition learns the same
    examples). ``budget_fraction = f`` sets the model's ``budget`` to ``round(f n)`` for a
    stream of ``n`` examples (DOC15's AUTO-ADJ-FIX, Tables II-III); without it (and
    without ``budget``) ABACOC runs with the paper's unbounded cover, ``budget = None``,
    not the library's default budget. ``scale = "minmax"``
    maps every input column onto [0, 1] by its range over the stream first;
    ``"minmax-l2"`` then also divides every row by its Euclidean norm (DOC15 §IV-A gives
    BASE and BASE-ADJ unit-norm inputs so that ``C = 1``).

``"ag13-retirement"``
    The hold-out designs of [AG13, §4.5]: a model is trained on the stream according to a
    ``variant`` parameter, then scored on held-out data. ``ORIG`` learns only the first
    ``pool`` points; ``ORAND``, ``OALC`` and ``OENT`` learn the whole stream with an active
    pool of ``pool`` points and random, ALC or entropy retirement; ``FULL`` learns the
    whole stream. On the ``friedman`` stream the test set is ``test_n`` fresh noiseless
    points (AG13 §4.5.1: 1,000) and the metric is the RMSE against the truth; on a real
    data set (``csv:<name>``) the rows are shuffled with the data seed and split into
    ``folds`` folds, the repetition's fold is the test set (AG13 §4.5.2: 5-fold CV), the
    training rows stream in shuffled order, ``pool`` is a fraction of them when below 1,
    and the metric is the misclassification rate (classification) or RMSE. The remaining
    parameters go to the model (e.g. ``n_particles``, ``leaf``).

``"trajectory"``
    How a model changes along the stream (AG13 §5.1, Fig. 5: average tree height over
    time). The model learns the stream in order, ``every`` rows at a time (default 1000);
    after each block the statistics named in ``record`` (comma-separated; default
    ``"mean_height"``) are read from the model's ``tree_stats()`` or, for a size, from
    ``n_balls_`` / ``n_nodes_``. The metrics are ``"<statistic>@<t>"``, ``t`` the rows
    learned so far (e.g. ``"mean_height@1000"``); :func:`trajectory_frame` turns them into
    a table with a time column.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from reference.evaluation.catalog import (
    MODELS,
    SIZE_ATTRIBUTES,
    build_model,
    class_list,
    import_backend,
    make_stream,
    model_class,
)

__all__ = ["Context", "PROTOCOLS", "ProtocolError", "trajectory_frame"]


class ProtocolError(ValueError):
    """A cell whose parameters do not fit its protocol."""


@dataclass(frozen=True)
class Context:
    """What a protocol gets for one cell."""

    model: str
    params: Mapping[str, Any]
    stream: str
    n: int
    shuffle: bool
    rep: int
    data_seed: int
    model_seed: int
    backend: str
    rate: float


def _data(ctx: Context) -> tuple[str, Any, Any]:
    task, (X, y) = make_stream(ctx.stream, ctx.n, ctx.data_seed % (2**31), None)
    if ctx.shuffle:
        order = np.random.default_rng(ctx.data_seed).permutation(len(y))
        X, y = X[order], y[order]
    return task, X[: ctx.n], y[: ctx.n]


def _model(ctx: Context, task: str, y: Any, params: Mapping[str, Any]) -> Any:
    cls = model_class(ctx.model, import_backend(ctx.backend))
    return build_model(cls, MODELS[ctx.model], ctx.model_seed % (2**31), class_list(task, y),
                  dict(params))


class LearnFirst:
    """A model that learns only the first ``k`` examples it is given, then only predicts.

    Every other attribute is the wrapped model's.
    """

    def __init__(self, model: Any, k: int) -> None:
        self.model = model
        self.k = k
        self.seen = 0

    def learn_one(self, x: Any, y: Any) -> None:
        if self.seen < self.k:
            self.model.learn_one(x, y)
        self.seen += 1

    def __getattr__(self, name: str) -> Any:
        return getattr(self.model, name)


def _minmax(X: Any) -> Any:
    """Every column mapped onto [0, 1] by its minimum and maximum over the stream."""
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return (X - lo) / span


def prequential_protocol(ctx: Context) -> dict[str, float]:
    """Test-then-train over the stream; every metric of the final summary."""
    from reference.evaluation.prequential import prequential

    params = dict(ctx.params)
    burn_in = int(params.pop("burn_in", 0))
    learn_until = params.pop("learn_until", None)
    rate = float(params.pop("rate", ctx.rate))
    budget_fraction = params.pop("budget_fraction", None)
    scale = params.pop("scale", None)
    task, X, y = _data(ctx)
    if scale in ("minmax", "minmax-l2"):
        X = _minmax(X)
        if scale == "minmax-l2":
            norm = np.sqrt((X * X).sum(axis=1))
            X = X / np.where(norm > 0.0, norm, 1.0)[:, None]
    elif scale is not None:
        raise ProtocolError(f"scale must be 'minmax', 'minmax-l2' or absent, got {scale!r}")
    if budget_fraction is not None:
        params["budget"] = max(1, int(round(float(budget_fraction) * len(y))))
    elif MODELS[ctx.model].class_name == "ABACOCClassifier":
        params.setdefault("budget", None)   # the paper's unbounded cover [ABACOC-SPEC §19]
    model = _model(ctx, task, y, params)
    if learn_until is not None:
        model = LearnFirst(model, int(learn_until))
    size = next((a for a in SIZE_ATTRIBUTES if hasattr(model, a)), None)
    result = prequential(model, X, y, task=task, rate=rate,
                         label_seed=ctx.data_seed % (2**31), size=size, progress=False)
    if burn_in <= 0:
        return {k: float(v) for k, v in result.final.items()}
    if burn_in >= len(result.y_true):
        raise ProtocolError(f"burn_in {burn_in} leaves no step of {len(result.y_true)} to score")
    truth, pred = result.y_true[burn_in:], result.y_pred[burn_in:]
    if task == "classification":
        return {"accuracy": float(np.mean(pred == truth))}
    err = np.asarray(pred, dtype=float) - np.asarray(truth, dtype=float)
    return {"rmse": float(np.sqrt(np.mean(err * err))), "mae": float(np.mean(np.abs(err)))}


VARIANTS = {"ORIG": None, "ORAND": "random", "OALC": "alc", "OENT": "entropy", "FULL": None}


def ag13_retirement_protocol(ctx: Context) -> dict[str, float]:
    """[AG13, §4.5]: ORIG / ORAND / OALC / OENT / FULL trained on the stream, scored on
    held-out data (see the module docstring)."""
    params = dict(ctx.params)
    variant = params.pop("variant", None)
    if variant not in VARIANTS:
        raise ProtocolError(f"ag13-retirement needs variant in {sorted(VARIANTS)}, "
                            f"got {variant!r}")
    pool = params.pop("pool", 100)
    test_n = int(params.pop("test_n", 1000))
    folds = int(params.pop("folds", 5))
    if ctx.stream == "friedman":
        from reference.evaluation.datasets import friedman1

        task = "regression"
        X, y = friedman1(ctx.n, seed=ctx.data_seed % (2**31))
        Xt, yt = friedman1(test_n, noise=0.0, seed=(ctx.data_seed + 1) % (2**31))
    elif ctx.stream.startswith("csv:"):
        task, (X_all, y_all) = make_stream(ctx.stream, ctx.n, 0, None)
        order = np.random.default_rng(ctx.data_seed).permutation(len(y_all))
        fold = np.arange(len(order)) % folds == ctx.rep % folds
        test, train = order[fold], order[~fold]
        X, y, Xt, yt = X_all[train], y_all[train], X_all[test], y_all[test]
    else:
        raise ProtocolError("ag13-retirement runs on 'friedman' or a csv:<name> data set")
    w = int(round(pool * len(y))) if pool < 1 else int(pool)
    if variant in ("ORAND", "OALC", "OENT"):
        params.update(active_size=w, retirement=VARIANTS[variant])
        if variant == "OALC" and ctx.stream == "friedman":
            params.setdefault("approx", True)
            params.setdefault("rect", [(0.0, 1.0)] * X.shape[1])
    model = _model(ctx, task, y, params)
    rows = slice(0, w) if variant == "ORIG" else slice(None)
    model.partial_fit(X[rows], y[rows])
    pred = np.asarray(model.predict(Xt))
    if task == "classification":
        return {"misclassification": float(np.mean(pred != yt))}
    return {"rmse": float(np.sqrt(np.mean((pred - yt) ** 2)))}


def _statistic(model: Any, name: str) -> float:
    if name in ("n_balls_", "n_nodes_", "n_stored_"):
        return float(getattr(model, name))
    stats = model.tree_stats() if hasattr(model, "tree_stats") else {}
    if name not in stats:
        raise ProtocolError(f"trajectory cannot record {name!r} of {type(model).__name__}; "
                            f"available: {sorted(stats) + ['n_balls_', 'n_nodes_']}")
    return float(stats[name])


def trajectory_protocol(ctx: Context) -> dict[str, float]:
    """Learn the stream in order and record model statistics every ``every`` rows
    (see the module docstring)."""
    params = dict(ctx.params)
    every = int(params.pop("every", 1000))
    record = [r.strip() for r in str(params.pop("record", "mean_height")).split(",")]
    if every < 1 or not all(record):
        raise ProtocolError("trajectory needs every >= 1 and non-empty statistic names")
    task, X, y = _data(ctx)
    model = _model(ctx, task, y, params)
    out: dict[str, float] = {}
    for start in range(0, len(y), every):
        stop = min(start + every, len(y))
        model.partial_fit(X[start:stop], y[start:stop])
        for name in record:
            out[f"{name}@{stop}"] = _statistic(model, name)
    return out


def trajectory_frame(results: Any) -> Any:
    """Split a trajectory grid's ``"<statistic>@<t>"`` metrics into ``statistic`` and an
    integer ``t`` column (a copy of the rows, sorted by ``t``)."""
    frame = results.copy()
    parts = frame["metric"].str.rsplit("@", n=1, expand=True)
    frame["statistic"], frame["t"] = parts[0], parts[1].astype(int)
    return frame.sort_values(["statistic", "t"], kind="stable").reset_index(drop=True)


PROTOCOLS: dict[str, Callable[[Context], dict[str, float]]] = {
    "prequential": prequential_protocol,
    "ag13-retirement": ag13_retirement_protocol,
    "trajectory": trajectory_protocol,
}
"""Protocols by name, as an experiment's ``protocol`` key gives them."""

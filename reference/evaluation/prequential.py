"""Prequential (test-then-train) evaluation with optional label sub-sampling.

At every step ``t`` the model first predicts ``x_t`` (the test), the prediction is scored
against ``y_t``, and then the model learns ``(x_t, y_t)`` (the train) [DOC15, §VI;
AG13, §5]. With ``rate < 1`` the label is revealed for training only with probability
``rate``, as in the online sub-sampling protocol of [DOC15, Alg. 5]: every example is
still predicted and scored. The coin flips come from a *separate* generator
(``Rng(label_seed)``), so changing the rate never changes the model's own random stream.

Works with any learner that has ``learn_one(x, y)`` and ``predict_one(x)``; a classifier
that also has ``predict_proba_one(x)`` additionally gets AUC, H-measure (binary streams)
and the average log predictive density.

Public API (signatures):

- ``prequential(model, X, y=None, *, n=None, task=None, rate=1.0, label_seed=1,
  window=1000, n_points=200, pos_label=None, proba=None, log_density=None, size=None,
  progress=None, description=None) -> PrequentialResult``
- ``PrequentialResult``: ``t``, ``curves``, ``windowed``, ``final``, ``elapsed``,
  ``n_learned``, ``learned``, ``summary()``, ``curve(metric, windowed=False)``.
- ``ProgressBar(total, description="", enabled=True, stream=sys.stderr)``.

References
----------
[DOC15] R. De Rosa, F. Orabona and N. Cesa-Bianchi, "The ABACOC algorithm: a novel
approach for nonparametric classification of data streams", ICDM 2015, Algorithm 5.
[AG13] C. Anagnostopoulos and R. B. Gramacy, Entropy 15(12), 2013, §5.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import numpy as np
import numpy.typing as npt

from reference.evaluation import metrics
from reference.rng import Rng

__all__ = ["PrequentialResult", "ProgressBar", "prequential"]

FloatArray = npt.NDArray[np.float64]


class ProgressBar:
    """A one-line text progress bar on ``stderr`` (no dependency).

    Redraws at most every 0.1 s: ``description [#####.....]  52%  5200/10000  3.1k it/s``.

    Parameters
    ----------
    total : int
        Number of steps (0 or less: unknown, no bar drawn, only counts).
    description : str
        Text before the bar.
    enabled : bool
        False makes every method a no-op.
    stream : text file, default sys.stderr

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> bar = ProgressBar(10, "demo", stream=out)
    >>> for _ in range(10):
    ...     bar.update()
    >>> bar.close()
    >>> "10/10" in out.getvalue()
    True
    """

    WIDTH = 30

    def __init__(
        self, total: int, description: str = "", enabled: bool = True, stream: TextIO | None = None
    ) -> None:
        self.total = total
        self.description = description
        self.enabled = enabled
        self.stream = sys.stderr if stream is None else stream
        self.count = 0
        self._start = time.perf_counter()
        self._last = -1.0

    def update(self, steps: int = 1) -> None:
        """Advance by ``steps``; redraw if 0.1 s passed since the last redraw."""
        self.count += steps
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self._last >= 0.1:
            self._last = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        elapsed = max(now - self._start, 1e-9)
        speed = self.count / elapsed
        if self.total > 0:
            frac = min(1.0, self.count / self.total)
            filled = int(frac * self.WIDTH)
            bar = "#" * filled + "." * (self.WIDTH - filled)
            left = (self.total - self.count) / speed if speed > 0 else math.inf
            eta = f"  eta {left:5.1f}s" if math.isfinite(left) else ""
            text = f"{self.description} [{bar}] {100 * frac:3.0f}%  {self.count}/{self.total}"
        else:
            text, eta = f"{self.description} {self.count}", ""
        self.stream.write(f"\r{text}  {_human(speed)} it/s{eta}   ")
        self.stream.flush()

    def close(self) -> None:
        """Draw the final state and end the line."""
        if not self.enabled:
            return
        self._draw(time.perf_counter())
        self.stream.write("\n")
        self.stream.flush()


def _human(value: float) -> str:
    for unit, scale in (("M", 1e6), ("k", 1e3)):
        if value >= scale:
            return f"{value / scale:.1f}{unit}"
    return f"{value:.0f}"


@dataclass
class PrequentialResult:
    """Outcome of :func:`prequential`: learning curves as arrays and final metrics.

    Attributes
    ----------
    task : {"regression", "classification"}
    n : int
        Number of examples predicted (and scored).
    n_learned : int
        Number of examples whose label was revealed and learned.
    elapsed : float
        Seconds spent in the model's predict and learn calls (scoring excluded).
    t : ndarray of int
        Curve points: number of examples scored so far (1-based, last = ``n``).
    curves : dict of str to ndarray
        Cumulative metric at each point of ``t`` (over examples ``1..t``).
    windowed : dict of str to ndarray
        The same metrics over the last ``window`` examples before each point (NaN where
        undefined, e.g. AUC on a window holding one class).
    window : int
        Window length of ``windowed``.
    final : dict of str to float
        Metrics over the whole run (``curves`` at ``t = n``, and AUC/H on all scores).
    y_true, y_pred : ndarray
        Labels/targets and predictions, one per step.
    scores : ndarray or None
        Probability of ``pos_label`` (binary classification with probabilities).
    log_density : ndarray or None
        ``log p(y_t | past)`` per step, when available.
    learned : ndarray of bool
        Whether step ``t`` was learned (always True with ``rate = 1``).
    sizes : ndarray or None
        Model size after each step (when ``size`` was given).
    pos_label : hashable or None
        The positive class of ``scores``.

    Examples
    --------
    >>> from reference.evaluation.baselines import RunningMean
    >>> from reference.evaluation.datasets import parabola
    >>> X, y = parabola(400, seed=1)
    >>> result = prequential(RunningMean(), X, y, n_points=4)
    >>> result.t.tolist()
    [1, 134, 267, 400]
    >>> t, rmse = result.curve("rmse")
    >>> bool(rmse[-1] == result.final["rmse"])
    True
    """

    task: str
    n: int
    n_learned: int
    elapsed: float
    t: npt.NDArray[np.int64]
    curves: dict[str, FloatArray]
    windowed: dict[str, FloatArray]
    window: int
    final: dict[str, float]
    y_true: npt.NDArray[Any]
    y_pred: npt.NDArray[Any]
    scores: FloatArray | None = None
    log_density: FloatArray | None = None
    learned: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, dtype=bool))
    sizes: FloatArray | None = None
    pos_label: Hashable | None = None

    def curve(
        self, metric: str, windowed: bool = False
    ) -> tuple[npt.NDArray[np.int64], FloatArray]:
        """``(t, values)`` of one learning curve (cumulative, or windowed).

        Raises ``KeyError`` naming the available metrics if ``metric`` is unknown.
        """
        table = self.windowed if windowed else self.curves
        if metric not in table:
            raise KeyError(f"no curve {metric!r}; available: {sorted(table)}")
        return self.t, table[metric]

    @property
    def time_per_example(self) -> float:
        """Seconds per example of the predict-and-learn loop."""
        return self.elapsed / self.n if self.n else math.nan

    def summary(self) -> str:
        """A small text table of the final metrics and timings."""
        rows = [("examples", str(self.n)), ("learned", str(self.n_learned))]
        for name, value in self.final.items():
            rows.append((name, f"{value:.6g}"))
        rows.append(("elapsed [s]", f"{self.elapsed:.3f}"))
        rows.append(("time/example [us]", f"{1e6 * self.time_per_example:.2f}"))
        width = max(len(name) for name, _ in rows)
        lines = [f"{name:<{width}}  {value}" for name, value in rows]
        return "\n".join(lines)


def _stream(X: Any, y: Any, n: int | None) -> tuple[Iterable[tuple[Any, Any]], int]:
    if y is None:
        if n is None:
            try:
                n = len(X)
            except TypeError:
                raise ValueError(
                    "X is an iterator of (x, y) pairs without a length: pass n="
                ) from None
        return X, n
    if isinstance(X, np.ndarray):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D, got {X.ndim}-D")
        rows: Sequence[Any] = X.tolist()
    else:
        rows = list(X)
    labels = np.asarray(y).tolist() if isinstance(y, np.ndarray) else list(y)
    if len(rows) != len(labels):
        raise ValueError(f"X has {len(rows)} rows but y has {len(labels)}")
    total = len(rows) if n is None else min(n, len(rows))
    return zip(rows, labels, strict=True), total


def _curve_points(n: int, n_points: int) -> npt.NDArray[np.int64]:
    points = np.unique(np.round(np.linspace(1, n, min(n_points, n))).astype(np.int64))
    return points


def _prefix_means(
    values: FloatArray, t: npt.NDArray[np.int64], window: int
) -> tuple[FloatArray, FloatArray]:
    """Cumulative mean over ``values[:t]`` and mean over ``values[t-window:t]`` per point.

    NaN entries are skipped (a step without a value); a ``-inf`` entry makes every mean
    that contains it ``-inf`` (a log density of an impossible outcome); a mean over no
    value is NaN.
    """
    valid = ~np.isnan(values)
    impossible = values == -np.inf
    finite = np.where(valid & ~impossible, values, 0.0)
    cs = np.concatenate(([0.0], np.cumsum(finite)))
    cn = np.concatenate(([0], np.cumsum(valid)))
    ci = np.concatenate(([0], np.cumsum(impossible)))

    def mean(lo: npt.NDArray[np.int64]) -> FloatArray:
        count = cn[t] - cn[lo]
        with np.errstate(invalid="ignore", divide="ignore"):
            out = (cs[t] - cs[lo]) / count
        out = np.where(count == 0, np.nan, out)
        return np.where(ci[t] - ci[lo] > 0, -np.inf, out)

    return mean(np.zeros_like(t)), mean(np.maximum(t - window, 0))


def _binary_metric(
    fn: Callable[..., float], positive: npt.NDArray[np.bool_], scores: FloatArray
) -> float:
    """``fn(positive, scores)`` or NaN when only one class is present."""
    count = int(positive.sum())
    if count == 0 or count == positive.size:
        return math.nan
    return fn(positive, scores, pos_label=True)


def prequential(
    model: Any,
    X: Any,
    y: Any = None,
    *,
    n: int | None = None,
    task: str | None = None,
    rate: float = 1.0,
    label_seed: int = 1,
    window: int = 1000,
    n_points: int = 200,
    pos_label: Hashable | None = None,
    proba: bool | None = None,
    log_density: Callable[[Any, Any, Any], float] | None = None,
    size: Callable[[Any], float] | str | None = None,
    progress: bool | None = None,
    description: str | None = None,
) -> PrequentialResult:
    """Test-then-train evaluation of ``model`` on a stream [DOC15, Alg. 5].

    For ``t = 1, ..., n``: predict ``x_t`` (and its class probabilities), score the
    prediction against ``y_t``, then, if ``rate == 1`` or ``u_t < rate`` with ``u_t``
    drawn from ``Rng(label_seed)``, call ``model.learn_one(x_t, y_t)``.

    Parameters
    ----------
    model : learner
        Anything with ``learn_one(x, y)`` and ``predict_one(x)``; trained in place.
    X : 2-D array_like, sequence of rows (or mappings), or iterable of ``(x, y)``
        The inputs; if ``y`` is None, ``X`` yields ``(x, y)`` pairs (e.g.
        ``reference.evaluation.datasets.iter_sea()``; pass ``n`` for an endless iterator).
    y : array_like, optional
        Targets or labels, one per row of ``X``.
    n : int, optional
        Use only the first ``n`` examples.
    task : {"regression", "classification"}, optional
        Default: classification if the model has ``predict_proba_one``.
    rate : float in (0, 1], default 1.0
        Probability that a label is revealed for training ([DOC15, Alg. 5]).
    label_seed : int, default 1
        Seed of the protocol's own generator for the label coin flips.
    window : int, default 1000
        Length of the sliding window of ``windowed`` curves.
    n_points : int, default 200
        Number of points of the learning curves (evenly spread, last at ``n``).
    pos_label : hashable, optional
        Positive class for AUC/H-measure on a binary stream (default: the larger of the
        two labels, i.e. 1 for 0/1 labels).
    proba : bool, optional
        Call ``predict_proba_one`` after ``predict_one`` (default: if the model has it).
    log_density : callable ``(model, x, y) -> float``, optional
        Log predictive density of ``y`` given the past, called before learning. Default:
        classifiers with probabilities use ``log p(y_t)`` from ``predict_proba_one``;
        a regression model with a ``log_marginal_likelihood_`` attribute (the running
        sum of one-step log predictive densities, e.g. the dynamic trees) uses its
        increment during ``learn_one`` (NaN, i.e. skipped, for steps not learned).
    size : callable or attribute name, optional
        Model size recorded after every step (e.g. ``"n_balls_"``).
    progress : bool, optional
        Progress bar on stderr; default: when stderr is a terminal and ``n >= 10000``.
    description : str, optional
        Text of the progress bar (default: the model's class name).

    Returns
    -------
    PrequentialResult

    Notes
    -----
    Random draws: with ``rate < 1``, one ``uniform()`` per step from ``Rng(label_seed)``,
    after the prediction; none with ``rate == 1``. The model's generator is untouched.

    A ``None`` prediction (an abstention) counts as a mistake. The average log
    predictive density (``alpd``) skips steps whose ``predict_proba_one`` is empty (a
    model that has seen nothing), and is ``-inf`` once a label had probability 0. For
    binary streams the score of an example is ``predict_proba_one(x).get(pos_label, 0.0)``.

    Examples
    --------
    >>> from reference.evaluation.baselines import MajorityClass
    >>> from reference.evaluation.datasets import sea
    >>> X, y = sea(2000, seed=1)
    >>> result = prequential(MajorityClass(), X, y, rate=0.5, label_seed=3)
    >>> sorted(result.final)
    ['accuracy', 'alpd', 'auc', 'h_measure']
    >>> 900 < result.n_learned < 1100
    True
    """
    if not (0.0 < rate <= 1.0):
        raise ValueError(f"rate must be in (0, 1], got {rate!r}")
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise ValueError(f"window must be an int >= 1, got {window!r}")
    if isinstance(n_points, bool) or not isinstance(n_points, int) or n_points < 1:
        raise ValueError(f"n_points must be an int >= 1, got {n_points!r}")
    if task is None:
        task = "classification" if hasattr(model, "predict_proba_one") else "regression"
    if task not in ("regression", "classification"):
        raise ValueError(f"task must be 'regression' or 'classification', got {task!r}")
    classification = task == "classification"
    use_proba = classification and (hasattr(model, "predict_proba_one") if proba is None else proba)
    size_fn: Callable[[Any], float] | None
    if isinstance(size, str):
        attribute = size

        def size_fn(m: Any) -> float:
            return float(getattr(m, attribute))
    else:
        size_fn = size

    track_lml = (
        log_density is None and not classification and hasattr(model, "log_marginal_likelihood_")
    )
    rows, total = _stream(X, y, n)
    if total < 1:
        raise ValueError("empty stream: need at least one example")
    if progress is None:
        progress = total >= 10000 and sys.stderr.isatty()
    bar = ProgressBar(total, description or type(model).__name__, enabled=progress)
    label_rng = Rng(label_seed) if rate < 1.0 else None

    y_true: list[Any] = []
    y_pred: list[Any] = []
    probas: list[Mapping[Hashable, float]] = []
    log_dens: list[float] = []
    learned = np.zeros(total, dtype=bool)
    sizes = np.zeros(total, dtype=np.float64) if size_fn is not None else None
    elapsed = 0.0
    clock = time.perf_counter
    count = 0
    for x, target in rows:
        if count >= total:
            break
        start = clock()
        guess = model.predict_one(x)
        distribution = model.predict_proba_one(x) if use_proba else None
        elapsed += clock() - start
        if log_density is not None:
            log_dens.append(float(log_density(model, x, target)))
        elif distribution is not None:
            # an empty distribution (nothing learned yet) gives no density: skipped
            log_dens.append(
                metrics.class_log_density(distribution, target) if distribution else math.nan
            )
        reveal = label_rng is None or label_rng.uniform() < rate
        if reveal:
            before = model.log_marginal_likelihood_ if track_lml else 0.0
            start = clock()
            model.learn_one(x, target)
            elapsed += clock() - start
            learned[count] = True
            if track_lml:
                log_dens.append(float(model.log_marginal_likelihood_ - before))
        elif track_lml:
            log_dens.append(math.nan)
        if sizes is not None and size_fn is not None:
            sizes[count] = size_fn(model)
        y_true.append(target)
        y_pred.append(guess)
        if distribution is not None:
            probas.append(distribution)
        count += 1
        bar.update()
    bar.close()
    if count < total:
        raise ValueError(f"the stream ended after {count} examples, expected {total}")

    t = _curve_points(total, n_points)
    curves: dict[str, FloatArray] = {}
    windowed: dict[str, FloatArray] = {}
    final: dict[str, float] = {}
    scores: FloatArray | None = None
    if classification:
        hits = np.asarray(
            [
                1.0 if (g is not None and g == v) else 0.0
                for g, v in zip(y_pred, y_true, strict=True)
            ]
        )
        curves["accuracy"], windowed["accuracy"] = _prefix_means(hits, t, window)
        labels = sorted(set(y_true), key=repr) if len(set(y_true)) <= 2 else []
        if use_proba and len(labels) == 2:
            if pos_label is None:
                try:
                    pos_label = max(labels)
                except TypeError:
                    pos_label = labels[-1]
            scores = np.asarray([float(p.get(pos_label, 0.0)) for p in probas], dtype=np.float64)
            _binary_curves(y_true, scores, pos_label, t, window, curves, windowed)
    else:
        truth = np.asarray(y_true, dtype=np.float64)
        guesses = np.asarray(y_pred, dtype=np.float64)
        diff = truth - guesses
        mse_c, mse_w = _prefix_means(diff * diff, t, window)
        curves["rmse"], windowed["rmse"] = np.sqrt(mse_c), np.sqrt(mse_w)
        curves["mae"], windowed["mae"] = _prefix_means(np.abs(diff), t, window)
    dens: FloatArray | None = None
    if log_dens:
        dens = np.asarray(log_dens, dtype=np.float64)
        curves["alpd"], windowed["alpd"] = _prefix_means(dens, t, window)
    for name, values in curves.items():
        final[name] = float(values[-1])
    if scores is not None:
        positive = np.asarray([v == pos_label for v in y_true], dtype=bool)
        final["auc"] = _binary_metric(metrics.auc, positive, scores)
        final["h_measure"] = _binary_metric(metrics.h_measure, positive, scores)
    if sizes is not None:
        curves["size"] = sizes[t - 1]
        windowed["size"] = sizes[t - 1]
        final["size"] = float(sizes[-1])
        final["max_size"] = float(sizes.max())
    return PrequentialResult(
        task=task,
        n=total,
        n_learned=int(learned.sum()),
        elapsed=elapsed,
        t=t,
        curves=curves,
        windowed=windowed,
        window=window,
        final=final,
        y_true=np.asarray(y_true) if not classification else _object_or_plain(y_true),
        y_pred=np.asarray(y_pred, dtype=np.float64)
        if not classification
        else _object_or_plain(y_pred),
        scores=scores,
        log_density=dens,
        learned=learned,
        sizes=sizes,
        pos_label=pos_label,
    )


def _object_or_plain(values: list[Any]) -> npt.NDArray[Any]:
    if any(v is None for v in values):
        return np.asarray(values, dtype=object)
    return np.asarray(values)


def _binary_curves(
    y_true: list[Any],
    scores: FloatArray,
    pos_label: Hashable,
    t: npt.NDArray[np.int64],
    window: int,
    curves: dict[str, FloatArray],
    windowed: dict[str, FloatArray],
) -> None:
    """AUC cumulative and windowed, H-measure windowed, at the curve points.

    The cumulative H-measure curve is omitted (its convex hull over a long prefix is
    costly at every point); the final H-measure is in ``final``.
    """
    positive = np.asarray([v == pos_label for v in y_true], dtype=bool)
    auc_c = np.full(t.size, math.nan)
    auc_w = np.full(t.size, math.nan)
    h_w = np.full(t.size, math.nan)
    for i, point in enumerate(t.tolist()):
        auc_c[i] = _binary_metric(metrics.auc, positive[:point], scores[:point])
        lo = max(0, point - window)
        auc_w[i] = _binary_metric(metrics.auc, positive[lo:point], scores[lo:point])
        h_w[i] = _binary_metric(metrics.h_measure, positive[lo:point], scores[lo:point])
    curves["auc"] = auc_c
    windowed["auc"] = auc_w
    windowed["h_measure"] = h_w

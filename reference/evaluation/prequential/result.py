"""The outcome of a prequential run: learning curves, final metrics, per-step records.

:func:`score_run` turns what the loop of :func:`reference.evaluation.prequential.prequential`
recorded (truths, predictions, probabilities, log densities, sizes) into a
:class:`PrequentialResult`: cumulative and windowed curves at evenly spread points and
the metrics over the whole run.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from reference.evaluation import metrics

__all__ = ["ALPD_MEANING", "PrequentialResult", "score_run"]

FloatArray = npt.NDArray[np.float64]

ALPD_MEANING = (
    "alpd, the average log predictive density, is the mean over the steps of "
    "log p(y_t|past), the log of the probability the model gave the true label before "
    "learning it."
)
"""What ``alpd`` means, for notes under tables that show it (``-inf``: some step gave the
true label probability 0)."""


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
    >>> from reference.evaluation.prequential import prequential
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

    def summary(self, wall: float | None = None) -> str:
        """A small text table of the final metrics and timings.

        ``model time [s]`` is the time spent inside the model's ``predict_one`` and
        ``learn_one`` (what ``time/example`` divides); ``wall`` (seconds), when given, is
        added as ``wall time [s]``: the whole run with the metrics and the progress bar,
        the time a progress line shows.

        An ``alpd`` of ``-inf`` is marked and explained in a note under the table (how
        many steps gave the true label probability 0, and the mean over the others).

        Examples
        --------
        >>> from reference.evaluation.baselines import MajorityClass
        >>> from reference.evaluation.prequential import prequential
        >>> result = prequential(MajorityClass(), [[0.0]] * 4, [0, 0, 1, 0])
        >>> text = result.summary()
        >>> print(text.splitlines()[4])
        alpd               -inf (see the note)
        >>> print(text[text.index("note:"):])  # doctest: +NORMALIZE_WHITESPACE
        note: alpd, the average log predictive density, is the mean over the steps of
        log p(y_t|past), the log of the probability the model gave the true label before
        learning it. It is -inf because that probability was 0 at 1 of 3 steps (a hard
        vote, or a label the model had not learned yet); over the other steps it is
        -0.202733.
        """
        rows = [("examples", str(self.n)), ("learned", str(self.n_learned))]
        notes = []
        for name, value in self.final.items():
            text = f"{value:.6g}"
            if name == "alpd" and value == -math.inf:
                text += " (see the note)"
                notes.append(self._alpd_note())
            rows.append((name, text))
        rows.append(("model time [s]", f"{self.elapsed:.3f}"))
        rows.append(("time/example [us]", f"{1e6 * self.time_per_example:.2f}"))
        if wall is not None:
            rows.append(("wall time [s]", f"{wall:.3f}"))
        width = max(len(name) for name, _ in rows)
        lines = [f"{name:<{width}}  {value}" for name, value in rows]
        lines += [textwrap.fill(note, 100, break_on_hyphens=False) for note in notes]
        return "\n".join(lines)

    def _alpd_note(self) -> str:
        """Why the final ``alpd`` is ``-inf``: the steps with probability 0, the rest's mean."""
        dens = self.log_density if self.log_density is not None else np.zeros(0)
        scored = dens[~np.isnan(dens)]
        impossible = int(np.sum(scored == -np.inf))
        rest = scored[np.isfinite(scored)]
        others = f"; over the other steps it is {float(np.mean(rest)):.6g}" if rest.size else ""
        return (
            f"note: {ALPD_MEANING} It is -inf because that probability was 0 at "
            f"{impossible} of {scored.size} steps (a hard vote, or a label the model had "
            f"not learned yet){others}."
        )


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


def score_run(
    task: str,
    y_true: list[Any],
    y_pred: list[Any],
    *,
    elapsed: float,
    learned: npt.NDArray[np.bool_],
    window: int,
    n_points: int,
    probas: list[Mapping[Hashable, float]] | None = None,
    pos_label: Hashable | None = None,
    log_densities: list[float] | None = None,
    sizes: FloatArray | None = None,
) -> PrequentialResult:
    """Learning curves and final metrics of a finished run, as a :class:`PrequentialResult`.

    Parameters
    ----------
    task : {"regression", "classification"}
    y_true, y_pred : list
        Truth and prediction of every step, in order.
    elapsed : float
        Seconds spent in the model's calls.
    learned : ndarray of bool
        Whether each step's label was learned.
    window, n_points : int
        Window of the windowed curves; number of curve points.
    probas : list of mappings, optional
        Predicted class distributions, one per step (classifiers with probabilities); a
        binary stream then also gets AUC and H-measure scores for ``pos_label`` (default:
        the larger of the two labels).
    log_densities : list of float, optional
        ``log p(y_t | past)`` per step (NaN: skipped); gives the ``alpd`` curve.
    sizes : ndarray, optional
        Model size after each step.

    Returns
    -------
    PrequentialResult

    Examples
    --------
    >>> result = score_run("regression", [1.0, 2.0, 3.0], [0.0, 2.0, 3.0], elapsed=0.0,
    ...                    learned=np.ones(3, dtype=bool), window=2, n_points=3)
    >>> result.final["mae"], result.windowed["mae"].tolist()
    (0.3333333333333333, [1.0, 0.5, 0.0])
    """
    total = len(y_true)
    classification = task == "classification"
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
        if probas is not None and len(labels) == 2:
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
    if log_densities:
        dens = np.asarray(log_densities, dtype=np.float64)
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

"""The prequential loop: for every example, predict, score, then learn.

:func:`prequential` is the loop itself, short enough to read in one go; everything
optional around it (label sub-sampling, log densities, model sizes, the progress bar,
timing) lives in the small :class:`_Run` helper below, and the curves and final metrics
are computed afterwards by :func:`reference.evaluation.prequential.result.score_run`.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from typing import Any

import numpy as np

from reference.evaluation import metrics
from reference.evaluation.prequential.progress import ProgressBar
from reference.evaluation.prequential.result import PrequentialResult, score_run
from reference.rng import Rng

__all__ = ["prequential"]


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
    progress: bool | ProgressBar | None = None,
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
    progress : bool or ProgressBar, optional
        Progress on stderr (a bar on a terminal, else a line every few seconds); default:
        when stderr is a terminal and ``n >= 10000``. A :class:`ProgressBar` is used as it
        is, and advanced once per step: its ``count`` tells a caller that catches
        ``KeyboardInterrupt`` how many steps were run.
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

    run = _Run(model, X, y, n=n, task=task, rate=rate, label_seed=label_seed, window=window,
               n_points=n_points, proba=proba, log_density=log_density, size=size,
               progress=progress, description=description)
    for x, target in run.rows:
        if run.count >= run.total:
            break
        guess, distribution = run.predict(x)  # 1. test: predict before seeing the label
        run.score(x, target, guess, distribution)  # 2. score the prediction against y_t
        if run.label_revealed():  # [DOC15, Alg. 5]: with rate < 1, a coin flip
            run.learn(x, target)  # 3. train: only now does the model see y_t
        else:
            run.skip()
        run.end_step()  # model size, progress bar
    return run.finish(pos_label)


def _stream(X: Any, y: Any, n: int | None) -> tuple[Iterable[tuple[Any, Any]], int]:
    """``(x, y)`` pairs of the inputs and the number of examples to use."""
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
        rows: Iterable[Any] = _array_items(X)
        n_rows = X.shape[0]
    else:
        rows = list(X)
        n_rows = len(rows)
    if isinstance(y, np.ndarray) and y.ndim >= 1:
        labels: Iterable[Any] = _array_items(y)
        n_labels = y.shape[0]
    else:
        labels = np.asarray(y).tolist() if isinstance(y, np.ndarray) else list(y)
        n_labels = len(labels)
    if n_rows != n_labels:
        raise ValueError(f"X has {n_rows} rows but y has {n_labels}")
    total = n_rows if n is None else min(n, n_rows)
    return zip(rows, labels, strict=True), total


def _array_items(a: np.ndarray, size: int = 4096) -> Iterator[Any]:
    """The items of ``a`` along its first axis as plain Python values (``tolist``), made a
    block of ``size`` at a time: a long stream is never copied whole into lists."""
    for start in range(0, a.shape[0], size):
        yield from a[start:start + size].tolist()


def _check_options(rate: float, window: int, n_points: int) -> None:
    if not (0.0 < rate <= 1.0):
        raise ValueError(f"rate must be in (0, 1], got {rate!r}")
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise ValueError(f"window must be an int >= 1, got {window!r}")
    if isinstance(n_points, bool) or not isinstance(n_points, int) or n_points < 1:
        raise ValueError(f"n_points must be an int >= 1, got {n_points!r}")


def _size_function(size: Callable[[Any], float] | str | None) -> Callable[[Any], float] | None:
    """``size`` as a function of the model (an attribute name is read as a float)."""
    if not isinstance(size, str):
        return size
    attribute = size

    def size_fn(m: Any) -> float:
        return float(getattr(m, attribute))

    return size_fn


class _Run:
    """The state and the options of one prequential run, one method per part of a step.

    The options only add records or switch steps off; none changes what the model sees:
    the label coin flips come from their own generator ``Rng(label_seed)`` (drawn only
    when ``rate < 1``), and only the model's predict and learn calls are timed.
    """

    def __init__(
        self,
        model: Any,
        X: Any,
        y: Any,
        *,
        n: int | None,
        task: str | None,
        rate: float,
        label_seed: int,
        window: int,
        n_points: int,
        proba: bool | None,
        log_density: Callable[[Any, Any, Any], float] | None,
        size: Callable[[Any], float] | str | None,
        progress: bool | ProgressBar | None,
        description: str | None,
    ) -> None:
        _check_options(rate, window, n_points)
        if task is None:
            task = "classification" if hasattr(model, "predict_proba_one") else "regression"
        if task not in ("regression", "classification"):
            raise ValueError(f"task must be 'regression' or 'classification', got {task!r}")
        classification = task == "classification"
        self.model = model
        self.task = task
        self.rate = rate
        self.window = window
        self.n_points = n_points
        self.use_proba = classification and (
            hasattr(model, "predict_proba_one") if proba is None else proba
        )
        self.log_density_fn = log_density
        self.size_fn = _size_function(size)
        # the dynamic trees keep a running sum of one-step log predictive densities: its
        # increment during learn_one is log p(y_t | past)
        self.track_lml = log_density is None and not classification and hasattr(
            model, "log_marginal_likelihood_"
        )
        self.rows, self.total = _stream(X, y, n)
        if self.total < 1:
            raise ValueError("empty stream: need at least one example")
        if isinstance(progress, ProgressBar):
            self.bar = progress
        else:
            if progress is None:
                progress = self.total >= 10000 and sys.stderr.isatty()
            self.bar = ProgressBar(
                self.total, description or type(model).__name__, enabled=progress, unit="rows"
            )
        self.label_rng = Rng(label_seed) if rate < 1.0 else None
        self.y_true: list[Any] = []
        self.y_pred: list[Any] = []
        self.probas: list[Mapping[Hashable, float]] = []
        self.log_dens: list[float] = []
        self.learned = np.zeros(self.total, dtype=bool)
        self.sizes = np.zeros(self.total, dtype=np.float64) if self.size_fn is not None else None
        self.elapsed = 0.0
        self.count = 0

    def predict(self, x: Any) -> tuple[Any, Mapping[Hashable, float] | None]:
        """The model's prediction for ``x`` and, if used, its class distribution (timed)."""
        start = time.perf_counter()
        guess = self.model.predict_one(x)
        distribution = self.model.predict_proba_one(x) if self.use_proba else None
        self.elapsed += time.perf_counter() - start
        return guess, distribution

    def score(
        self, x: Any, target: Any, guess: Any, distribution: Mapping[Hashable, float] | None
    ) -> None:
        """Record the prediction, its truth and the log density of ``target`` before learning."""
        if self.log_density_fn is not None:
            self.log_dens.append(float(self.log_density_fn(self.model, x, target)))
        elif distribution is not None:
            # an empty distribution (nothing learned yet) gives no density: skipped
            self.log_dens.append(
                metrics.class_log_density(distribution, target) if distribution else math.nan
            )
        self.y_true.append(target)
        self.y_pred.append(guess)
        if distribution is not None:
            self.probas.append(distribution)

    def label_revealed(self) -> bool:
        """Whether the model may learn this example: always with ``rate = 1``, else a coin flip."""
        return self.label_rng is None or self.label_rng.uniform() < self.rate

    def learn(self, x: Any, target: Any) -> None:
        """``model.learn_one(x, target)``, timed (and its log-density increment, if tracked)."""
        before = self.model.log_marginal_likelihood_ if self.track_lml else 0.0
        start = time.perf_counter()
        self.model.learn_one(x, target)
        self.elapsed += time.perf_counter() - start
        self.learned[self.count] = True
        if self.track_lml:
            self.log_dens.append(float(self.model.log_marginal_likelihood_ - before))

    def skip(self) -> None:
        """A step whose label stays hidden: no learning, no log density."""
        if self.track_lml:
            self.log_dens.append(math.nan)

    def end_step(self) -> None:
        """Record the model size after the step and advance the progress bar."""
        if self.sizes is not None and self.size_fn is not None:
            self.sizes[self.count] = self.size_fn(self.model)
        self.count += 1
        self.bar.update()

    def finish(self, pos_label: Hashable | None) -> PrequentialResult:
        """Close the progress bar and score the run (the stream must not have run short)."""
        self.bar.close()
        if self.count < self.total:
            raise ValueError(f"the stream ended after {self.count} examples, expected {self.total}")
        return score_run(
            self.task,
            self.y_true,
            self.y_pred,
            elapsed=self.elapsed,
            learned=self.learned,
            window=self.window,
            n_points=self.n_points,
            probas=self.probas if self.use_proba else None,
            pos_label=pos_label,
            log_densities=self.log_dens,
            sizes=self.sizes,
        )

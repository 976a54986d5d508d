"""Learning curves of :func:`reference.evaluation.prequential.prequential` drawn with matplotlib.

matplotlib is imported only when a figure is drawn, and only through ``pyplot``'s
object-oriented API; without a display it falls back to the Agg backend, so figures can
be saved on headless machines.

Public API (signatures):

- ``plot_learning_curves(results, metrics=None, windowed=True, title=None, ax=None,
  figsize=None) -> matplotlib.figure.Figure``
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reference.evaluation.prequential import PrequentialResult

__all__ = ["plot_learning_curves"]

LABELS = {
    "rmse": "RMSE",
    "mae": "MAE",
    "accuracy": "accuracy",
    "auc": "AUC",
    "h_measure": "H-measure",
    "alpd": "average log predictive density",
    "size": "model size",
}


def _named(
    results: PrequentialResult | Mapping[str, PrequentialResult] | Sequence[PrequentialResult],
) -> list[tuple[str, PrequentialResult]]:
    if isinstance(results, PrequentialResult):
        return [("", results)]
    if isinstance(results, Mapping):
        return [(str(name), result) for name, result in results.items()]
    return [(f"run {i}", result) for i, result in enumerate(results)]


def plot_learning_curves(
    results: PrequentialResult | Mapping[str, PrequentialResult] | Sequence[PrequentialResult],
    metrics: Sequence[str] | str | None = None,
    windowed: bool = True,
    title: str | None = None,
    ax: Any = None,
    figsize: tuple[float, float] | None = None,
) -> Any:
    """Draw learning curves (metric against the number of examples seen).

    Parameters
    ----------
    results : PrequentialResult, mapping of name to result, or sequence of results
        One curve per result and metric; names label the legend.
    metrics : str or sequence of str, optional
        Which curves, one panel each (default: the first metric of the first result,
        i.e. RMSE for regression, accuracy for classification).
    windowed : bool, default True
        Plot the sliding-window curves (``result.windowed``), else the cumulative ones.
    title : str, optional
        Title of the figure.
    ax : matplotlib Axes, optional
        Draw the single requested metric into this Axes (its figure is returned).
    figsize : (float, float), optional
        Figure size in inches (default: 6 x 3.5 per panel).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from reference.evaluation.baselines import RunningMean
    >>> from reference.evaluation.datasets import friedman1
    >>> from reference.evaluation.prequential import prequential
    >>> X, y = friedman1(500, seed=0)
    >>> fig = plot_learning_curves({"mean": prequential(RunningMean(), X, y, window=100)})
    >>> fig.axes[0].get_ylabel()
    'RMSE (window 100)'
    """
    import matplotlib.pyplot as plt

    named = _named(results)
    if not named:
        raise ValueError("results is empty: nothing to plot")
    if metrics is None:
        first = named[0][1]
        table = first.windowed if windowed else first.curves
        metrics = [next(iter(table))]
    elif isinstance(metrics, str):
        metrics = [metrics]
    metrics = list(metrics)
    if ax is not None:
        if len(metrics) != 1:
            raise ValueError("ax= draws one metric; pass exactly one name in metrics")
        fig = ax.figure
        axes = [ax]
    else:
        size = figsize or (6.0, 3.5 * len(metrics))
        fig, grid = plt.subplots(len(metrics), 1, figsize=size, squeeze=False, sharex=True)
        axes = [row[0] for row in grid]
    for panel, metric in zip(axes, metrics, strict=True):
        drawn = False
        for name, result in named:
            table = result.windowed if windowed else result.curves
            if metric not in table:
                continue
            panel.plot(result.t, table[metric], label=name or None)
            drawn = True
        if not drawn:
            raise KeyError(f"no result has a {metric!r} curve")
        label = LABELS.get(metric, metric)
        window = named[0][1].window
        panel.set_ylabel(f"{label} (window {window})" if windowed and metric != "size" else label)
        panel.grid(True, alpha=0.3)
        if any(name for name, _ in named):
            panel.legend(loc="best", fontsize="small")
    axes[-1].set_xlabel("examples seen")
    if title:
        fig.suptitle(title)
    if ax is None:
        fig.tight_layout()
    return fig

"""The tutorials' key figures, as functions: one figure per function, for slides.

Every figure is computed from generated streams or from the data sets that ship with the
package (``bananas``, ``mcycle``), so it needs no network and no fetched data; with the
``fast`` backend the whole set takes a few tens of seconds. Each function takes a
``scale`` (1.0: the tutorial's sizes; smaller values shrink streams and particle counts
proportionally, for a quick preview or a test) and returns a
:class:`matplotlib.figure.Figure` built without ``pyplot``, so nothing global is touched
and the figure can be saved in any vector format. ``driftwood figures --out DIR`` writes
them all as SVG and PDF (:mod:`reference.evaluation.cli.figures`).

matplotlib is imported only when a figure is drawn: reading :data:`FIGURES` (the names and
descriptions, e.g. for ``--help``) costs nothing.

Public API (signatures):

- ``FIGURES: dict[str, FigureSpec]``: name -> (function, one-line description, tutorial).
- ``draw(name, scale=1.0) -> matplotlib.figure.Figure``.
- ``save(fig, stem, formats=("svg", "pdf")) -> list[Path]``: reproducible vector files
  (no creation date, fixed SVG ids).
- One function per figure: ``rng_uniform``, ``lockstep``, ``dt_parabola``, ``dt_mcycle``,
  ``sgt_friedman``, ``abacoc_covers``, ``retirement_parabola``, ``ag13_lambda``.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from reference.evaluation.datasets import (
    drifting_friedman,
    friedman1,
    load_csv,
    parabola,
)

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = [
    "FIGURES",
    "FORMATS",
    "FigureSpec",
    "abacoc_covers",
    "ag13_lambda",
    "draw",
    "dt_mcycle",
    "dt_parabola",
    "lockstep",
    "retirement_parabola",
    "rng_uniform",
    "save",
    "sgt_friedman",
]

FORMATS = ("svg", "pdf")
"""Vector formats written by default."""

STYLE: dict[str, Any] = {
    "font.size": 11.0,
    "axes.titlesize": 11.0,
    "axes.labelsize": 11.0,
    "legend.fontsize": 9.0,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "svg.hashsalt": "driftwood",  # fixed element ids: the same SVG bytes on every run
    "svg.fonttype": "path",  # text as outlines: the slide looks the same without the font
    "pdf.fonttype": 42,  # TrueType in PDF: text stays selectable and editable
}
"""matplotlib settings of every figure (slide-sized fonts, reproducible SVG)."""


def _backend() -> ModuleType:
    """``fast`` when it is built, else ``reference`` (same numbers, slower)."""
    try:
        return importlib.import_module("fast")
    except ImportError:
        return importlib.import_module("reference")


def _n(base: int, scale: float, minimum: int) -> int:
    """``base`` scaled, never below ``minimum``."""
    return max(minimum, int(round(base * scale)))


def _figure(width: float, height: float) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


# -- 01 determinism ------------------------------------------------------------------------


def rng_uniform(scale: float = 1.0) -> Figure:
    """xoshiro256**: ``uniform()`` histogram and the cost of ``below(n)``.

    Left: 200,000 draws of ``uniform()`` in 40 bins, with the expected count and a band of
    two binomial standard deviations (the axis spans five). Right: the expected number of
    raw outputs per ``below(n)``, ``2^k / n`` for the smallest mask ``2^k - 1 >= n - 1``
    (below 2 for every ``n``), against the number measured on 1,000 draws per ``n`` by the
    reference generator.
    """
    import reference

    backend = _backend()
    n_draws = _n(200_000, scale, 2000)
    rng = backend.Rng(2026)
    draws = np.array([rng.uniform() for _ in range(n_draws)])
    bins = 40
    counts, edges = np.histogram(draws, bins=bins, range=(0.0, 1.0))
    p = 1.0 / bins
    expected = n_draws * p
    sd = math.sqrt(n_draws * p * (1.0 - p))

    class CountingRng(reference.Rng):
        """The reference generator, counting raw outputs."""

        outputs = 0

        def next_u64(self) -> int:
            self.outputs += 1
            value: int = super().next_u64()
            return value

    sizes = np.arange(1, 131)
    per_size = _n(1000, scale, 50)
    measured = []
    for size in sizes:
        counting = CountingRng(11)
        for _ in range(per_size):
            counting.below(int(size))
        measured.append(counting.outputs / per_size)
    exact = [(1 << (int(size) - 1).bit_length()) / size for size in sizes]

    fig = _figure(10.0, 3.6)
    left, right = fig.subplots(1, 2)
    left.axhspan(expected - 2 * sd, expected + 2 * sd, color="0.5", alpha=0.25,
                 label="expected ± 2 s.d.")
    left.axhline(expected, color="k", lw=1)
    left.stairs(counts, edges, baseline=None, color="C0", lw=1.5, label="draws per bin")
    left.set_xlabel("uniform() value (40 bins)")
    left.set_ylabel(f"count of {n_draws:,} draws")
    left.set_ylim(expected - 5 * sd, expected + 5 * sd)
    left.set_title("uniform() = (out >> 11) · 2⁻⁵³")
    left.legend(loc="lower right")
    right.plot(sizes, exact, drawstyle="steps-mid", color="k", lw=1, label="2ᵏ/n (exact)")
    right.plot(sizes, measured, ".", color="C1", ms=4, label=f"measured ({per_size} draws)")
    right.axhline(2.0, color="C3", ls=":", lw=1)
    right.set_xlabel("n")
    right.set_ylabel("raw outputs per below(n)")
    right.set_title("below(n): bitmask rejection, fewer than 2 tries")
    right.legend(loc="lower right")
    return fig


def lockstep(scale: float = 1.0) -> Figure:
    """The two backends agree bit for bit: a dynamic tree learned by both, step by step.

    ``reference`` and ``fast`` ``DynamicTreeRegressor(n_particles=20, seed=5)`` learn the
    same 120 parabola points; after every step their full ``snapshot()`` is compared
    exactly. Top: the log marginal likelihood of both; bottom: the number of differing
    values in the snapshots (zero at every step).
    """
    import reference
    from reference.evaluation.catalog import import_backend
    from reference.evaluation.compare import first_difference

    n = _n(120, scale, 10)
    X, y = parabola(n, seed=3)
    fast = import_backend("fast")  # a UsageError saying how to build it if it is missing
    pair = [pkg.DynamicTreeRegressor(n_particles=20, seed=5) for pkg in (reference, fast)]
    lml: list[list[float]] = [[], []]
    differ = []
    for x, target in zip(X, y, strict=True):
        for model, path in zip(pair, lml, strict=True):
            model.learn_one(x, target)
            path.append(model.log_marginal_likelihood_)
        differ.append(0 if first_difference(pair[0].snapshot(), pair[1].snapshot()) is None
                      else 1)
    steps = np.arange(1, n + 1)
    fig = _figure(7.0, 4.2)
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=(3, 1))
    top.plot(steps, lml[0], color="C0", lw=2.5, label="reference (Python)")
    top.plot(steps, lml[1], color="C1", lw=1, ls="--", label="fast (C)")
    top.set_ylabel("log marginal likelihood")
    top.set_title("Same seed, same stream: the same numbers, bit for bit")
    top.legend()
    bottom.step(steps, differ, where="mid", color="C3")
    bottom.set_ylim(-0.5, 1.5)
    bottom.set_yticks([0, 1], ["equal", "differ"])
    bottom.set_ylabel("snapshot")
    bottom.set_xlabel("step (points learned)")
    return fig


# -- 02 dynamic trees ----------------------------------------------------------------------


def dt_parabola(scale: float = 1.0) -> Figure:
    """A dynamic tree's 1-d fit with 90% bands: the parabola of [AG13, Fig. 1].

    300 points of ``y = x + x^2 + e``, 1,000 constant-leaf particles; the band is the
    particle average of the per-particle 5% and 95% Student-t quantiles.
    """
    backend = _backend()
    X, y = parabola(_n(300, scale, 20), seed=1)
    particles = _n(1000, scale, 20)
    model = backend.DynamicTreeRegressor(n_particles=particles, seed=1)
    model.partial_fit(X, y)
    grid = np.linspace(-3, 2, 200).reshape(-1, 1)
    dist = model.predict_dist(grid)
    fig = _figure(7.0, 4.0)
    ax = fig.subplots()
    ax.scatter(X[:, 0], y, s=6, color="0.6", label="data")
    ax.plot(grid[:, 0], grid[:, 0] + grid[:, 0] ** 2, "k--", lw=1, label="truth")
    ax.plot(grid[:, 0], dist["mean"], color="C0", label="predictive mean")
    ax.fill_between(grid[:, 0], dist["q05"], dist["q95"], color="C0", alpha=0.25,
                    label="90% band")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_title(f"Dynamic tree, {len(y)} points, {particles} particles")
    ax.legend()
    return fig


def dt_mcycle(scale: float = 1.0) -> Figure:
    """Constant against linear leaves on the motorcycle data, with the log Bayes factor.

    The shipped ``mcycle`` data in the tutorial's fixed shuffle, 1,000 particles per model;
    the log Bayes factor sums the per-step log predictive densities after the larger
    ``nstart`` (6), as dynaTree's ``getBF`` does.
    """
    backend = _backend()
    Xm, ym = load_csv("mcycle", task="regression")
    order = np.argsort(np.sin(np.arange(len(ym)) * 12.9898) % 1.0)  # the tutorial's shuffle
    Xs, ys = Xm[order], ym[order]
    grid = np.linspace(Xm.min(), Xm.max(), 200).reshape(-1, 1)
    particles = _n(1000, scale, 20)
    fig = _figure(11.0, 4.0)
    axes = fig.subplots(1, 2, sharey=True)
    lpred = {}
    for ax, leaf in zip(axes, ["constant", "linear"], strict=True):
        model = backend.DynamicTreeRegressor(leaf=leaf, n_particles=particles, seed=2)
        model.partial_fit(Xs, ys)
        lpred[leaf] = np.array(model.lpred_)
        dist = model.predict_dist(grid)
        ax.scatter(Xm[:, 0], ym, s=6, color="0.6")
        ax.plot(grid[:, 0], dist["mean"], color="C1")
        ax.fill_between(grid[:, 0], dist["q05"], dist["q95"], color="C1", alpha=0.25)
        ax.set_title(f"{leaf} leaves: {model.tree_stats()['mean_leaves']:.1f} leaves on average")
        ax.set_xlabel("time (ms)")
    axes[0].set_ylabel("acceleration (g)")
    log_bf = float(np.sum(lpred["linear"][6:] - lpred["constant"][6:]))
    fig.suptitle(f"mcycle, {particles} particles: log Bayes factor linear vs constant "
                 f"{log_bf:.1f}")
    return fig


# -- 03 stochastic gradient trees ------------------------------------------------------------


def sgt_friedman(scale: float = 1.0) -> Figure:
    """SGT's prequential MAE on Friedman-10, with and without known feature ranges.

    The tutorial's stream: 100,000 rows of Friedman-1 with five irrelevant inputs; the
    running mean for scale. "Known ranges" gives the bins ``[0, 1]`` from the start instead
    of estimating them on the first 1,000 rows.
    """
    backend = _backend()
    n = _n(100_000, scale, 2000)
    X, y = friedman1(n, n_features=10, seed=1)
    steps = np.arange(1, n + 1)
    curves = {}
    for name, extra in [
        ("SGT (defaults)", {}),
        ("SGT, known ranges", {"feature_ranges": {i: (0.0, 1.0) for i in range(10)}}),
    ]:
        model = backend.SGTRegressor(**extra)
        curves[name] = np.cumsum(np.abs(model.progressive_predict(X, y) - y)) / steps
    running_mean = np.concatenate([[0.0], np.cumsum(y)[:-1] / steps[:-1]])
    curves["running mean"] = np.cumsum(np.abs(running_mean - y)) / steps
    fig = _figure(6.4, 3.8)
    ax = fig.subplots()
    for name, curve in curves.items():
        ax.plot(steps[99:], curve[99:], label=name)
    ax.set_xscale("log")
    ax.set_ylim(0, 8)
    ax.set_xlabel("instances")
    ax.set_ylabel("prequential MAE")
    ax.set_title(f"Stochastic gradient tree on Friedman-10 ({n:,} rows)")
    ax.legend()
    return fig


# -- 04 ABACOC -----------------------------------------------------------------------------


def abacoc_covers(scale: float = 1.0) -> Figure:
    """The covers of BASE, BASE-ADJ, AUTO and AUTO-ADJ on the banana data [DOC15, Fig. 1].

    The first 2,000 banana points scaled to the unit square, majority votes; each ball is
    drawn with its radius, coloured by the share of class 1 among its points.
    """
    from matplotlib import colormaps
    from matplotlib.patches import Circle

    backend = _backend()
    Xb, yb = load_csv("bananas")
    n = _n(2000, scale, 100)
    lo, hi = Xb.min(axis=0), Xb.max(axis=0)
    U = (Xb[:n] - lo) / (hi - lo)
    cmap = colormaps["coolwarm"]
    fig = _figure(16.0, 4.4)
    axes = fig.subplots(1, 4, sharex=True, sharey=True)
    for ax, variant in zip(axes, ("base", "base_adj", "auto", "auto_adj"), strict=True):
        model = backend.ABACOCClassifier(variant=variant, mode="majority")
        model.partial_fit(U, yb[:n])
        table = model.balls_
        share = table["counts"][:, 1] / table["counts"].sum(axis=1)
        for centre, radius, p in zip(table["centers"], table["radii"], share, strict=True):
            ax.add_patch(Circle(tuple(centre), float(radius), facecolor=cmap(p), alpha=0.35,
                                edgecolor=cmap(p), linewidth=0.6))
        ax.scatter(U[:, 0], U[:, 1], c=yb[:n], cmap="coolwarm", s=2, alpha=0.5)
        ax.set_title(f"{variant.upper().replace('_', '-')}: {model.n_balls_} balls")
        ax.set_xlim(-0.05, 1.05)
        ax.set_ylim(-0.05, 1.05)
        ax.set_aspect("equal")
    return fig


# -- 05 data retirement --------------------------------------------------------------------


def retirement_parabola(scale: float = 1.0) -> Figure:
    """Retirement with 25 active points on the parabola [AG13, Fig. 1].

    Linear leaves with an explicit intercept, 200 particles, a pool of 25 points retired by
    ALC; the predictive mean, its 90% band and the active points after 0, 50, 150 and 300
    rounds of retire-one-learn-one.
    """
    backend = _backend()
    rounds = [0, _n(50, scale, 2), _n(150, scale, 4), _n(300, scale, 6)]
    Xp, yp = parabola(25 + rounds[-1], seed=4)
    model = backend.DynamicTreeRegressor(
        leaf="linear", intercept="augmented", min_leaf=5, n_particles=_n(200, scale, 20),
        seed=2, active_size=25, retirement="alc")
    grid = np.linspace(-3, 2, 101).reshape(-1, 1)
    fig = _figure(14.0, 3.4)
    axes = fig.subplots(1, 4, sharey=True)
    done = 0
    for ax, count in zip(axes, rounds, strict=True):
        model.partial_fit(Xp[done:25 + count], yp[done:25 + count])
        done = 25 + count
        dist = model.predict_dist(grid)
        ax.plot(grid[:, 0], grid[:, 0] + grid[:, 0] ** 2, "k:", lw=1)
        ax.plot(grid[:, 0], dist["mean"], "C0")
        ax.fill_between(grid[:, 0], dist["q05"], dist["q95"], color="C0", alpha=0.2)
        ax.plot(model.active_X_[:, 0], model.active_y_, "o", color="C3", ms=4)
        ax.set_title(f"t = {count}, retired mass {model.tree_stats()['mean_retired']:.0f}")
        ax.set_xlabel("x")
    axes[0].set_ylabel("y")
    return fig


def ag13_lambda(scale: float = 1.0) -> Figure:
    """One-step-ahead RMSE against the forgetting factor on drifting Friedman [AG13, Fig. 4].

    Small scale: 2,000 points with slow (k = 0.1) and fast (k = 0.5) drift, linear leaves,
    50 particles, a pool of 200 retired historically; the RMSE of the one-step-ahead
    predictions over the last 1,500 points, for each lambda.
    """
    backend = _backend()
    lams = [1.0, 0.99, 0.95, 0.9, 0.8, 0.6, 0.4, 0.2]
    n = _n(2000, scale, 200)
    start = n // 4
    curves = {}
    for k in (0.1, 0.5):
        X, y = drifting_friedman(n, k=k, seed=3)
        errs = []
        for lam in lams:
            model = backend.DynamicTreeRegressor(
                leaf="linear", intercept="augmented", n_particles=_n(50, scale, 10), seed=1,
                active_size=_n(200, scale, 20), retirement="historical", lam=lam)
            model.partial_fit(X[:start], y[:start])
            pred = np.empty(n - start)
            for t in range(start, n):
                pred[t - start] = model.predict_one(X[t])
                model.learn_one(X[t], y[t])
            errs.append(float(np.sqrt(np.mean((pred - y[start:]) ** 2))))
        curves[k] = errs
    fig = _figure(5.6, 3.6)
    ax = fig.subplots()
    for k, errs in curves.items():
        ax.plot(lams, errs, "o-", label=f"{'slow' if k < 0.3 else 'fast'} drift, k = {k}")
    ax.set_xlabel("forgetting factor λ")
    ax.set_ylabel("one-step RMSE")
    ax.invert_xaxis()
    ax.set_title(f"Drifting Friedman, {n:,} points, pool 200")
    ax.legend()
    return fig


# -- the registry ------------------------------------------------------------------------------


@dataclass(frozen=True)
class FigureSpec:
    """A registered figure: its function, a one-line description and its tutorial."""

    function: Callable[[float], Any]
    description: str
    tutorial: str


FIGURES: dict[str, FigureSpec] = {
    "uniform-draws": FigureSpec(
        rng_uniform, "generator: uniform() histogram and below(n)'s cost 2^k/n < 2",
        "01_determinism"),
    "lockstep": FigureSpec(
        lockstep, "reference and fast dynamic trees agree bit for bit at every step",
        "01_determinism"),
    "parabola-fit": FigureSpec(
        dt_parabola, "dynamic tree 1-d fit with 90% bands on the parabola (1,000 particles)",
        "02_dynamic_trees"),
    "mcycle-leaves": FigureSpec(
        dt_mcycle, "constant vs linear leaves on mcycle, with the log Bayes factor",
        "02_dynamic_trees"),
    "friedman-curve": FigureSpec(
        sgt_friedman, "SGT prequential MAE on Friedman-10, defaults vs known ranges",
        "03_stochastic_gradient_trees"),
    "banana-covers": FigureSpec(
        abacoc_covers, "the four ABACOC covers on the banana data (DOC15 Fig. 1)",
        "04_abacoc"),
    "retirement-snapshots": FigureSpec(
        retirement_parabola, "25 active points retired by ALC on the parabola (AG13 Fig. 1)",
        "05_data_retirement"),
    "lambda-curve": FigureSpec(
        ag13_lambda, "one-step RMSE against lambda under slow/fast drift (AG13 Fig. 4, small)",
        "05_data_retirement"),
}
"""Every figure by name, in course order."""


def draw(name: str, scale: float = 1.0) -> Figure:
    """Draw the registered figure ``name`` (``KeyError`` listing the names otherwise)."""
    if name not in FIGURES:
        raise KeyError(f"no figure {name!r}; known: {', '.join(FIGURES)}")
    if not (math.isfinite(scale) and scale > 0.0):
        raise ValueError(f"scale must be a finite number > 0, got {scale!r}")
    import matplotlib

    with matplotlib.rc_context(cast(Any, STYLE)):
        fig: Figure = FIGURES[name].function(scale)
    return fig


def save(fig: Figure, stem: str | Path, formats: Sequence[str] = FORMATS,
         written: list[Path] | None = None) -> list[Path]:
    """Write ``fig`` as ``stem.<format>`` for every format; return the paths (each is also
    appended to ``written``, when given, as soon as it is whole).

    The files carry no creation date and SVG element ids are fixed, so the same figure
    gives the same bytes on every run. Each file is written atomically: drawn into a
    temporary file beside it and renamed into place, so a file is there whole or not at
    all (an interrupted run leaves no truncated figure, and no temporary file).
    """
    import os
    import tempfile

    import matplotlib

    paths = []
    metadata = {"svg": {"Date": None}, "pdf": {"CreationDate": None, "ModDate": None}}
    with matplotlib.rc_context(cast(Any, STYLE)):
        for fmt in formats:
            path = Path(f"{stem}.{fmt}")
            handle, partial = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part",
                                               dir=path.parent)
            os.close(handle)
            try:
                fig.savefig(partial, format=fmt, metadata=metadata.get(fmt))
                os.replace(partial, path)
            except BaseException:
                Path(partial).unlink(missing_ok=True)
                raise
            paths.append(path)
            if written is not None:
                written.append(path)
    return paths

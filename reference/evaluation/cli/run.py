"""``driftwood run``: a prequential run of one model on one stream, as a summary table."""

from __future__ import annotations

import argparse
import importlib
import sys

from reference.evaluation import catalog
from reference.evaluation.catalog import UsageError
from reference.evaluation.cli._errors import Interrupted
from reference.evaluation.cli._output import progress_enabled, table
from reference.evaluation.prequential import ProgressBar, prequential
from reference.evaluation.prequential.progress import duration

__all__ = ["CURVE_METRICS", "DEFAULT_ROWS", "REFERENCE_ROWS", "ROWS", "SLOWDOWN", "cmd_run",
           "default_rows", "fallback_note", "fast_available", "task_mismatch"]

DEFAULT_ROWS = 50000
"""Stream length when ``--n`` is not given."""

ROWS = {"nn3": 10000, "dynatree": 10000, "dynatree-clf": 10000}
"""Models run on fewer rows by default, so that the defaults finish in seconds: the
nearest-neighbour baseline costs a pass over everything learned per row, the dynamic trees'
100 particles about a millisecond a row."""

REFERENCE_ROWS = {"dynatree": (500, "under a minute"), "dynatree-clf": (1000, "under a minute")}
"""Models run on fewer rows still when ``--n`` is not given and the run is in the pure-Python
reference (``--backend reference``, or the fallback without a C build), with the time that
takes. The reference's dynamic-tree regressor costs about 60 ms a row over 500 rows and
140 ms over 1,000 (more per row on longer streams, as the trees grow), the classifier about
30 ms over 1,000, so :data:`ROWS`' 10,000 would take half an hour or more; these defaults
took 30 s each (``driftwood run --model M --backend reference --no-progress``, a shared
2-core machine). An explicit ``--n`` is always run as given."""


SLOWDOWN = {"sgt": "about 10x", "sgt-clf": "about 10x", "abacoc": "about 30x",
            "dynatree": "300x or more", "dynatree-clf": "300x or more"}
"""How much slower the reference runs a model than ``fast`` in ``driftwood run`` (time per
example, default parameters; measured with ``driftwood run --model M --n N --backend B
--no-progress``, N = 10,000, 1,000 for the dynamic trees, whose ratio grows with the
stream: the reference's particle step grows with the trees). Said when ``run`` or
``compare`` falls back to the reference (:func:`fallback_note`)."""


def fast_available() -> bool:
    """Whether the C backend ``fast`` imports (its extension was built)."""
    try:
        importlib.import_module("fast")
    except ImportError:
        return False
    return True


def fallback_note(model: str, doing: str, shortened: bool = False) -> str:
    """The one line said when ``fast`` is missing and a command falls back to the reference:
    what it does instead (``doing``), how much slower that is (:data:`SLOWDOWN`), and
    where the remedy is; with ``shortened``, also that the stream is the reference's shorter
    default (:data:`REFERENCE_ROWS`), how long that takes and how to choose another."""
    slower = SLOWDOWN.get(model, "much")
    rows = ""
    if shortened and model in REFERENCE_ROWS:
        n, takes = REFERENCE_ROWS[model]
        rows = (f": {n} rows instead of {ROWS.get(model, DEFAULT_ROWS)} ({takes}; --n N "
                "chooses)")
    return (
        f"note: the C backend (fast) is not built here, so {doing} in the pure-Python "
        f"reference, {slower} slower for {model}{rows} (`python -c 'import fast'` says how "
        "to get the C backend)"
    )


def default_rows(model: str, backend: str = "fast") -> int:
    """``--n`` when not given: :data:`DEFAULT_ROWS`, or the smaller :data:`ROWS` entry; on
    the ``"reference"`` backend the smaller :data:`REFERENCE_ROWS` entry where there is
    one."""
    if backend == "reference" and model in REFERENCE_ROWS:
        return REFERENCE_ROWS[model][0]
    return ROWS.get(model, DEFAULT_ROWS)


CURVE_METRICS = {"regression": ("rmse", "mae", "alpd", "size"),
                 "classification": ("accuracy", "auc", "h_measure", "alpd", "size")}
"""The windowed metrics a run can compute for each task (which of them a run computes
depends on the model: ``alpd`` needs predictive densities, ``size`` a size attribute)."""


def task_mismatch(model: str, model_task: str, stream: str, stream_task: str) -> UsageError:
    """The error of a model run on a stream of the other task, with the choices that fit."""
    streams = [name for name, spec in catalog.STREAMS.items() if spec.task == model_task]
    models = [name for name in catalog.known_models() if catalog.MODELS[name].task == stream_task]
    return UsageError(
        f"model {model!r} is for {model_task} but stream {stream!r} is {stream_task}: choose a "
        f"{model_task} stream ({', '.join(streams)}) or a {stream_task} model "
        f"({', '.join(models)})"
    )


def cmd_run(args: argparse.Namespace) -> int:
    """Run ``--model`` on ``--stream`` prequentially; print the header and the summary."""
    spec = catalog.MODELS[args.model]
    backend_name = args.backend
    if backend_name is None:
        backend_name = "fast" if fast_available() else "reference"
        if backend_name == "reference" and not spec.baseline:  # baselines use no backend
            print(fallback_note(args.model, "this run is", shortened=args.n is None),
                  file=sys.stderr)
    backend = catalog.import_backend(backend_name, "or run with --backend reference")
    cls = catalog.model_class(args.model, backend)
    stream_name = args.stream or catalog.DEFAULT_STREAM[spec.task]
    rows = args.n or default_rows(args.model, "baseline" if spec.baseline else backend_name)
    task_arg = getattr(args, "task", None)
    if args.metric is not None and args.metric not in CURVE_METRICS[spec.task]:
        raise UsageError(f"metric {args.metric!r} is not computed for {spec.task}: choose one "
                         f"of {', '.join(CURVE_METRICS[spec.task])}")
    task, (X, y) = catalog.make_stream(stream_name, rows, args.seed, args.data_dir, task_arg)
    if task != spec.task:
        raise task_mismatch(args.model, spec.task, stream_name, task)
    classes = catalog.class_list(task, y)
    model = catalog.build_model(cls, spec, args.seed, classes, catalog.parse_params(args.param))
    size = next((name for name in catalog.SIZE_ATTRIBUTES if hasattr(model, name)), None)
    bar = ProgressBar(
        len(y), f"{args.model} on {stream_name}", progress_enabled(args.progress), unit="rows"
    )
    try:
        result = prequential(
            model,
            X,
            y,
            task=task,
            rate=args.rate,
            label_seed=args.label_seed,
            window=args.window,
            size=size,
            progress=bar,
        )
    except KeyboardInterrupt:
        bar.close(final=False)
        raise Interrupted(
            f"stopped after {bar.count} of {len(y)} rows ({duration(bar.elapsed())}); nothing "
            f"was kept (a run is not saved): rerun with a smaller --n"
        ) from None
    where = "kit baseline (no backend)" if spec.baseline else backend_name
    header = [
        ("model", f"{args.model} ({cls.__name__})"),
        ("backend", where),
        ("stream", f"{stream_name} (n={result.n}, seed={args.seed})"),
    ]
    if size is not None:
        header.append(("size", f"number of {catalog.SIZE_MEANING[size]} (the model's {size})"))
    if args.rate < 1.0:
        header.append(("label rate", f"{args.rate} (label seed {args.label_seed})"))
    print(table(header))
    print(result.summary(wall=bar.elapsed()))
    if args.curve:
        from reference.evaluation.plotting import plot_learning_curves

        metric = args.metric or next(iter(result.windowed))
        if metric not in result.windowed:
            raise UsageError(f"metric {metric!r} was not computed in this run: choose one of "
                             f"{', '.join(result.windowed)}")
        fig = plot_learning_curves(
            {f"{args.model} ({where})": result},
            metrics=metric,
            title=f"{args.model} on {stream_name}",
        )
        fig.savefig(args.curve, dpi=100)
        import matplotlib.pyplot as plt

        plt.close(fig)
        print(f"learning curve ({metric}, window {args.window}) written to {args.curve}")
    return 0

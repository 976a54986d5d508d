"""``driftwood compare``: both backends in lockstep on one stream, agreement and speed."""

from __future__ import annotations

import argparse
import sys

from reference.evaluation import catalog
from reference.evaluation.catalog import UsageError
from reference.evaluation.cli._errors import Interrupted
from reference.evaluation.cli._output import progress_enabled, table
from reference.evaluation.cli.run import fallback_note, task_mismatch
from reference.evaluation.compare import lockstep
from reference.evaluation.prequential import ProgressBar
from reference.evaluation.prequential.progress import duration

__all__ = ["DEFAULT_MODEL", "DEFAULT_ROWS", "ROWS", "cmd_compare", "default_rows"]

DEFAULT_MODEL = "sgt"
"""The model compared when ``--model`` is not given."""

DEFAULT_ROWS = 1000
"""Stream length when ``--n`` is not given (each step compares the full ``snapshot()``)."""

ROWS = {"dynatree": 200, "dynatree-clf": 200}
"""Models whose reference backend is slow (10-50 ms a row for 100 particles, growing with
the trees), compared on fewer rows by default so that the defaults finish in seconds."""


def default_rows(model: str) -> int:
    """``--n`` when not given: :data:`DEFAULT_ROWS`, or the smaller :data:`ROWS` entry."""
    return ROWS.get(model, DEFAULT_ROWS)


def cmd_compare(args: argparse.Namespace) -> int:
    """Run ``--model`` of both backends in lockstep; exit status 1 if they disagree.

    Where the C backend is not built, compares the reference with itself (a reproducibility
    check) and says so in one line (:func:`~reference.evaluation.cli.run.fallback_note`).
    """
    model_name = args.model or DEFAULT_MODEL
    if model_name not in catalog.known_models():
        raise UsageError(
            f"model {model_name!r} is not built in this installation; choose one of "
            + (", ".join(catalog.compare_candidates()) or "none")
            + " (`driftwood list`)"
        )
    spec = catalog.MODELS[model_name]
    if spec.baseline:
        raise UsageError(
            f"model {model_name!r} ({spec.class_name}) is an evaluation-kit baseline with no fast "
            "twin: there is nothing to compare. Choose a model that exists in both backends: "
            + (", ".join(catalog.compare_candidates()) or "none yet")
        )
    ref_backend = catalog.import_backend("reference")
    # without the C build: the reference against itself, a reproducibility check (two
    # models of one seed must agree step by step), said in one line
    try:
        fast_backend, fell_back = catalog.import_backend("fast"), False
    except UsageError:
        fast_backend, fell_back = ref_backend, True
        print(fallback_note(model_name, "both sides of this comparison run"),
              file=sys.stderr)
    ref_cls = catalog.model_class(model_name, ref_backend)
    fast_cls = catalog.model_class(model_name, fast_backend)
    stream_name = args.stream or catalog.DEFAULT_STREAM[spec.task]
    rows = args.n or default_rows(model_name)
    task, (X, y) = catalog.make_stream(stream_name, rows, args.seed, args.data_dir)
    if task != spec.task:
        raise task_mismatch(model_name, spec.task, stream_name, task)
    extra = catalog.parse_params(args.param)
    classes = catalog.class_list(task, y)
    ref_model = catalog.build_model(ref_cls, spec, args.seed, classes, extra)
    fast_model = catalog.build_model(fast_cls, spec, args.seed, classes, extra)
    n = len(y)
    bar = ProgressBar(n, f"compare {model_name}", progress_enabled(args.progress), unit="rows")
    try:
        outcome = lockstep(
            ref_model,
            fast_model,
            X,
            y,
            proba=task == "classification",
            snapshot_every=args.snapshot_every,
            keep_going=args.keep_going,
            progress=bar,
        )
    except KeyboardInterrupt:
        bar.close(final=False)
        raise Interrupted(
            f"stopped after {bar.count} of {n} rows ({duration(bar.elapsed())}); nothing was "
            "kept (a comparison is not saved): rerun with a smaller --n or a larger "
            "--snapshot-every"
        ) from None
    summary = [
        ("model", f"{model_name} ({spec.class_name})"),
        ("stream", f"{stream_name} (n={n}, seed={args.seed})"),
        ("steps run", str(outcome["steps"])),
        ("steps agreeing", f"{outcome['agreeing']}/{n}"),
        ("snapshots compared", str(outcome["snapshots"])),
        ("first mismatch", outcome["mismatch"] or "none"),
        ("first exception", outcome["raised"] or "none"),
        ("reference time [s]", f"{outcome['time_reference']:.3f}"),
        ("fast time [s]", f"{outcome['time_fast']:.3f}"),
        ("speed ratio (ref/fast)", f"{outcome['ratio']:.1f}x"),
    ]
    if fell_back:
        summary[-2:] = [
            ("second reference time [s]", f"{outcome['time_fast']:.3f}"),
            ("fast backend", "not built: the reference was compared with itself"),
        ]
    print(table(summary))
    return 0 if outcome["mismatch"] is None else 1

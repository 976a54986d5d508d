"""``driftwood compare``: both backends in lockstep on one stream, agreement and speed."""

from __future__ import annotations

import argparse

from reference.evaluation import catalog
from reference.evaluation.catalog import UsageError
from reference.evaluation.cli._output import table
from reference.evaluation.compare import lockstep

__all__ = ["cmd_compare"]


def cmd_compare(args: argparse.Namespace) -> int:
    """Run ``--model`` of both backends in lockstep; exit status 1 if they disagree."""
    spec = catalog.MODELS[args.model]
    if spec.baseline:
        raise UsageError(
            f"model {args.model!r} ({spec.class_name}) is an evaluation-kit baseline with no fast "
            "twin: there is nothing to compare. Choose a model that exists in both backends: "
            + (", ".join(catalog.compare_candidates()) or "none yet")
        )
    ref_backend = catalog.import_backend("reference")
    fast_backend = catalog.import_backend("fast")
    ref_cls = catalog.model_class(args.model, ref_backend)
    fast_cls = catalog.model_class(args.model, fast_backend)
    stream_name = args.stream or catalog.DEFAULT_STREAM[spec.task]
    task, (X, y) = catalog.make_stream(stream_name, args.n, args.seed, args.data_dir)
    if task != spec.task:
        raise UsageError(
            f"model {args.model!r} is for {spec.task} but stream {stream_name!r} is {task}"
        )
    extra = catalog.parse_params(args.param)
    classes = catalog.class_list(task, y)
    ref_model = catalog.build_model(ref_cls, spec, args.seed, classes, extra)
    fast_model = catalog.build_model(fast_cls, spec, args.seed, classes, extra)
    outcome = lockstep(
        ref_model,
        fast_model,
        X,
        y,
        proba=task == "classification",
        snapshot_every=args.snapshot_every,
        keep_going=args.keep_going,
        progress=args.progress,
        description=f"compare {args.model}",
    )
    n = len(y)
    rows = [
        ("model", f"{args.model} ({spec.class_name})"),
        ("stream", f"{stream_name} (n={n}, seed={args.seed})"),
        ("steps run", str(outcome["steps"])),
        ("steps agreeing", f"{outcome['agreeing']}/{n}"),
        ("snapshots compared", str(outcome["snapshots"])),
        ("first mismatch", outcome["mismatch"] or "none"),
        ("reference time [s]", f"{outcome['time_reference']:.3f}"),
        ("fast time [s]", f"{outcome['time_fast']:.3f}"),
        ("speed ratio (ref/fast)", f"{outcome['ratio']:.1f}x"),
    ]
    print(table(rows))
    return 0 if outcome["mismatch"] is None else 1

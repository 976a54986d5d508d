"""The ``driftwood`` command line: run a model on a built-in stream, or compare backends.

Usage::

    driftwood run                               # running-mean baseline on Friedman-1
    driftwood run --model majority --stream sea --n 20000 --curve sea.png
    driftwood run --model sgt --backend fast --stream drift-fast -p max_depth=4
    driftwood compare --model abacoc --stream sea --n 2000
    driftwood list                              # models (per backend) and streams

``python -m reference.evaluation.cli ...`` is the same program. ``run`` evaluates the model
prequentially (test then train, :func:`reference.evaluation.prequential.prequential`) and prints a
summary table; ``compare`` runs the ``reference`` and ``fast`` twins in lockstep on the
same stream, compares every prediction and (every ``--snapshot-every`` steps) the full
``snapshot()`` exactly, and reports the agreement and the speed ratio.

Models are looked up by class name in the chosen backend package, so a model appears
here as soon as it is exported by ``reference``/``fast``. The baselines ``mean`` and
``majority`` belong to the evaluation kit and have no fast twin.

Public API (signatures):

- ``main(argv=None) -> int``: the console script (exit status: 0 success, 1 the
  backends disagree, 2 usage error or model/backend unavailable).
- ``MODELS``: CLI name -> :class:`ModelSpec`; ``STREAMS``: CLI name ->
  :class:`StreamSpec`.
- ``lockstep(ref_model, fast_model, X, y, proba=False, snapshot_every=1,
  keep_going=False, progress=None) -> dict``: the comparison loop of ``compare``.
- ``first_difference(a, b, path="") -> str | None``: first difference of two
  plain-data trees.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import math
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from reference.evaluation import baselines, datasets, registry
from reference.evaluation.prequential import ProgressBar, prequential

__all__ = ["MODELS", "STREAMS", "ModelSpec", "StreamSpec", "first_difference", "main"]

Stream = tuple[npt.NDArray[np.float64], npt.NDArray[Any]]


@dataclass(frozen=True)
class ModelSpec:
    """A CLI model: class name looked up in a backend, its task and default arguments.

    ``baseline`` models come from :mod:`reference.evaluation.baselines` whatever the backend.
    """

    class_name: str
    task: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    baseline: bool = False
    description: str = ""


@dataclass(frozen=True)
class StreamSpec:
    """A built-in stream: ``make(n, seed) -> (X, y)`` and its task."""

    task: str
    make: Callable[[int, int], Stream]
    description: str


MODELS: dict[str, ModelSpec] = {
    "mean": ModelSpec("RunningMean", "regression", {}, True, "running mean of y (baseline)"),
    "majority": ModelSpec(
        "MajorityClass",
        "classification",
        {"smoothing": 1.0},
        True,
        "most frequent label so far, Laplace-smoothed probabilities (baseline)",
    ),
    "nn3": ModelSpec(
        "NearestNeighbours",
        "classification",
        {"k": 3},
        True,
        "3 nearest neighbours over every learned example [DOC15's NN3] (baseline)",
    ),
    "dynatree": ModelSpec(
        "DynamicTreeRegressor",
        "regression",
        {"n_particles": 100},
        False,
        "dynamic tree [AG13, TGP11] (CLI default: 100 particles)",
    ),
    "dynatree-clf": ModelSpec(
        "DynamicTreeClassifier",
        "classification",
        {"n_particles": 100},
        False,
        "dynamic tree classifier [AG13] (CLI default: 100 particles)",
    ),
    "sgt": ModelSpec("SGTRegressor", "regression", {}, False, "stochastic gradient tree [GPF19]"),
    "sgt-clf": ModelSpec("SGTClassifier", "classification", {}, False, "SGT classifier [GPF19]"),
    "abacoc": ModelSpec("ABACOCClassifier", "classification", {}, False, "ABACOC [DOC15]"),
}
"""CLI model names. Non-baseline models appear once their class exists in a backend."""

SIZE_ATTRIBUTES = ("n_balls_", "n_nodes_", "n_stored_")
"""Model-size attributes reported by ``run`` when the model has one (ABACOC, SGT, NN3)."""

DEFAULT_STREAM = {"regression": "friedman", "classification": "sea"}


def _csv_stream(name: str, data_dir: str | None) -> Callable[[int, int], Stream]:
    def make(n: int, seed: int) -> Stream:
        del seed
        X, y = datasets.load_csv(name, data_dir=data_dir)
        return X[:n], y[:n]

    return make


STREAMS: dict[str, StreamSpec] = {
    "friedman": StreamSpec(
        "regression",
        lambda n, s: datasets.friedman1(n, seed=s),
        "Friedman-1, 5 inputs [AG13 §4.5.1]",
    ),
    "friedman10": StreamSpec(
        "regression",
        lambda n, s: datasets.friedman1(n, n_features=10, seed=s),
        "Friedman-1 with 5 irrelevant inputs",
    ),
    "drift-slow": StreamSpec(
        "regression",
        lambda n, s: datasets.drifting_friedman(n, k=0.1, seed=s),
        "drifting Friedman, k = 0.1 [AG13 §5.1]",
    ),
    "drift-fast": StreamSpec(
        "regression",
        lambda n, s: datasets.drifting_friedman(n, k=0.5, seed=s),
        "drifting Friedman, k = 0.5 [AG13 §5.1]",
    ),
    "aba": StreamSpec(
        "regression",
        lambda n, s: datasets.regime_friedman(n, seed=s, start=n // 3, stop=2 * n // 3),
        "A-B-A regime change, a_t = 10 in the middle third [AG13 §5.1: 10000 <= t < 20000]",
    ),
    "parabola": StreamSpec(
        "regression", lambda n, s: datasets.parabola(n, seed=s), "y = x + x^2 + e [AG13 Fig. 1]"
    ),
    "movingxor": StreamSpec(
        "classification",
        lambda n, s: datasets.moving_xor(n, period=max(n, 1), seed=s),
        "rotating XOR, half a turn over the stream [AG13 §5.2]",
    ),
    "sea": StreamSpec(
        "classification",
        lambda n, s: datasets.sea(n, concept_length=max(1, -(-n // 4)), seed=s),
        "SEA, thresholds 8, 9, 7, 9.5 over four equal blocks, 10% noise",
    ),
    "hyperplane": StreamSpec(
        "classification", lambda n, s: datasets.hyperplane(n, seed=s), "rotating hyperplane, d = 10"
    ),
}
"""Built-in streams; ``csv:<name>`` also reads a real data set (see ``--data-dir``)."""


# ---------------------------------------------------------------------------
# lookup helpers
# ---------------------------------------------------------------------------


class UsageError(Exception):
    """A problem with the command line that should end with exit status 2."""


def _backend(name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ImportError as err:
        raise UsageError(
            f"backend {name!r} cannot be imported ({err}); build it with "
            "`python fast/_ffibuild.py` or use --backend reference"
        ) from err


def available_models(backend: ModuleType) -> list[str]:
    """CLI names of the models usable with ``backend`` (baselines always)."""
    return [
        name for name, spec in MODELS.items() if spec.baseline or hasattr(backend, spec.class_name)
    ]


def _model_class(name: str, backend: ModuleType) -> type:
    spec = MODELS[name]
    if spec.baseline:
        cls: type = getattr(baselines, spec.class_name)
        return cls
    cls_or_none = getattr(backend, spec.class_name, None)
    if cls_or_none is None:
        raise UsageError(
            f"model {name!r} ({spec.class_name}) does not exist in backend "
            f"{backend.__name__!r} yet; available: {', '.join(available_models(backend))}"
        )
    found: type = cls_or_none
    return found


def _parse_params(items: Sequence[str]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key.isidentifier():
            raise UsageError(f"--param expects name=value, got {item!r}")
        try:
            params[key] = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            params[key] = text
    return params


def _build(
    cls: type, spec: ModelSpec, seed: int, classes: list[Any] | None, extra: Mapping[str, Any]
) -> Any:
    """Instantiate with the registry defaults, ``seed``/``classes`` if accepted, and ``extra``."""
    try:
        accepted = set(inspect.signature(cls).parameters)
    except (TypeError, ValueError):
        accepted = set()
    kwargs: dict[str, Any] = {k: v for k, v in spec.kwargs.items() if k in accepted}
    if "seed" in accepted:
        kwargs["seed"] = seed
    if classes is not None and "classes" in accepted:
        kwargs["classes"] = classes
    kwargs.update(extra)
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as err:
        raise UsageError(f"cannot build {cls.__name__}({_kwargs_text(kwargs)}): {err}") from err


def _kwargs_text(kwargs: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in kwargs.items())


def _stream(name: str, n: int, seed: int, data_dir: str | None) -> tuple[str, Stream]:
    if name.startswith("csv:"):
        X, y = _csv_stream(name[4:], data_dir)(n, seed)
        task = "classification" if np.issubdtype(y.dtype, np.integer) else "regression"
        return task, (X, y)
    if name not in STREAMS:
        raise UsageError(f"unknown stream {name!r}; choose from {', '.join(STREAMS)} or csv:<file>")
    spec = STREAMS[name]
    return spec.task, spec.make(n, seed)


def _classes(task: str, y: npt.NDArray[Any]) -> list[Any] | None:
    if task != "classification":
        return None
    return [v.item() if isinstance(v, np.generic) else v for v in np.unique(y)]


def _table(rows: Sequence[tuple[str, str]]) -> str:
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)


# ---------------------------------------------------------------------------
# exact comparison of plain data
# ---------------------------------------------------------------------------


def _plain(x: Any) -> Any:
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, tuple):
        return list(x)
    return x


def _same_float(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def first_difference(a: Any, b: Any, path: str = "") -> str | None:
    """The first difference between two plain-data trees (exact), or ``None``.

    Floats must be equal bit for bit in value and sign (NaN equals NaN); ints and floats
    never compare equal across types; mappings must have the same keys in the same
    order.

    Examples
    --------
    >>> first_difference({"a": [1.0, 2.0]}, {"a": [1.0, 2.5]})
    'a[1]: 2.0 != 2.5'
    >>> first_difference([0.0], [-0.0])
    '[0]: 0.0 != -0.0'
    >>> first_difference({"x": 1}, {"x": 1}) is None
    True
    """
    stack: list[tuple[Any, Any, str]] = [(a, b, path)]
    while stack:
        left, right, where = stack.pop()
        left, right = _plain(left), _plain(right)
        label = where or "<root>"
        if isinstance(left, Mapping) and isinstance(right, Mapping):
            keys_l, keys_r = list(left), list(right)
            if keys_l != keys_r:
                return f"{label}: keys differ: {keys_l} vs {keys_r}"
            for key in reversed(keys_l):
                stack.append((left[key], right[key], f"{where}.{key}" if where else str(key)))
        elif isinstance(left, list) and isinstance(right, list):
            if len(left) != len(right):
                return f"{label}: lengths differ: {len(left)} vs {len(right)}"
            for i in range(len(left) - 1, -1, -1):
                stack.append((left[i], right[i], f"{where}[{i}]"))
        elif isinstance(left, float) and isinstance(right, float):
            if not _same_float(left, right):
                return f"{label}: {left!r} != {right!r}"
        elif type(left) is not type(right) or left != right:
            return f"{label}: {left!r} != {right!r}"
    return None


# ---------------------------------------------------------------------------
# subcommands
# ---------------------------------------------------------------------------


def _cmd_list(args: argparse.Namespace) -> int:
    del args
    ref = importlib.import_module("reference")
    try:
        fast: ModuleType | None = importlib.import_module("fast")
    except ImportError:
        fast = None
    print("models (reference / fast):")
    for name, spec in MODELS.items():
        in_ref = "yes" if spec.baseline or hasattr(ref, spec.class_name) else "-"
        if spec.baseline:
            in_fast = "kit baseline"
        else:
            in_fast = "yes" if fast is not None and hasattr(fast, spec.class_name) else "-"
        print(f"  {name:<13} {spec.class_name:<24} {spec.task:<15} {in_ref:>3} / {in_fast}")
    print("streams:")
    for name, stream in STREAMS.items():
        print(f"  {name:<13} {stream.task:<15} {stream.description}")
    print("  csv:<name>    real data set (`driftwood data list`), or a file in --data-dir")
    return 0


def _cmd_data(args: argparse.Namespace) -> int:
    """``driftwood data list | fetch NAME [--from PATH] [--url URL] | path NAME``."""
    if args.action == "list":
        print(f"{'name':<16} {'task':<10} {'rows':>7} {'feat':>4}  {'status':<8} licence")
        for name, data in registry.REGISTRY.items():
            print(
                f"{name:<16} {data.task:<10} {data.n_rows:>7} {data.n_features:>4}  "
                f"{registry.status(name):<8} {data.licence}"
            )
        print(f"cache: {registry.cache_dir()}")
        return 0
    if not args.name:
        raise UsageError(f"`driftwood data {args.action}` needs a data-set name")
    if args.name not in registry.REGISTRY:
        raise UsageError(f"unknown data set {args.name!r}; see `driftwood data list`")
    if args.action == "path":
        print(registry.locate(args.name, args.data_dir))
        return 0
    try:
        path = registry.fetch(args.name, args.source, url=args.url, progress=args.progress)
    except ValueError as err:
        print(f"driftwood: error: {err}", file=sys.stderr)
        return 1
    print(path)
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    spec = MODELS[args.model]
    backend_name = args.backend
    if backend_name is None:
        backend_name = "fast"
        try:
            importlib.import_module("fast")
        except ImportError:
            backend_name = "reference"
    backend = _backend(backend_name)
    cls = _model_class(args.model, backend)
    stream_name = args.stream or DEFAULT_STREAM[spec.task]
    task, (X, y) = _stream(stream_name, args.n, args.seed, args.data_dir)
    if task != spec.task:
        raise UsageError(
            f"model {args.model!r} is for {spec.task} but stream {stream_name!r} is {task}"
        )
    model = _build(cls, spec, args.seed, _classes(task, y), _parse_params(args.param))
    size = next((name for name in SIZE_ATTRIBUTES if hasattr(model, name)), None)
    result = prequential(
        model,
        X,
        y,
        task=task,
        rate=args.rate,
        label_seed=args.label_seed,
        window=args.window,
        size=size,
        progress=args.progress,
        description=f"{args.model} on {stream_name}",
    )
    where = "kit baseline (no backend)" if spec.baseline else backend_name
    header = [
        ("model", f"{args.model} ({cls.__name__})"),
        ("backend", where),
        ("stream", f"{stream_name} (n={result.n}, seed={args.seed})"),
    ]
    if size is not None:
        header.append(("model size", f"attribute {size}"))
    if args.rate < 1.0:
        header.append(("label rate", f"{args.rate} (label seed {args.label_seed})"))
    print(_table(header))
    print(result.summary())
    if args.curve:
        from reference.evaluation.plotting import plot_learning_curves

        metric = args.metric or next(iter(result.windowed))
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


def _timed(fn: Callable[..., Any], *call_args: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn(*call_args)
    return out, time.perf_counter() - start


def _cmd_compare(args: argparse.Namespace) -> int:
    spec = MODELS[args.model]
    if spec.baseline:
        raise UsageError(
            f"model {args.model!r} ({spec.class_name}) is an evaluation-kit baseline with no fast "
            "twin: there is nothing to compare. Choose a model that exists in both backends: "
            + (", ".join(_compare_candidates()) or "none yet")
        )
    ref_backend = _backend("reference")
    fast_backend = _backend("fast")
    ref_cls = _model_class(args.model, ref_backend)
    fast_cls = _model_class(args.model, fast_backend)
    stream_name = args.stream or DEFAULT_STREAM[spec.task]
    task, (X, y) = _stream(stream_name, args.n, args.seed, args.data_dir)
    if task != spec.task:
        raise UsageError(
            f"model {args.model!r} is for {spec.task} but stream {stream_name!r} is {task}"
        )
    extra = _parse_params(args.param)
    classes = _classes(task, y)
    ref_model = _build(ref_cls, spec, args.seed, classes, extra)
    fast_model = _build(fast_cls, spec, args.seed, classes, extra)
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
    print(_table(rows))
    return 0 if outcome["mismatch"] is None else 1


def _compare_candidates() -> list[str]:
    try:
        ref = importlib.import_module("reference")
        fast = importlib.import_module("fast")
    except ImportError:
        return []
    return [
        name
        for name, spec in MODELS.items()
        if not spec.baseline and hasattr(ref, spec.class_name) and hasattr(fast, spec.class_name)
    ]


def lockstep(
    ref_model: Any,
    fast_model: Any,
    X: npt.ArrayLike,
    y: npt.ArrayLike,
    proba: bool = False,
    snapshot_every: int = 1,
    keep_going: bool = False,
    progress: bool | None = None,
    description: str = "compare",
) -> dict[str, Any]:
    """Run two models step by step on ``(X, y)``; compare predictions and snapshots.

    At each step both predict (``predict_one``, and ``predict_proba_one`` if
    ``proba``), the outputs are compared exactly, both learn, and every
    ``snapshot_every`` steps (and at the last step) their ``snapshot()`` are compared.
    Only the predict and learn calls are timed. Stops at the first mismatch unless
    ``keep_going`` (then only the timing continues to mean anything).

    Returns
    -------
    dict
        ``steps`` run, ``agreeing`` (steps before the first mismatch), ``snapshots``
        compared, ``mismatch`` (text or None), ``time_reference``, ``time_fast``,
        ``ratio`` (reference time / fast time).

    Examples
    --------
    >>> from reference.evaluation.baselines import RunningMean
    >>> X, y = datasets.friedman1(50)
    >>> out = lockstep(RunningMean(), RunningMean(), X, y)
    >>> out["agreeing"], out["mismatch"]
    (50, None)
    """
    rows = np.asarray(X, dtype=np.float64)
    labels = list(np.asarray(y).tolist())
    n = len(labels)
    if progress is None:
        progress = n >= 2000 and sys.stderr.isatty()
    bar = ProgressBar(n, description, enabled=progress)
    t_ref = t_fast = 0.0
    mismatch: str | None = None
    agreeing = 0
    snapshots = 0
    steps = 0
    for t in range(n):
        x = rows[t].tolist()
        target = labels[t]
        outputs = []
        for model in (ref_model, fast_model):
            start = time.perf_counter()
            out: list[Any] = [model.predict_one(x)]
            if proba:
                out.append(model.predict_proba_one(x))
            elapsed = time.perf_counter() - start
            outputs.append(out)
            if model is ref_model:
                t_ref += elapsed
            else:
                t_fast += elapsed
        _, dt = _timed(ref_model.learn_one, x, target)
        t_ref += dt
        _, dt = _timed(fast_model.learn_one, x, target)
        t_fast += dt
        steps += 1
        bar.update()
        if mismatch is None:
            diff = first_difference(outputs[0], outputs[1], "prediction")
            if diff is None and (t % snapshot_every == snapshot_every - 1 or t == n - 1):
                snapshots += 1
                diff = first_difference(ref_model.snapshot(), fast_model.snapshot(), "snapshot")
            if diff is None:
                agreeing += 1
            else:
                mismatch = f"step {t}: {diff}"
                if not keep_going:
                    break
    bar.close()
    ratio = t_ref / t_fast if t_fast > 0.0 else math.inf
    return {
        "steps": steps,
        "agreeing": agreeing,
        "snapshots": snapshots,
        "mismatch": mismatch,
        "time_reference": t_ref,
        "time_fast": t_fast,
        "ratio": ratio,
    }


# ---------------------------------------------------------------------------
# argument parsing
# ---------------------------------------------------------------------------


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _rate(text: str) -> float:
    value = float(text)
    if not 0.0 < value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], got {value}")
    return value


def known_models() -> list[str]:
    """CLI names of the baselines and of the models that exist in at least one backend."""
    packages = []
    for name in ("reference", "fast"):
        try:
            packages.append(importlib.import_module(name))
        except ImportError:
            continue
    return [
        name
        for name, spec in MODELS.items()
        if spec.baseline or any(hasattr(package, spec.class_name) for package in packages)
    ]


def _common(parser: argparse.ArgumentParser, default_model: str | None, default_n: int) -> None:
    parser.add_argument(
        "--model",
        choices=known_models(),
        default=default_model,
        required=default_model is None,
        help="model name (see `driftwood list`)",
    )
    parser.add_argument(
        "--stream",
        default=None,
        help=f"built-in stream ({', '.join(STREAMS)}) or csv:<file>; default: "
        "friedman (regression) / sea (classification)",
    )
    parser.add_argument(
        "--n", type=_positive_int, default=default_n, help=f"stream length (default {default_n})"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the stream and the model")
    parser.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="extra constructor argument (Python literal), repeatable",
    )
    parser.add_argument(
        "--data-dir", default=None, help="directory of csv: streams ($DRIFTWOOD_DATA)"
    )
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar on stderr (default: when stderr is a terminal)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``driftwood``."""
    parser = argparse.ArgumentParser(
        prog="driftwood",
        description="Streaming nonparametric learners in two bit-identical backends.",
    )
    sub = parser.add_subparsers(dest="command")
    run = sub.add_parser("run", help="prequential run of a model on a built-in stream")
    # the demo: a stochastic gradient tree on Friedman-1 once the model exists, else the baseline
    demo = "sgt" if "sgt" in known_models() else "mean"
    _common(run, demo, 50000)
    run.add_argument(
        "--backend",
        choices=["reference", "fast"],
        default=None,
        help="implementation (default: fast if built, else reference)",
    )
    run.add_argument("--rate", type=_rate, default=1.0, help="label rate (DOC15 Alg. 5)")
    run.add_argument("--label-seed", type=int, default=1, help="seed of the label coin flips")
    run.add_argument("--window", type=_positive_int, default=1000, help="window of the curves")
    run.add_argument("--curve", default=None, metavar="PNG", help="write the learning curve here")
    run.add_argument("--metric", default=None, help="metric of the curve (default: the first)")
    run.set_defaults(handler=_cmd_run)
    compare = sub.add_parser("compare", help="both backends in lockstep: agreement and speed")
    _common(compare, None, 2000)
    compare.add_argument(
        "--snapshot-every",
        type=_positive_int,
        default=1,
        help="compare snapshot() every this many steps (default 1: every step)",
    )
    compare.add_argument(
        "--keep-going",
        action="store_true",
        help="continue after a mismatch (for timing only)",
    )
    compare.set_defaults(handler=_cmd_compare)
    listing = sub.add_parser("list", help="models per backend and built-in streams")
    listing.set_defaults(handler=_cmd_list)
    data = sub.add_parser("data", help="real data sets: list, fetch into the cache, locate")
    data.add_argument("action", choices=["list", "fetch", "path"])
    data.add_argument("name", nargs="?", default=None, help="registered data-set name")
    data.add_argument(
        "--from", dest="source", default=None, metavar="PATH",
        help="fetch: install this local copy (checked against the registry's SHA-256)",
    )
    data.add_argument("--url", default=None, help="fetch: download from this mirror instead")
    data.add_argument("--data-dir", default=None, help="path: directory searched first")
    data.add_argument(
        "--progress", action=argparse.BooleanOptionalAction, default=None,
        help="fetch: progress bar on stderr (default: when stderr is a terminal)",
    )
    data.set_defaults(handler=_cmd_data)
    grid = sub.add_parser(
        "grid", help="run an experiment grid (TOML spec) locally or on a Dask cluster"
    )
    grid.add_argument("spec", nargs="?", default=None, help="experiment spec (TOML)")
    grid.add_argument("--out", default=None, metavar="DIR",
                      help="output directory (default: grid-<experiment name>)")
    grid.add_argument("--engine", choices=["joblib", "serial", "dask"], default="joblib",
                      help="where the cells run (default: joblib processes)")
    grid.add_argument("--jobs", type=int, default=-1,
                      help="joblib workers or local Dask workers (default: all cores)")
    grid.add_argument("--scheduler", default=None, metavar="ADDRESS",
                      help="dask: scheduler address, e.g. tcp://10.0.0.5:8786")
    grid.add_argument("--summary-only", action="store_true",
                      help="only summarise the results already in --out")
    grid.add_argument("--plot", default=None, metavar="PNG",
                      help="also plot --metric against --param (mean ± 1 s.e.) here")
    grid.add_argument("--metric", default=None, help="metric of the plot")
    grid.add_argument("--param", default=None, help="parameter on the plot's x axis")
    grid.add_argument(
        "--progress", action=argparse.BooleanOptionalAction, default=None,
        help="progress bar over cells on stderr (default: when stderr is a terminal)",
    )
    grid.set_defaults(handler=_cmd_grid)
    return parser


def _cmd_grid(args: argparse.Namespace) -> int:
    import pandas as pd

    from reference.evaluation import grid

    try:
        if args.summary_only:
            if args.out is None:
                raise UsageError("--summary-only needs --out")
            results = grid.read_results(args.out)
        else:
            if args.spec is None:
                raise UsageError("grid needs a spec file (or --summary-only --out DIR)")
            exp = grid.load_experiment(args.spec)
            out = args.out or f"grid-{exp.name}"
            results = grid.run_grid(exp, out, engine=args.engine, n_jobs=args.jobs,
                                    scheduler=args.scheduler, progress=args.progress)
            print(f"{len(exp.cells())} cells; results in {out}/results.csv")
    except grid.GridError as err:
        raise UsageError(str(err)) from err
    table = grid.summarize(results)
    with pd.option_context("display.width", 200, "display.max_columns", 20,
                           "display.max_colwidth", 60):
        print(table.to_string(index=False))
    if args.plot:
        if not (args.metric and args.param):
            raise UsageError("--plot needs --metric and --param")
        fig = grid.plot_grid(results, args.metric, args.param)
        fig.savefig(args.plot, dpi=100)
        print(f"plot written to {args.plot}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``driftwood`` console script; returns the exit status.

    With no subcommand, ``run`` with its defaults (the running-mean baseline on
    10,000 rows of Friedman-1).

    Examples
    --------
    >>> main(["run", "--model", "mean", "--stream", "parabola", "--n", "500"])  # doctest: +ELLIPSIS
    model    mean (RunningMean)
    ...
    rmse ...
    0
    """
    parser = build_parser()
    arguments = list(sys.argv[1:] if argv is None else argv)
    if not arguments or arguments[0] not in ("run", "compare", "list", "data", "grid", "-h",
                                             "--help"):
        arguments = ["run", *arguments]
    args = parser.parse_args(arguments)
    try:
        status: int = args.handler(args)
    except UsageError as err:
        print(f"driftwood: error: {err}", file=sys.stderr)
        return 2
    except FileNotFoundError as err:
        print(f"driftwood: error: {err}", file=sys.stderr)
        return 2
    return status


if __name__ == "__main__":
    sys.exit(main())

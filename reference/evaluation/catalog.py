"""What the command line and the grids can run: models, streams, and how to build them.

``MODELS`` maps a CLI name to a :class:`ModelSpec` (a class name looked up in a backend
package, its task and default arguments), so a model appears as soon as it is exported by
``reference``/``fast``; the baselines ``mean``, ``majority`` and ``nn3`` belong to the
evaluation kit and have no fast twin. ``STREAMS`` maps a CLI name to a
:class:`StreamSpec`; ``csv:<name>`` also reads a real data set.

Public API (signatures):

- ``MODELS``, ``STREAMS``, ``SIZE_ATTRIBUTES``, ``DEFAULT_STREAM``.
- ``import_backend(name) -> module``; ``available_models(backend) -> list[str]``;
  ``known_models() -> list[str]``; ``compare_candidates() -> list[str]``.
- ``model_class(name, backend) -> type``; ``build_model(cls, spec, seed, classes, extra)``;
  ``parse_params(items) -> dict``.
- ``make_stream(name, n, seed, data_dir) -> (task, (X, y))``; ``class_list(task, y)``.
- ``UsageError``: a problem with the request (the CLI exits with status 2).
"""

from __future__ import annotations

import ast
import importlib
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from reference.evaluation import baselines, datasets

__all__ = [
    "DEFAULT_STREAM",
    "MODELS",
    "SIZE_ATTRIBUTES",
    "STREAMS",
    "ModelSpec",
    "StreamSpec",
    "UsageError",
    "available_models",
    "build_model",
    "class_list",
    "compare_candidates",
    "import_backend",
    "known_models",
    "make_stream",
    "model_class",
    "parse_params",
]

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

SIZE_MEANING = {"n_balls_": "balls", "n_nodes_": "tree nodes", "n_stored_": "stored points"}
"""What each model-size attribute counts (the ``size`` metric of a run or a grid)."""

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

class UsageError(Exception):
    """A problem with the command line that should end with exit status 2."""


def import_backend(name: str, instead: str = "") -> ModuleType:
    """The backend package ``name`` (``reference`` or ``fast``), or a :class:`UsageError`.

    The message says once how to build the C backend (the import error of ``fast``
    already says it; otherwise it is added), then ``instead``: what the calling command
    can do without it (``run``: "or use --backend reference"), if anything.
    """
    try:
        return importlib.import_module(name)
    except ImportError as err:
        text = str(err)
        if "build it with" not in text:
            text += "; build it with 'pip install -e .' (or 'python fast/_ffibuild.py' in a " \
                    "checkout)"
        raise UsageError(f"backend {name!r} cannot be imported: {text}"
                         + (f"; {instead}" if instead else "")) from err


def available_models(backend: ModuleType) -> list[str]:
    """CLI names of the models usable with ``backend`` (baselines always)."""
    return [
        name for name, spec in MODELS.items() if spec.baseline or hasattr(backend, spec.class_name)
    ]


def model_class(name: str, backend: ModuleType) -> type:
    """The class of CLI model ``name`` in ``backend`` (baselines: from the evaluation kit)."""
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


def parse_params(items: Sequence[str]) -> dict[str, Any]:
    """``name=value`` items as keyword arguments (values as Python literals, else text)."""
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


def build_model(
    cls: type, spec: ModelSpec, seed: int, classes: list[Any] | None, extra: Mapping[str, Any]
) -> Any:
    """Instantiate with the registry defaults, ``seed``/``classes`` if accepted, and ``extra``."""
    try:
        known = True
        accepted = set(inspect.signature(cls).parameters)
    except (TypeError, ValueError):
        known, accepted = False, set()
    kwargs: dict[str, Any] = {k: v for k, v in spec.kwargs.items() if k in accepted}
    if "seed" in accepted:
        kwargs["seed"] = seed
    if classes is not None and "classes" in accepted:
        kwargs["classes"] = classes
    kwargs.update(extra)
    unknown = [name for name in extra if known and name not in accepted]
    if unknown:
        raise UsageError(
            f"{cls.__name__} has no parameter {', '.join(unknown)}; its parameters: "
            f"{', '.join(sorted(accepted)) or 'none'}"
        )
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as err:
        raise UsageError(f"cannot build {cls.__name__}({_kwargs_text(kwargs)}): {err}") from err


def _kwargs_text(kwargs: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in kwargs.items())


def make_stream(name: str, n: int, seed: int, data_dir: str | None,
                task: str | None = None) -> tuple[str, Stream]:
    """``(task, (X, y))`` of a built-in stream or of ``csv:<name>`` (first ``n`` rows).

    A CSV file's task is ``task`` when given (``"regression"``: the target as floats, even
    if every value is a whole number; ``"classification"``: whole-number labels), else
    classification if the target column holds whole numbers only. A built-in stream has
    its own task, which ``task`` must match."""
    if name.startswith("csv:"):
        X, y = _csv_stream(name[4:], data_dir)(n, seed)
        found = "classification" if np.issubdtype(y.dtype, np.integer) else "regression"
        if task == "regression":
            return task, (X, y.astype(np.float64))
        if task == "classification" and found != task:
            raise UsageError(f"--task classification needs whole-number labels in the target "
                             f"column of {name!r}: leave out --task or use regression")
        return found, (X, y)
    if name not in STREAMS:
        raise UsageError(f"unknown stream {name!r}; choose from {', '.join(STREAMS)} or csv:<file>")
    spec = STREAMS[name]
    if task is not None and task != spec.task:
        raise UsageError(f"stream {name!r} is a {spec.task} stream, not {task}: leave out "
                         f"--task or choose a {task} stream")
    return spec.task, spec.make(n, seed)


def class_list(task: str, y: npt.NDArray[Any]) -> list[Any] | None:
    """The sorted labels of ``y`` as plain Python values (None for regression)."""
    if task != "classification":
        return None
    return [v.item() if isinstance(v, np.generic) else v for v in np.unique(y)]



def compare_candidates() -> list[str]:
    """CLI names of the models that exist in both backends (what ``compare`` can run; where
    the C backend is not built, the reference's models, which ``compare`` then runs against
    themselves)."""
    ref = importlib.import_module("reference")
    try:
        fast = importlib.import_module("fast")
    except ImportError:
        fast = ref
    return [
        name
        for name, spec in MODELS.items()
        if not spec.baseline and hasattr(ref, spec.class_name) and hasattr(fast, spec.class_name)
    ]


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

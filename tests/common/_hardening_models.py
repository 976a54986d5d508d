"""The model registry of the hardening suites (bad input, allocation failure, fuzzing).

One entry per public model of ``reference.__all__`` (plus the option variants that change
memory or state handling: ABACOC with a budget and the BASE variant, SGT with a custom
loss). Each entry builds the same model in either backend with small settings and knows
how to make a stream of valid examples for it. Dynamic-tree entries carry ``dt=True`` so
their test ids start with ``DT-`` and can be selected or reported separately.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

D = 3
CLASSES = ["a", "b", "c"]


@dataclass(frozen=True)
class Spec:
    """How to build and feed one model configuration."""

    name: str               # id used in test names
    cls: str                # class name in reference/fast
    kind: str               # "reg", "cls" (fixed classes), "open" (labels registered), "mil"
    kwargs: dict[str, Any] = field(default_factory=dict)
    dt: bool = False
    custom_loss: bool = False
    loss: str | None = None  # a built-in loss class of the backend, e.g. "PseudoHuber"

    def make(self, pkg: ModuleType, **override: Any) -> Any:
        kw = dict(self.kwargs)
        kw.update(override)
        if self.custom_loss and "loss" not in kw:
            kw["loss"] = pkg.CustomLoss(_grad, _hess)
        if self.loss is not None and "loss" not in kw:
            kw["loss"] = getattr(pkg, self.loss)()
        return getattr(pkg, self.cls)(**kw)

    @property
    def id(self) -> str:
        return ("DT-" if self.dt else "") + self.name


def _grad(y: float, f: float) -> float:
    return f - y


def _hess(y: float, f: float) -> float:
    return 1.0


SGT_SMALL = dict(grace_period=5, warmup=10, delta=0.3)  # splits within a few dozen rows

SPECS: list[Spec] = [
    Spec("DynamicTreeRegressor", "DynamicTreeRegressor", "reg", dict(n_particles=10, seed=3),
         dt=True),
    Spec("DynamicTreeRegressor-linear", "DynamicTreeRegressor", "reg",
         dict(n_particles=10, seed=3, leaf="linear"), dt=True),
    Spec("DynamicTreeClassifier", "DynamicTreeClassifier", "cls",
         dict(n_particles=10, seed=3, classes=CLASSES), dt=True),
    Spec("SGTRegressor", "SGTRegressor", "reg", dict(SGT_SMALL)),
    Spec("SGTClassifier", "SGTClassifier", "cls", dict(SGT_SMALL, classes=CLASSES)),
    Spec("SGTMultiInstanceClassifier", "SGTMultiInstanceClassifier", "mil", dict(SGT_SMALL)),
    Spec("SGT", "SGT", "reg", dict(SGT_SMALL)),
    Spec("SGT-custom", "SGT", "reg", dict(SGT_SMALL), custom_loss=True),
    Spec("SGT-pseudo-huber", "SGT", "reg", dict(SGT_SMALL), loss="PseudoHuber"),
    Spec("ABACOCClassifier", "ABACOCClassifier", "open", dict(variant="auto_adj", seed=5)),
    Spec("ABACOCClassifier-budget", "ABACOCClassifier", "open",
         dict(variant="auto", budget=4, seed=5)),
    Spec("ABACOCClassifier-base", "ABACOCClassifier", "open",
         dict(variant="base", mode="majority", seed=5)),
    # the linear leaf with the Gaussian slope prior ([DT-SPEC §3.7])
    Spec("DynamicTreeRegressor-slope-prior", "DynamicTreeRegressor", "reg",
         dict(n_particles=10, seed=3, leaf="linear", slope_prior=0.5), dt=True),
    # the SGT specs above run the default per-leaf bins; the paper's global bins too
    Spec("SGTRegressor-global", "SGTRegressor", "reg", dict(SGT_SMALL, quantization="global")),
    Spec("SGTClassifier-global", "SGTClassifier", "cls",
         dict(SGT_SMALL, classes=CLASSES, quantization="global")),
]



def _both_accept(cls: str, name: str) -> bool:
    """True when the class takes the keyword in both backends (options still landing)."""
    import inspect

    try:
        import fast
        import reference
    except ImportError:
        return False
    return all(name in inspect.signature(getattr(pkg, cls)).parameters
               for pkg in (reference, fast))


# the active pool (data-point retirement), once both backends have it
if _both_accept("DynamicTreeRegressor", "active_size"):
    SPECS.append(Spec("DynamicTreeRegressor-active", "DynamicTreeRegressor", "reg",
                      dict(n_particles=10, seed=3, active_size=12), dt=True))
    SPECS.append(Spec("DynamicTreeClassifier-active", "DynamicTreeClassifier", "cls",
                      dict(n_particles=10, seed=3, classes=CLASSES, active_size=12), dt=True))

BY_ID = {s.id: s for s in SPECS}


def stream(spec: Spec, n: int, seed: int = 0) -> list[tuple[Any, Any]]:
    """n valid (x, y) examples for the model (bags for multi-instance)."""
    rng = np.random.default_rng(seed)
    out: list[tuple[Any, Any]] = []
    for _ in range(n):
        if spec.kind == "mil":
            size = int(rng.integers(1, 4))
            bag = [[float(v) for v in rng.uniform(-1, 1, D)] for _ in range(size)]
            label = int(max(r[0] for r in bag) > 0.3)
            out.append((bag, label))
            continue
        x = [float(v) for v in rng.uniform(-1, 1, D)]
        if spec.kind == "reg":
            out.append((x, 2.0 * x[0] - x[1] + 0.1 * float(rng.normal())))
        else:
            out.append((x, CLASSES[int(x[0] > 0.0) + int(x[1] > 0.5)]))
    return out


def trained(spec: Spec, pkg: ModuleType, n: int = 40, seed: int = 0) -> Any:
    """A model of the spec that has learned n examples one at a time."""
    model = spec.make(pkg)
    for x, y in stream(spec, n, seed):
        model.learn_one(x, y)
    return model


def prediction_calls(spec: Spec) -> list[Callable[[Any, Any], Any]]:
    """Prediction methods of the model kind, each called as f(model, x)."""
    calls: list[Callable[[Any, Any], Any]] = [lambda m, x: m.predict_one(x)]
    if spec.kind != "reg":
        calls.append(lambda m, x: m.predict_proba_one(x))
    return calls

"""Exercise ``sgt-softmax-gradients``: Gradients and Hessians of the softmax committee.

The reference adapter, the cases, the plug and the registered mistakes; the
student's skeleton is ``skeleton.py``, the hints ``hints.txt``, the statement
``statement.md`` (all in this folder)."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from reference.exercises.catalog import (
    EXACT,
    Case,
    Exercise,
    Mistake,
    Plug,
    folder_file,
    folder_hints,
)
from reference.exercises.sgt._shared import (
    _SOFTMAX_GRADIENTS,
    SOFTMAX,
    SOFTMAX_STREAM,
    Fn,
)

SOFTMAX_SKELETON = folder_file(__file__, "skeleton.py")


def softmax_gradients(raws: list[float], label: int) -> tuple[list[float], list[float]]:
    """The reference: :func:`reference.sgt.losses.softmax_gradients`."""
    return _SOFTMAX_GRADIENTS(list(raws), int(label))


def _softmax_cases() -> list[Case]:
    rng = random.Random(303)
    cases = [
        Case(([0.0], 0), "two classes, scores 0"),
        Case(([0.0, 0.0], 2), "all scores 0, the class without a tree"),
        Case(([2.0, -1.0], 0), "a positive largest score"),
        Case(([1.5, 1.5, -0.5], 1), "tied largest scores"),
        Case(([800.0, -800.0], 0), "huge scores (exp would overflow without the max)"),
        Case(([-800.0, -800.0], 2), "very negative scores"),
        Case(([1e-300, -1e-300, 0.0], 1), "tiny scores"),
    ]
    for i in range(60):
        trees = rng.randint(1, 5)
        raws = [rng.gauss(0.0, 2.0) for _ in range(trees)]
        cases.append(Case((raws, rng.randint(0, trees)), f"random {i}"))
    return cases


def _softmax_plugs() -> tuple[Plug, ...]:
    def adapt(student: Fn) -> Fn:
        def plugged(raws: Sequence[float], label: int) -> tuple[list[float], list[float]]:
            g, h = student([float(r) for r in raws], int(label))
            return [float(v) for v in g], [float(v) for v in h]
        return plugged
    return (Plug("reference.sgt.losses.softmax_gradients", adapt),)


def _probabilities(scores: list[float]) -> list[float]:
    top = max(scores)
    exps = [math.exp(s - top) for s in scores]
    total = 0.0
    for e in exps:
        total += e
    return [e / total for e in exps]


def _softmax_mistake(hess_p: bool = False, half: bool = False, fixed: float = 0.0,
                     no_reference_class: bool = False) -> Fn:
    def wrong(raws: list[float], label: int) -> tuple[list[float], list[float]]:
        scores = list(raws) if no_reference_class else list(raws) + [fixed]
        probs = _probabilities(scores)
        one = 0.5 if half else 1.0
        g = [probs[c] - (one if c == label else 0.0) for c in range(len(raws))]
        h = [probs[c] if hess_p else probs[c] * (1.0 - probs[c]) for c in range(len(raws))]
        return g, h
    return wrong


def _softmax_no_shift(raws: list[float], label: int) -> tuple[list[float], list[float]]:
    exps = [math.exp(s) for s in [*raws, 0.0]]
    total = 0.0
    for e in exps:
        total += e
    probs = [e / total for e in exps]
    return ([probs[c] - (1.0 if c == label else 0.0) for c in range(len(raws))],
            [probs[c] * (1.0 - probs[c]) for c in range(len(raws))])


SOFTMAX_EXERCISE = Exercise(
    name="sgt-softmax-gradients",
    title="Gradients and Hessians of the softmax committee",
    family="sgt",
    tag="[GPF19, Eq. 19-22]; [SGT-SPEC §3.3]",
    anchor=SOFTMAX,
    function_name="softmax_gradients",
    skeleton=SOFTMAX_SKELETON,
    reference=softmax_gradients,
    cases=_softmax_cases,
    tolerance=EXACT,
    plugs=_softmax_plugs(),
    stream=SOFTMAX_STREAM,
    mistakes=(
        Mistake(
            "softmax-hessian-p",
            "Your Hessian is p_c: differentiating p_c - [y = c] once more gives p_c(1 - p_c).",
            SOFTMAX,
            _softmax_mistake(hess_p=True),
            mutant="sgt-softmax-hessian",
        ),
        Mistake(
            "softmax-half-indicator",
            "Your gradient subtracts [y = c]/2: the derivative of -log p_y with respect to "
            "f_c is p_c - [y = c], with a full indicator.",
            SOFTMAX,
            _softmax_mistake(half=True),
            mutant="sgt-softmax-gradient",
        ),
        Mistake(
            "softmax-fixed-score-one",
            "The class without a tree has score f_k = 0 (so exp f_k = 1), not f_k = 1.",
            SOFTMAX,
            _softmax_mistake(fixed=1.0),
            mutant="sgt-softmax-fixed-score",
        ),
        Mistake(
            "softmax-no-max-shift",
            "Without subtracting the largest score first, exp overflows for large scores and "
            "the probabilities round differently; the specification shifts by the maximum.",
            SOFTMAX,
            _softmax_no_shift,
        ),
        Mistake(
            "softmax-no-reference-class",
            "You normalise over the k - 1 trees only: the sum in the denominator also holds "
            "the last class, exp(0) = 1.",
            SOFTMAX,
            _softmax_mistake(no_reference_class=True),
        ),
    ),
    hints=folder_hints(__file__),
    statement=folder_file(__file__, "statement.md"),
    minutes=20,
)



EXERCISE = SOFTMAX_EXERCISE

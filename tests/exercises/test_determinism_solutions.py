"""Independent solutions of the generator exercises pass the checker (both routes).

Written from the tutorial's equations, not from ``reference.rng``: arithmetic modulo
``2**64`` with ``%`` instead of masks, rotations through ``divmod``, the uniform via
``math.ldexp``, the mask of ``below`` from ``int.bit_length``. The texts are also the
solution files of the command-line tests.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference.exercises import check

M = 2**64

SPLITMIX = '''
M = 2**64


def splitmix64_step(x):
    x = (x + 0x9E3779B97F4A7C15) % M
    z = x
    for shift, factor in ((30, 0xBF58476D1CE4E5B9), (27, 0x94D049BB133111EB)):
        z = ((z ^ (z // 2**shift)) * factor) % M
    return z ^ (z // 2**31), x
'''

SEED = SPLITMIX + '''

def seed_state(seed):
    x = seed % M
    words = []
    while len(words) < 4:
        out, x = splitmix64_step(x)
        words.append(out)
    return tuple(words)
'''

XOSHIRO = '''
M = 2**64


def rotl(v, k):
    high, low = divmod(v * 2**k, M)
    return low + high


def xoshiro_step(s0, s1, s2, s3):
    out = rotl(s1 * 5 % M, 7) * 9 % M
    t = s1 * 2**17 % M
    s2 = s2 ^ s0
    s3 = s3 ^ s1
    s1 = s1 ^ s2
    s0 = s0 ^ s3
    s2 = s2 ^ t
    s3 = rotl(s3, 45)
    return out, (s0, s1, s2, s3)
'''

UNIFORM = '''
import math


def uniform_from_word(word):
    return math.ldexp(float(word // 2**11), -53)
'''

BELOW = '''
def below(n, words):
    k = (n - 1).bit_length()
    used = 0
    for word in words:
        used += 1
        v = word % 2**k
        if v < n:
            return v, used
    raise ValueError("not enough words")
'''

SOLUTIONS = {
    "rng-splitmix64": (SPLITMIX, "splitmix64_step"),
    "rng-seed-state": (SEED, "seed_state"),
    "rng-xoshiro-step": (XOSHIRO, "xoshiro_step"),
    "rng-uniform": (UNIFORM, "uniform_from_word"),
    "rng-below": (BELOW, "below"),
}
"""Exercise name -> (solution source, function name)."""


def solution(name: str) -> Any:
    source, function = SOLUTIONS[name]
    namespace: dict[str, Any] = {"__name__": f"solution_{function}"}
    exec(compile(source, f"<solution {name}>", "exec"), namespace)
    return namespace[function]


@pytest.mark.parametrize("name", sorted(SOLUTIONS))
def test_independent_solution_passes_both_routes(name: str) -> None:
    report = check(name, solution(name))
    assert report.passed, str(report)
    assert report.stream_steps > 0 and report.stream_divergence is None


def test_solutions_agree_with_the_published_vectors() -> None:
    """The tutorial's known answers, by the solutions themselves."""
    assert solution("rng-splitmix64")(0)[0] == 0xE220A8397B1DCDAF
    assert solution("rng-seed-state")(-1) == solution("rng-seed-state")(M - 1)
    step = solution("rng-xoshiro-step")
    state, outputs = (1, 2, 3, 4), []
    for _ in range(4):
        out, state = step(*state)
        outputs.append(out)
    assert outputs == [11520, 0, 1509978240, 1215971899390074240]
    assert solution("rng-uniform")(M - 1) == 1.0 - 2.0**-53
    assert solution("rng-below")(7, (7, 15, 3)) == (3, 3)

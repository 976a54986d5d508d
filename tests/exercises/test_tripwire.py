"""The tripwires replace the library's answer in the child, and never a correct answer's.

In a forked child, as in the checking worker (:mod:`reference.exercises.harness`): after
:func:`reference.exercises.tripwire.install`, the exercise's reference answer, the plug
target and the family's table of originals raise
:class:`~reference.exercises.tripwire.LibraryCalled`, and every family's independent
solution (the solution tests' own) still passes both routes, its outputs graded in the
parent: the plugged model reaches the student's function, not a tripwire. The quick run
takes the first exercise of each family, the full run all of them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import pytest

from _run_size import sized
from reference.exercises import catalog, checker, tripwire
from reference.exercises.isolation import _report_from
from reference.exercises.plaindata import _encode_outputs
from tests.exercises import (
    test_abacoc_solutions,
    test_determinism_solutions,
    test_dynamic_trees_solutions,
    test_sgt_solutions,
)


def _solutions() -> dict[str, Callable[..., Any]]:
    found: dict[str, Callable[..., Any]] = {}
    for module in (test_determinism_solutions, test_dynamic_trees_solutions,
                   test_sgt_solutions, test_abacoc_solutions):
        mine = list(module.SOLUTIONS.items())
        for name, solution in sized(quick=mine[:1], full=mine):
            if isinstance(solution, tuple):          # (source, function name)
                namespace: dict[str, Any] = {}
                exec(solution[0], namespace)
                solution = namespace[solution[1]]
            found[name] = solution
    return found


SOLUTIONS = _solutions()


def _in_child(work: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """``work()`` in a forked child; its JSON-ready result."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:                                   # pragma: no cover - the child
        os.close(read_end)
        try:
            data = json.dumps(work()).encode()
        except BaseException as exc:  # noqa: BLE001
            data = json.dumps({"child raised": repr(exc)}).encode()
        while data:
            data = data[os.write(write_end, data):]
        os._exit(0)
    os.close(write_end)
    chunks = []
    while chunk := os.read(read_end, 1 << 20):
        chunks.append(chunk)
    os.close(read_end)
    os.waitpid(pid, 0)
    result: dict[str, Any] = json.loads(b"".join(chunks))
    return result


def _prepared(name: str) -> catalog.Exercise:
    exercise = catalog.get(name)
    checker._cache(exercise)
    checker._skeleton_signature(exercise)
    if exercise.stream is not None and exercise.plugs:
        checker._rows(exercise)
    return exercise


@pytest.mark.parametrize("name", sorted(SOLUTIONS))
def test_a_correct_answer_passes_past_the_tripwires(name: str) -> None:
    exercise = _prepared(name)

    def work() -> dict[str, Any]:
        tripwire.install(exercise)
        return {"outputs": _encode_outputs(checker.collect(exercise, SOLUTIONS[name]))}

    report = _report_from(exercise, _in_child(work))
    assert report.passed, str(report)
    assert exercise.stream is not None and report.stream_steps == len(exercise.stream.data()[1])


def test_the_library_answer_raises_in_the_child_only() -> None:
    exercise = _prepared("dt-split-prob")
    case = checker._cache(exercise)["cases"][0].args

    def work() -> dict[str, Any]:
        from reference.dynatree import tree
        from reference.exercises.dynamic_trees import _shared

        replaced = tripwire.install(exercise)
        caught = {}
        for label, function in (("reference", catalog.get("dt-split-prob").reference),
                                ("library", tree.log_split_prob),
                                ("table", _shared._REAL["log_split_prob"])):
            try:
                function(*case)
                caught[label] = "returned"
            except tripwire.LibraryCalled as exc:
                caught[label] = exc.what
        return {"replaced": replaced, "caught": caught}

    result = _in_child(work)
    assert result["caught"] == {
        "reference": "the exercise's reference answer",
        "library": "the library's own `log_split_prob`",
        "table": "the library's own `log_split_prob`"}, result
    assert "reference.dynatree.tree.log_split_prob" in result["replaced"]
    # this process is untouched
    assert isinstance(exercise.reference(*case), float)

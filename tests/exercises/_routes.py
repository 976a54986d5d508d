"""The two routes every family's solution tests assert, written once.

- :func:`assert_solution_passes`: an independent solution passes the cases and runs
  inside the reference model beside ``fast`` for the whole stream without diverging;
- :func:`assert_first_mistake_is_named_and_diverges`: the exercise's first registered
  mistake is diagnosed by its id and makes the plugged model diverge from ``fast`` at a
  step of the stream.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reference.exercises import check
from reference.exercises.catalog import Exercise


def assert_solution_passes(exercise: Exercise, solution: Callable[..., Any]) -> None:
    report = check(exercise, solution)
    assert report.passed, str(report)
    assert report.stream_divergence is None
    assert exercise.stream is not None
    assert report.stream_steps == len(exercise.stream.data()[1]), str(report)


def assert_first_mistake_is_named_and_diverges(exercise: Exercise) -> None:
    mistake = exercise.mistakes[0]
    report = check(exercise, mistake.function)
    assert report.status == "mismatch"
    assert report.diagnosis is not None and report.diagnosis.id == mistake.id, str(report)
    assert report.stream_divergence is not None, f"{mistake.id} never diverges on the stream"
    assert exercise.stream is not None
    assert 0 <= report.stream_divergence.step < len(exercise.stream.data()[1])

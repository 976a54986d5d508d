"""The course kit: exercises that check a student's own code against the papers.

Each exercise asks for one key equation of the papers as a Python function; the checker
knows the right answer by two routes (the reference function on randomized inputs with
edge cases, and the function plugged into the reference model beside the ``fast`` model
on a short seeded stream), names the known mistake an answer reproduces and points to the
tutorial paragraph to reread.

In a notebook::

    from reference.exercises import check, hint, list_exercises, start
    list_exercises()                        # the catalogue
    start("rng-uniform")                    # writes rng_uniform.py, the skeleton
    check("rng-uniform", uniform_from_word) # a Report: print it, or .passed, .to_json()
    hint("rng-uniform")                     # the next graded hint

In a shell: ``driftwood exercise list | start NAME | check NAME [FILE] [--json] | hint NAME``.
The data model is :mod:`reference.exercises.catalog`, the grading
:mod:`reference.exercises.checker`.
"""

from reference.exercises.catalog import Exercise, all_exercises, get
from reference.exercises.checker import Report, check, hint, list_exercises, start

__all__ = ["Exercise", "Report", "all_exercises", "check", "get", "hint", "list_exercises",
           "start"]

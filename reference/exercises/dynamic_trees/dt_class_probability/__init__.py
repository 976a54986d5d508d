"""Exercise dt-class-probability.

See ``exercise.py``; the student's file is ``skeleton.py``."""

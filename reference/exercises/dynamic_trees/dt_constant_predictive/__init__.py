"""Exercise dt-constant-predictive.

See ``exercise.py``; the student's file is ``skeleton.py``."""

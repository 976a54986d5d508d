"""Exercise dt-move-probabilities.

See ``exercise.py``; the student's file is ``skeleton.py``."""

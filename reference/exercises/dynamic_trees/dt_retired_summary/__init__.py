"""Exercise dt-retired-summary.

See ``exercise.py``; the student's file is ``skeleton.py``."""

"""Exercise dt-retire-point.

See ``exercise.py``; the student's file is ``skeleton.py``."""

"""Exercise dt-forgetting-linear.

See ``exercise.py``; the student's file is ``skeleton.py``."""

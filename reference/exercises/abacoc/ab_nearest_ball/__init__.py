"""Exercise ab-nearest-ball.

See ``exercise.py``; the student's file is ``skeleton.py``."""

"""Exercise ab-radius-law.

See ``exercise.py``; the student's file is ``skeleton.py``."""

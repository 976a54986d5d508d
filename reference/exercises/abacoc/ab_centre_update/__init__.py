"""Exercise ab-centre-update.

See ``exercise.py``; the student's file is ``skeleton.py``."""

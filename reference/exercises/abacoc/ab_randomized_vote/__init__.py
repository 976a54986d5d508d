"""Exercise ab-randomized-vote.

See ``exercise.py``; the student's file is ``skeleton.py``."""

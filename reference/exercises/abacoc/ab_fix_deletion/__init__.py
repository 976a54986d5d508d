"""Exercise ab-fix-deletion.

See ``exercise.py``; the student's file is ``skeleton.py``."""

"""Exercise dt-constant-evidence.

See ``exercise.py``; the student's file is ``skeleton.py``."""

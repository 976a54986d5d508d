"""Exercise dt-class-evidence.

See ``exercise.py``; the student's file is ``skeleton.py``."""

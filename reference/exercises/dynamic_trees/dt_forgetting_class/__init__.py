"""Exercise dt-forgetting-class.

See ``exercise.py``; the student's file is ``skeleton.py``."""

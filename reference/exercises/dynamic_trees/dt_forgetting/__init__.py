"""Exercise dt-forgetting.

See ``exercise.py``; the student's file is ``skeleton.py``."""

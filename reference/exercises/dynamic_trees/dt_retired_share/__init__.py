"""Exercise dt-retired-share.

See ``exercise.py``; the student's file is ``skeleton.py``."""

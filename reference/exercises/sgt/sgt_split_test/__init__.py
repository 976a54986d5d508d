"""Exercise sgt-split-test.

See ``exercise.py``; the student's file is ``skeleton.py``."""

"""Exercise sgt-bin-index.

See ``exercise.py``; the student's file is ``skeleton.py``."""

"""Exercise sgt-split-gain.

See ``exercise.py``; the student's file is ``skeleton.py``."""

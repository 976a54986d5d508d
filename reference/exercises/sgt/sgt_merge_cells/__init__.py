"""Exercise sgt-merge-cells.

See ``exercise.py``; the student's file is ``skeleton.py``."""

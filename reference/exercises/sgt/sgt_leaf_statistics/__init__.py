"""Exercise sgt-leaf-statistics.

See ``exercise.py``; the student's file is ``skeleton.py``."""

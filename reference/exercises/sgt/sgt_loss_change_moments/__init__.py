"""Exercise sgt-loss-change-moments.

See ``exercise.py``; the student's file is ``skeleton.py``."""

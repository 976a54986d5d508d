"""Exercise sgt-logistic-gradient.

See ``exercise.py``; the student's file is ``skeleton.py``."""

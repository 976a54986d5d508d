"""Exercise sgt-squared-error-gradient.

See ``exercise.py``; the student's file is ``skeleton.py``."""

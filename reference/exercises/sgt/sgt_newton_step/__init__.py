"""Exercise sgt-newton-step.

See ``exercise.py``; the student's file is ``skeleton.py``."""

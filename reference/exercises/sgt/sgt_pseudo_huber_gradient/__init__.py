"""Exercise sgt-pseudo-huber-gradient.

See ``exercise.py``; the student's file is ``skeleton.py``."""

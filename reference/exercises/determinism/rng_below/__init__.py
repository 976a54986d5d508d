"""Exercise rng-below.

See ``exercise.py``; the student's file is ``skeleton.py``."""

"""Exercise rng-splitmix64.

See ``exercise.py``; the student's file is ``skeleton.py``."""

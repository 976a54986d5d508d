"""Exercise rng-uniform.

See ``exercise.py``; the student's file is ``skeleton.py``."""

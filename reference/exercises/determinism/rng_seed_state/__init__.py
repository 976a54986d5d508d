"""Exercise rng-seed-state.

See ``exercise.py``; the student's file is ``skeleton.py``."""

"""Exercise dt-residual-resample.

See ``exercise.py``; the student's file is ``skeleton.py``."""

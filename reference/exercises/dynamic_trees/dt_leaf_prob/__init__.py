"""Exercise dt-leaf-prob.

See ``exercise.py``; the student's file is ``skeleton.py``."""

"""Exercise dt-leaf-entropy.

See ``exercise.py``; the student's file is ``skeleton.py``."""

"""Exercise dt-leaf-alc.

See ``exercise.py``; the student's file is ``skeleton.py``."""

"""Exercise sgt-softmax-gradients.

See ``exercise.py``; the student's file is ``skeleton.py``."""

"""Tests of the ABACOC ball-cover classifiers."""

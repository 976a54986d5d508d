"""Tests of the stochastic gradient trees."""

"""Tests of the course kit: the exercises, their checker and `driftwood exercise`."""

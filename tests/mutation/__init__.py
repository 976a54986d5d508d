"""Mutation testing of the paper formulas (opt-in): ``python -m tests.mutation.run``."""

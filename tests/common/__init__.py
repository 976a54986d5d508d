"""Tests that span the models: lockstep harness, RNG, special functions, estimator protocol,
bad input, persistence, threads, interrupts, C memory safety, docs. Shared helpers live here."""

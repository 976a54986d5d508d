"""Tests of the dynamic trees (particle learning, leaf models, data retirement)."""

"""Tests of the evaluation kit: data sets, registry, metrics, prequential runs, grids, CLI."""

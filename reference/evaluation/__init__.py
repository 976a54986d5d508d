"""The evaluation wing of driftwood: streams, data, protocols, metrics, comparison, CLI.

Nothing here is a model of the papers: these are the tools that feed, score and compare
the models of both backends (``reference`` and ``fast``), which they treat alike.

- :mod:`~reference.evaluation.datasets`: synthetic streams and the real-data loader;
  :mod:`~reference.evaluation.registry`: the catalogue of real data sets and the user cache.
- :mod:`~reference.evaluation.prequential`: the test-then-train loop and its results;
  :mod:`~reference.evaluation.metrics`; :mod:`~reference.evaluation.baselines`;
  :mod:`~reference.evaluation.plotting`.
- :mod:`~reference.evaluation.compare`: the one comparison of the two backends.
- :mod:`~reference.evaluation.grid` and :mod:`~reference.evaluation.protocols`: experiment
  grids; :mod:`~reference.evaluation.catalog`: the models and streams they (and the CLI)
  can run; :mod:`~reference.evaluation.cli`: the ``driftwood`` command.
"""

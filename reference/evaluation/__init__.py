"""The evaluation wing of driftwood: streams, data, protocols, metrics, comparison, CLI.

Nothing here is a model of the papers: these are the tools that feed, score and compare
the models of both backends (``reference`` and ``fast``), which they treat alike.
"""

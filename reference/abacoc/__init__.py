"""ABACOC: adaptive ball covering classifiers for data streams [DOC15].

Modules, one paper concept each: ``params`` (hyper-parameters and input checks),
``balls`` (the ball record and its local rules), ``search`` (distance, exhaustive scan,
loose kd-tree), ``variants`` (BASE, BASE-ADJ, AUTO, AUTO-ADJ, FIX), ``inputs`` (the facade
logic shared with ``fast``), ``model`` (``ABACOCClassifier``).
"""

from reference.abacoc.model import ABACOCClassifier

__all__ = ["ABACOCClassifier"]

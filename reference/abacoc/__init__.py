"""ABACOC: adaptive ball covering classifiers for data streams [DOC15].

Modules, one paper concept each: ``params`` (hyper-parameters and input checks),
``balls`` (the ball record and its local rules), ``search`` (distance, exhaustive scan),
``kdtree`` (the loose kd-tree that accelerates the search, same answers), ``variants``
(BASE, BASE-ADJ, AUTO, AUTO-ADJ, FIX), ``engine`` (what the public class asks of the
mathematics: the ``ABACOCEngine`` protocol and its Python implementation), ``inputs``
(the facade logic: validation, labels, public API) and ``model`` (``ABACOCClassifier``).
"""

from reference.abacoc.model import ABACOCClassifier

__all__ = ["ABACOCClassifier"]

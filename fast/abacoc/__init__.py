"""ABACOC in C [DOC15]: ``ABACOCClassifier`` with the API of ``reference.abacoc``."""

from fast.abacoc.model import ABACOCClassifier

__all__ = ["ABACOCClassifier"]

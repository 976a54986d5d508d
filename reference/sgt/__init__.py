"""Stochastic gradient trees [GPF19]: one module per paper concept.

``params`` (hyper-parameters, input checks), ``grad_hess`` (Welford/Chan statistics,
Newton step, loss-change moments), ``losses`` (objectives), ``quantizer`` (binning),
``splits`` (candidates and t-test), ``tree`` (one tree), ``warmup`` (the prediction before
the bins exist), ``core`` (warm-up buffer and
committee), ``engine`` (what a public model asks of the mathematics: the
``SGTEngine`` protocol and its Python implementation), ``atomic`` (undoing a failed
first call), ``facade`` (validation and state shared by the public classes), ``model``
(regression and any loss), ``classifier`` (classification) and ``multi_instance``
(bags).
"""

from reference.sgt.losses import BinaryCrossEntropy, CustomLoss, PseudoHuber, SquaredError
from reference.sgt.model import SGT, SGTClassifier, SGTMultiInstanceClassifier, SGTRegressor

__all__ = [
    "SGTRegressor",
    "SGTClassifier",
    "SGTMultiInstanceClassifier",
    "SGT",
    "SquaredError",
    "BinaryCrossEntropy",
    "PseudoHuber",
    "CustomLoss",
]

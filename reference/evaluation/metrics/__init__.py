"""Evaluation metrics: batch functions on arrays and running (streaming) versions.

Metrics are evaluation code, not model math, so numpy is used freely here
([DET-SPEC §2] restricts numpy only inside models).

Public functions (signatures):

- ``rmse(y_true, y_pred) -> float``, ``mae(y_true, y_pred) -> float``.
- ``accuracy(y_true, y_pred) -> float``.
- ``auc(y_true, scores, pos_label=1) -> float``: area under the ROC curve by ranks
  (Mann-Whitney), ties counted as one half.
- ``h_measure(y_true, scores, pos_label=1, alpha=2.0, beta=2.0) -> float``: Hand's
  H-measure [Han09] with a Beta(α, β) cost prior, Beta(2, 2) by default.
- ``roc_convex_hull(y_true, scores, pos_label=1) -> (fpr, tpr)``.
- ``gaussian_log_density(y, mean, variance) -> float``,
  ``class_log_density(proba, label) -> float``.
- ``average_log_density(log_densities) -> float``: the average log predictive
  density (ALPD) used in [AG13, Fig. 2].
- Running versions (``update(...)`` one example, ``get()`` the value so far,
  optional ``window`` for a sliding window): ``RunningRMSE``, ``RunningMAE``,
  ``RunningAccuracy``, ``RunningMean``.

References
----------
[Han09] D. J. Hand, "Measuring classifier performance: a coherent alternative to the
area under the ROC curve", Machine Learning 77, 103-123, 2009.
[AG13] C. Anagnostopoulos and R. B. Gramacy, Entropy 15(12), 2013, §4.5 and §5.2.
"""


from reference.evaluation.metrics.density import (
    average_log_density,
    class_log_density,
    gaussian_log_density,
)
from reference.evaluation.metrics.errors import accuracy, mae, rmse
from reference.evaluation.metrics.ranking import auc, h_measure, roc_convex_hull
from reference.evaluation.metrics.running import (
    RunningAccuracy,
    RunningMAE,
    RunningMean,
    RunningRMSE,
)

__all__ = [
    "RunningAccuracy",
    "RunningMAE",
    "RunningMean",
    "RunningRMSE",
    "accuracy",
    "auc",
    "average_log_density",
    "class_log_density",
    "gaussian_log_density",
    "h_measure",
    "mae",
    "rmse",
    "roc_convex_hull",
]

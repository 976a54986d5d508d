"""Baseline learners: the reference points every model has to beat.

``RunningMean`` predicts the mean of the targets seen so far (regression);
``MajorityClass`` predicts the most frequent label so far (classification);
``NearestNeighbours`` is the k-nearest-neighbour classifier that stores every example it
learns (DOC15's NN3 with ``k = 3``, [DOC15, §IV-C]). They have the
models' API ([DET-SPEC §4]): ``learn_one``, ``partial_fit``, ``predict_one``, ``predict``,
``predict_proba_one``/``predict_proba`` (classifier), ``snapshot``, ``get_params``,
``clone``, and the attributes ``n_features_in_``, ``n_seen_``, ``classes_``. They have no
C twin: they are evaluation tools, shared by both backends.

Public classes (signatures):

- ``RunningMean()``
- ``MajorityClass(classes=None, smoothing=0.0)``
- ``NearestNeighbours(k=3, classes=None)``
"""


from reference.evaluation.baselines.classification import MajorityClass, NearestNeighbours
from reference.evaluation.baselines.regression import RunningMean

__all__ = ["MajorityClass", "NearestNeighbours", "RunningMean"]

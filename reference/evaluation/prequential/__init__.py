"""Prequential (test-then-train) evaluation with optional label sub-sampling.

At every step ``t`` the model first predicts ``x_t`` (the test), the prediction is scored
against ``y_t``, and then the model learns ``(x_t, y_t)`` (the train) [DOC15, §VI;
AG13, §5]. With ``rate < 1`` the label is revealed for training only with probability
``rate``, as in the online sub-sampling protocol of [DOC15, Alg. 5]: every example is
still predicted and scored. The coin flips come from a *separate* generator
(``Rng(label_seed)``), so changing the rate never changes the model's own random stream.

Works with any learner that has ``learn_one(x, y)`` and ``predict_one(x)``; a classifier
that also has ``predict_proba_one(x)`` additionally gets AUC, H-measure (binary streams)
and the average log predictive density.

Public API (signatures):

- ``prequential(model, X, y=None, *, n=None, task=None, rate=1.0, label_seed=1,
  window=1000, n_points=200, pos_label=None, proba=None, log_density=None, size=None,
  progress=None, description=None) -> PrequentialResult``
- ``PrequentialResult``: ``t``, ``curves``, ``windowed``, ``final``, ``elapsed``,
  ``n_learned``, ``learned``, ``summary()``, ``curve(metric, windowed=False)``.
- ``ProgressBar(total, description="", enabled=True, stream=sys.stderr, *, unit="it",
  style="auto", interval=None, start=0)``: a bar on a terminal, a plain line every
  ``interval`` seconds (default 5, with the time left) elsewhere.

Modules: :mod:`~reference.evaluation.prequential.loop` (the loop),
:mod:`~reference.evaluation.prequential.result` (curves and final metrics),
:mod:`~reference.evaluation.prequential.progress` (the progress bar).

References
----------
[DOC15] R. De Rosa, F. Orabona and N. Cesa-Bianchi, "The ABACOC algorithm: a novel
approach for nonparametric classification of data streams", ICDM 2015, Algorithm 5.
[AG13] C. Anagnostopoulos and R. B. Gramacy, Entropy 15(12), 2013, §5.
"""


from reference.evaluation.prequential.loop import prequential
from reference.evaluation.prequential.progress import ProgressBar
from reference.evaluation.prequential.result import PrequentialResult

__all__ = ["PrequentialResult", "ProgressBar", "prequential"]

"""Synthetic streams of the papers and a loader for the project's real data sets.

Every synthetic stream is drawn from the project's generator :class:`reference.rng.Rng`
(never ``numpy.random``), so a stream is the same on every machine and for both backends.
Each stream has two forms: ``iter_<name>(...)`` yields rows ``(x, y)`` forever (``x`` a
list of floats), and ``<name>(n, ...)`` returns the first ``n`` rows as arrays
``(X, y)``: ``X`` float64 of shape ``(n, d)``, ``y`` float64 (regression) or int64
(classification). The array form is exactly the first ``n`` rows of the iterator form.

Public functions (signatures):

- ``normal(rng) -> float``: a standard normal draw by Box-Muller from two uniforms.
- ``friedman1(n, n_features=5, noise=1.0, seed=0)``: Friedman-1 [Fri91], the
  regression benchmark of [AG13, §4.5.1].
- ``drifting_friedman(n, k=0.1, n_features=5, noise=1.0, seed=0)``: Friedman-1 with
  smooth drift ``a_t = 2 sin(2πkt/1000) + 1`` [AG13, §5.1].
- ``regime_friedman(n=30000, n_features=5, noise=1.0, seed=0, start=10000,
  stop=20000, high=10.0, low=0.0)``: the A-B-A regime change of [AG13, §5.1],
  ``a_t = 10`` for ``start <= t < stop``, else 0.
- ``parabola(n, noise=1.0, seed=0)``: ``y = x + x² + ε``, ``x ~ U(-3, 2)``
  [AG13, Fig. 1].
- ``moving_xor(n, period=100000, noise=0.0, seed=0)``: the rotating XOR problem
  MOVINGXOR [AG13, §5.2].
- ``sea(n=60000, thresholds=(8, 9, 7, 9.5), concept_length=15000, noise=0.1,
  seed=0)``: SEA concepts with abrupt changes [SK01].
- ``hyperplane(n, n_features=10, n_drift_features=2, mag_change=0.001,
  sigma_reverse=0.1, noise=0.05, seed=0)``: rotating hyperplane [HSD01].
- ``iter_<name>(...)``: the same streams as endless iterators of ``(x, y)``.
- ``drift_coefficient(t, k)``, ``regime_coefficient(t, ...)``: the coefficients
  ``a_t`` above, for row index ``t``.
- ``shuffled(X, y, seed)``: a Fisher-Yates permutation of the rows drawn with
  ``Rng.below``.
- ``load_csv(name, data_dir=None, task="auto") -> (X, y)``: a real data set of the
  registry (:mod:`reference.evaluation.registry`: shipped with the package, in ``$DRIFTWOOD_DATA``
  or in the user cache), or any CSV file of the same format in ``data_dir``.
- ``data_dir(data_dir=None) -> pathlib.Path``: the directory searched first.

Time index: row ``t`` of a stream (0-based, ``X[t]``) is generated with the concept of
time ``t``; e.g. ``drifting_friedman`` row ``t`` uses ``a_t``.

References
----------
[AG13] C. Anagnostopoulos and R. B. Gramacy, "Information-theoretic data discarding for
dynamic trees on data streams", Entropy 15(12), 2013.
[Fri91] J. H. Friedman, "Multivariate adaptive regression splines", Ann. Stat. 19, 1991.
[SK01] W. N. Street and Y. Kim, "A streaming ensemble algorithm (SEA) for large-scale
classification", KDD 2001.
[HSD01] G. Hulten, L. Spencer and P. Domingos, "Mining time-changing data streams",
KDD 2001.
"""


from reference.evaluation.datasets._draws import normal
from reference.evaluation.datasets.classification import (
    hyperplane,
    iter_hyperplane,
    iter_moving_xor,
    iter_sea,
    moving_xor,
    sea,
)
from reference.evaluation.datasets.real import data_dir, load_csv, shuffled
from reference.evaluation.datasets.regression import (
    drift_coefficient,
    drifting_friedman,
    friedman1,
    iter_drifting_friedman,
    iter_friedman1,
    iter_parabola,
    iter_regime_friedman,
    parabola,
    regime_coefficient,
    regime_friedman,
)

__all__ = [
    "data_dir",
    "drift_coefficient",
    "drifting_friedman",
    "friedman1",
    "hyperplane",
    "iter_drifting_friedman",
    "iter_friedman1",
    "iter_hyperplane",
    "iter_moving_xor",
    "iter_parabola",
    "iter_regime_friedman",
    "iter_sea",
    "load_csv",
    "moving_xor",
    "normal",
    "parabola",
    "regime_coefficient",
    "regime_friedman",
    "sea",
    "shuffled",
]

"""scikit-learn's conventions for array inputs, applied before a model's own validation.

:class:`reference.estimator.EstimatorMixin` wraps the batch methods (``BATCH_METHODS``)
of every model class in :func:`checking_arrays`, so sparse matrices, complex numbers, 1-D
arrays and the wrong width raise the errors scikit-learn's tools expect, identically in both
backends, before the model is touched.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from reference.feature_names import check_names, names_of

__all__ = ["BATCH_METHODS", "check_array_input", "checking_arrays", "warn_column_vector"]

_Method = TypeVar("_Method", bound=Callable[..., Any])

BATCH_METHODS = (
    "partial_fit", "predict", "predict_proba", "predict_dist", "predict_entropy",
    "progressive_predict",
)
"""Methods whose first argument ``X`` is a batch of rows: array inputs are checked first."""

def check_array_input(X: Any, owner: str, n_features: int | None) -> Any:
    """scikit-learn's conventions for *array* inputs of a batch method, before the model's own
    validation: sparse matrices, complex numbers, 1-D arrays, zero features and a width other
    than the fitted one raise the errors (and messages) scikit-learn's tools expect; text is
    refused with ``ValueError`` (arrays of strings or bytes, and object arrays or data-frame
    columns holding any string, even ``"0.5"``: numbers written as text are a data error to
    fix, not to guess) and so are missing values (``None``, ``pandas.NA``); other object
    arrays are converted to float64 (any other non-number raises numpy's ``TypeError``, as in
    scikit-learn); array-likes such as a pandas data frame become arrays (columns in order).
    Lists and dicts pass through unchanged to the model's validation. Checks happen before
    the model is touched, identically in both backends.

    Parameters
    ----------
    X : object
        The batch argument.
    owner : str
        Class name used in the messages.
    n_features : int or None
        The fitted width, if any.

    Returns
    -------
    object
        ``X``, or its float64 array form.
    """
    if hasattr(X, "tocsr") and hasattr(X, "nnz"):
        raise TypeError(
            f"sparse input is not supported by {owner}; densify it first (X.toarray())"
        )
    if isinstance(X, (list, tuple, dict)):
        return X
    if not isinstance(X, np.ndarray):
        if not hasattr(X, "__array__"):
            return X
        X = np.asarray(X)
    if X.dtype.kind == "c":
        raise ValueError("Complex data not supported")
    if X.dtype.kind in "USV":
        raise ValueError(
            f"{owner} needs numeric X, got an array of {X.dtype} (text or bytes); convert "
            "your data to numbers explicitly instead"
        )
    if X.dtype.kind == "O":
        X = _numbers_only(X, owner)
    if X.ndim == 1:
        raise ValueError(
            "X must be 2-D, got 1 dimension(s). Reshape your data either using "
            "X.reshape(-1, 1) if it has a single feature or X.reshape(1, -1) if it is a "
            "single sample."
        )
    if X.ndim == 2 and X.shape[1] == 0:
        raise ValueError(f"0 feature(s) (shape={X.shape}) while a minimum of 1 is required.")
    if X.ndim == 2 and n_features is not None and X.shape[1] != n_features:
        raise ValueError(
            f"X has {X.shape[1]} features, but {owner} is expecting {n_features} features "
            "as input."
        )
    return X


def _numbers_only(X: np.ndarray, owner: str) -> np.ndarray:
    """An object array as float64. Text raises ``ValueError`` and so does a missing value
    (``None``, ``pandas.NA``: scikit-learn's "Input contains NaN"); any other value that is
    not a number keeps numpy's ``TypeError``, as in scikit-learn's ``check_array``."""
    for value in X.flat:
        if isinstance(value, (str, bytes)):
            raise ValueError(
                f"{owner} needs numeric X, got the text {value!r:.40}; convert your data to "
                "numbers explicitly instead"
            )
    try:
        return X.astype(np.float64)
    except TypeError:
        for value in X.flat:
            if value is None or type(value).__name__ == "NAType":
                raise ValueError(
                    f"{owner} needs numeric X, got a missing value ({value!r}); impute or "
                    "drop the rows with missing values"
                ) from None
        raise


def checking_arrays(method: _Method) -> _Method:
    """``method`` after :func:`check_array_input` and the feature-name rules of
    :mod:`reference.feature_names` (a first ``partial_fit`` on a data frame sets
    ``feature_names_in_``; later batch calls check it)."""
    learns = method.__name__ == "partial_fit"

    @functools.wraps(method)
    def wrapper(self: Any, X: Any, *args: Any, **kwargs: Any) -> Any:
        if not self._array_input:
            return method(self, X, *args, **kwargs)
        width = getattr(self, "n_features_in_", None)
        names = names_of(X)
        if width is not None:
            check_names(self, names)
        X = check_array_input(X, type(self).__name__, width)
        result = method(self, X, *args, **kwargs)
        if learns and width is None and names is not None \
                and getattr(self, "n_features_in_", None) is not None:
            self.feature_names_in_ = names
        return result

    wrapper._checks_arrays = True  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]


def warn_column_vector(owner: str) -> None:
    """scikit-learn's DataConversionWarning (a UserWarning) when it is installed."""
    import warnings

    category: type[Warning] = UserWarning
    try:
        from sklearn.exceptions import DataConversionWarning

        category = DataConversionWarning
    except ImportError:  # pragma: no cover - scikit-learn is optional
        pass
    warnings.warn(
        f"A column-vector y was passed when a 1d array was expected ({owner}.fit); it is "
        "raveled to shape (n_samples,)", category, stacklevel=3,
    )

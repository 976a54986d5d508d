"""scikit-learn's feature-name rules for data-frame inputs, in both backends alike.

A batch method given a pandas data frame (anything with a ``columns`` attribute) whose
column names are all strings learns those names: the first ``partial_fit`` (or ``fit``) of
an unfitted model sets ``feature_names_in_``, and every later batch call checks them the way
scikit-learn's estimators do (``BaseEstimator._check_feature_names``):

* names at fit and names now: they must be the same names in the same order, else
  ``ValueError`` listing the unseen and the missing names (or saying the order changed) —
  reordered or renamed columns are never used by position;
* names at fit and none now (a plain array): a ``UserWarning``, then the columns are used
  by position, as scikit-learn does;
* none at fit and names now: a ``UserWarning``;
* column names of mixed types (some strings, some not): ``TypeError``, as in scikit-learn;
  names that are all non-strings (a data frame with integer columns) count as no names.

``feature_names_in_`` is kept by pickles, copies and model files, and dropped when
``set_params`` restarts the model. Rows given one at a time (``learn_one``,
``predict_one``) follow each family's own row conventions instead (dict rows are matched by
key), and a pandas ``Series`` row (``df.iloc[i]``, ``iterrows()``) is matched by name
(:func:`row_by_name`).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from reference.state import StateFormatError

__all__ = ["PLAIN_ROWS", "check_names", "names_of", "restore_names", "row_by_name"]

PLAIN_ROWS = frozenset({list, tuple, dict, np.ndarray})
"""Row types read as they are; any other row goes through :func:`row_by_name` first."""


def row_by_name(model: Any, x: Any) -> Any:
    """A pandas ``Series`` row read by its index labels; any other row unchanged.

    A model fitted on a data frame (``feature_names_in_``) takes the Series' values in the
    order of those names (the same names in any order; ``ValueError`` naming the unseen and
    missing ones otherwise), as a reordered data frame must be; any other model takes a
    Series with the default ``RangeIndex`` by position and any other Series as the mapping
    ``{label: value}`` (matched by key, like a dict row).
    """
    if type(x).__name__ != "Series" or not hasattr(x, "index") or not hasattr(x, "items"):
        return x
    labels = list(x.index)
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        wanted = [str(n) for n in names]
        if labels == wanted:
            return x.tolist()
        if len(labels) != len(wanted) or set(labels) != set(wanted):
            unseen = [str(v) for v in labels if v not in set(wanted)]
            missing = [n for n in wanted if n not in set(labels)]
            raise ValueError(f"the row's names differ from those seen in fit: unseen "
                             f"{unseen}, missing {missing}")
        return [x[n] for n in wanted]
    if labels == list(range(len(labels))):
        return x.tolist()
    return dict(x.items())


def names_of(X: Any) -> np.ndarray | None:
    """The column names of a data frame as an object array of str, or None (no names)."""
    columns = getattr(X, "columns", None)
    if columns is None or isinstance(X, np.ndarray):
        return None
    names = list(columns)
    if not names:
        return None
    kinds = {isinstance(name, str) for name in names}
    if kinds == {True}:
        return np.asarray(names, dtype=object)
    if kinds == {True, False}:
        found = sorted({type(name).__name__ for name in names})
        raise TypeError(
            "Feature names are only supported if all input features have string names, "
            f"but your input has {found} as feature name / column name types. If you want "
            "feature names to be stored and validated, you must convert them all to strings, "
            "by using X.columns = X.columns.astype(str) for example. Otherwise you can "
            "remove feature / column names from your input data, or convert them all to a "
            "non-string data type."
        )
    return None


def check_names(model: Any, names: np.ndarray | None) -> None:
    """scikit-learn's checks of a fitted model's ``feature_names_in_`` against ``names``."""
    fitted = model.__dict__.get("feature_names_in_")
    owner = type(model).__name__
    if fitted is None and names is None:
        return
    if fitted is None:
        warnings.warn(f"X has feature names, but {owner} was fitted without feature names",
                      UserWarning, stacklevel=4)
        return
    if names is None:
        warnings.warn(f"X does not have valid feature names, but {owner} was fitted with "
                      "feature names", UserWarning, stacklevel=4)
        return
    if len(fitted) == len(names) and all(a == b for a, b in zip(fitted, names, strict=True)):
        return
    message = "The feature names should match those that were passed during fit.\n"
    unseen = [n for n in names if n not in set(fitted)]
    missing = [n for n in fitted if n not in set(names)]
    if unseen:
        message += "Feature names unseen at fit time:\n" + "".join(f"- {n}\n" for n in unseen)
    if missing:
        message += "Feature names seen at fit time, yet now missing:\n" + "".join(
            f"- {n}\n" for n in missing)
    if not unseen and not missing:
        message += "Feature names must be in the same order as they were in fit.\n"
    raise ValueError(message)


def restore_names(model: Any, names: Any, where: str) -> None:
    """Set ``feature_names_in_`` from a saved state (a list of str, one per feature), or
    raise :class:`StateFormatError` naming ``where``."""
    if names is None:
        model.__dict__.pop("feature_names_in_", None)
        return
    width = getattr(model, "n_features_in_", None)
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
        raise StateFormatError(f"field {where}: expected a list of strings")
    if width is None or len(names) != width:
        raise StateFormatError(f"field {where}: {len(names)} names for a model of "
                               f"{width} features")
    model.feature_names_in_ = np.asarray(list(names), dtype=object)

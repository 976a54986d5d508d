"""The ``fast`` entry point of the River adapter (the adapter itself is backend-agnostic:
it only forwards calls to the model, see :mod:`reference.river_adapter`)."""

from __future__ import annotations

from typing import Any


def to_river(model: Any) -> Any:
    """The model as a River estimator (``river.base.Regressor`` or ``Classifier``).

    Imports River (a separate install) on first use; see :mod:`reference.river_adapter`.

    Parameters
    ----------
    model : driftwood model
        Any regressor or classifier of either backend.

    Returns
    -------
    river.base.Regressor or river.base.Classifier
        An adapter that forwards ``learn_one`` / ``predict_one`` / ``predict_proba_one``.

    Examples
    --------
    >>> from reference import SGTRegressor, to_river
    >>> to_river(SGTRegressor())  # doctest: +SKIP
    RiverRegressor(SGTRegressor())
    """
    from reference.river_adapter import wrap

    return wrap(model)

"""scikit-learn's conventions to the letter, on every model of both backends.

- Parameters are stored as given: ``get_params`` returns the very objects passed to the
  constructor, so ``clone`` (which checks identity), ``cross_val_score`` and
  ``GridSearchCV`` work with list- and dict-valued parameters.
- Text and missing values in arrays and data frames raise ``ValueError`` (as
  ``check_array`` does); other non-numbers keep numpy's ``TypeError``.
- Data-frame column names become ``feature_names_in_`` and later calls follow
  scikit-learn's rules for missing, reordered and unexpected names; the names survive
  pickles, copies and model files and are dropped by ``set_params``.
- ``score``'s ``sample_weight`` is checked; ``partial_fit`` returns ``self`` everywhere;
  dict rows are matched by key in every family; the multi-instance classifier's tags are
  honest and its protocol is tested here, since ``check_estimator`` cannot feed it bags.
"""

from __future__ import annotations

import copy
import pickle
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from conftest import REFERENCE, require_fast
from reference.state import StateFormatError

pd = pytest.importorskip("pandas")
sklearn = pytest.importorskip("sklearn")
from sklearn.base import clone  # noqa: E402
from sklearn.model_selection import GridSearchCV, cross_val_score  # noqa: E402

RNG = np.random.default_rng(11)
X = RNG.uniform(size=(90, 3))
X[:, 2] = np.floor(X[:, 2] * 3)                 # a nominal feature with 3 categories
Y_REG = 4 * X[:, 0] + X[:, 2]
Y_CLS = (X[:, 0] + X[:, 1] > 1.0).astype(int)

# (class, kwargs with list/dict values, classifier?, a grid over another parameter)
STRUCTURED = [
    ("SGTClassifier", lambda: {"classes": [0, 1], "warmup": 20}, True, {"lam": [0.1, 0.2]}),
    ("SGTRegressor", lambda: {"feature_ranges": {0: (0.0, 1.0), 1: (0.0, 1.0)}, "warmup": 20},
     False, {"lam": [0.1, 0.2]}),
    ("SGT", lambda: {"nominal": {2: 3}, "warmup": 20}, False, {"lam": [0.1, 0.2]}),
    ("DynamicTreeRegressor",
     lambda: {"rect": [[0.0, 1.0], [0.0, 1.0], [0.0, 2.0]], "n_particles": 10}, False,
     {"seed": [1, 2]}),
    ("DynamicTreeClassifier", lambda: {"classes": [0, 1], "n_particles": 10}, True,
     {"seed": [1, 2]}),
    ("ABACOCClassifier", lambda: {"variant": "auto"}, True, {"seed": [1, 2]}),
]
IDS = [s[0] for s in STRUCTURED]


def _fitted(backend: ModuleType, name: str, data: Any = X) -> Any:
    classifier = name in ("SGTClassifier", "DynamicTreeClassifier", "ABACOCClassifier")
    model = getattr(backend, name)(**dict(STRUCTURED[IDS.index(name)][1]()))
    return model.fit(data, Y_CLS if classifier else Y_REG)


@pytest.mark.parametrize(("name", "kwargs", "classifier", "grid"), STRUCTURED, ids=IDS)
def test_parameters_are_stored_as_given_so_clone_and_searches_work(
        backend: ModuleType, name: str, kwargs: Any, classifier: bool,
        grid: dict[str, list[Any]]) -> None:
    given = kwargs()
    model = getattr(backend, name)(**given)
    params = model.get_params()
    for key, value in given.items():
        assert params[key] is value                  # the very object, as clone requires
    twin = clone(model)                               # raises if a parameter was copied
    assert twin.get_params() == params
    y = Y_CLS if classifier else Y_REG
    scores = cross_val_score(model, X, y, cv=3)
    assert scores.shape == (3,) and np.isfinite(scores).all()
    search = GridSearchCV(model, grid, cv=2).fit(X, y)
    assert set(search.best_params_) == set(grid)
    for restored in (copy.deepcopy(model), pickle.loads(pickle.dumps(model))):
        assert clone(restored).get_params().keys() == params.keys()


def test_set_params_and_fit_keep_the_given_objects(backend: ModuleType) -> None:
    classes = [0, 1]
    model = backend.SGTClassifier(classes=classes, warmup=20)
    model.fit(X, Y_CLS)
    assert model.get_params()["classes"] is classes
    other = [1, 0]
    model.set_params(classes=other)
    assert model.get_params()["classes"] is other and model.n_seen_ == 0


@pytest.mark.filterwarnings("ignore:X has feature names")
@pytest.mark.parametrize("name", IDS)
def test_text_is_refused_like_check_array(backend: ModuleType, name: str) -> None:
    model = _fitted(backend, name)
    before = model.snapshot()
    texts = X.astype(object)
    texts[4, 1] = "0.5"
    frame = pd.DataFrame(texts, columns=["a", "b", "c"])
    y = Y_CLS if "Class" in name else Y_REG
    for bad in (texts, X.astype(str), frame):
        with pytest.raises(ValueError, match="needs numeric X"):
            model.partial_fit(bad, y)
        with pytest.raises(ValueError, match="needs numeric X"):
            model.predict(bad)
    assert model.snapshot() == before


@pytest.mark.filterwarnings("ignore:X has feature names")
@pytest.mark.parametrize("missing", [None, "NA"])
def test_missing_values_are_a_value_error(backend: ModuleType, missing: Any) -> None:
    model = _fitted(backend, "SGTRegressor")
    before = model.snapshot()
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).astype("Float64")
    frame.iloc[3, 0] = pd.NA
    holes = X.astype(object)
    holes[3, 0] = pd.NA if missing == "NA" else None
    for bad in (frame, holes):
        with pytest.raises(ValueError, match="missing value"):
            model.predict(bad)
    assert model.snapshot() == before


def test_other_objects_keep_numpys_type_error(backend: ModuleType) -> None:
    odd = X.astype(object)
    odd[0, 0] = {"not": "a number"}
    with pytest.raises(TypeError):
        backend.SGTRegressor().fit(odd, Y_REG)


def _frame(columns: list[Any], data: Any = X) -> Any:
    return pd.DataFrame(data, columns=columns)


@pytest.mark.parametrize("name", IDS)
def test_data_frame_names_are_kept_and_checked(backend: ModuleType, name: str) -> None:
    model = _fitted(backend, name, _frame(["a", "b", "c"]))
    assert list(model.feature_names_in_) == ["a", "b", "c"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        expected = model.predict(_frame(["a", "b", "c"]))
    with pytest.raises(ValueError, match="same order"):
        model.predict(_frame(["b", "a", "c"], X[:, [1, 0, 2]]))
    with pytest.raises(ValueError, match=r"unseen at fit time:\n- z\n.*now missing:\n- c"):
        model.predict(_frame(["a", "b", "z"]))
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        by_position = model.predict(X)
    assert (by_position == expected).all()


def test_names_after_an_array_fit_warn_and_mixed_names_are_refused(backend: ModuleType) -> None:
    model = backend.SGTRegressor().fit(X, Y_REG)
    assert not hasattr(model, "feature_names_in_")
    with pytest.warns(UserWarning, match="fitted without feature names"):
        model.predict(_frame(["a", "b", "c"]))
    with pytest.raises(TypeError, match="string names"):
        backend.SGTRegressor().fit(_frame(["a", 1, "c"]), Y_REG)
    numbered = backend.SGTRegressor().fit(_frame([0, 1, 2]), Y_REG)   # not names
    assert not hasattr(numbered, "feature_names_in_")


def test_feature_names_survive_pickles_copies_and_files(tmp_path: Path) -> None:
    fast = require_fast()
    for writer in (REFERENCE, fast):
        model = _fitted(writer, "SGTRegressor", _frame(["a", "b", "c"]))
        path = tmp_path / "model.dwm"
        model.save(path)
        for restored in (pickle.loads(pickle.dumps(model)), copy.deepcopy(model),
                         REFERENCE.load(path), fast.load(path)):
            assert list(restored.feature_names_in_) == ["a", "b", "c"]
            with pytest.raises(ValueError, match="same order"):
                restored.predict(_frame(["c", "b", "a"]))
        model.set_params(lam=0.3)                       # restarts: names forgotten
        assert not hasattr(model, "feature_names_in_")
        refit = _fitted(writer, "SGTRegressor", _frame(["a", "b", "c"])).fit(X, Y_REG)
        assert not hasattr(refit, "feature_names_in_")   # fit on an array forgets them


def test_feature_names_of_a_file_are_checked(backend: ModuleType, tmp_path: Path) -> None:
    import gzip
    import json

    from reference.persist import save

    path = tmp_path / "model.dwm"
    save(_fitted(backend, "SGTRegressor", _frame(["a", "b", "c"])), path, version=1)
    doc = json.loads(gzip.open(path).read())
    for bad in (["a", "b"], ["a", "b", 3], "abc"):
        with gzip.open(path, "wt") as out:
            json.dump({**doc, "feature_names_in": bad}, out)
        with pytest.raises(StateFormatError, match="feature_names_in"):
            backend.load(path)


@pytest.mark.parametrize("bad", [[1.0, 2.0], np.ones((90, 2)), np.full(90, np.nan),
                                 -np.ones(90)])
def test_score_checks_sample_weight(backend: ModuleType, bad: Any) -> None:
    model = _fitted(backend, "SGTClassifier")
    with pytest.raises(ValueError, match="sample_weight"):
        model.score(X, Y_CLS, sample_weight=bad)


@pytest.mark.parametrize("name", IDS + ["SGTMultiInstanceClassifier"])
def test_partial_fit_returns_self(backend: ModuleType, name: str) -> None:
    if name == "SGTMultiInstanceClassifier":
        model = backend.SGTMultiInstanceClassifier()
        assert model.partial_fit([X[:3], X[3:5]], [0, 1]) is model
        return
    model = getattr(backend, name)(**dict(STRUCTURED[IDS.index(name)][1]()))
    y = Y_CLS if name in ("SGTClassifier", "DynamicTreeClassifier", "ABACOCClassifier") \
        else Y_REG
    assert model.partial_fit(X[:30], y[:30]) is model
    assert model.partial_fit(X[30:], y[30:]) is model


@pytest.mark.parametrize("name", ["SGTRegressor", "DynamicTreeRegressor", "ABACOCClassifier"])
def test_dict_rows_are_matched_by_key_in_every_family(both: tuple[ModuleType, ModuleType],
                                                      name: str) -> None:
    results = []
    for backend in both:
        shuffled = getattr(backend, name)(**{"SGTRegressor": {"warmup": 20},
                                             "DynamicTreeRegressor": {"n_particles": 10},
                                             "ABACOCClassifier": {"seed": 3}}[name])
        ordered = copy.deepcopy(shuffled)
        for i, (x, y) in enumerate(zip(X[:60].tolist(), Y_CLS[:60].tolist(), strict=True)):
            row = dict(zip("abc", x, strict=True))
            turned = {k: row[k] for k in ("cab" if i % 2 else "abc")}
            target = float(Y_REG[i]) if name != "ABACOCClassifier" else y
            shuffled.learn_one(turned, target)
            ordered.learn_one(row, target)
        assert shuffled.snapshot() == ordered.snapshot()
        assert shuffled.predict_one({"c": 1.0, "a": 0.2, "b": 0.4}) == \
            ordered.predict_one({"a": 0.2, "b": 0.4, "c": 1.0})
        before = shuffled.snapshot()
        with pytest.raises(ValueError):
            shuffled.learn_one({"a": 0.1, "b": 0.2, "z": 0.3}, target)
        assert shuffled.snapshot() == before
        results.append(shuffled.snapshot())
    assert results[0] == results[-1]


# -- the multi-instance classifier: its tags and its own protocol tests -----------------------

BAGS = [RNG.uniform(-1, 1, size=(int(RNG.integers(1, 5)), 3)) for _ in range(150)]
BAG_Y = np.array([int(bag[:, 0].max() > 0.5) for bag in BAGS])


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.SkipTestWarning")
def test_multi_instance_tags_are_honest(backend: ModuleType) -> None:
    from sklearn.utils import get_tags
    from sklearn.utils.estimator_checks import check_estimator

    model = backend.SGTMultiInstanceClassifier()
    tags = get_tags(model)
    assert tags.classifier_tags.multi_class is False          # labels 0 and 1 only
    assert tags.input_tags.two_d_array is False and tags.input_tags.three_d_array is True
    results = check_estimator(model, on_fail=None, on_skip=None)
    assert results and all(r["status"] == "passed" for r in results)
    with pytest.raises(ValueError):
        backend.SGTMultiInstanceClassifier().fit(BAGS[:3], [0, 1, 2])


def test_multi_instance_protocol(backend: ModuleType) -> None:
    model = backend.SGTMultiInstanceClassifier(warmup=20, grace_period=10, epochs=2)
    assert model.fit(BAGS[:20], BAG_Y[:20]) is model
    assert model.fit(BAGS, BAG_Y) is model                     # forgets the first fit
    twin = backend.SGTMultiInstanceClassifier(warmup=20, grace_period=10, epochs=2)
    twin.partial_fit(BAGS, BAG_Y, classes=[0, 1])
    assert model.snapshot() == twin.snapshot()
    cloned = clone(model)
    assert cloned.get_params() == model.get_params() and cloned.n_seen_ == 0
    assert model.score(BAGS, BAG_Y) == pytest.approx(np.mean(model.predict(BAGS) == BAG_Y))
    again = pickle.loads(pickle.dumps(model))
    assert again.snapshot() == model.snapshot()
    assert (again.predict(BAGS) == model.predict(BAGS)).all()
    scores = cross_val_score(model, BAGS, BAG_Y, cv=3)
    assert scores.shape == (3,) and (scores > 0.5).all()
    search = GridSearchCV(model, {"delta": [1e-3, 1e-1]}, cv=2).fit(BAGS, BAG_Y)
    assert search.best_params_["delta"] in (1e-3, 1e-1)
    cube = RNG.uniform(-1, 1, size=(40, 4, 3))               # equal-sized bags as a 3-D array
    labels = (cube[:, :, 0].max(axis=1) > 0.8).astype(int)
    listed = backend.SGTMultiInstanceClassifier().fit(list(cube), labels)
    assert backend.SGTMultiInstanceClassifier().fit(cube, labels).snapshot() == \
        listed.snapshot()

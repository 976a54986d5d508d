"""API parity: ``reference`` and ``fast`` expose the same names, signatures and docs.

Users swap backends by changing one import ([DET-SPEC §4]), so this is a test, not a
convention: same ``__all__``, same constructor and method signatures with the same
defaults, the same public attributes, docstrings present with the same subject line,
and every ``fast`` class really is the C-backed one (CPython's ``TestModules``).
"""

from __future__ import annotations

import inspect
from types import ModuleType

import pytest

from conftest import REFERENCE, require_fast

SHARED_EXCEPTIONS = ("StateFormatError",)
"""Exception classes that both packages export as the same object by design."""


def _public(cls: type) -> list[str]:
    return sorted(n for n in dir(cls) if not n.startswith("_"))


def _subject(obj: object) -> str:
    doc = inspect.getdoc(obj) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


@pytest.fixture(scope="module")
def fast() -> ModuleType:
    return require_fast()


def test_same_all(fast: ModuleType) -> None:
    assert list(REFERENCE.__all__) == list(fast.__all__)
    assert REFERENCE.backend == "reference" and fast.backend == "fast"


@pytest.mark.parametrize("name", REFERENCE.__all__)
def test_names_exist_and_are_distinct_objects(fast: ModuleType, name: str) -> None:
    ref_obj, fast_obj = getattr(REFERENCE, name), getattr(fast, name)
    if name in SHARED_EXCEPTIONS:
        # one class for both backends, so ``except StateFormatError`` catches either
        assert ref_obj is fast_obj and issubclass(ref_obj, Exception)
        return
    assert ref_obj is not fast_obj, f"fast.{name} is the reference object itself"
    assert fast_obj.__module__.startswith("fast."), fast_obj.__module__
    assert ref_obj.__module__.startswith("reference."), ref_obj.__module__


@pytest.mark.parametrize("name", REFERENCE.__all__)
def test_signatures_and_docstrings(fast: ModuleType, name: str) -> None:
    ref_obj, fast_obj = getattr(REFERENCE, name), getattr(fast, name)
    assert _subject(ref_obj), f"reference.{name} has no docstring"
    if name in SHARED_EXCEPTIONS:
        return
    assert _subject(ref_obj) == _subject(fast_obj), name
    if not inspect.isclass(ref_obj):
        assert inspect.signature(ref_obj) == inspect.signature(fast_obj)
        return
    assert inspect.signature(ref_obj) == inspect.signature(fast_obj), f"{name}.__init__"
    assert _public(ref_obj) == _public(fast_obj), name
    for attr in _public(ref_obj):
        ra, fa = inspect.getattr_static(ref_obj, attr), inspect.getattr_static(fast_obj, attr)
        assert type(ra) is type(fa), f"{name}.{attr}: {type(ra)} vs {type(fa)}"
        if callable(ra) and not isinstance(ra, type):
            ref_m, fast_m = getattr(ref_obj, attr), getattr(fast_obj, attr)
            assert inspect.signature(ref_m) == inspect.signature(fast_m), f"{name}.{attr}"
            assert _subject(ref_m), f"reference.{name}.{attr} has no docstring"
            assert _subject(fast_m), f"fast.{name}.{attr} has no docstring"
        elif isinstance(ra, property):
            assert _subject(ra) and _subject(fa), f"{name}.{attr} property lacks a docstring"


def test_dynamic_tree_method_signatures_and_docstrings(both: tuple[ModuleType, ModuleType]) -> None:
    import inspect

    ref, fast = both
    for name in ("DynamicTreeRegressor", "DynamicTreeClassifier"):
        a, b = getattr(ref, name), getattr(fast, name)
        assert inspect.signature(a) == inspect.signature(b)
        assert a.__doc__ and b.__doc__
        for meth in ("learn_one", "partial_fit", "predict_one", "predict", "snapshot",
                     "get_params", "clone", "tree_stats"):
            assert inspect.signature(getattr(a, meth)) == inspect.signature(getattr(b, meth))

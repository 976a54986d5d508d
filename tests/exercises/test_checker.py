"""The course kit's checker and catalogue, over every registered exercise.

Catalogue-wide: each exercise's reference passes both routes, its skeleton is reported
"not implemented", each registered mistake differs from the reference and is named by its
diagnosis, skeleton texts carry the signature, the equation, the tag and the tutorial
section, anchors resolve to MyST heading anchors, mutant ids exist. Then the checker's own
rules (comparison, signature, exceptions, the plug and its isolation from ``fast``) on the
generator exercises. The command line is in ``test_exercise_cli.py``.

Family helpers run their part with ``-k dt-`` (ids are exercise names and
``name/mistake-id``).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import math
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import reference
from reference.exercises import check, hint, list_exercises, start
from reference.exercises import checker as checker_module
from reference.exercises import plug as plug_module
from reference.exercises.catalog import (
    EXACT,
    FAMILY_MODULES,
    Case,
    Exercise,
    Mistake,
    Plug,
    Tolerance,
    all_exercises,
    get,
)
from reference.exercises.checker import difference, mistake_cases, plugged
from reference.exercises.report import reread_link
from tests.mutation.mutants import MUTANTS

ROOT = Path(__file__).resolve().parents[2]
EXERCISES = all_exercises()
MISTAKES = [(ex, m) for ex in EXERCISES for m in ex.mistakes]
FAMILY_PREFIX = {"determinism": "rng-", "dynamic_trees": "dt-", "sgt": "sgt-", "abacoc": "ab-"}


def _ids(exercises: list[Exercise]) -> list[str]:
    return [ex.name for ex in exercises]


def skeleton_function(exercise: Exercise) -> Any:
    """The skeleton's function, as a student's file would define it."""
    namespace: dict[str, Any] = {"__name__": "skeleton"}
    exec(compile(exercise.skeleton, f"<{exercise.name}>", "exec"), namespace)
    return namespace[exercise.function_name]


# ---------------------------------------------------------------------------
# MyST heading anchors of the tutorials
# ---------------------------------------------------------------------------


def github_slug(title: str) -> str:
    """MyST's heading slug (``myst_heading_anchors``): GitHub's rule on the heading text."""
    return re.sub(r"[^\w\u4e00-\u9fff\- ]", "", title.lower().replace(" ", "-"))


def _heading_text(markdown: str) -> str:
    """The text of a heading's inline markdown, as the slug sees it: escapes resolved,
    code spans by their content, inline math dropped."""
    text = re.sub(r"\$[^$]*\$", "", markdown)
    text = re.sub(r"`([^`]*)`", r"\1", text)
    return re.sub(r"\\(.)", r"\1", text)


def heading_anchors(page: Path, depth: int = 3) -> set[str]:
    """The anchors MyST gives the headings of levels 1..``depth`` of a page."""
    anchors: set[str] = set()
    fenced = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        match = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if not fenced and match and len(match.group(1)) <= depth:
            anchors.add(github_slug(_heading_text(match.group(2))))
    return anchors


def test_heading_anchors_match_myst() -> None:
    """The anchors computed here are those of MyST's own parser (when it is installed)."""
    pytest.importorskip("myst_parser")
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser
    from myst_parser.slugs import github_slugify

    conf = (ROOT / "docs" / "conf.py").read_text(encoding="utf-8")
    assert re.search(r"^myst_heading_anchors\s*=\s*3\b", conf, re.M)
    extensions = re.search(r"^myst_enable_extensions\s*=\s*(\[.*?\])", conf, re.M)
    assert extensions is not None
    config = MdParserConfig(enable_extensions=set(ast.literal_eval(extensions.group(1))))
    parser = create_md_parser(config, RendererHTML)
    for page in sorted((ROOT / "tutorials").glob("*.md")):
        tokens = parser.parse(page.read_text(encoding="utf-8"))
        theirs = set()
        for opening, inline in zip(tokens, tokens[1:], strict=False):
            if opening.type == "heading_open" and int(opening.tag[1]) <= 3:
                title = "".join(c.content for c in inline.children or []
                                if c.type in ("text", "code_inline"))
                theirs.add(github_slugify(title))
        assert heading_anchors(page) == theirs, page.name


def _check_anchor(anchor: str) -> None:
    path, _, slug = anchor.partition("#")
    assert path.startswith("tutorials/") and slug, f"{anchor!r}: tutorials/<page>.md#<anchor>"
    page = ROOT / path
    assert page.is_file(), f"{anchor!r}: no page {path}"
    assert slug in heading_anchors(page), (
        f"{anchor!r}: no heading with that anchor; the page has {sorted(heading_anchors(page))}")


# ---------------------------------------------------------------------------
# the catalogue
# ---------------------------------------------------------------------------


def test_exercise_names_are_unique_and_prefixed_by_family() -> None:
    names = [ex.name for ex in EXERCISES]
    assert len(names) == len(set(names))
    for ex in EXERCISES:
        assert ex.family in FAMILY_PREFIX, ex.name
        assert ex.name.startswith(FAMILY_PREFIX[ex.family]), ex.name
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", ex.name), ex.name
    for ex in EXERCISES:
        assert get(ex.name) is ex


def test_catalogue_has_18_exercises_over_all_families() -> None:
    """The course kit's size; meaningful once all four family modules are merged."""
    missing = []
    for name in FAMILY_MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as err:
            if err.name != name:
                raise
            missing.append(name)
    if missing:
        pytest.skip(f"family modules not yet merged: {', '.join(missing)}")
    assert len(EXERCISES) >= 18
    assert {ex.family for ex in EXERCISES} == set(FAMILY_PREFIX)


@pytest.mark.parametrize("exercise", EXERCISES, ids=_ids(EXERCISES))
def test_exercise_is_well_formed(exercise: Exercise) -> None:
    ex = exercise
    assert ex.title and len(ex.title) <= 80 and "\n" not in ex.title, "a title of one line"
    assert ex.function_name.isidentifier()
    assert ex.tolerance.kind in ("exact", "rel") and ex.tolerance.why
    if ex.tolerance.kind == "rel":
        assert 0.0 < ex.tolerance.rtol < 1e-6
    assert len(ex.hints) >= 2 and all(h.strip() for h in ex.hints)
    assert 1 <= ex.minutes <= 120
    cases = ex.cases()
    assert len(cases) >= 20 and all(isinstance(c, Case) for c in cases)
    assert repr(cases) == repr(ex.cases()), "cases() must be seeded: the same on every call"
    assert {m.id for m in ex.mistakes} and len({m.id for m in ex.mistakes}) == len(ex.mistakes)
    if ex.stream is not None:
        assert ex.plugs, "a stream needs a plug"
        assert hasattr(reference, ex.stream.model)
    for plug in ex.plugs:
        assert plug.target.startswith("reference.")
        owner, attr, raw = plug_module._resolve(plug.target)
        assert callable(plug_module._unwrap(raw))


@pytest.mark.parametrize("exercise", EXERCISES, ids=_ids(EXERCISES))
def test_skeleton_states_signature_equation_tag_and_section(exercise: Exercise) -> None:
    text = exercise.skeleton
    tree = ast.parse(text)
    assert "raise NotImplementedError" in text
    assert ".. math::" in text or "$" in text, "the equation in LaTeX"
    assert re.search(r"\\\\?[a-zA-Z]+", text.split(".. math::")[-1]), "a LaTeX command"
    for tag in re.findall(r"\[[^\]]+\]", exercise.tag):
        assert tag in text, f"the skeleton does not cite {tag}"
    page = exercise.anchor.partition("#")[0]
    assert page in text or Path(page).name in text, "the tutorial section"
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert [f.name for f in functions] == [exercise.function_name]
    assert ast.get_docstring(functions[0])
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [
                node.module or ""]
            for name in names:
                top = name.split(".")[0]
                assert top in sys.stdlib_module_names or top == "numpy", name
    wanted = checker_module._positional_names(inspect.signature(skeleton_function(exercise)))
    mine = checker_module._positional_names(inspect.signature(exercise.reference))
    assert wanted == mine, "the reference has the skeleton's signature"


@pytest.mark.parametrize("exercise", EXERCISES, ids=_ids(EXERCISES))
def test_anchors_are_tutorial_headings(exercise: Exercise) -> None:
    _check_anchor(exercise.anchor)
    for mistake in exercise.mistakes:
        _check_anchor(mistake.anchor)


def test_mutant_ids_exist_in_the_mutation_harness() -> None:
    known = {m.id for m in MUTANTS}
    for ex, mistake in MISTAKES:
        if mistake.mutant:
            assert mistake.mutant in known, f"{ex.name}/{mistake.id}: no mutant {mistake.mutant}"


# ---------------------------------------------------------------------------
# every exercise: reference, skeleton, mistakes
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("exercise", EXERCISES, ids=_ids(EXERCISES))
def test_reference_passes_both_routes(exercise: Exercise) -> None:
    report = check(exercise, exercise.reference)
    assert report.passed, str(report)
    assert not any("was put back" in note for note in report.notes), report.notes
    assert report.cases_checked == len(exercise.cases())
    if exercise.stream is not None:
        rows, _ = exercise.stream.data()
        assert report.stream_divergence is None
        assert report.stream_steps == len(rows) > 0


@pytest.mark.parametrize("exercise", EXERCISES, ids=_ids(EXERCISES))
def test_skeleton_is_not_implemented(exercise: Exercise) -> None:
    report = check(exercise, skeleton_function(exercise))
    assert report.status == "not-implemented", str(report)
    assert not report.passed
    assert "NotImplementedError" in str(report)


@pytest.mark.parametrize(
    ("exercise", "mistake"), MISTAKES, ids=[f"{e.name}/{m.id}" for e, m in MISTAKES])
def test_mistake_is_named_by_its_diagnosis(exercise: Exercise, mistake: Mistake) -> None:
    assert mistake_cases(exercise, mistake), "the mistake differs from the reference somewhere"
    assert mistake.sentence.strip().endswith(".") and len(mistake.sentence) < 300
    report = check(exercise, mistake.function, stream=False)
    assert report.status == "mismatch", str(report)
    assert report.diagnosis is mistake, str(report)
    assert mistake.sentence in str(report) and reread_link(mistake.anchor) in str(report)


# ---------------------------------------------------------------------------
# comparing values
# ---------------------------------------------------------------------------

REL = Tolerance("rel", 1e-12, "sums in any order")


@pytest.mark.parametrize(("expected", "obtained", "tolerance", "same"), [
    (1.0, 1.0, EXACT, True),
    (1.0, 1.0 + 2**-52, EXACT, False),
    (1.0, 1.0 + 2**-52, REL, True),
    (1.0, 1.0 + 1e-10, REL, False),
    (0.0, -0.0, EXACT, False),          # the sign of zero is part of "bit for bit"
    (0.0, -0.0, REL, True),
    (math.nan, math.nan, EXACT, True),
    (math.nan, 0.0, REL, False),
    (math.inf, math.inf, REL, True),
    (math.inf, -math.inf, REL, False),
    (math.inf, 1e308, REL, False),
    (3, 3.0, EXACT, True),              # the formula's value, not its type
    (3, 4, REL, False),
    (2**64 - 1, 2**64 - 1, EXACT, True),
    (True, 1, EXACT, False),
    ((1, (2.0, 3.0)), [1, [2.0, 3.0]], EXACT, True),
    ((1, 2), (1, 2, 3), EXACT, False),
    ({"a": 1.0, "b": 2.0}, {"b": 2.0, "a": 1.0}, EXACT, True),
    ({"a": 1.0}, {"b": 1.0}, EXACT, False),
    (np.array([1.0, 2.0]), [1.0, 2.0], EXACT, True),
    ([np.float64(0.5)], (0.5,), EXACT, True),
    (1.0, None, REL, False),
    ("x", "x", EXACT, True),
])
def test_values_compare_by_the_stated_rules(expected: Any, obtained: Any, tolerance: Tolerance,
                                            same: bool) -> None:
    assert (difference(expected, obtained, tolerance) is None) is same


def test_difference_names_the_path_inside_the_value() -> None:
    assert difference((5, (1, 2, 3, 4)), (5, (1, 2, 7, 4)), EXACT) == \
        "[1][2]: expected 3, obtained 7"
    assert difference({"m": [0.0]}, {"m": [1.0]}, EXACT) == "['m'][0]: expected 0.0, obtained 1.0"


# ---------------------------------------------------------------------------
# the checker's statuses, on the generator exercises
# ---------------------------------------------------------------------------


def test_wrong_arity_is_a_wrong_signature() -> None:
    def uniform_from_word(word: int, scale: float) -> float:
        return (word >> 11) * scale

    report = check("rng-uniform", uniform_from_word)
    assert report.status == "wrong-signature"
    assert "must take 1 positional argument, as in uniform_from_word(word)" in report.message
    assert "yours is uniform_from_word(word, scale)" in report.message
    assert report.to_json()["status"] == "wrong-signature"
    assert check("rng-uniform", 0.5).status == "wrong-signature"  # type: ignore[arg-type]


def test_renamed_parameters_are_accepted_with_a_note() -> None:
    def uniform_from_word(w: int, unused: int = 0) -> float:
        return (w >> 11) * 2.0**-53

    report = check("rng-uniform", uniform_from_word, stream=False)
    assert report.passed
    assert any("(w)" in note and "(word)" in note for note in report.notes)


def test_exception_is_reported_with_case_and_the_students_frames() -> None:
    def uniform_from_word(word: int) -> float:
        if word == 0:
            return 0.0
        return 1.0 / (word >> 60)  # ZeroDivisionError on small words

    report = check("rng-uniform", uniform_from_word)
    assert report.status == "raises"
    assert "ZeroDivisionError" in report.message and "case #1 (one)" in report.message
    assert "uniform_from_word" in report.traceback and "1.0 / (word >> 60)" in report.traceback
    assert "exercises/checker.py" not in report.traceback
    assert report.failing_case.startswith("#1 (one): arguments (1,)")


def test_a_change_to_the_library_during_an_in_process_check_is_undone() -> None:
    """In a notebook the function runs in the notebook's process: whatever it changes in
    ``reference`` while it is checked is put back, and the report says so."""
    original = vars(reference.Rng)["next_u64"]

    def uniform_from_word(word: int) -> float:
        reference.Rng.next_u64 = lambda self: 0          # type: ignore[method-assign]
        reference.rng.EXTRA_CONSTANT = 1                  # type: ignore[attr-defined]
        return (word >> 11) * 2.0**-53

    report = check("rng-uniform", uniform_from_word, stream=False)
    assert vars(reference.Rng)["next_u64"] is original
    assert not hasattr(reference.rng, "EXTRA_CONSTANT")
    assert any("reference.rng.Rng.next_u64" in note and "put back" in note
               for note in report.notes), report.notes
    assert reference.Rng(1).next_u64() != 0


def test_not_implemented_on_some_cases_only_is_not_implemented() -> None:
    def below(n: int, words: Any) -> tuple[int, int]:
        if n == 1:
            return 0, 1
        raise NotImplementedError("TODO")

    assert check("rng-below", below).status == "not-implemented"


def test_mismatch_reports_the_first_case_and_the_first_diverging_step() -> None:
    """A one-constant slip: the case, the values, the named mistake and the model's step."""
    ex = get("rng-xoshiro-step")

    def xoshiro_step(s0: int, s1: int, s2: int, s3: int) -> tuple[int, tuple[int, ...]]:
        mask = 2**64 - 1
        rotl = lambda v, k: ((v << k) | (v >> (64 - k))) & mask  # noqa: E731
        out = rotl(s1 * 5 & mask, 7) * 9 & mask
        t = s1 << 17 & mask
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        return out, (s0, s1, s2, rotl(s3, 19))   # rotl(s3, 45) meant; 19 = rotr by 45

    report = check(ex, xoshiro_step)
    assert report.status == "mismatch"
    assert report.first_mismatch is not None and report.first_mismatch.index == 0
    assert report.first_mismatch.where.startswith("[1][3]: expected ")
    assert report.diagnosis is not None and report.diagnosis.id == "xoshiro-rotate-right"
    # the model's first draw is at the first step whose fast snapshot shows a new rng_state
    fast = importlib.import_module("fast") if _has_fast() else reference
    assert ex.stream is not None
    X, y = ex.stream.data()
    model = getattr(fast, ex.stream.model)(**ex.stream.params)
    first_state = model.snapshot()["rng_state"]
    first_draw = next(t for t, (x, target) in enumerate(zip(X, y, strict=True))
                      if (model.learn_one(x, target), model.snapshot()["rng_state"])[1]
                      != first_state)
    divergence = report.stream_divergence
    assert divergence is not None and divergence.step == first_draw
    assert divergence.what.startswith(("snapshot.", "predict_one"))
    text = str(report)
    assert f"at step {first_draw}" in text and "rotated right" in text
    record = json.loads(json.dumps(report.to_json()))
    assert record["diagnosis"]["id"] == "xoshiro-rotate-right"
    assert record["stream_divergence"]["step"] == first_draw
    assert record["first_mismatch"]["label"] == report.first_mismatch.label


def test_answer_right_on_the_cases_but_not_in_the_model_diverges() -> None:
    """A function that is right on every case yet changes the model (a consumed output
    is not counted) is caught by the stream alone."""
    ex = get("rng-below")

    def below(n: int, words: Any) -> tuple[int, int]:
        value, used = ex.reference(n, words)
        return value, used if isinstance(words, tuple) else used + 1

    report = check(ex, below)
    assert report.first_mismatch is None
    assert report.status == "mismatch" and report.stream_divergence is not None
    assert "inside the model it diverges" in report.message


def _has_fast() -> bool:
    try:
        importlib.import_module("fast")
    except ImportError:
        return False
    return True


# ---------------------------------------------------------------------------
# the plug: where it reaches, and where it must not
# ---------------------------------------------------------------------------


def _run(model: Any, X: Any, y: Any) -> Any:
    for x, target in zip(X, y, strict=True):
        model.learn_one(x, target)
    return model.snapshot()


def test_plug_changes_the_reference_model_and_not_the_fast_one() -> None:
    fast = pytest.importorskip("fast")
    ex = get("rng-xoshiro-step")
    assert ex.stream is not None
    X, y = ex.stream.data()
    wrong = next(m for m in ex.mistakes if m.id == "xoshiro-update-order").function
    make = lambda backend: getattr(backend, ex.stream.model)(**ex.stream.params)  # noqa: E731
    ref_before, fast_before = _run(make(reference), X, y), _run(make(fast), X, y)
    with plugged(ex.plugs, wrong):
        ref_plugged, fast_plugged = _run(make(reference), X, y), _run(make(fast), X, y)
        assert _after_one_draw(reference.Rng(3)) != _after_one_draw(fast.Rng(3))
    assert ref_plugged != ref_before
    assert fast_plugged == fast_before == ref_before
    assert _after_one_draw(reference.Rng(3)) == _after_one_draw(fast.Rng(3))


def _after_one_draw(generator: Any) -> tuple[int, tuple[int, ...]]:
    return generator.next_u64(), generator.state


def test_plug_reaches_every_module_holding_the_function_and_is_undone() -> None:
    from reference.dynatree import leaf_models, tree

    original = leaf_models.stats_from_list
    assert tree.stats_from_list is original   # imported by name

    def fake(*args: Any) -> Any:
        return "plugged"

    plug = Plug("reference.dynatree.leaf_models.stats_from_list", lambda student: student)
    with pytest.raises(RuntimeError, match="inside"):
        with plugged((plug,), fake):
            assert tree.stats_from_list([]) == "plugged"
            assert leaf_models.stats_from_list([]) == "plugged"
            raise RuntimeError("inside the block")
    assert tree.stats_from_list is original and leaf_models.stats_from_list is original


def test_plug_replaces_a_method_and_restores_it() -> None:
    original = vars(reference.Rng)["uniform"]
    ex = get("rng-uniform")
    with plugged(ex.plugs, lambda word: 0.25):
        assert reference.Rng(0).uniform() == 0.25
    assert vars(reference.Rng)["uniform"] is original
    assert reference.Rng(0).uniform() != 0.25


def test_plug_leaves_the_exercise_modules_alone() -> None:
    """Adapters in ``reference.exercises`` keep the real functions (no recursion)."""
    names = {m.__name__ for m in plug_module._patchable_modules()}
    assert "reference.rng" in names and "reference.dynatree.tree" in names
    assert not any(n.startswith("reference.exercises") for n in names)


# ---------------------------------------------------------------------------
# report, hints, skeleton files, the list
# ---------------------------------------------------------------------------


def test_report_serialises_to_json_and_reads_well(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    from reference.exercises import report as report_module

    monkeypatch.delenv("DRIFTWOOD_DOCS_URL", raising=False)
    monkeypatch.setattr(report_module, "BUILT_DOCS", tmp_path / "no-docs-built")
    ex = get("rng-uniform")
    report = check(ex, next(m for m in ex.mistakes if m.id == "uniform-low-bits").function)
    record = report.to_json()
    assert json.loads(json.dumps(record)) == record
    assert record["status"] == "mismatch" and record["passed"] is False
    assert record["tolerance"]["kind"] == "exact"
    assert record["text"] == str(report) == repr(report)
    assert report._repr_markdown_().startswith("```text\nrng-uniform: MISMATCH")
    # no docs: the section and the command that writes its tutorial, never a clone path
    assert ('reread: section "A double uniform on [0, 1)" of tutorial 01_determinism '
            "(`driftwood tutorial get 01_determinism`") in str(report)
    assert "tutorials/01_determinism.md" not in str(report)
    built = tmp_path / "html" / "tutorials" / "01_determinism.html"
    built.parent.mkdir(parents=True)
    built.write_text("<html></html>")
    monkeypatch.setattr(report_module, "BUILT_DOCS", tmp_path / "html")
    assert f"reread: {built.as_uri()}#a-double-uniform-on-0-1" in str(report)


def test_hints_are_graded_and_advance() -> None:
    ex = get("rng-xoshiro-step")
    checker_module._HINTS_SHOWN.pop(ex.name, None)
    shown = [str(hint(ex.name)) for _ in range(len(ex.hints) + 1)]
    for level, text in enumerate(shown[: len(ex.hints)], start=1):
        assert f"hint {level}/{len(ex.hints)}" in text and ex.hints[level - 1] in text
    assert shown[-1] == shown[-2], "after the last hint, the last again"
    assert ex.hints[0] in hint(ex.name, level=1)
    with pytest.raises(ValueError, match="hints 1 to"):
        hint(ex.name, level=len(ex.hints) + 1)


def test_start_writes_the_skeleton_and_keeps_existing_work(tmp_path: Path) -> None:
    path = start("rng-below", tmp_path / "homework")
    assert path == tmp_path / "homework" / "rng_below.py"
    assert path.read_text(encoding="utf-8") == get("rng-below").skeleton
    path.write_text("# my work\n", encoding="utf-8")
    with pytest.raises(FileExistsError):
        start("rng-below", tmp_path / "homework")
    assert path.read_text(encoding="utf-8") == "# my work\n"
    start("rng-below", tmp_path / "homework", overwrite=True)
    assert "raise NotImplementedError" in path.read_text(encoding="utf-8")
    with pytest.raises(KeyError, match="no exercise"):
        start("rng-nothing", tmp_path)


def test_list_is_the_catalogue_as_a_table() -> None:
    listing = list_exercises()
    assert [ex.name for ex in listing] == [ex.name for ex in EXERCISES]
    lines = str(listing).splitlines()
    assert all(len(line) <= 100 for line in lines)
    assert lines[0].split() == ["name", "tag", "min", "title"]
    rows = [line.split() for line in lines[1:] if line.startswith("  ") and line[2] != " "]
    assert [row[0] for row in rows] == [ex.name for ex in EXERCISES]
    families = [line.split(":")[0] for line in lines[1:] if not line.startswith(" ")]
    assert families == list(dict.fromkeys(ex.family for ex in EXERCISES))
    assert "| `rng-uniform` |" in listing._repr_markdown_()


def test_rel_stream_comparison_marks_discrete_decisions() -> None:
    compare = checker_module._tolerant_first_difference
    assert compare({"w": [1.0]}, {"w": [1.0 + 1e-12]}, 1e-9, "snapshot") is None
    assert compare({"w": [1.0]}, {"w": [1.1]}, 1e-9, "snapshot") == "snapshot.w[0]: 1.0 != 1.1"
    for left, right in (({"n": 3}, {"n": 4}), ({"t": [1.0]}, {"t": [1.0, 2.0]}),
                        ({"a": 1.0}, {"b": 1.0})):
        found = compare(left, right, 1e-9, "snapshot")
        assert found is not None and found.endswith(checker_module.DISCRETE)


def test_without_the_fast_backend_the_stream_runs_beside_the_unplugged_reference(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    real_import = importlib.import_module

    def no_fast(name: str, *args: Any) -> Any:
        if name == "fast" or name.startswith("fast."):
            raise ImportError("fast backend not built (simulated)")
        return real_import(name, *args)

    monkeypatch.setattr(checker_module.importlib, "import_module", no_fast)
    ex = dataclasses.replace(get("rng-uniform"))    # a new object: nothing recorded yet
    report = check(ex, ex.reference)
    assert report.passed and "unplugged reference" in report.stream_against
    wrong = next(m for m in ex.mistakes if m.id == "uniform-52-bits").function
    report = check(ex, wrong)
    assert report.stream_divergence is not None
    assert "fast backend not built" in report.stream_divergence.against


def test_plug_on_code_both_backends_share_cannot_reach_the_recorded_fast_run() -> None:
    """The fast facade runs the reference's Python ``__init__`` (a plug there reaches both
    models alike); the checker records the fast run before plugging, so it still shows."""
    import dataclasses

    fast = pytest.importorskip("fast")
    from reference.dynatree.params import DynamicTreeParams
    from reference.exercises.determinism import STREAM

    original = DynamicTreeParams.validate

    def adapt(student: Any) -> Any:
        def validate(self: DynamicTreeParams) -> DynamicTreeParams:
            return dataclasses.replace(original(self), alpha=float(student(self.alpha)))
        return validate

    ex = Exercise(
        name="test-shared-code", title="the prior's alpha", family="determinism",
        tag="[DT-SPEC §3]", anchor=get("rng-uniform").anchor, function_name="alpha",
        skeleton="def alpha(a):\n    raise NotImplementedError\n",
        reference=lambda a: a, cases=lambda: [Case((0.05 * k,), "alpha") for k in range(20)],
        plugs=(Plug("reference.dynatree.params.DynamicTreeParams.validate", adapt),),
        stream=STREAM,
    )
    with plugged(ex.plugs, lambda a: 0.5):
        assert fast.DynamicTreeRegressor(n_particles=2)._params.alpha == 0.5   # shared
    assert fast.DynamicTreeRegressor(n_particles=2)._params.alpha == 0.95
    report = check(ex, lambda a: 0.5 * a)
    assert report.stream_divergence is not None, str(report)
    assert check(ex, lambda a: a).passed

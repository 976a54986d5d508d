"""The mutation harness stays in step with the code (the mutants themselves are opt-in).

Every mutant's edits must match the current sources exactly as often as declared, each
mutant must name an existing oracle test, and applying a mutant must change both a
Python file and a C file (a paired change, invisible to lockstep), or, for a rule in
Python code that both backends run (``shared``), the Python alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _installed import tree_path

from tests.mutation.mutants import MUTANTS, Mutant
from tests.mutation.run import apply_edits

ROOT = Path(__file__).resolve().parents[2]


def test_mutant_ids_are_unique() -> None:
    ids = [m.id for m in MUTANTS]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.id for m in MUTANTS])
def test_mutant_matches_the_sources_and_pairs_python_with_c(mutant: Mutant,
                                                            tmp_path: Path) -> None:
    paths = {path for path, _, _, _ in mutant.edits}
    assert any(p.endswith(".py") for p in paths)
    # a paired change, unless the rule lives in Python that both backends run
    assert any(p.endswith(".c") for p in paths) != bool(mutant.shared)
    for path in paths:
        target = tmp_path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(tree_path(path).read_text(encoding="utf-8"), encoding="utf-8")
    apply_edits(tmp_path, mutant)
    for path in paths:
        assert (tmp_path / path).read_text() != tree_path(path).read_text(), path
    test_file = mutant.killer.split("::")[0]
    assert (ROOT / test_file).is_file()
    if "::" in mutant.killer:
        assert f"def {mutant.killer.split('::')[1]}(" in (ROOT / test_file).read_text()


def test_a_stale_edit_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    stale = Mutant("stale", "", "tests/x.py", (("a.py", "x = 2", "x = 3", 1),))
    with pytest.raises(ValueError, match="0 copies"):
        apply_edits(tmp_path, stale)

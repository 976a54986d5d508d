"""The notice that the C backend was not built: said by the ``driftwood`` command once per
installation (a marker in the user cache; once per process where the cache is read-only),
never where ``fast`` is built, and its slowdown figures the same everywhere they appear."""

from __future__ import annotations

import importlib.util
import io
import re
from pathlib import Path

import pytest

from reference.evaluation.cli import _notice, main
from reference.evaluation.cli.run import SLOWDOWN

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def no_fast(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An installation without the C backend, its user cache in ``tmp_path``."""
    monkeypatch.setattr(_notice, "c_backend_built", lambda: False)
    monkeypatch.setattr(_notice, "_SAID_IN_THIS_PROCESS", False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path


def _words(text: str) -> str:
    return " ".join(text.split())


def test_the_driftwood_command_says_it_once_per_installation(
        no_fast: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tutorial", "list"]) == 0
    err = capsys.readouterr().err
    assert err.count("the C backend (fast) was not built") == 1
    assert _notice.SLOWDOWN_SUMMARY in err and "import fast" in err
    marker = _notice.marker_path()
    assert marker.is_file() and str(no_fast / "cache") in str(marker)
    assert main(["tutorial", "list"]) == 0
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(_notice, "_SAID_IN_THIS_PROCESS", False)   # a new process
    assert main(["tutorial", "list"]) == 0
    assert capsys.readouterr().err == ""                            # the marker remembers
    marker.unlink()                                                 # e.g. another install
    assert main(["tutorial", "list"]) == 0
    assert "was not built" in capsys.readouterr().err


def test_a_read_only_cache_says_it_once_per_process(no_fast: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = no_fast / "a-file"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))       # no folder can be made there
    out = io.StringIO()
    assert _notice.say_once(out) is True
    assert _notice.say_once(out) is False
    assert out.getvalue().count("was not built") == 1
    monkeypatch.setattr(_notice, "_SAID_IN_THIS_PROCESS", False)
    assert _notice.say_once(out) is True                      # nothing could remember it


def test_nothing_is_said_where_fast_is_built(monkeypatch: pytest.MonkeyPatch,
                                             tmp_path: Path) -> None:
    monkeypatch.setattr(_notice, "c_backend_built", lambda: True)
    monkeypatch.setattr(_notice, "_SAID_IN_THIS_PROCESS", False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    out = io.StringIO()
    assert _notice.say_once(out) is False and out.getvalue() == ""
    assert not _notice.marker_path().exists()


def test_the_slowdown_figures_are_one_statement_everywhere() -> None:
    """The summary holds each family's figure of ``driftwood run`` (measured), and the
    README, the teaching page and the build's warning say the same sentence."""
    summary = _notice.SLOWDOWN_SUMMARY
    for model, figure in SLOWDOWN.items():
        assert figure.replace("about ", "") in summary, model
    assert "10-100x" not in summary and "hundreds" not in summary
    for page in ("README.md", "docs/teaching.md"):
        text = _words((ROOT / page).read_text(encoding="utf-8"))
        assert summary in text, page
        assert "hundreds of times" not in text and "10-100x" not in text, page
    script = ROOT / "fast" / "_ffibuild.py"
    if not script.is_file():
        pytest.skip("no fast/_ffibuild.py (tests beside an installed wheel)")
    spec = importlib.util.spec_from_file_location("_ffibuild_notice", script)
    assert spec is not None and spec.loader is not None
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    message = _words(build.skipped_message("no compiler"))
    assert summary in message and not re.search(r"\d+-\d+x", message)

"""``save`` to a file name of any legal length (issue 47, item 7).

The temporary file of an atomic save used to be ``.{name}.{12 hex}.part``, 19 bytes longer
than the target: a legal 240-character name failed with ``OSError [Errno 36] File name too
long`` naming the temporary file. The temporary name is now cut to the directory's limit
(``os.pathconf(..., "PC_NAME_MAX")``), and stays unique and beside the target.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from reference.files import name_limit, temporary_name, write_atomic


def _model(backend: ModuleType) -> object:
    model = backend.SGTRegressor()
    model.partial_fit(np.arange(40.0).reshape(20, 2), np.arange(20.0))
    return model


@pytest.mark.parametrize("extra", [0, -1, -15, -16, -19, -20])
def test_save_to_names_up_to_the_limit(backend: ModuleType, tmp_path: Path,
                                       extra: int) -> None:
    """Names of exactly the limit, one below it and about the temporary suffix below it
    save, atomically (no temporary file left) and load bit for bit."""
    limit = name_limit(tmp_path)
    path = tmp_path / ("m" * (limit + extra))
    model = _model(backend)
    model.save(path)             # type: ignore[attr-defined]
    model.save(path)             # over an existing file too  # type: ignore[attr-defined]
    assert os.listdir(tmp_path) == [path.name]
    assert backend.load(path).snapshot() == model.snapshot()  # type: ignore[attr-defined]


def test_a_240_character_name(backend: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / ("a" * 236 + ".dwm")
    _model(backend).save(path)   # type: ignore[attr-defined]
    assert path.exists()


def test_a_name_past_the_limit_fails_as_open_does(backend: ModuleType,
                                                  tmp_path: Path) -> None:
    """One byte past the limit is the system's error, as for ``open(path, "wb")``."""
    path = tmp_path / ("m" * (name_limit(tmp_path) + 1))
    with pytest.raises(OSError) as err:
        _model(backend).save(path)   # type: ignore[attr-defined]
    with pytest.raises(OSError) as plain:
        open(path, "wb")
    assert err.value.errno == plain.value.errno
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("name", ["m" * 300, "é" * 200, "x", "a.dwm", "日本" * 60])
@pytest.mark.parametrize("limit", [255, 143, 30, 20])
def test_temporary_name_fits_and_stays_distinct(name: str, limit: int) -> None:
    """The temporary name is at most ``limit`` bytes (whole characters kept), starts with
    a dot and the start of the name, and carries its token (so it is unique)."""
    tmp = temporary_name(name, "0123456789ab", limit)
    assert len(os.fsencode(tmp)) <= limit
    assert tmp.startswith(".") and tmp.endswith(".0123456789ab.part")
    stem = tmp[1:-len(".0123456789ab.part")]
    assert name.startswith(stem)
    if len(os.fsencode(f".{name}.0123456789ab.part")) <= limit:
        assert stem == name                          # short names are not cut
    else:                                            # cut by as little as possible
        assert len(os.fsencode(f".{name[:len(stem) + 1]}.0123456789ab.part")) > limit
    other = temporary_name(name, "ba9876543210", limit)
    assert other != tmp


def test_name_limit_follows_the_system(tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    if hasattr(os, "pathconf"):
        assert name_limit(tmp_path) == os.pathconf(tmp_path, "PC_NAME_MAX")
    monkeypatch.delattr(os, "pathconf", raising=False)
    assert name_limit(tmp_path) == 255
    path = tmp_path / ("z" * 255)
    write_atomic(path, b"data")
    assert path.read_bytes() == b"data"

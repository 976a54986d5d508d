"""The data-set registry: shipped copies, checksums, the downloader and the CLI.

The downloader is exercised against a real HTTP server on 127.0.0.1 (a thread running
:mod:`http.server`) that can serve a good file, a file with the wrong content, a truncated
file, a 404, or drop the connection in the middle of the body. Whatever happens, nothing
corrupt is left where the loader looks.
"""

from __future__ import annotations

import gzip
import hashlib
import http.server
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
from _installed import PACKAGE_PARENT

from conftest import require_dataset
from reference.evaluation import registry
from reference.evaluation.cli import main
from reference.evaluation.datasets import load_csv
from reference.evaluation.registry import REGISTRY, DataSet, DataSetNotAvailable

# -- the registry and the shipped copies ---------------------------------------------------


@pytest.mark.parametrize("name", sorted(n for n, d in REGISTRY.items() if d.shipped))
def test_shipped_copy_matches_its_registry_record(name: str) -> None:
    data = REGISTRY[name]
    path = Path(str(resources.files("reference") / "_data" / (name + ".csv.gz")))
    content = gzip.decompress(path.read_bytes())
    assert hashlib.sha256(content).hexdigest() == data.sha256
    X, y = load_csv(name)
    assert X.shape == (data.n_rows, data.n_features)
    if data.n_classes is not None:
        assert sorted(np.unique(y).tolist()) == list(range(data.n_classes))


@pytest.mark.parametrize("name", sorted(n for n, d in REGISTRY.items() if not d.shipped))
def test_fetched_set_matches_its_registry_record(name: str) -> None:
    data = REGISTRY[name]
    X, y = require_dataset(name)
    assert X.shape == (data.n_rows, data.n_features)  # type: ignore[attr-defined]
    assert data.n_classes == len(np.unique(y))  # type: ignore[arg-type]


def test_every_record_has_provenance_licence_and_citation() -> None:
    for data in REGISTRY.values():
        assert data.source and data.licence and data.citation and len(data.sha256) == 64
        assert data.task in ("binary", "multiclass", "regression")
        assert (data.n_classes is None) == (data.task == "regression")
        assert data.shipped or data.url is not None, f"{data.name}: neither shipped nor fetchable"
    shipped_bytes = sum(
        (Path(str(resources.files("reference") / "_data")) / (n + ".csv.gz"))
        .stat().st_size for n, d in REGISTRY.items() if d.shipped
    )
    assert shipped_bytes < 4_000_000, "the wheel should carry a few MB of data at most"


def test_canonical_form_renames_target_and_formats_values() -> None:
    source = "a,b,class\n0.0,0.05644299999999999,1\n1.42074,8.397187,0\n2,3,1\n"
    data = DataSet("toy", "binary", 2, 2, 2, "", "", "", "", "0" * 64, keep_rows=2)
    assert data.convert(source.encode()) == b"a,b,y\n0,0.056443,1\n1.42074,8.397187,0\n"


# -- the downloader against a local HTTP server --------------------------------------------

CANONICAL = b"x1,x2,y\n0.5,1,0\n1.5,2,1\n2.5,3,1\n"
SOURCE = b"x1,x2,class\n0.5,1.0,0\n1.5,2.0,1\n2.5,3.0,1\n"


class _Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # silence the server
        pass

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        if self.path == "/good.csv":
            self._send(SOURCE)
        elif self.path == "/wrong.csv":
            self._send(SOURCE.replace(b"2.5", b"9.5"))
        elif self.path == "/truncated.csv":
            self._send(SOURCE[: len(SOURCE) // 2])
        elif self.path == "/dropped.csv":  # promises the whole body, sends half, hangs up
            self.send_response(200)
            self.send_header("Content-Length", str(len(SOURCE)))
            self.end_headers()
            self.wfile.write(SOURCE[: len(SOURCE) // 2])
            self.wfile.flush()
            self.close_connection = True
        else:
            self.send_error(404)

    def _send(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture()
def server() -> Iterator[str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture()
def toy(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> DataSet:
    data = DataSet(
        "toy_stream", "binary", 3, 2, 2, "test set", "test server", "CC0", "none",
        hashlib.sha256(CANONICAL).hexdigest(), url="http://127.0.0.1:1/unused",
        url_sha256=hashlib.sha256(SOURCE).hexdigest(),
    )
    monkeypatch.setitem(REGISTRY, data.name, data)
    monkeypatch.setenv("DRIFTWOOD_DATA", str(tmp_path / "cache"))
    return data


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.rglob("*")) if directory.exists() else []


def test_download_good_file_is_converted_checked_and_installed(
    toy: DataSet, server: str, tmp_path: Path
) -> None:
    path = registry.fetch(toy.name, url=server + "/good.csv", progress=False)
    assert path == tmp_path / "cache" / "toy_stream.csv"
    assert path.read_bytes() == CANONICAL
    assert _leftovers(tmp_path / "cache") == ["toy_stream.csv"]
    X, y = load_csv("toy_stream")
    assert X.tolist() == [[0.5, 1], [1.5, 2], [2.5, 3]] and y.tolist() == [0, 1, 1]


def test_cli_download_shows_progress_off_a_terminal(
    toy: DataSet, server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["data", "fetch", toy.name, "--url", server + "/good.csv"]) == 0
    out, err = capsys.readouterr()
    assert out.strip() == str(tmp_path / "cache" / "toy_stream.csv")
    assert err.splitlines()[-1].startswith("[download good.csv] 1/1 kB, ")
    assert main(["data", "fetch", toy.name, "--url", server + "/good.csv"]) == 0
    assert "[download" not in capsys.readouterr().err  # already there: nothing downloaded


@pytest.mark.parametrize(
    ("route", "error"),
    [
        ("/wrong.csv", ValueError),            # a different file: the source hash differs
        ("/truncated.csv", ValueError),        # a complete response of a truncated file
        ("/missing.csv", DataSetNotAvailable),  # 404
        ("/dropped.csv", DataSetNotAvailable),  # the server hangs up mid-body
    ],
)
def test_failed_download_leaves_nothing_behind(
    toy: DataSet, server: str, tmp_path: Path, route: str, error: type[Exception]
) -> None:
    with pytest.raises(error):
        registry.fetch(toy.name, url=server + route, progress=False)
    assert _leftovers(tmp_path / "cache") == []
    with pytest.raises(DataSetNotAvailable, match="driftwood data fetch toy_stream"):
        load_csv("toy_stream")


def test_wrong_canonical_checksum_writes_nothing(
    toy: DataSet, server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(REGISTRY, toy.name, DataSet(**{**toy.__dict__, "url_sha256": None,
                                                         "sha256": "1" * 64}))
    with pytest.raises(ValueError, match="canonical"):
        registry.fetch(toy.name, url=server + "/good.csv", progress=False)
    assert _leftovers(tmp_path / "cache") == []


def test_offline_error_names_the_set_the_url_and_the_command(
    toy: DataSet, tmp_path: Path
) -> None:
    with pytest.raises(DataSetNotAvailable) as info:
        registry.fetch(toy.name, progress=False)  # port 1: nothing listens
    assert "http://127.0.0.1:1/unused" in str(info.value)
    with pytest.raises(DataSetNotAvailable) as info:
        load_csv("toy_stream")
    message = str(info.value)
    assert "toy_stream" in message and toy.url in message  # type: ignore[operator]
    assert "driftwood data fetch toy_stream" in message


def test_corrupt_cached_copy_is_never_used(toy: DataSet, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "toy_stream.csv").write_bytes(CANONICAL.replace(b"0.5", b"0.6"))
    with pytest.raises(DataSetNotAvailable, match="not the registered"):
        load_csv("toy_stream")


def test_install_from_a_local_copy(toy: DataSet, tmp_path: Path) -> None:
    source = tmp_path / "download.csv"
    source.write_bytes(SOURCE)  # the source form is converted, then checked
    assert registry.fetch(toy.name, source).read_bytes() == CANONICAL
    source.write_bytes(b"x1,x2,y\n1,1,1\n")
    (tmp_path / "cache" / "toy_stream.csv").unlink()
    with pytest.raises(ValueError, match="SHA-256"):
        registry.fetch(toy.name, source)
    assert _leftovers(tmp_path / "cache") == []


# -- the command line ----------------------------------------------------------------------


def test_cli_data_list_shows_every_set_with_licence_and_status(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("DRIFTWOOD_DATA", str(tmp_path))
    assert main(["data", "list"]) == 0
    out = capsys.readouterr().out
    for name, data in REGISTRY.items():
        line = next(row for row in out.splitlines() if row.startswith(name + " "))
        assert data.licence in line
        assert ("shipped" if data.shipped else "missing") in line


def test_cli_data_path_and_fetch(
    capsys: pytest.CaptureFixture[str], toy: DataSet, tmp_path: Path
) -> None:
    assert main(["data", "path", "mcycle"]) == 0
    assert capsys.readouterr().out.strip().endswith("mcycle.csv.gz")
    assert main(["data", "path", "toy_stream"]) == 2
    assert "driftwood data fetch toy_stream" in capsys.readouterr().err
    source = tmp_path / "copy.csv"
    source.write_bytes(CANONICAL)
    assert main(["data", "fetch", "toy_stream", "--from", str(source)]) == 0
    assert Path(capsys.readouterr().out.strip()).read_bytes() == CANONICAL
    assert main(["data", "fetch", "no_such_set"]) == 2


# -- the CI switch ---------------------------------------------------------------------------


def test_require_data_turns_a_missing_set_from_skip_into_failure(tmp_path: Path) -> None:
    test_file = tmp_path / "test_needs_data.py"
    test_file.write_text(textwrap.dedent("""
        from conftest import require_dataset

        def test_needs_covtype():
            require_dataset("covtype_50k")
    """))
    tests_dir = Path(__file__).resolve().parents[1]
    env = {**os.environ, "DRIFTWOOD_DATA": str(tmp_path / "empty"),
           "PYTHONPATH": os.pathsep.join([str(tests_dir), str(PACKAGE_PARENT)])}
    env.pop("REQUIRE_DATA", None)
    command = [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
               "--rootdir", str(tmp_path), str(test_file)]
    run = subprocess.run(command, env=env, capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 skipped" in run.stdout and "covtype_50k" in run.stdout
    run = subprocess.run(command, env={**env, "REQUIRE_DATA": "1"}, capture_output=True,
                         text=True, cwd=tmp_path)
    assert run.returncode == 1 and "1 failed" in run.stdout, run.stdout


def test_docs_page_lists_every_set_with_its_licence() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "data.md").read_text()
    for name, data in REGISTRY.items():
        row = next(line for line in page.splitlines() if line.startswith(f"| `{name}` |"))
        assert data.licence in row and f"{data.n_rows:,}" in row

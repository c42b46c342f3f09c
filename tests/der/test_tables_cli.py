"""``gridwire tables build|fetch|demo`` and where maps are installed and looked for.

``fetch`` is tested against a local HTTP server on a free port serving archives laid out as
IEEE's download is (a zip of the standard's downloads holding the workbook), and against a port
nothing listens on, which must fail in one clear line as an offline machine does.
"""

from __future__ import annotations

import io
import subprocess
import sys
import threading
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridwire.cli import main
from gridwire.der.demo import demo_map
from gridwire.der.errors import FetchError, MapError
from gridwire.der.fetch import download, fetch_tables, find_workbook
from gridwire.der.mapfile import load_map, save_map
from gridwire.der.store import default_tables_path, installed_tables, load_point_map
from gridwire.der.workbook import read_workbook_bytes
from tests.der.workbooks import workbook_bytes, write_workbook
from tests.support.net import free_port


def zipped(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return out.getvalue()


WORKBOOK = workbook_bytes()
ROUTES: dict[str, tuple[int, bytes]] = {
    # Laid out as a standard's downloads usually are: a folder, a readme, the workbook.
    "/downloads.zip": (
        200,
        zipped(
            {
                "1815.2_downloads/readme.txt": b"Point tables for the standard.",
                "__MACOSX/1815.2_downloads/._tables.xlsx": b"resource fork",
                "1815.2_downloads/tables.xlsx": WORKBOOK,
            }
        ),
    ),
    "/nested.zip": (200, zipped({"outer/inner.zip": zipped({"tables.xlsx": WORKBOOK})})),
    "/tables.xlsx": (200, WORKBOOK),
    "/nothing.zip": (200, zipped({"readme.txt": b"no workbook"})),
    "/wrong.zip": (200, zipped({"other.xlsx": workbook_bytes(drop=["Key"])})),
    "/page.html": (200, b"<html>not here</html>"),
}


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        status, body = ROUTES.get(self.path, (404, b"not found"))
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", free_port()), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    return tmp_path


def test_default_paths_and_precedence(home: Path) -> None:
    assert default_tables_path() == home / ".gridwire" / "ieee1815.2-tables.json"
    assert installed_tables() is None
    assert load_point_map() is demo_map()
    installed = read_workbook_bytes(WORKBOOK, "tables.xlsx").point_map
    save_map(installed, default_tables_path())
    assert installed_tables() == default_tables_path()
    assert load_point_map().title == installed.title
    explicit = home / "mine.json"
    save_map(demo_map(), explicit)
    assert load_point_map(explicit).demo
    assert load_point_map(str(explicit)).demo  # a path as text, as the docs show it
    with pytest.raises(MapError, match="cannot read it"):
        load_point_map(home / "absent.json")


def test_build_installs_under_home(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    workbook = write_workbook(home / "tables.xlsx")
    assert main(["tables", "build", str(workbook)]) == 0
    out = capsys.readouterr().out
    assert f"wrote {default_tables_path()}: IEEE 1815.2 tables (tables.xlsx): 41 points" in out
    assert "keep this file to yourself" in out
    assert len(load_map(default_tables_path())) == 41


def test_build_reports_warnings_and_errors(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dangling = home / "dangling.xlsx"
    dangling.write_bytes(workbook_bytes({"BO": {(4, 6): "BI77"}}))
    assert main(["tables", "build", str(dangling), "--out", str(home / "m.json")]) == 0
    assert "gridwire tables: warning: BO0 (sheet BO, row 4) is associated with BI77" in (
        capsys.readouterr().err
    )
    broken = home / "broken.xlsx"
    broken.write_bytes(workbook_bytes({"AO": {(4, 1): "AI0"}}))
    assert main(["tables", "build", str(broken)]) == 2
    assert capsys.readouterr().err == (
        "gridwire tables: broken.xlsx: sheet AO, row 4, cell A4: 'AI0' is a AI index where a AO "
        "index belongs\n"
    )


@pytest.mark.parametrize("route", ["/downloads.zip", "/nested.zip", "/tables.xlsx"])
def test_fetch_finds_the_workbook(
    server: str, route: str, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = home / "fetched.json"
    assert main(["tables", "fetch", "--url", server + route, "--out", str(out)]) == 0
    assert "41 points" in capsys.readouterr().out
    assert load_map(out).function("frobnication") is not None


@pytest.mark.parametrize(
    ("route", "message"),
    [
        ("/missing.zip", r"/missing\.zip answered 404 Not Found$"),
        ("/nothing.zip", r"^nothing\.zip holds no \.xlsx workbook$"),
        (
            "/wrong.zip",
            r"^wrong\.zip holds no IEEE 1815\.2 point workbook \(other\.xlsx: the "
            r"workbook has no sheet Key",
        ),
        ("/page.html", r"^page\.html is neither a workbook nor a zip archive$"),
    ],
)
def test_fetch_says_what_it_found(server: str, route: str, message: str) -> None:
    with pytest.raises(FetchError, match=message):
        fetch_tables(server + route, timeout=10)


def test_fetch_offline_fails_in_one_clear_line(home: Path) -> None:
    # Nothing listens on this port, as nothing answers an offline machine.
    url = f"http://127.0.0.1:{free_port()}/1815.2_downloads.zip"
    done = subprocess.run(
        [sys.executable, "-m", "gridwire", "tables", "fetch", "--url", url, "--timeout", "10"],
        capture_output=True,
        text=True,
        timeout=120,
        env={"HOME": str(home), "PATH": ""},
    )
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("gridwire tables: cannot reach 127.0.0.1 (")
    assert lines[0].endswith("download it elsewhere and run: gridwire tables build WORKBOOK.xlsx")
    assert not (home / ".gridwire").exists()


def test_download_refuses_other_schemes() -> None:
    with pytest.raises(FetchError, match=r"'ftp://example/x' is not an http or https address"):
        download("ftp://example/x")


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_a_damaged_archive_is_a_fetch_error(data: st.DataObject) -> None:
    archive = bytearray(ROUTES["/downloads.zip"][1])
    for _ in range(data.draw(st.integers(1, 8))):
        archive[data.draw(st.integers(0, len(archive) - 1))] = data.draw(st.integers(0, 255))
    try:
        result = find_workbook(bytes(archive), "damaged.zip")
    except FetchError:
        return
    assert len(result.point_map) > 0


def test_demo_writes_the_json_map(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tables", "demo"]) == 0
    assert '"format": "gridwire.der-map"' in capsys.readouterr().out
    out = home / "demo.json"
    assert main(["tables", "demo", "--out", str(out)]) == 0
    assert load_map(out).points == demo_map().points


def test_output_to_a_reader_that_went_away_ends_quietly(home: Path) -> None:
    # `gridwire tables demo | head -c 0`: the pipe is closed before the first write.
    process = subprocess.Popen(
        [sys.executable, "-m", "gridwire", "tables", "demo"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={"HOME": str(home), "PATH": ""},
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    errors = process.stderr.read()
    process.stderr.close()
    assert process.wait(timeout=60) == 141  # as a shell reports SIGPIPE
    assert errors == b""  # no traceback


def test_an_archive_entry_with_an_empty_name_is_a_fetch_error() -> None:
    # zipfile itself raises IndexError on a member whose name is empty (ZipInfo.is_dir reads
    # filename[-1]); found by the property test above on a clean clone. It must come out as
    # our FetchError, never as Python's IndexError.
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("x", b"data")
    damaged = bytearray(buffer.getvalue())
    central = damaged.index(b"PK\x01\x02")  # the central directory entry of "x"
    damaged[central + 28 : central + 30] = b"\x00\x00"  # its file name length: 1 -> 0
    del damaged[central + 46]  # the name itself ("x"), so the directory stays consistent
    end = damaged.index(b"PK\x05\x06")  # end of central directory: its size is one less
    size = int.from_bytes(damaged[end + 12 : end + 16], "little") - 1
    damaged[end + 12 : end + 16] = size.to_bytes(4, "little")
    with pytest.raises(FetchError, match="damaged zip archive"):
        find_workbook(bytes(damaged), "empty-name.zip")


def test_a_damaged_workbook_given_directly_is_a_fetch_error() -> None:
    # A download that is itself a workbook (not an archive around one), with its workbook
    # part damaged: fetch reports it as a FetchError naming the file, not a WorkbookError.
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("[Content_Types].xml", b"<Types/>")
        archive.writestr("xl/workbook.xml", b"not xml at all")
    with pytest.raises(FetchError, match=r"direct\.xlsx"):
        find_workbook(buffer.getvalue(), "direct.xlsx")

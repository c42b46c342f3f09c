"""``gridwire document FILE.xml [--html OUT]``: the layout as JSON, or as a standalone
printable page (read back here with the standard library's HTML parser): a table of contents
whose links all land, a head on every table repeated on each printed page, rows never split,
no script, nothing fetched, and the document's text escaped."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import orjson

from gridwire.devprofile.html import render_html
from gridwire.devprofile.layout import lay_out
from gridwire.devprofile.reader import read_document, read_document_file
from tests.devprofile.documents import LARGEST, document, shared_document


class Page(HTMLParser):
    """What a page holds: its tags in order, ids, links, text, and the style sheet."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.sources: list[str] = []
        self.style = ""
        self.text: list[str] = []
        self._in_style = False
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(str(values["id"]))
        if tag == "a" and values.get("href"):
            self.links.append(str(values["href"]))
        for name in ("src", "srcset"):
            if values.get(name):
                self.sources.append(str(values[name]))
        if tag == "link":
            self.sources.append(str(values.get("href")))
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.style += data
        else:
            self.text.append(data)


def test_the_page_of_the_largest_shared_document() -> None:
    layout = lay_out(read_document_file(shared_document(LARGEST)))
    page = Page(render_html(layout))
    assert "script" not in page.tags
    assert page.sources == []  # nothing is fetched from elsewhere
    assert all(link.startswith("#") for link in page.links)
    assert {link[1:] for link in page.links} <= page.ids
    tables = sum(len(s.tables) for s in layout.sections)
    assert len(page.links) == 1 + len(layout.sections) + tables  # facts, sections, tables
    with_rows = sum(1 for s in layout.sections for t in s.tables if t.rows)
    assert page.tags.count("thead") == with_rows
    assert page.tags.count("table") == with_rows + 1  # and the facts
    rows = sum(len(t.rows) for s in layout.sections for t in s.tables)
    assert page.tags.count("tr") == rows + with_rows + len(layout.facts)
    style = " ".join(page.style.split())
    assert "thead { display: table-header-group; }" in style
    assert "tr, th, td { break-inside: avoid; page-break-inside: avoid; }" in style
    text = "".join(page.text)
    assert "1 READ\n0x00 8-bit start-stop" in text and "Step Function I/O, LLC" in page.text


def test_text_is_escaped_not_interpreted() -> None:
    hostile = document(
        "<documentHeader><documentName>&lt;script&gt;alert(1)&lt;/script&gt;</documentName>"
        "</documentHeader><referenceDevice><x><y>&lt;img src=x onerror=alert(2)&gt;</y></x>"
        "</referenceDevice>"
    )
    html = render_html(lay_out(read_document(hostile)))
    page = Page(html)
    assert "script" not in page.tags and "img" not in page.tags
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script>alert(1)</script>" in page.text


def gridwire(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gridwire", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_command_prints_the_layout_and_writes_the_page(tmp_path: Path) -> None:
    path = shared_document("2.08")
    printed = gridwire("document", str(path))
    assert printed.returncode == 0, printed.stderr
    expected = dataclasses.asdict(lay_out(read_document_file(path)))
    assert orjson.loads(printed.stdout) == expected
    out = tmp_path / "profile.html"
    written = gridwire("document", str(path), "--html", str(out))
    assert written.returncode == 0, written.stderr
    assert written.stdout.startswith(f"wrote {out}: Opendnp3 profile (6 sections, ")
    assert out.read_text(encoding="utf-8") == render_html(lay_out(read_document_file(path)))


def test_the_command_refuses_a_document_naming_the_rule(tmp_path: Path) -> None:
    path = tmp_path / "laughs.xml"
    path.write_text('<!DOCTYPE DNP3DeviceProfileDocument [<!ENTITY a "a">]><r/>')
    refused = gridwire("document", str(path), "--html", str(tmp_path / "out.html"))
    assert refused.returncode == 2
    assert refused.stderr.strip() == (
        f"gridwire document: Device Profile document {path} refused: it declares a document "
        "type (DTD); a Device Profile may not"
    )
    assert not (tmp_path / "out.html").exists()

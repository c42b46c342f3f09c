"""The Files tab against gridwire's outstation serving a directory (IEEE 1815 group 70): two
services on one loop in a thread, a read-only one and one with --allow-control, each with its
own outstation serving the same directory. What the page shows is checked against the files
on disk (os.stat, hashlib), not against what the service said."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from gridwire.outstation.config import OutstationConfig
from gridwire.outstation.database_file import default_database
from gridwire.outstation.generic import GenericDevice
from gridwire.outstation.server import OutstationServer
from tests.console.browser import Watched
from tests.console.pages import WAIT_MS
from tests.console.site import on_its_own_loop
from tests.service.harness import outstation, running_service

if TYPE_CHECKING:
    from playwright.sync_api import Page

NOTES = "set point 5000 W\nramp 10 %/s\nnaïve ünïcode line\n".encode()
BLOB = bytes([0xFF, 0xFE, 0x00, 0x01]) + bytes(range(256)) * 2  # not UTF-8
EVENTS = b"2026-11-28 boot\n"


@dataclass
class FilesSite:
    folder: Path
    read_only: str
    control: str


@contextlib.contextmanager
def files_site() -> Iterator[FilesSite]:
    temporary = tempfile.TemporaryDirectory(prefix="gridwire-files-tab-")
    folder = Path(temporary.name)
    (folder / "notes.txt").write_bytes(NOTES)
    (folder / "blob.bin").write_bytes(BLOB)
    (folder / "logs").mkdir()
    (folder / "logs" / "events.log").write_bytes(EVENTS)

    async def make(loop: asyncio.AbstractEventLoop, stack: contextlib.AsyncExitStack) -> FilesSite:
        config = OutstationConfig(files=folder, files_writable=True)
        urls = []
        for allow in (False, True):
            server = OutstationServer(
                GenericDevice(default_database()), config=config, host="127.0.0.1", port=0
            )
            await server.start()
            stack.push_async_callback(server.close)
            running = await stack.enter_async_context(
                running_service(allow_control=allow, outstations=[outstation(server.port, "rtu")])
            )
            urls.append(running.base_url + "/")
        return FilesSite(folder, urls[0], urls[1])

    try:
        with on_its_own_loop("files site", make) as site:
            yield site
    finally:
        temporary.cleanup()


@pytest.fixture(scope="module")
def site() -> Iterator[FilesSite]:
    with files_site() as running:
        yield running


def open_files(watched: Watched, url: str) -> Page:
    page = watched.page
    page.goto(f"{url}#/rtu/files")
    page.wait_for_selector(".stream .lamp.on", timeout=WAIT_MS)
    page.wait_for_selector("#tab-files:not([hidden])", timeout=WAIT_MS)
    page.wait_for_selector(".pane-files .file-write .card", timeout=WAIT_MS)
    return page


def list_dir(page: Page, path: str) -> dict[str, str]:
    page.fill(".pane-files input[name='path']", path)
    page.click(".pane-files button:text-is('List')")
    page.wait_for_selector(f".pane-files .toolbar .msg.ok:has-text('{path}:')", timeout=WAIT_MS)
    rows = page.locator(".pane-files table.files tbody tr[data-name]")
    return {
        rows.nth(i).get_attribute("data-name") or "": rows.nth(i).locator("td.size").inner_text()
        for i in range(rows.count())
    }


def row(page: Page, name: str) -> Any:
    return page.locator(f".pane-files table.files tr[data-name='{name}']")


def test_a_read_only_console_lists_reads_and_saves_but_offers_no_write(
    watched: Watched, site: FilesSite
) -> None:
    page = open_files(watched, site.read_only)
    assert page.locator(".pane-files .no-control").is_visible()
    listed = list_dir(page, "/")
    assert listed == {"blob.bin": str(len(BLOB)), "logs": "", "notes.txt": str(len(NOTES))}
    assert (
        page.locator(
            ".pane-files input[type='file'], .pane-files [data-op='file.write'], .pane-files [data-op='file.delete']"
        ).count()
        == 0
    )
    assert row(page, "notes.txt").locator("td.mode").inner_text() == "rw-r--r--"

    row(page, "logs").locator("button.link").click()
    page.wait_for_selector(".pane-files tr[data-name='events.log']", timeout=WAIT_MS)
    assert row(page, "events.log").locator("td.size").inner_text() == str(len(EVENTS))
    assert page.input_value(".pane-files input[name='path']") == "/logs"
    page.click(".pane-files table.files button.link:text-is('..')")
    page.wait_for_selector(".pane-files tr[data-name='notes.txt']", timeout=WAIT_MS)

    row(page, "notes.txt").locator("button:text-is('Read')").click()
    card = page.locator(".pane-files .file-read .card")
    card.locator("pre.file-preview.text").wait_for(timeout=WAIT_MS)
    assert card.locator("pre.file-preview").text_content() == NOTES.decode()
    assert (
        card.locator(".sha256").inner_text()
        == hashlib.sha256((site.folder / "notes.txt").read_bytes()).hexdigest()
    )
    assert card.locator(".file-size").inner_text() == f"{len(NOTES)} octets"
    with page.expect_download() as download:
        card.locator("a.save").click()
    saved = download.value
    assert saved.suggested_filename == "notes.txt"
    assert Path(saved.path()).read_bytes() == NOTES
    watched.shot("files-read-only-text")

    row(page, "blob.bin").locator("button:text-is('Read')").click()
    card.locator("pre.file-preview.hex").wait_for(timeout=WAIT_MS)
    first = card.locator("pre.file-preview").inner_text().splitlines()[0]
    assert first.startswith("000000  ff fe 00 01 00 01 02 03 04 05 06 07 08 09 0a 0b")
    assert card.locator(".sha256").inner_text() == hashlib.sha256(BLOB).hexdigest()
    assert "not UTF-8: the first 512 octets" in card.inner_text()
    watched.shot("files-read-only-hex")
    watched.assert_clean()


def test_with_control_a_write_is_listed_a_delete_removes_it_and_a_failure_reads_as_one(
    watched: Watched, site: FilesSite
) -> None:
    page = open_files(watched, site.control)
    list_dir(page, "/")
    written = b"gridwire wrote this\n" * 70  # two blocks of 1024
    page.set_input_files(
        ".pane-files input[type='file']",
        files=[{"name": "new.txt", "mimeType": "text/plain", "buffer": written}],
    )
    page.click(".pane-files button[data-op='file.write']")
    page.wait_for_selector(".pane-files .file-write .msg.ok:has-text('wrote')", timeout=WAIT_MS)
    row(page, "new.txt").wait_for(timeout=WAIT_MS)
    assert row(page, "new.txt").locator("td.size").inner_text() == str(len(written))
    assert (site.folder / "new.txt").read_bytes() == written
    watched.shot("files-control-written")

    page.once("dialog", lambda dialog: dialog.accept())
    row(page, "new.txt").locator("button[data-op='file.delete']").click()
    row(page, "new.txt").wait_for(state="detached", timeout=WAIT_MS)
    assert not (site.folder / "new.txt").exists()

    (site.folder / "gone.txt").write_bytes(b"x")
    list_dir(page, "/")
    (site.folder / "gone.txt").unlink()  # listed, then gone: the outstation answers FILE_NOT_FOUND
    row(page, "gone.txt").locator("button:text-is('Read')").click()
    refused = row(page, "gone.txt").locator(".msg.error")
    refused.wait_for(timeout=WAIT_MS)
    assert "not complete" in refused.inner_text() and "FILE_NOT_FOUND" in refused.inner_text()
    watched.shot("files-control-not-found")
    watched.assert_clean()
